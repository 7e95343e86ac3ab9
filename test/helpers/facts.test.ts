import { expect } from 'chai';
import { operatorSettledAt } from '../../helpers/facts/cluster-operator.js';
import { clusterVersionIdle, upgradeCompleted } from '../../helpers/facts/cluster-version.js';
import { poolRenderedAs, poolRolledOut } from '../../helpers/facts/pool.js';
import { nodeBootedImage, nodeHasFile, nodeHasKernelArguments, nodeHasPackage, nodeLacksFile, nodeLacksKernelArguments, nodeLacksPackage, nodeRunsKernelType, nodeUnitEnabled } from '../../helpers/facts/node.js';
import { nodeChecks } from '../../helpers/node-probes-expected.js';
import { splitProbeOutput } from '../../helpers/node-os.js';
import type { ClusterOperator, ClusterVersion, MachineConfig, MachineConfigPool } from '../../helpers/types.js';
import { cond, FROM, RELEASE_TO, TO } from './fixture.js';

function pool(opts: { target: string; rolledOut: string; updated?: boolean; generation?: number; observed?: number; machines?: [number, number]; sources?: string[] }): MachineConfigPool {
  const updated = opts.updated ?? true;
  const [done, all] = opts.machines ?? [3, 3];
  return {
    metadata: { name: 'master', generation: opts.generation ?? 1 },
    spec: { configuration: { name: opts.target, source: (opts.sources ?? []).map((name) => ({ name })) } },
    status: {
      observedGeneration: opts.observed ?? 1,
      configuration: { name: opts.rolledOut },
      machineCount: all,
      updatedMachineCount: done,
      conditions: [cond('Updated', updated ? 'True' : 'False'), cond('Updating', updated ? 'False' : 'True'), cond('Degraded', 'False')],
    },
  };
}

describe('helpers/facts: one meaning per fact', () => {
  it('a pool has rolled out only what it targets, on every machine, after the controller saw its spec', () => {
    expect(poolRolledOut(pool({ target: 'rendered-master-b', rolledOut: 'rendered-master-b' }))).to.deep.equal({ ok: true, why: 'mcp/master rolled out rendered-master-b to 3 machines' });
    // Right after a retarget the pool still says Updated=True, about the old config.
    expect(poolRolledOut(pool({ target: 'rendered-master-b', rolledOut: 'rendered-master-a' })).why).to.equal('mcp/master targets rendered-master-b but has rolled out rendered-master-a');
    expect(poolRolledOut(pool({ target: 'b', rolledOut: 'b', generation: 2, observed: 1 })).ok).to.equal(false);
    expect(poolRolledOut(pool({ target: 'b', rolledOut: 'b', machines: [2, 3] })).why).to.match(/^mcp\/master is not updated: .* 2\/3 machines updated/);
  });

  it('a pool is rendered with, without, and for a release', () => {
    const mcs = new Map<string, MachineConfig>([['rendered-master-b', { metadata: { name: 'rendered-master-b', annotations: { 'machineconfiguration.openshift.io/release-image-version': FROM } } }]]);
    const p = pool({ target: 'rendered-master-b', rolledOut: 'rendered-master-b', sources: ['00-master', 'tc-1'] });
    expect(poolRenderedAs(p, { with: ['tc-1'], release: FROM }, mcs).ok).to.equal(true);
    expect(poolRenderedAs(p, { with: ['tc-2'] }, mcs).why).to.equal('master not yet rendered with tc-2');
    expect(poolRenderedAs(p, { without: ['tc-1'] }, mcs).why).to.equal('master still rendered with tc-1');
    expect(poolRenderedAs(p, { release: TO }, mcs).why).to.equal(`master rendered config rendered-master-b is for release ${FROM}, expected ${TO}`);
  });

  it('the operator settled at a version, not merely available', () => {
    const co = (version: string, progressing: 'True' | 'False', degraded: 'True' | 'False' = 'False'): ClusterOperator => ({
      metadata: { name: 'machine-config' },
      status: { versions: [{ name: 'operator', version }], conditions: [cond('Available', 'True'), cond('Progressing', progressing, 'Working'), cond('Degraded', degraded, 'boom', 'RequiredPoolsFailed')] },
    });
    expect(operatorSettledAt(co(TO, 'False'), TO).ok).to.equal(true);
    expect(operatorSettledAt(co(FROM, 'True'), TO).why).to.equal(`clusteroperator/machine-config reports version ${FROM}, expected ${TO}; Progressing=True: "Working"`);
    expect(operatorSettledAt(co(TO, 'True'), TO).why).to.equal('clusteroperator/machine-config is still Progressing=True: "Working"');
    expect(operatorSettledAt(co(TO, 'False', 'True'), TO).why).to.equal('clusteroperator/machine-config is Degraded=True (reason RequiredPoolsFailed): "boom"');
  });

  it('the upgrade completed at a release named by image or version, as origin reads ClusterVersion', () => {
    const cv = (state: string, failing: 'True' | 'False'): ClusterVersion => ({
      metadata: { name: 'version' },
      status: {
        desired: { version: TO, image: RELEASE_TO },
        history: [{ state, version: TO, image: RELEASE_TO }],
        conditions: [cond('Available', 'True'), cond('Progressing', state === 'Completed' ? 'False' : 'True', 'Working towards'), cond('Failing', failing, 'pools')],
      },
    });
    expect(upgradeCompleted(cv('Completed', 'False'), { image: RELEASE_TO }).ok).to.equal(true);
    expect(upgradeCompleted(cv('Completed', 'False'), { version: TO }).ok).to.equal(true);
    expect(upgradeCompleted(cv('Completed', 'False'), { version: FROM }).ok).to.equal(false);
    expect(upgradeCompleted(cv('Partial', 'False'), { version: TO }).why).to.equal(`clusterversion/version history[0] is Partial ${TO}, expected Completed ${TO}; Progressing: "Working towards"`);
    expect(upgradeCompleted(cv('Completed', 'True'), { version: TO }).why).to.equal('clusterversion/version is Failing: "pools"');
    expect(clusterVersionIdle(cv('Partial', 'False')).why).to.equal('ClusterVersion is progressing ("Working towards")');
    expect(clusterVersionIdle(undefined).why).to.match(/not found; is this an OpenShift cluster\?/);
  });

  it("a node booting an image built per architecture is judged against its own architecture's image", () => {
    const [INDEX, AMD, ARM] = ['i', 'a', 'b'].map((c) => `sha256:${c.repeat(64)}`) as [string, string, string];
    const images = [{ architecture: 'amd64', digest: AMD }, { architecture: 'arm64', digest: ARM }];
    const booted = (digest: string) => ({ image: `r/layered@${INDEX}`, digest, source: 'oc debug' as const });
    expect(nodeBootedImage('w1', booted(ARM), `r/layered@${INDEX}`, 'x', { architecture: 'arm64', images }).why).to.equal(`node w1 (arm64) booted r/layered@${INDEX}: its arm64 image ${ARM}, according to oc debug`);
    expect(nodeBootedImage('w1', booted(AMD), `r/layered@${INDEX}`, 'x', { architecture: 'arm64', images }).why).to.equal(`node w1 runs arm64 but booted the amd64 image ${AMD} of r/layered@${INDEX}, according to oc debug; expected its arm64 image ${ARM} (x)`);
    // a host that reports the index it pulled (the reference's does) is on it; its entry is named
    expect(nodeBootedImage('w1', booted(INDEX), `r/layered@${INDEX}`, 'x', { architecture: 'arm64', images })).to.deep.include({ ok: true });
    expect(nodeBootedImage('w1', booted(AMD), `r/layered@${AMD}`, 'x', { architecture: 'arm64', images: images.slice(0, 1) }).why).to.equal(`node w1 runs arm64, and r/layered@${AMD} has no arm64 image (built for amd64): it booted r/layered@${INDEX} (digest ${AMD}) according to oc debug (x)`);
  });

  it('what a node answered its probes: booted image by digest, packages, kernel arguments, files, units, kernel type', () => {
    const D1 = `sha256:${'1'.repeat(64)}`;
    const D2 = `sha256:${'2'.repeat(64)}`;
    const booted = { image: `r/ocp@${D1}`, digest: D1, source: 'oc debug' as const };
    expect(nodeBootedImage('w1', booted, `r/other@${D1}`, 'x').ok).to.equal(true);
    expect(nodeBootedImage('w1', booted, `r/layered@${D2}`, 'custom image of tc-1').why).to.equal(`node w1 booted r/ocp@${D1} (digest ${D1}) according to oc debug, expected r/layered@${D2} (custom image of tc-1)`);
    expect(nodeHasPackage('w1', 'zsh', undefined, `r/ocp@${D1}`, 'the layered image adds it').why).to.equal(`node w1: package zsh is not installed in the booted image r/ocp@${D1}; the layered image adds it`);
    expect(nodeHasPackage('w1', 'zsh', 'zsh-5.5.1-10.el8', 'i', 'y').ok).to.equal(true);
    expect(nodeLacksPackage('w1', 'usbguard', 'usbguard-1.0.0-8.el8', 'tc-1 was removed').why).to.equal('node w1 still has usbguard-1.0.0-8.el8 (tc-1 was removed)');
    const cmdline = ['BOOT_IMAGE=/vmlinuz', 'nosmt', 'z=1'];
    expect(nodeHasKernelArguments('w1', cmdline, ['nosmt', 'z=1'], 'y').ok).to.equal(true);
    // a word, not a substring: z=1 is not z=10
    expect(nodeHasKernelArguments('w1', ['z=10'], ['z=1'], 'tc-1').why).to.equal('node w1 booted without kernel argument z=1 (/proc/cmdline: z=10) (tc-1)');
    expect(nodeLacksKernelArguments('w1', cmdline, ['nosmt'], 'tc-1 was removed').why).to.equal('node w1 still booted with kernel argument nosmt (tc-1 was removed)');
    const file = { exists: true as const, mode: 0o644, contents: 'hello\n' };
    expect(nodeHasFile('w1', file, { path: '/etc/x', contents: 'hello\n', mode: 0o644 }, 'y').ok).to.equal(true);
    expect(nodeHasFile('w1', file, { path: '/etc/x', mode: 0o600 }, 'tc-1').why).to.equal('node w1: /etc/x has mode 0644, expected 0600 (tc-1)');
    expect(nodeHasFile('w1', file, { path: '/etc/x', contents: 'bye' }, 'tc-1').why).to.equal('node w1: /etc/x holds "hello\\n", expected "bye" (tc-1)');
    expect(nodeHasFile('w1', { exists: false, says: "stat: cannot stat '/etc/x': No such file or directory" }, { path: '/etc/x' }, 'tc-1').why).to.equal(`node w1 has no file /etc/x: "stat: cannot stat '/etc/x': No such file or directory" (tc-1)`);
    expect(nodeLacksFile('w1', '/etc/x', file, 'removed').ok).to.equal(false);
    expect(nodeUnitEnabled('w1', 'a.service', { state: 'disabled', enabled: false }, true, 'tc-1').why).to.equal('node w1: systemctl is-enabled a.service says "disabled", expected it enabled (tc-1)');
    expect(nodeUnitEnabled('w1', 'a.service', { state: 'disabled', enabled: false }, false, 'tc-1').ok).to.equal(true);
    expect(nodeRunsKernelType('w1', { kernelType: 'default', release: '4.18.0-372.el8.x86_64' }, 'realtime', 'tc-1').why).to.equal('node w1 runs kernel 4.18.0-372.el8.x86_64 (default), expected the realtime kernel (tc-1)');
  });

  it('an expectation is judged booted image first, so a node on the wrong image fails on its image', () => {
    const D1 = `sha256:${'1'.repeat(64)}`;
    const checks = nodeChecks({ image: `r/layered@${'sha256:' + '2'.repeat(64)}`, why: 'custom image', package: 'zsh', kernelArguments: ['nosmt'], files: [{ path: '/etc/x', contents: 'x' }], units: [{ name: 'a.service', enabled: true }], kernelType: 'default' });
    expect(checks.map((c) => c.probe.name)).to.deep.equal(['booted image', 'package zsh', 'kernel arguments', 'kernel type', 'file /etc/x', 'unit a.service']);
    const answers = [JSON.stringify({ deployments: [{ booted: true, 'container-image-reference': `ostree-unverified-registry:r/ocp@${D1}` }] }), 'package zsh is not installed', 'nosmt', '4.18.0-1.el8.x86_64', '644\nx', 'enabled'];
    const out = checks.map((c, i) => `--- ocp-e2e probe: ${c.probe.name} ---\n${answers[i]}\n--- ocp-e2e probe end: ${c.probe.name} ---\n`).join('');
    const readings = splitProbeOutput('w1', out, checks.map((c) => c.probe), 'debug pod');
    const facts = checks.map((c) => c.judge('w1', readings));
    expect(facts.map((f) => f.ok)).to.deep.equal([false, false, true, true, true, true]);
    expect(facts[0]!.why).to.match(/^node w1 booted r\/ocp@sha256:1+ \(digest sha256:1+\) according to debug pod, expected r\/layered@sha256:2+ \(custom image\)$/);
    expect(facts[1]!.why).to.equal(`node w1: package zsh is not installed in the booted image r/ocp@${D1}; the layered image adds it`);
  });
});
