/**
 * Whether the nodes of a pool rebooted across a change, told by the kubelet's `status.nodeInfo.bootID`, which is new
 * on every boot: read before the change, compared after it. A daemon that applies a change without a reboot leaves it.
 */
import { expect } from 'chai';
import type { Cluster } from './cluster.js';
import { nodesOfPool } from './facts/pool.js';
import { step } from './report.js';

/** Each node of the pool with its boot id now. */
export async function readPoolBootIds(cluster: Cluster, pool: string): Promise<Record<string, string>> {
  const pools = await cluster.listMachineConfigPools();
  const p = pools.find((x) => x.metadata.name === pool);
  if (!p) throw new Error(`mcp/${pool} does not exist: no node's boot id to read`);
  return Object.fromEntries(nodesOfPool(p, pools, await cluster.listNodes()).map((n) => [n.metadata?.name ?? '?', n.status?.nodeInfo?.bootID ?? '']));
}

/** Every node read `before` has booted since (its boot id changed); `why` says why a reboot is due. */
export async function checkPoolRebooted(cluster: Cluster, pool: string, before: Record<string, string>, why: string): Promise<void> {
  await step(`every node of pool ${pool} rebooted (${why})`, async () => {
    const after = await readPoolBootIds(cluster, pool);
    for (const [node, bootId] of Object.entries(before)) {
      expect(after[node], `node ${node}'s status.nodeInfo.bootID, ${bootId} before the change (${why})`).to.not.equal(bootId);
    }
  });
}
