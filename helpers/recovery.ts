/**
 * Getting a pool out of NodeDegraded after the bad MachineConfig is gone. MCO does not do it alone: the degraded node
 * stays cordoned, counts as unavailable, and with maxUnavailable 1 the node controller never points it anywhere
 * else. The documented manual fix is to point the node back at the config it still runs (desiredConfig =
 * currentConfig); the daemon then validates it, reports Done and uncordons the node.
 */
import type { Cluster } from './cluster.js';
import { budgetMs, type WaitContext } from './cluster-waits.js';
import { viewNode } from './facts/node.js';
import { nodesOfPool, poolRenderedAs } from './facts/pool.js';
import { NodeAnnotations } from './types.js';
import { waitFor } from './wait.js';

/** Waits until the pool no longer renders the MachineConfigs, then re-points its degraded nodes; returns their names. */
export async function recoverDegradedNodes(cluster: Cluster, ctx: WaitContext, pool: string, removedSources: string[]): Promise<string[]> {
  await waitFor(
    ctx.watcher,
    {
      what: `pool ${pool} to render without ${removedSources.join(', ')}`,
      expected: `mcp/${pool} spec.configuration.source without ${removedSources.join(', ')}`,
      budgetMs: budgetMs(ctx, 10),
      caps: ctx.caps,
      judge: (snap) => {
        const p = snap.pools.get(pool);
        const rendered = p ? poolRenderedAs(p, { without: removedSources }, snap.machineConfigs) : { ok: false, why: `${pool}: no such pool` };
        return { done: rendered.ok, progress: rendered.why };
      },
    },
    ctx.progress,
  );
  const snap = ctx.watcher.snapshot();
  const p = snap.pools.get(pool);
  if (!p) return [];
  const target = p.spec?.configuration?.name;
  const stuck = nodesOfPool(p, snap.pools.values(), snap.nodes.values())
    .map(viewNode)
    // not only the nodes marked Degraded now: a failed node retries its update (state Working for a moment, its pool
    // still Degraded), and one caught then was left pointed at the removed config, the pool stuck with it (a spec that
    // failed on a pool the shared upgrade gave other specs too, on the report's nightly). A node asked for a config
    // that is neither the one it runs nor the pool's target is asked for what no longer exists.
    .filter((n) => n.current && n.desired && n.desired !== target && (n.activity === 'degraded' || n.desired !== n.current));
  for (const n of stuck) {
    await cluster.patchNodeAnnotations(n.name, { [NodeAnnotations.desiredConfig]: n.current! });
  }
  return stuck.map((n) => n.name);
}
