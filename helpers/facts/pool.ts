/**
 * MachineConfigPools read the way `oc get mcp` and the MCO read them: which nodes belong to a pool, whether it has
 * rolled out what it targets, what it is rendered from, and one line that says where a rollout stands.
 */
import { conditionIs, findCondition, RoleLabel, type LabelSelector, type MachineConfig, type MachineConfigPool, type Node } from '../types.js';
import { allOf, fails, holds, quote, type Fact } from './fact.js';
import { renderedForRelease } from './machine-config.js';
import { viewNode } from './node.js';

function matches(selector: Record<string, string> | undefined, labels: Record<string, string> | undefined): boolean {
  if (!selector || Object.keys(selector).length === 0) return false; // an empty selector matches nothing, as in MCO
  return Object.entries(selector).every(([k, v]) => labels?.[k] === v);
}

/**
 * The nodes of a pool. A node matched by both master and worker belongs to master; a custom pool wins over worker
 * (MCO's getPoolsForNode).
 */
export function nodesOfPool(pool: MachineConfigPool, pools: Iterable<MachineConfigPool>, nodes: Iterable<Node>): Node[] {
  const poolName = pool.metadata.name;
  const all = [...pools];
  return [...nodes].filter((node) => {
    const mine = all.filter((p) => matches(p.spec?.nodeSelector?.matchLabels, node.metadata?.labels)).map((p) => p.metadata.name);
    if (!mine.includes(poolName)) return false;
    if (mine.includes('master')) return poolName === 'master';
    const custom = mine.filter((n) => n !== 'worker');
    return custom.length > 0 ? custom[0] === poolName : poolName === 'worker';
  });
}

/** Whether a label selector selects these labels (an empty selector selects nothing, as the MCO reads pools'). */
export function selects(selector: LabelSelector | undefined, labels: Record<string, string>): boolean {
  if (!selector || (Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0)) return false;
  if (!Object.entries(selector.matchLabels ?? {}).every(([k, v]) => labels[k] === v)) return false;
  return (selector.matchExpressions ?? []).every((e) => {
    const has = Object.hasOwn(labels, e.key);
    if (e.operator === 'In') return has && (e.values ?? []).includes(labels[e.key]!);
    if (e.operator === 'NotIn') return !has || !(e.values ?? []).includes(labels[e.key]!);
    if (e.operator === 'Exists') return has;
    if (e.operator === 'DoesNotExist') return !has;
    return false;
  });
}

/**
 * The pools that take a role's MachineConfigs besides the role's own pool: an infra pool as OpenShift documents it
 * selects `role In [worker, infra]`, so a worker override rolls onto its nodes too. Each such pool, with the role
 * it inherits; the master pool and the roles' own pools are not inheritors.
 */
export function inheritingPools(roles: readonly string[], pools: Iterable<MachineConfigPool>): Map<string, string> {
  const out = new Map<string, string>();
  for (const pool of pools) {
    const name = pool.metadata.name ?? '';
    if (name === 'master' || roles.includes(name)) continue;
    const role = roles.find((r) => r !== 'master' && selects(pool.spec?.machineConfigSelector, { [RoleLabel]: r }));
    if (role) out.set(name, role);
  }
  return out;
}

export interface PoolView {
  name: string;
  /** The rendered config the pool targets (spec.configuration). */
  target?: string;
  /** The rendered config every node has reached (status.configuration). */
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

/**
 * The one meaning of "pool updated" in this suite (origin's IsPoolUpdated, made strict): the controller has seen the
 * pool's spec, the pool is Updated and neither Updating nor Degraded, every machine is updated, and what it rolled out
 * is what it targets. Right after the render controller retargets a pool, Updated=True still describes the old config:
 * only the last clause tells the two apart.
 */
export function poolRolledOut(pool: MachineConfigPool): Fact {
  const v = viewPool(pool);
  if (v.degraded) return fails(`mcp/${v.name} is Degraded: ${quote(v.nodeDegradedMessage ?? v.renderDegradedMessage)}`);
  if (!v.updated || v.updating || v.updatedMachineCount !== v.machineCount) {
    const updating = findCondition(pool.status?.conditions, 'Updating');
    return fails(
      `mcp/${v.name} is not updated: Updated=${v.updated} Updating=${v.updating}, ${v.updatedMachineCount}/${v.machineCount} machines updated: ${quote(updating?.message)}`,
    );
  }
  if (!v.observed) return fails(`mcp/${v.name} has not been seen by the pool controller since its spec changed (generation ${pool.metadata.generation})`);
  if (v.target === undefined || v.target !== v.rolledOut) return fails(`mcp/${v.name} targets ${v.target ?? '(nothing)'} but has rolled out ${v.rolledOut ?? '(nothing)'}`);
  return holds(`mcp/${v.name} rolled out ${v.rolledOut} to ${v.machineCount} machines`);
}

/** The pool is not Degraded (nodes or rendering). */
export function poolNotDegraded(pool: MachineConfigPool): Fact {
  const v = viewPool(pool);
  if (v.degraded) return fails(`pool ${v.name} is degraded ("${v.nodeDegradedMessage ?? v.renderDegradedMessage ?? ''}")`);
  return holds(`pool ${v.name} is not degraded`);
}

export interface RenderExpectation {
  /** MachineConfigs that must be among the sources of the pool's target config (just created). */
  with?: string[];
  /** MachineConfigs that must no longer be among them (just deleted). */
  without?: string[];
  /** The target config must be rendered for this release. */
  release?: string;
}

/**
 * The pool targets a config rendered from (or without) the MachineConfigs, and for the release. `machineConfigs` looks
 * a rendered config up by name (the snapshot's, or the API's).
 */
export function poolRenderedAs(pool: MachineConfigPool, expected: RenderExpectation, machineConfigs: ReadonlyMap<string, MachineConfig>): Fact {
  const name = pool.metadata.name ?? '?';
  const sources = new Set((pool.spec?.configuration?.source ?? []).map((s) => s.name));
  const missing = (expected.with ?? []).filter((n) => !sources.has(n));
  if (missing.length) return fails(`${name} not yet rendered with ${missing.join(', ')}`);
  const stale = (expected.without ?? []).filter((n) => sources.has(n));
  if (stale.length) return fails(`${name} still rendered with ${stale.join(', ')}`);
  const facts: Fact[] = [holds(`${name} targets ${pool.spec?.configuration?.name ?? '-'}`)];
  if (expected.release) {
    const target = pool.spec?.configuration?.name;
    const release = renderedForRelease(target ? machineConfigs.get(target) : undefined, target, expected.release);
    facts.push(release.ok ? release : fails(`${name} ${release.why}`));
  }
  return allOf(...facts);
}

/** "master 2/3 updated, node m-1 rebooting" (plus a degraded node's reason, which is the thing people need). */
export function poolProgressLine(pool: MachineConfigPool, nodes: Node[]): string {
  const v = viewPool(pool);
  const busy = nodes.map(viewNode).filter((n) => n.activity !== 'done');
  const parts = [`${v.name} ${v.updatedMachineCount}/${v.machineCount} updated`];
  for (const n of busy.slice(0, 2)) {
    parts.push(n.activity === 'degraded' ? `node ${n.name} degraded: ${n.reason ?? 'no reason given'}` : `node ${n.name} ${n.activity}`);
  }
  if (busy.length > 2) parts.push(`${busy.length - 2} more busy`);
  if (v.degraded && !busy.some((n) => n.activity === 'degraded')) parts.push('pool Degraded');
  return parts.join(', ');
}

/** One line for timelines: the fields whose changes matter for an upgrade. */
export function poolLine(pool: MachineConfigPool): string {
  const v = viewPool(pool);
  return `target=${v.target ?? '-'} Updated=${v.updated} Updating=${v.updating} Degraded=${v.degraded} ${v.updatedMachineCount}/${v.machineCount} updated`;
}

/**
 * Why no spec may change a paused pool (its nodes take no new config, so a change never rolls out and a wait spends its
 * whole budget), or undefined when the pool is not paused.
 */
export function pausedPoolReason(pool: MachineConfigPool | undefined): string | undefined {
  if (pool?.spec?.paused !== true) return undefined;
  const name = pool.metadata.name;
  return `pool ${name} is paused (spec.paused: true): its nodes take no new config, so this spec's changes would never roll out; unpause it (oc patch mcp ${name} --type merge -p '{"spec":{"paused":false}}') or run the spec on another cluster`;
}
