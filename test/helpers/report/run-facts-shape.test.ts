/**
 * helpers/report/run-facts.ts: the report's facts say what cluster the spec found (issue 43 item 7): its shape (masters,
 * workers or compact / single-node, the architectures) and each pool with its nodes, paused or in on-cluster image mode;
 * gatherRunFacts records them from the session's snapshot and the Environment panel shows them.
 */
import { expect } from 'chai';
import { environmentOf, gatherRunFacts, poolFacts, shapeFact } from '../../../helpers/report/run-facts.js';
import type { ApiObject, MachineConfigPool, Node } from '../../../helpers/types.js';

const node = (name: string, roles: string[], architecture = 'amd64'): Node =>
  ({ metadata: { name, labels: Object.fromEntries(roles.map((r) => [`node-role.kubernetes.io/${r}`, ''])) }, status: { nodeInfo: { architecture } } }) as unknown as Node;
const pool = (name: string, paused = false): MachineConfigPool =>
  ({ metadata: { name }, spec: { paused, nodeSelector: { matchLabels: { [`node-role.kubernetes.io/${name}`]: '' } } } }) as unknown as MachineConfigPool;
const byName = <T extends { metadata?: { name?: string } }>(items: T[]) => new Map(items.map((i) => [i.metadata!.name!, i]));

const NODES = [node('m0', ['master']), node('m1', ['master']), node('m2', ['master']), node('w0', ['worker'], 'arm64'), node('w1', ['worker']), node('w2', ['worker', 'infra-im'])];
const SNAPSHOT = {
  nodes: byName(NODES),
  pools: byName([pool('worker', true), pool('master'), pool('infra-im')]),
  machineOSConfigs: byName([{ metadata: { name: 'infra-im' }, spec: { machineConfigPool: { name: 'infra-im' } } } as unknown as ApiObject]),
};

describe('report facts: the cluster\'s shape and pools', () => {
  it('says the shape with the architectures, and each pool with its nodes, paused and image mode', () => {
    expect(shapeFact(SNAPSHOT)).to.equal('3 master(s), 3 worker(s); amd64 ×5, arm64 ×1');
    expect(poolFacts(SNAPSHOT)).to.deep.equal(['infra-im: 1 node(s), on-cluster image mode (MachineOSConfig infra-im)', 'master: 3 node(s)', 'worker: 2 node(s), paused']);
  });

  it('a compact cluster of one architecture', () => {
    const compact = { nodes: byName([node('m0', ['master', 'worker']), node('m1', ['master', 'worker']), node('m2', ['master', 'worker'])]), pools: byName([pool('master'), pool('worker')]) };
    expect(shapeFact(compact)).to.equal('a compact cluster: its 3 masters are the workers; amd64');
  });

  it('gatherRunFacts records them from the snapshot, and the Environment panel shows them', async () => {
    const facts = await gatherRunFacts({ spec: '01.spec.ts', target: 'cluster', apiUrl: 'https://127.0.0.1:1', timeFactor: 1, snapshot: SNAPSHOT });
    expect(facts.shape).to.equal('3 master(s), 3 worker(s); amd64 ×5, arm64 ×1');
    const env = environmentOf([facts]);
    expect(env['cluster shape']).to.equal('3 master(s), 3 worker(s); amd64 ×5, arm64 ×1');
    expect(env.pools).to.equal('infra-im: 1 node(s), on-cluster image mode (MachineOSConfig infra-im); master: 3 node(s); worker: 2 node(s), paused');
  });
});
