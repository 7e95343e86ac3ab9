import { expect } from 'chai';
import type { V1Node } from '@kubernetes/client-node';
import { ANN } from '../../../reference/constants.js';
import { calculateStatus, chooseCandidates, maxUnavailable, poolForNode, setPoolCondition } from '../../../reference/mco/node-status.js';
import type { MachineConfigPool } from '../../../reference/mco/types.js';

const T0 = '2022-09-12T10:00:00Z';
const T1 = '2022-09-12T11:00:00Z';

function node(name: string, current: string, desired: string, state = 'Done', extra: { ready?: boolean; zone?: string; created?: string; reason?: string } = {}): V1Node {
  return {
    metadata: {
      name,
      creationTimestamp: new Date(extra.created ?? T0),
      labels: extra.zone ? { 'topology.kubernetes.io/zone': extra.zone } : {},
      annotations: { [ANN.currentConfig]: current, [ANN.desiredConfig]: desired, [ANN.state]: state, [ANN.reason]: extra.reason ?? '' },
    },
    status: { conditions: [{ type: 'Ready', status: extra.ready === false ? 'False' : 'True' }] },
  } as V1Node;
}

const pool = (target: string, extra: Partial<MachineConfigPool['spec']> = {}, conditions: MachineConfigPool['status'] = {}): MachineConfigPool => ({
  metadata: { name: 'worker', generation: 4 },
  spec: { configuration: { name: target, source: [{ name: 'x' }] }, ...extra },
  status: conditions,
});

describe('reference node controller: pool status (spec §4)', () => {
  it('all nodes updated: Updated=True, configuration copied to status', () => {
    const s = calculateStatus(pool('rendered-b'), [node('a', 'rendered-b', 'rendered-b')], T0);
    expect(s).to.include({ machineCount: 1, updatedMachineCount: 1, readyMachineCount: 1, unavailableMachineCount: 0, degradedMachineCount: 0, observedGeneration: 4 });
    expect(s.configuration!.name).to.equal('rendered-b');
    expect(s.conditions!.find((c) => c.type === 'Updated')).to.include({ status: 'True', message: 'All nodes are updated with rendered-b' });
  });
  it('rolling: Updating=True, status.configuration stays; message is not refreshed for a new target (quirk)', () => {
    const first = calculateStatus(pool('rendered-b', {}, { configuration: { name: 'rendered-a' } }), [node('a', 'rendered-a', 'rendered-b', 'Working')], T0);
    expect(first.configuration!.name).to.equal('rendered-a');
    expect(first.conditions!.find((c) => c.type === 'Updating')).to.include({ status: 'True', message: 'All nodes are updating to rendered-b' });
    expect(first.unavailableMachineCount).to.equal(1);
    const second = calculateStatus(pool('rendered-c', {}, first), [node('a', 'rendered-a', 'rendered-c', 'Working')], T1);
    expect(second.conditions!.find((c) => c.type === 'Updating')).to.include({ message: 'All nodes are updating to rendered-b', lastTransitionTime: T0 });
  });
  it('paused pool: Updating=False with the paused message', () => {
    const s = calculateStatus(pool('rendered-b', { paused: true }), [node('a', 'rendered-a', 'rendered-a')], T0);
    expect(s.conditions!.find((c) => c.type === 'Updating')).to.include({ status: 'False', message: 'Pool is paused; will not update to rendered-b' });
  });
  it('a degraded node: NodeDegraded with the count in the reason, Degraded=True', () => {
    const s = calculateStatus(pool('rendered-b'), [node('w1', 'rendered-a', 'rendered-b', 'Degraded', { reason: 'failed to pull' }), node('w2', 'rendered-a', 'rendered-a')], T0);
    expect(s.conditions!.find((c) => c.type === 'NodeDegraded')).to.include({
      status: 'True',
      reason: '1 nodes are reporting degraded status on sync',
      message: 'Node w1 is reporting: "failed to pull"',
    });
    expect(s.conditions!.find((c) => c.type === 'Degraded')).to.include({ status: 'True' });
    expect(s.degradedMachineCount).to.equal(1);
  });
  it('setPoolCondition keeps lastTransitionTime unless the status flips', () => {
    const a = setPoolCondition([], { type: 'X', status: 'True', reason: 'r', message: 'm1' }, T0);
    expect(setPoolCondition(a, { type: 'X', status: 'True', reason: 'r', message: 'm2' }, T1)).to.equal(a);
    expect(setPoolCondition(a, { type: 'X', status: 'True', reason: 'r2', message: 'm2' }, T1)[0]).to.include({ message: 'm2', lastTransitionTime: T0 });
    expect(setPoolCondition(a, { type: 'X', status: 'False', reason: 'r', message: 'm2' }, T1)[0]).to.include({ lastTransitionTime: T1 });
  });
});

describe('reference node controller: rollout', () => {
  it('maxUnavailable: default 1, percentages round down, 0 becomes 1', () => {
    expect(maxUnavailable(pool('x'), 5)).to.equal(1);
    expect(maxUnavailable(pool('x', { maxUnavailable: '10%' }), 1000)).to.equal(100);
    expect(maxUnavailable(pool('x', { maxUnavailable: '10%' }), 5)).to.equal(1);
    expect(maxUnavailable(pool('x', { maxUnavailable: 2 }), 5)).to.equal(2);
    expect(() => maxUnavailable(pool('x', { maxUnavailable: 'abc' }), 5)).to.throw(/must be an integer or percentage/);
  });
  it('takes capacity nodes by zone, then age; nodes without a zone last', () => {
    const nodes = [
      node('n-nozone', 'a', 'a', 'Done', { created: '2020-01-01T00:00:00Z' }),
      node('n-b-old', 'a', 'a', 'Done', { zone: 'b', created: '2020-01-01T00:00:00Z' }),
      node('n-a-new', 'a', 'a', 'Done', { zone: 'a', created: '2021-01-01T00:00:00Z' }),
      node('n-a-old', 'a', 'a', 'Done', { zone: 'a', created: '2020-06-01T00:00:00Z' }),
    ];
    expect(chooseCandidates(pool('b', { maxUnavailable: 3 }), nodes).map((n) => n.metadata!.name)).to.deep.equal(['n-a-old', 'n-a-new', 'n-b-old']);
  });
  it('unavailable nodes and failing nodes on the target use up capacity', () => {
    const busy = [node('x', 'a', 'b', 'Working'), node('y', 'a', 'a'), node('z', 'a', 'a')];
    expect(chooseCandidates(pool('b'), busy)).to.deep.equal([]);
    const failing = [node('x', 'a', 'b', 'Degraded'), node('y', 'a', 'a')];
    expect(chooseCandidates(pool('b'), failing)).to.deep.equal([]);
    expect(chooseCandidates(pool('b', { maxUnavailable: 2 }), failing).map((n) => n.metadata!.name)).to.deep.equal(['y']);
  });
  it('pool membership: master wins over worker; an empty selector matches nothing', () => {
    const pools: MachineConfigPool[] = [
      { metadata: { name: 'worker' }, spec: { nodeSelector: { matchLabels: { 'node-role.kubernetes.io/worker': '' } } } },
      { metadata: { name: 'master' }, spec: { nodeSelector: { matchLabels: { 'node-role.kubernetes.io/master': '' } } } },
      { metadata: { name: 'empty' }, spec: { nodeSelector: {} } },
    ];
    const both = { metadata: { name: 'n', labels: { 'node-role.kubernetes.io/worker': '', 'node-role.kubernetes.io/master': '' } } } as V1Node;
    expect(poolForNode(both, pools)!.metadata.name).to.equal('master');
    expect(poolForNode({ metadata: { name: 'n', labels: {} } } as V1Node, pools)).to.equal(undefined);
  });
});
