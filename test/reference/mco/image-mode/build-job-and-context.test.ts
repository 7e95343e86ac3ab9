import { expect } from 'chai';
import { buildStateOfJob } from '../../../../reference/mco/image-mode/build-controller.js';
import { inputsFromStored, playableBuild } from '../../../../reference/mco/image-mode/build-context.js';
import { BUILD_PROGRAM, buildJob } from '../../../../reference/mco/image-mode/build-job.js';
import { KERNEL_PACKAGES, renderContainerfile, type ContainerfileInputs } from '../../../../reference/mco/image-mode/containerfile.js';
import { PROGRAM_ANNOTATION } from '../../../../reference/kubelet/pod-programs.js';
import type { MachineConfig } from '../../../../reference/mco/types.js';

const job = (status: Record<string, unknown>, deleting = false) => ({ metadata: { name: 'build-x', ...(deleting ? { deletionTimestamp: new Date() } : {}) }, status });

describe('image mode: a build Job', () => {
  it('maps the Job to the build state as MapJobStatusToBuildStatus does', () => {
    expect(buildStateOfJob(job({}))).to.equal('Prepared');
    expect(buildStateOfJob(job({ active: 1 }))).to.equal('Building');
    expect(buildStateOfJob(job({ failed: 2, active: 1 }))).to.equal('Building');
    expect(buildStateOfJob(job({ failed: 4 }))).to.equal('Failed');
    expect(buildStateOfJob(job({ succeeded: 1, conditions: [{ type: 'Complete', status: 'True' }] }))).to.equal('Succeeded');
    expect(buildStateOfJob(job({ active: 1 }, true))).to.equal('Interrupted');
  });

  it('is build-<mosb>, backoffLimit 3, owned by the build, its pod played by the build program', () => {
    const j = buildJob({ mosb: { metadata: { name: 'layered-abc', uid: 'u1' }, spec: { machineConfig: { name: 'rendered-layered-1' }, machineOSConfig: { name: 'layered' }, renderedImagePushSpec: 'r/os:layered-abc' } }, pool: 'layered', baseOSImage: 'r/base@sha256:1', extensionsImage: '', mcoImage: 'r/mco' }) as never as {
      metadata: { name: string; ownerReferences: Array<{ kind: string; uid: string }> };
      spec: { backoffLimit: number; template: { metadata: { annotations: Record<string, string> }; spec: { initContainers: Array<{ name: string }>; containers: Array<{ name: string }> } } };
    };
    expect(j.metadata.name).to.equal('build-layered-abc');
    expect(j.metadata.ownerReferences[0]).to.include({ kind: 'MachineOSBuild', uid: 'u1' });
    expect(j.spec.backoffLimit).to.equal(3);
    expect(j.spec.template.metadata.annotations[PROGRAM_ANNOTATION]).to.equal(BUILD_PROGRAM);
    expect(j.spec.template.spec.initContainers.map((c) => c.name)).to.deep.equal(['image-build']);
    expect(j.spec.template.spec.containers.map((c) => c.name)).to.deep.equal(['create-digest-configmap']);
  });
});

describe('image mode: the Containerfile the engine builds', () => {
  const mc: MachineConfig = {
    metadata: { name: 'rendered-layered-1' },
    spec: {
      extensions: ['usbguard'],
      config: {
        storage: { files: [{ path: '/etc/ocp-e2e/hello.conf', mode: 0o640, contents: { source: 'data:,hello%0A' } }] },
        systemd: { units: [{ name: 'hello.service', enabled: true, contents: '[Unit]\nDescription=hi\n[Install]\nWantedBy=multi-user.target\n' }] },
      },
    },
  };
  const inputs: ContainerfileInputs = {
    baseOSImage: 'r/base@sha256:1', extensionsImage: 'r/ext@sha256:2', extensionsPackages: ['usbguard'], kernelType: '', kernelPackages: KERNEL_PACKAGES,
    machineConfig: 'rendered-layered-1', pool: 'layered', userContainerfile: 'FROM configs AS final\nRUN echo custom > /etc/custom', swapsKernel: true,
  };

  it('reads the stored Containerfile back into the same inputs', () => {
    const back = inputsFromStored(renderContainerfile(inputs), mc, { baseOSImage: inputs.baseOSImage, extensionsImage: inputs.extensionsImage }, (e) => [e]);
    // without a kernel type the text has no swap to tell the release's template by, and none is needed
    expect(back).to.deep.equal({ ...inputs, swapsKernel: false });
    const realtime = { ...mc, spec: { ...mc.spec, kernelType: 'realtime' } };
    expect(inputsFromStored(renderContainerfile({ ...inputs, kernelType: 'realtime' }), realtime, inputs, (e) => [e]).swapsKernel).to.equal(true);
  });

  it('plays Ignition with the config\'s files and units, the extensions with COPY --from, then labels and the user\'s content', () => {
    const { containerfile, files } = playableBuild(inputs, mc);
    expect(files['ignition-root/etc/ocp-e2e/hello.conf']!.toString()).to.equal('hello\n');
    expect(files['ignition-root/etc/systemd/system/hello.service']).to.include('Description=hi');
    expect(containerfile).to.include("chmod 640 '/etc/ocp-e2e/hello.conf'").and.include("systemctl enable 'hello.service'");
    expect(containerfile).to.include('COPY --from=r/ext@sha256:2 /usr/share/rpm-ostree/extensions/').and.include('rpm-ostree install usbguard');
    expect(containerfile).to.not.include('--mount').and.not.include('ignition-apply');
    expect(containerfile.indexOf('FROM configs AS final')).to.be.greaterThan(containerfile.indexOf('LABEL baseOSContainerImage=r/base@sha256:1'));
  });
});
