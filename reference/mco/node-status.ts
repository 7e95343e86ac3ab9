/**
 * The node controller's pure logic (spec §4): per-node predicates, the pool status it computes, the condition setter
 * with its quirk, and the choice of the next nodes to update.
 */
import type { V1Node } from '@kubernetes/client-node';
import { ANN, LABEL } from '../constants.js';
import type { Condition, MachineConfigPool } from './types.js';
import { goQuote } from './go-quote.js';
import { compareNames, isEmptySelector, selectorMatches } from './render.js';

const annotation = (node: V1Node, key: string): string => node.metadata?.annotations?.[key] ?? '';

export function isNodeDone(node: V1Node): boolean {
  const current = annotation(node, ANN.currentConfig);
  const desired = annotation(node, ANN.desiredConfig);
  return current !== '' && desired !== '' && current === desired && annotation(node, ANN.state) === 'Done';
}

export function isNodeUpdated(node: V1Node, target: string): boolean {
  return isNodeDone(node) && annotation(node, ANN.currentConfig) === target;
}

function nodeCondition(node: V1Node, type: string): string | undefined {
  return node.status?.conditions?.find((c) => c.type === type)?.status;
}

/** NodeReady=True, DiskPressure=False, NetworkUnavailable=False (absent counts as fine) and not cordoned. */
export function isNodeReadyForPool(node: V1Node): boolean {
  if (nodeCondition(node, 'Ready') !== 'True') return false;
  if (nodeCondition(node, 'DiskPressure') === 'True') return false;
  if (nodeCondition(node, 'NetworkUnavailable') === 'True') return false;
  return !node.spec?.unschedulable;
}

export function isNodeReady(node: V1Node, target: string): boolean {
  return isNodeUpdated(node, target) && isNodeReadyForPool(node);
}

/** The node states of a daemon that stopped on an error (constants.go); the daemon tries the update again from either. */
export const FAILED_STATES: ReadonlySet<string> = new Set(['Degraded', 'Unreconcilable']);

export function isNodeFailing(node: V1Node): boolean {
  return annotation(node, ANN.currentConfig) !== annotation(node, ANN.desiredConfig) && FAILED_STATES.has(annotation(node, ANN.state));
}

export function isNodeUnavailable(node: V1Node): boolean {
  return !isNodeReadyForPool(node) || (!isNodeDone(node) && !isNodeFailing(node));
}

export function isNodeDegraded(node: V1Node): boolean {
  return annotation(node, ANN.desiredConfig) !== '' && FAILED_STATES.has(annotation(node, ANN.state));
}

/**
 * SetMachineConfigPoolCondition: nothing changes when a condition of that type already has the same status and
 * reason (so its message is NOT refreshed); lastTransitionTime moves only when the status flips.
 */
export function setPoolCondition(conditions: Condition[], next: Condition, now: string): Condition[] {
  const index = conditions.findIndex((c) => c.type === next.type);
  if (index < 0) return [...conditions, { ...next, lastTransitionTime: now }];
  const current = conditions[index]!;
  if (current.status === next.status && (current.reason ?? '') === (next.reason ?? '')) return conditions;
  const lastTransitionTime = current.status === next.status ? current.lastTransitionTime : now;
  const out = [...conditions];
  out[index] = { ...next, lastTransitionTime };
  return out;
}

export function getCondition(conditions: readonly Condition[] | undefined, type: string): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

export function isConditionTrue(conditions: Condition[] | undefined, type: string): boolean {
  return getCondition(conditions, type)?.status === 'True';
}

export type PoolStatus = NonNullable<MachineConfigPool['status']>;

/** calculateStatus: counts, Updated/Updating/NodeDegraded/Degraded, and status.configuration copied only when done. */
export function calculateStatus(pool: MachineConfigPool, nodes: readonly V1Node[], now: string): PoolStatus {
  const target = pool.spec.configuration?.name ?? '';
  const machineCount = nodes.length;
  let updated = 0;
  let ready = 0;
  let unavailable = 0;
  const degradedNodes: V1Node[] = [];
  for (const node of nodes) {
    if (isNodeUpdated(node, target)) updated++;
    if (isNodeReady(node, target)) ready++;
    if (isNodeUnavailable(node)) unavailable++;
    if (isNodeDegraded(node)) degradedNodes.push(node);
  }
  const previous = pool.status ?? {};
  let conditions = [...(previous.conditions ?? [])];
  const allUpdated = updated === machineCount && ready === machineCount && unavailable === 0;
  let configuration = previous.configuration;
  if (allUpdated) {
    conditions = setPoolCondition(conditions, { type: 'Updated', status: 'True', reason: '', message: `All nodes are updated with ${target}` }, now);
    conditions = setPoolCondition(conditions, { type: 'Updating', status: 'False', reason: '', message: '' }, now);
    configuration = pool.spec.configuration;
  } else {
    conditions = setPoolCondition(conditions, { type: 'Updated', status: 'False', reason: '', message: '' }, now);
    conditions = pool.spec.paused
      ? setPoolCondition(conditions, { type: 'Updating', status: 'False', reason: '', message: `Pool is paused; will not update to ${target}` }, now)
      : setPoolCondition(conditions, { type: 'Updating', status: 'True', reason: '', message: `All nodes are updating to ${target}` }, now);
  }
  const nodeDegraded = degradedNodes.length > 0;
  conditions = nodeDegraded
    ? setPoolCondition(
        conditions,
        {
          type: 'NodeDegraded',
          status: 'True',
          reason: `${degradedNodes.length} nodes are reporting degraded status on sync`,
          message: degradedNodes.map((n) => `Node ${n.metadata?.name} is reporting: ${goQuote(annotation(n, ANN.reason))}`).join(', '),
        },
        now,
      )
    : setPoolCondition(conditions, { type: 'NodeDegraded', status: 'False', reason: '', message: '' }, now);
  const degraded = nodeDegraded || isConditionTrue(conditions, 'RenderDegraded');
  conditions = setPoolCondition(conditions, { type: 'Degraded', status: degraded ? 'True' : 'False', reason: '', message: '' }, now);
  const status: PoolStatus = {
    observedGeneration: pool.metadata.generation,
    machineCount,
    updatedMachineCount: updated,
    readyMachineCount: ready,
    unavailableMachineCount: unavailable,
    degradedMachineCount: degradedNodes.length,
    conditions,
  };
  if (configuration) status.configuration = configuration;
  return status;
}

/** maxUnavailable: default 1; an int or a percentage of the node count rounded down; 0 becomes 1. */
export function maxUnavailable(pool: MachineConfigPool, nodeCount: number): number {
  const raw = pool.spec.maxUnavailable;
  let value: number;
  if (raw === undefined || raw === null || raw === '') value = 1;
  else if (typeof raw === 'number') value = raw;
  else if (/^\d+%$/.test(raw)) value = Math.floor((parseInt(raw, 10) * nodeCount) / 100);
  else if (/^\d+$/.test(raw)) value = parseInt(raw, 10);
  else throw new Error(`invalid value for IntOrString: invalid value "${raw}": must be an integer or percentage`);
  return value === 0 ? 1 : value;
}

/** The nodes to point at the target next (getCandidateMachines plus the zone/age order), at most `capacity` of them. */
export function chooseCandidates(pool: MachineConfigPool, nodes: readonly V1Node[]): V1Node[] {
  const target = pool.spec.configuration?.name ?? '';
  if (!target) return [];
  const unavailable = nodes.filter(isNodeUnavailable).length;
  const failingOnTarget = nodes.filter((n) => annotation(n, ANN.desiredConfig) === target && isNodeFailing(n)).length;
  const capacity = maxUnavailable(pool, nodes.length) - unavailable - failingOnTarget;
  if (capacity <= 0) return [];
  const candidates = nodes.filter((n) => annotation(n, ANN.desiredConfig) !== target);
  if (candidates.length <= capacity) return candidates;
  return [...candidates].sort(compareForUpdate).slice(0, capacity);
}

/** Zone first (nodes without a zone last), then oldest first; the name breaks ties so the order is total. */
function compareForUpdate(a: V1Node, b: V1Node): number {
  const za = a.metadata?.labels?.[LABEL.zone];
  const zb = b.metadata?.labels?.[LABEL.zone];
  if (za !== zb) {
    if (za === undefined) return 1;
    if (zb === undefined) return -1;
    return compareNames(za, zb);
  }
  const ta = new Date(a.metadata?.creationTimestamp ?? 0).getTime();
  const tb = new Date(b.metadata?.creationTimestamp ?? 0).getTime();
  if (ta !== tb) return ta - tb;
  return compareNames(a.metadata?.name ?? '', b.metadata?.name ?? '');
}

/**
 * getPoolsForNode: the pools whose nodeSelector matches (an empty selector matches nothing). Master and worker: master.
 * A custom pool wins over worker. Two custom pools, or a custom pool with master, is an error.
 */
export function poolForNode(node: V1Node, pools: readonly MachineConfigPool[]): MachineConfigPool | undefined {
  const labels = node.metadata?.labels ?? {};
  const matching = pools.filter((p) => !isEmptySelector(p.spec.nodeSelector) && selectorMatches(p.spec.nodeSelector, labels));
  if (matching.length <= 1) return matching[0];
  const master = matching.find((p) => p.metadata.name === 'master');
  const custom = matching.filter((p) => p.metadata.name !== 'master' && p.metadata.name !== 'worker');
  if (custom.length > 1) {
    throw new Error(`node ${node.metadata?.name} belongs to ${custom.length} custom roles, cannot proceed with this Node`);
  }
  if (custom.length === 1 && master) {
    throw new Error(`node ${node.metadata?.name} has both master role and custom role ${custom[0]!.metadata.name}`);
  }
  return custom[0] ?? master ?? matching[0];
}
