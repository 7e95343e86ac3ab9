/**
 * What a cluster state means when it will not get better by waiting: a pool whose nodes cannot reach their config,
 * and the report's deadlock. Waits stop on them at once; specs read them as data, not prose.
 */
import type { ClusterSnapshot } from '../cluster-watcher.js';
import type { MachineConfigPool } from '../types.js';
import { findCondition } from '../types.js';
import { operatorDegradation } from './cluster-operator.js';
import { viewNode } from './node.js';
import { nodesOfPool, poolRolledOut, viewPool } from './pool.js';

export interface DegradedNode {
  name: string;
  pool: string;
  /** The config the node failed to move to. */
  desiredConfig?: string;
  /** That config's osImageURL (undefined when the rendered config is not known). */
  osImageURL?: string;
  /** The daemon's reason, else the pool's NodeDegraded message. */
  reason?: string;
}

/** Every degraded node of the pool: the config it was moving to, that config's osImageURL, and why it failed. */
export function degradedNodes(snapshot: ClusterSnapshot, pool: MachineConfigPool): DegradedNode[] {
  const v = viewPool(pool);
  return nodesOfPool(pool, snapshot.pools.values(), snapshot.nodes.values())
    .map(viewNode)
    .filter((n) => n.activity === 'degraded')
    .map((n) => ({
      name: n.name,
      pool: v.name,
      desiredConfig: n.desired,
      osImageURL: n.desired ? snapshot.machineConfigs.get(n.desired)?.spec?.osImageURL : undefined,
      reason: n.reason ?? v.nodeDegradedMessage,
    }));
}

/** Which node, which image and why, for every degraded node of the pool (the pool's message when none is named). */
export function describeDegradedPool(pool: MachineConfigPool, nodes: DegradedNode[]): string {
  const v = viewPool(pool);
  const lines = nodes.map(
    (n) =>
      `node ${n.name} failed to move to ${n.desiredConfig ?? '(no desired config)'} with osImageURL ${n.osImageURL ?? '(unknown: rendered config not found)'}: ${n.reason ?? 'no reason given'}`,
  );
  const head = `pool ${v.name} is degraded (NodeDegraded: "${v.nodeDegradedMessage ?? ''}")`;
  return lines.length ? `${head}\n  ${lines.join('\n  ')}` : head;
}

/**
 * The report's bug, recognised while it happens, so a real cluster does not burn the rest of a 150-minute budget on it:
 * the machine-config operator is Degraded on its osImageURL check although the master pool has rolled out (only the
 * check itself can be wrong then), and ClusterVersion has already given up its 40-minute wait on machine-config. No
 * amount of waiting changes that state; a slow but healthy upgrade never shows the osImageURL mismatch.
 */
export function osImageCheckDeadlock(snapshot: ClusterSnapshot): string | undefined {
  const cvProgressing = findCondition(snapshot.clusterVersion?.status?.conditions, 'Progressing');
  if (!/wait has exceeded 40 minutes for these operators: .*machine-config/.test(cvProgressing?.message ?? '')) return undefined;
  const degraded = operatorDegradation(snapshot.operators.get('machine-config'));
  if (!degraded || !(degraded.message ?? '').includes('osImageURL mismatch for master')) return undefined;
  const master = snapshot.pools.get('master');
  if (!master || !poolRolledOut(master).ok) return undefined;
  return (
    'machine-config stays Degraded on its osImageURL check although pool master is fully updated, and ClusterVersion ' +
    `has given up waiting for it ("${cvProgressing!.message}"); waiting longer cannot help. machine-config says: ${degraded.message}`
  );
}
