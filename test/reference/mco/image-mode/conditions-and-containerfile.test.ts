import { expect } from 'chai';
import { buildStateOf, conditionsFor } from '../../../../reference/mco/image-mode/build-state.js';
import { canLayeredContinue, layeredObjectsFor } from '../../../../reference/mco/layered-pool.js';
import type { MachineConfigPool } from '../../../../reference/mco/types.js';
import { KERNEL_PACKAGES, renderContainerfile, userContainerfileOf, type ContainerfileInputs } from '../../../../reference/mco/image-mode/containerfile.js';
import { CURRENT_MOSB_ANNOTATION } from '../../../../reference/mco/image-mode/names.js';
import type { MachineOSBuild, MachineOSConfig } from '../../../../reference/mco/image-mode/types.js';

const T0 = '2026-12-01T10:00:00Z';
const T1 = '2026-12-01T10:05:00Z';

describe('image mode: MachineOSBuild conditions', () => {
  it('always all five, one True, fixed reasons and messages', () => {
    const building = conditionsFor('Building', conditionsFor('Prepared', [], T0), T1);
    expect(building.map((c) => [c.type, c.status, c.reason, c.message])).to.deep.equal([
      ['Prepared', 'False', 'Prepared', 'Build Prepared and Pending'],
      ['Building', 'True', 'Building', 'Image Build In Progress'],
      ['Failed', 'False', 'Failed', 'Build Failed'],
      ['Interrupted', 'False', 'Interrupted', 'Build Interrupted'],
      ['Succeeded', 'False', 'Ready', 'Build Ready'],
    ]);
    // a condition that stays False keeps its time
    expect(building.find((c) => c.type === 'Failed')!.lastTransitionTime).to.equal(T0);
    expect(building.find((c) => c.type === 'Building')!.lastTransitionTime).to.equal(T1);
    expect(buildStateOf({ status: { conditions: building } })).to.equal('Building');
    expect(buildStateOf({ status: {} })).to.equal(undefined);
  });

  it('a pool\'s image is ready only once the MachineOSConfig points at the succeeded build (the node controller\'s canLayeredContinue)', () => {
    const mosc: MachineOSConfig = { metadata: { name: 'layered', annotations: {} }, spec: { machineConfigPool: { name: 'layered' }, renderedImagePushSecret: { name: 'p' }, renderedImagePushSpec: 'r/x:latest' } };
    const build: MachineOSBuild = {
      metadata: { name: 'layered-1', creationTimestamp: new Date(T0) },
      spec: { machineConfig: { name: 'rendered-layered-a' }, machineOSConfig: { name: 'layered' }, renderedImagePushSpec: 'r/x:layered-1' },
      status: { conditions: conditionsFor('Succeeded', [], T1), digestedImagePushSpec: 'r/x@sha256:aa' },
    };
    const pool = { metadata: { name: 'layered' }, spec: { configuration: { name: 'rendered-layered-a' } } } as unknown as MachineConfigPool;
    const verdict = (config: MachineOSConfig, builds: MachineOSBuild[]) => canLayeredContinue(layeredObjectsFor(pool, [config as never], builds as never[]));
    expect(verdict(mosc, [])).to.include({ proceed: false, reason: 'No MachineOSConfig or MachineOSBuild for this pool' });
    const waiting = { ...mosc, status: { currentImagePullSpec: 'r/x@sha256:00' } };
    expect(verdict(waiting, [build])).to.include({ proceed: false, reason: 'Image built successfully, pullspec: r/x@sha256:00, but MachineOSConfig "layered" has not updated yet' });
    const pointed = { ...mosc, metadata: { name: 'layered', annotations: { [CURRENT_MOSB_ANNOTATION]: 'layered-1' } }, status: { currentImagePullSpec: 'r/x@sha256:aa' } };
    expect(verdict(pointed, [build])).to.include({ proceed: true, reason: 'Image built successfully, pullspec: r/x@sha256:aa' });
    const failed = { ...build, status: { conditions: conditionsFor('Failed', [], T1) } };
    expect(verdict(pointed, [failed])).to.include({ proceed: false, error: 'image build for MachineConfigPool layered-1 failed' });
  });
});

describe('image mode: the Containerfile', () => {
  const inputs: ContainerfileInputs = {
    baseOSImage: 'r/os@sha256:1',
    extensionsImage: 'r/ext@sha256:2',
    extensionsPackages: ['usbguard'],
    kernelType: '',
    kernelPackages: KERNEL_PACKAGES,
    machineConfig: 'rendered-layered-a',
    pool: 'layered',
    userContainerfile: 'FROM configs AS final\nRUN echo hi',
    swapsKernel: true,
  };

  it('has the stages, the extensions, the labels, then the user\'s content', () => {
    const text = renderContainerfile(inputs);
    const at = (s: string): number => text.indexOf(s);
    expect(at('FROM r/os@sha256:1 AS extract')).to.equal(0);
    expect(at('FROM r/os@sha256:1 AS configs')).to.be.greaterThan(0);
    expect(at('RUN --mount=type=bind,from=r/ext@sha256:2')).to.be.greaterThan(at('AS configs'));
    expect(text).to.include('rpm-ostree install $extensions').and.include('extensions="usbguard"');
    expect(at('LABEL machineconfig=rendered-layered-a')).to.be.greaterThan(at('RUN update-ca-trust'));
    expect(text).to.include('LABEL machineconfigpool=layered\nLABEL baseOSContainerImage=r/os@sha256:1');
    expect(at('FROM configs AS final')).to.be.greaterThan(at('LABEL baseOSContainerImage'));
  });

  it('no extensions step without an extensions image; a kernel swap only where the release\'s template has one', () => {
    expect(renderContainerfile({ ...inputs, extensionsImage: '' })).to.not.include('--mount');
    expect(renderContainerfile({ ...inputs, kernelType: 'realtime' })).to.include('installKernelPkgs="kernel-rt-core kernel-rt-modules kernel-rt-modules-extra kernel-rt-kvm"');
    expect(renderContainerfile({ ...inputs, kernelType: 'realtime', swapsKernel: false })).to.not.include('dnf -y shell');
  });

  it('takes only the NoArch entry', () => {
    expect(userContainerfileOf([{ containerfileArch: 'AMD64', content: 'a' }, { content: 'b' }])).to.equal('b');
    expect(userContainerfileOf(undefined)).to.equal('');
  });
});
