import { expect } from 'chai';
import { ANN } from '../../../../reference/constants.js';
import { machineOSBuildName, osImageInputsFor, withTag, repositoryOf } from '../../../../reference/mco/image-mode/build-name.js';
import { buildImagesFor, needsNewImage, requiresRebuild } from '../../../../reference/mco/image-mode/decisions.js';
import { MCO_4_18, MCO_4_19, MCO_4_20, MCO_4_21, MCO_4_22, MCO_4_13 } from '../../../../reference/profiles/mco-code.js';
import type { MachineConfig, MachineConfigPool } from '../../../../reference/mco/types.js';
import type { MachineOSConfig } from '../../../../reference/mco/image-mode/types.js';

const mosc = (content = 'FROM configs AS final\nRUN echo hi'): MachineOSConfig => ({
  apiVersion: 'machineconfiguration.openshift.io/v1',
  kind: 'MachineOSConfig',
  metadata: { name: 'layered' },
  spec: {
    machineConfigPool: { name: 'layered' },
    imageBuilder: { imageBuilderType: 'Job' },
    renderedImagePushSecret: { name: 'push' },
    renderedImagePushSpec: '127.0.0.1:5000/ocp-e2e/os-image:latest',
    containerFile: [{ containerfileArch: 'NoArch', content }],
  },
});
const pool = (rendered: string): MachineConfigPool => ({ metadata: { name: 'layered' }, spec: { configuration: { name: rendered, source: [{ kind: 'MachineConfig', name: '00-worker' }] } } });
const mc = (name: string, spec: MachineConfig['spec'], release = '4.22.0'): MachineConfig => ({ metadata: { name, annotations: { [ANN.releaseImageVersion]: release } }, spec });
const CM = { baseOSContainerImage: 'r/os@sha256:1', baseOSExtensionsContainerImage: 'r/ext@sha256:2', osImageURL: '', releaseVersion: '4.20.0' };

describe('image mode: MachineOSBuild names', () => {
  const inputs = osImageInputsFor(MCO_4_20.build!, { osImageUrlConfigMap: CM })!;

  it('is <mosc>-<md5>, stable for the same inputs', () => {
    const name = machineOSBuildName(mosc(), pool('rendered-layered-a'), inputs);
    expect(name).to.match(/^layered-[0-9a-f]{32}$/);
    expect(machineOSBuildName(mosc(), pool('rendered-layered-a'), { ...inputs })).to.equal(name);
  });

  it('changes with the rendered config, the MachineOSConfig spec and the osimageurl ConfigMap (4.20)', () => {
    const name = machineOSBuildName(mosc(), pool('rendered-layered-a'), inputs);
    expect(machineOSBuildName(mosc(), pool('rendered-layered-b'), inputs)).to.not.equal(name);
    expect(machineOSBuildName(mosc('FROM configs AS final\nRUN echo other'), pool('rendered-layered-a'), inputs)).to.not.equal(name);
    const upgraded = osImageInputsFor(MCO_4_20.build!, { osImageUrlConfigMap: { ...CM, baseOSContainerImage: 'r/os@sha256:3', releaseVersion: '4.21.0' } })!;
    expect(machineOSBuildName(mosc(), pool('rendered-layered-a'), upgraded)).to.not.equal(name);
    // keys the ConfigMap has beside the four do not count (GetOSImageURLConfig reads only those)
    const extra = osImageInputsFor(MCO_4_20.build!, { osImageUrlConfigMap: { ...CM, other: 'x' } })!;
    expect(machineOSBuildName(mosc(), pool('rendered-layered-a'), extra)).to.equal(name);
  });

  it('4.22: takes the OS-image part from the rendered config, not the ConfigMap', () => {
    const rendered = mc('rendered-layered-a', { osImageURL: 'r/os@sha256:9', baseOSExtensionsContainerImage: 'r/ext@sha256:8' });
    const a = osImageInputsFor(MCO_4_22.build!, { osImageUrlConfigMap: CM, renderedConfig: rendered })!;
    const b = osImageInputsFor(MCO_4_22.build!, { osImageUrlConfigMap: { ...CM, baseOSContainerImage: 'changed' }, renderedConfig: rendered })!;
    expect(a).to.deep.equal({ baseOSContainerImage: 'r/os@sha256:9', baseOSExtensionsContainerImage: 'r/ext@sha256:8', osImageURL: '', releaseVersion: '4.22.0' });
    expect(machineOSBuildName(mosc(), pool('rendered-layered-a'), a)).to.equal(machineOSBuildName(mosc(), pool('rendered-layered-a'), b));
  });

  it('refuses a pool that is not the MachineOSConfig\'s', () => {
    const other: MachineConfigPool = { ...pool('x'), metadata: { name: 'worker' } };
    expect(() => machineOSBuildName(mosc(), other, inputs)).to.throw('name mismatch, MachineConfigPool has "worker", MachineOSConfig has "layered"');
  });

  it('replaces the push spec\'s tag by the build name', () => {
    expect(withTag('127.0.0.1:5000/ocp-e2e/os-image:latest', 'layered-abc')).to.equal('127.0.0.1:5000/ocp-e2e/os-image:layered-abc');
    expect(withTag('image-registry.openshift-image-registry.svc:5000/openshift/os-image:v1', 't')).to.equal('image-registry.openshift-image-registry.svc:5000/openshift/os-image:t');
    expect(repositoryOf('127.0.0.1:5000/a/b:tag')).to.equal('127.0.0.1:5000/a/b');
  });
});

describe('image mode: when a new rendered config builds', () => {
  const before = mc('rendered-layered-a', { osImageURL: 'os1', kernelArguments: ['a=1'], extensions: [] });
  const fileOnly = mc('rendered-layered-b', { osImageURL: 'os1', kernelArguments: ['a=1'], extensions: [] });
  const newOs = mc('rendered-layered-c', { osImageURL: 'os2', kernelArguments: ['a=1'], extensions: [] });

  it('RequiresRebuild: osImageURL, kernelType, extensions, kernel arguments', () => {
    expect(requiresRebuild(before, fileOnly)).to.equal(false);
    expect(requiresRebuild(before, newOs)).to.equal(true);
    expect(requiresRebuild(before, mc('x', { ...before.spec, kernelType: 'realtime' }))).to.equal(true);
    expect(requiresRebuild(before, mc('x', { ...before.spec, extensions: ['usbguard'] }))).to.equal(true);
    expect(requiresRebuild(before, mc('x', { ...before.spec, kernelArguments: ['a=2'] }))).to.equal(true);
  });

  it('4.18 and 4.19 build for any new rendered config; 4.20+ reuse the image when only files changed', () => {
    expect(needsNewImage(MCO_4_18.build!, before, fileOnly)).to.equal(true);
    expect(needsNewImage(MCO_4_19.build!, before, fileOnly)).to.equal(true);
    for (const code of [MCO_4_20, MCO_4_21, MCO_4_22]) {
      expect(needsNewImage(code.build!, before, fileOnly)).to.equal(false);
      expect(needsNewImage(code.build!, before, newOs)).to.equal(true);
    }
  });

  it('no image mode before 4.18', () => {
    expect(MCO_4_13.build).to.equal(undefined);
  });

  it('the base: the ConfigMap up to 4.21, the rendered osImageURL on 4.22', () => {
    const overridden = mc('rendered-layered-d', { osImageURL: 'quay.io/custom/os:1', baseOSExtensionsContainerImage: 'r/ext@sha256:2' });
    expect(buildImagesFor(MCO_4_21.build!, CM, overridden)).to.deep.equal({ baseOSImage: 'r/os@sha256:1', extensionsImage: 'r/ext@sha256:2' });
    expect(buildImagesFor(MCO_4_22.build!, CM, overridden)).to.deep.equal({ baseOSImage: 'quay.io/custom/os:1', extensionsImage: 'r/ext@sha256:2' });
  });
});
