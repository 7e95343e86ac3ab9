/**
 * Reading MachineConfigPools and their nodes the way `oc get mcp` and the MCO do: which nodes belong to a pool, what
 * each node is doing, and one line that says where a rollout stands ("master 2/3 updated, node m-1 rebooting").
 */
import { NodeAnnotations, conditionIs, findCondition, type MachineConfigPool, type Node } from './types.js';

function matches(selector: Record<string, string> | undefined, labels: Record<string, string> | undefined): boolean {
  if (!selector || Object.keys(selector).length === 0) return false; // an empty selector matches nothing, as in MCO
  return Object.entries(selector).every(([k, v]) => labels?.[k] === v);
}

/**
 * The nodes of a pool. A node matched by both master and worker belongs to master; a custom pool wins over worker
 * (MCO's getPoolsForNode).
 */
export function nodesOfPool(pool: MachineConfigPool, pools: MachineConfigPool[], nodes: Node[]): Node[] {
  const poolName = pool.metadata.name;
  return nodes.filter((node) => {
    const mine = pools.filter((p) => matches(p.spec?.nodeSelector?.matchLabels, node.metadata?.labels)).map((p) => p.metadata.name);
    if (!mine.includes(poolName)) return false;
    if (mine.includes('master')) return poolName === 'master';
    const custom = mine.filter((n) => n !== 'worker');
    return custom.length > 0 ? custom[0] === poolName : poolName === 'worker';
  });
}

export type NodeActivity = 'done' | 'updating' | 'rebooting' | 'degraded' | 'waiting';

export interface NodeView {
  name: string;
  current?: string;
  desired?: string;
  state?: string;
  reason?: string;
  ready: boolean;
  activity: NodeActivity;
}

export function viewNode(node: Node): NodeView {
  const a = node.metadata?.annotations ?? {};
  const current = a[NodeAnnotations.currentConfig];
  const desired = a[NodeAnnotations.desiredConfig];
  const state = a[NodeAnnotations.state];
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
  let activity: NodeActivity;
  if (state === 'Degraded' || state === 'Unreconcilable') activity = 'degraded';
  else if (!ready) activity = 'rebooting';
  else if (current && desired && current !== desired) activity = state === 'Working' ? 'updating' : 'waiting';
  else if (state === 'Working') activity = 'updating';
  else activity = 'done';
  return { name: node.metadata?.name ?? '?', current, desired, state, reason: a[NodeAnnotations.reason] || undefined, ready, activity };
}

export interface PoolView {
  name: string;
  target?: string;
  rolledOut?: string;
  machineCount: number;
  updatedMachineCount: number;
  degradedMachineCount: number;
  updated: boolean;
  updating: boolean;
  degraded: boolean;
  nodeDegradedMessage?: string;
  renderDegradedMessage?: string;
  /** Generation seen by the pool controller; a pool whose spec just changed is not "updated" yet. */
  observed: boolean;
}

export function viewPool(pool: MachineConfigPool): PoolView {
  const c = pool.status?.conditions;
  return {
    name: pool.metadata.name ?? '?',
    target: pool.spec?.configuration?.name,
    rolledOut: pool.status?.configuration?.name,
    machineCount: pool.status?.machineCount ?? 0,
    updatedMachineCount: pool.status?.updatedMachineCount ?? 0,
    degradedMachineCount: pool.status?.degradedMachineCount ?? 0,
    updated: conditionIs(c, 'Updated', 'True'),
    updating: conditionIs(c, 'Updating', 'True'),
    degraded: conditionIs(c, 'Degraded', 'True'),
    nodeDegradedMessage: conditionIs(c, 'NodeDegraded', 'True') ? findCondition(c, 'NodeDegraded')?.message : undefined,
    renderDegradedMessage: conditionIs(c, 'RenderDegraded', 'True') ? findCondition(c, 'RenderDegraded')?.message : undefined,
    observed: (pool.status?.observedGeneration ?? 0) >= (pool.metadata.generation ?? 0),
  };
}

/** Pool is fully rolled out to its current target: what `oc wait mcp --for condition=Updated` means, done right. */
export function poolSettled(pool: MachineConfigPool): boolean {
  const v = viewPool(pool);
  return v.observed && v.updated && !v.updating && !v.degraded && v.target !== undefined && v.target === v.rolledOut;
}

/** "master 2/3 updated, node m-1 rebooting" (plus a degraded node's reason, which is the thing people need). */
export function poolProgressLine(pool: MachineConfigPool, nodes: Node[]): string {
  const v = viewPool(pool);
  const views = nodes.map(viewNode);
  const busy = views.filter((n) => n.activity !== 'done');
  const parts = [`${v.name} ${v.updatedMachineCount}/${v.machineCount} updated`];
  for (const n of busy.slice(0, 2)) {
    parts.push(n.activity === 'degraded' ? `node ${n.name} degraded: ${n.reason ?? 'no reason given'}` : `node ${n.name} ${n.activity}`);
  }
  if (busy.length > 2) parts.push(`${busy.length - 2} more busy`);
  if (v.degraded && !busy.some((n) => n.activity === 'degraded')) parts.push('pool Degraded');
  return parts.join(', ');
}
