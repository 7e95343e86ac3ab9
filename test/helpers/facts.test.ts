import { expect } from 'chai';
import { operatorSettledAt } from '../../helpers/facts/cluster-operator.js';
import { clusterVersionIdle, upgradeCompleted } from '../../helpers/facts/cluster-version.js';
import { poolRenderedAs, poolRolledOut } from '../../helpers/facts/pool.js';
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
});
