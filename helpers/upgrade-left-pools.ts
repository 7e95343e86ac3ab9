/**
 * A pool a spec expects not to roll out during the upgrade, and judges itself afterwards (spec 16: an image-mode pool
 * whose rebuild FROM the new release's base fails by design). The spec marks the pool with an annotation saying why,
 * on the cluster, so every process that follows or judges the upgrade (a shared upgrade's other specs, --phase post)
 * leaves that pool out of "every pool rolled out" until the spec has brought it back and removed the mark. The upgrade
 * itself is not held back by such a pool upstream (it is not Degraded: helpers/releases/image-build-failure.ts).
 */
import type { Cluster } from './cluster.js';
import type { MachineConfigPool } from './types.js';

export const UPGRADE_LEAVES_POOL_ANNOTATION = 'ocp-e2e.io/upgrade-leaves-pool';

/** Why the upgrade's own waits and checks leave this pool out, or undefined when they judge it. */
export function leftOutBecause(pool: MachineConfigPool): string | undefined {
  return pool.metadata?.annotations?.[UPGRADE_LEAVES_POOL_ANNOTATION] || undefined;
}

/** The pools the upgrade's waits and checks judge, and the ones left out with their reason. */
export function splitLeftOutPools<P extends MachineConfigPool>(pools: Iterable<P>): { judged: P[]; leftOut: Array<{ pool: P; why: string }> } {
  const judged: P[] = [];
  const leftOut: Array<{ pool: P; why: string }> = [];
  for (const pool of pools) {
    const why = leftOutBecause(pool);
    if (why) leftOut.push({ pool, why });
    else judged.push(pool);
  }
  return { judged, leftOut };
}

/** Marks `pool` as the spec's to judge after the upgrade (`why` is said wherever the pool is left out). */
export async function leavePoolOutOfUpgrade(cluster: Cluster, pool: string, why: string): Promise<void> {
  await cluster.client.patch('MachineConfigPool', pool, { metadata: { annotations: { [UPGRADE_LEAVES_POOL_ANNOTATION]: why } } });
}

/** The upgrade's checks judge `pool` again. */
export async function judgePoolWithUpgrade(cluster: Cluster, pool: string): Promise<void> {
  await cluster.client.patch('MachineConfigPool', pool, { metadata: { annotations: { [UPGRADE_LEAVES_POOL_ANNOTATION]: null } } });
}
