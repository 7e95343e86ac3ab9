import { expect } from 'chai';
import { ANN } from '../../../reference/constants.js';
import { getProfile } from '../../../reference/profiles.js';
import { generateRenderedMachineConfig, mergeMachineConfigs, renderedName } from '../../../reference/mco/render.js';
import type { ControllerConfig, MachineConfig, MachineConfigPool } from '../../../reference/mco/types.js';
import { mcoBuildFor } from '../../../reference/mco/version.js';

const file = (path: string, data: string) => ({ path, contents: { source: `data:,${data}` } });
const mc = (name: string, spec: MachineConfig['spec'] = {}): MachineConfig => ({ metadata: { name }, spec });
const cc: ControllerConfig = {
  metadata: { name: 'machine-config-controller', annotations: { [ANN.releaseImageVersion]: 'rv' } },
  spec: { osImageURL: 'reg/moc@sha256:aa', baseOSContainerImage: 'reg/rhcos@sha256:bb', releaseImage: 'reg/release:rv' },
};
const pool: MachineConfigPool = {
  metadata: { name: 'master', uid: 'u1' },
  spec: { machineConfigSelector: { matchLabels: { 'machineconfiguration.openshift.io/role': 'master' } } },
};
const templates = [
  mc('00-master', { osImageURL: 'reg/rhcos@sha256:bb', config: { ignition: { version: '3.2.0' }, storage: { files: [file('/etc/a', '1')] } } }),
  mc('01-master-kubelet', { osImageURL: 'reg/rhcos@sha256:bb', config: { ignition: { version: '3.2.0' }, storage: { files: [file('/etc/a', '2')] } } }),
  mc('99-master-ssh', { config: { ignition: { version: '3.2.0' }, passwd: { users: [{ name: 'core', sshAuthorizedKeys: ['k'] }] } } }),
];

describe('reference render: merge and name (spec §3)', () => {
  it('merges in byte-wise name order; later files win; the last non-empty osImageURL wins', () => {
    const merged = mergeMachineConfigs([mc('tc-54183-x', { osImageURL: 'custom' }), ...templates], {
      defaultOsImageURL: 'default',
      includeExtensionsImage: false,
    });
    expect(merged.sources.map((s) => s.name)).to.deep.equal(['00-master', '01-master-kubelet', '99-master-ssh', 'tc-54183-x']);
    expect(merged.spec.osImageURL).to.equal('custom');
    expect(merged.spec.config!.storage!.files).to.deep.equal([file('/etc/a', '2')]);
    expect(merged.spec.kernelType).to.equal('default');
    // upstream prints empty lists, never null: the MD5 of the rendered name depends on it
    expect(merged.spec.kernelArguments).to.deep.equal([]);
    expect(merged.spec.extensions).to.deep.equal([]);
  });
  it('an override named before 01-<role>-kubelet loses to the template (00-test-cluster-master-0 beats 00-test-cluster-master)', () => {
    const early = mergeMachineConfigs([mc('00-aaa', { osImageURL: 'custom' }), ...templates], { defaultOsImageURL: 'd', includeExtensionsImage: false });
    expect(early.spec.osImageURL).to.equal('reg/rhcos@sha256:bb');
    const upstream = mergeMachineConfigs(
      [mc('00-test-cluster-master', { osImageURL: 'a' }), mc('00-test-cluster-master-0', { osImageURL: 'b' })],
      { defaultOsImageURL: 'd', includeExtensionsImage: false },
    );
    expect(upstream.spec.osImageURL).to.equal('b');
  });
  it('fault render-merge-unsorted lets an early-named override win', () => {
    const early = mergeMachineConfigs([mc('00-aaa', { osImageURL: 'custom' }), ...templates], { defaultOsImageURL: 'd', includeExtensionsImage: false, reverseOrder: true });
    expect(early.spec.osImageURL).to.equal('custom');
  });
  it('the rendered name depends on the spec only and is 32 hex characters', () => {
    const a = mergeMachineConfigs(templates, { defaultOsImageURL: 'd', includeExtensionsImage: false }).spec;
    const b = mergeMachineConfigs([...templates].reverse(), { defaultOsImageURL: 'd', includeExtensionsImage: false }).spec;
    expect(renderedName('master', a, false)).to.match(/^rendered-master-[0-9a-f]{32}$/);
    expect(renderedName('master', a, false)).to.equal(renderedName('master', b, false));
    expect(renderedName('master', { ...a, osImageURL: 'other' }, false)).to.not.equal(renderedName('master', a, false));
    expect(renderedName('worker', a, false)).to.not.equal(renderedName('master', a, false).replace('master', 'worker').slice(0, 5));
  });
  it('FIX annotates an override; BUG does not; the annotation does not change the name', () => {
    const build = mcoBuildFor('rv', 'x');
    const configs = [...templates, mc('tc-54183-new-os-image-upgrade-master', { osImageURL: 'custom' })];
    const fixed = generateRenderedMachineConfig({ pool, configs, controllerConfig: cc, mco: getProfile('4.12-ga'), build });
    expect(fixed.overridden).to.equal(true);
    expect(fixed.machineConfig.metadata.annotations).to.deep.equal({
      [ANN.generatedByControllerVersion]: build.hash,
      [ANN.releaseImageVersion]: 'rv',
      [ANN.osImageUrlOverridden]: 'true',
    });
    expect(fixed.machineConfig.metadata.ownerReferences![0]).to.include({ kind: 'MachineConfigPool', name: 'master', controller: true });
    const buggy = generateRenderedMachineConfig({ pool, configs, controllerConfig: cc, mco: getProfile('4.12-nightly-2022-09-08'), build });
    expect(buggy.machineConfig.metadata.annotations).to.not.have.property(ANN.osImageUrlOverridden);
    expect(buggy.defaultUrl).to.equal('reg/moc@sha256:aa');
    const plain = generateRenderedMachineConfig({ pool, configs: templates, controllerConfig: cc, mco: getProfile('4.12-ga'), build });
    expect(plain.overridden).to.equal(false);
    expect(plain.machineConfig.spec.osImageURL).to.equal('reg/rhcos@sha256:bb');
  });
  it('fault sticky-override keeps the previous custom image when the override is gone', () => {
    const build = mcoBuildFor('rv', 'x');
    const out = generateRenderedMachineConfig({ pool, configs: templates, controllerConfig: cc, mco: getProfile('4.12-ga'), build, stickyOsImageURL: 'custom' });
    expect(out.machineConfig.spec.osImageURL).to.equal('custom');
  });
  it('reports the upstream errors', () => {
    const build = mcoBuildFor('rv', 'x');
    expect(() => generateRenderedMachineConfig({ pool, configs: [], controllerConfig: cc, mco: getProfile('4.12-ga'), build })).to.throw(
      'no MachineConfigs found matching selector &LabelSelector{MatchLabels:map[string]string{machineconfiguration.openshift.io/role: master,},MatchExpressions:[]LabelSelectorRequirement{},}',
    );
    expect(() =>
      generateRenderedMachineConfig({ pool, configs: [mc('x', { kernelType: 'rt' })], controllerConfig: cc, mco: getProfile('4.12-ga'), build }),
    ).to.throw('kernelType=rt is invalid');
  });
});
