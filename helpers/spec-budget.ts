/**
 * How long mocha lets one conformance test run: derived from the budgets of the waits a spec makes on this cluster
 * (its pools' sizes, its clock), so that a wait's own diagnosis ("timed out after … waiting for pools worker …, last
 * seen …") always fires before mocha's bare "Timeout of N ms exceeded". A fixed timeout cannot be right for both a
 * 3-node reference at 600x and a 120-worker real cluster.
 */
import { poolRolloutClusterMinutes } from './capabilities.js';
import { budgetMs, upgradeClusterMinutes, type WaitContext } from './cluster-waits.js';

/**
 * The most any spec asks of its pools: the override rolled out, the upgrade's roll-out, the undo's roll-out, and two
 * more for the specs that change their override half-way (a deleted or replaced override).
 */
const ROLLOUTS_PER_SPEC = 5;
/** The CVO's own wait and the settle waits (operator and ClusterVersion), twice. */
const SETTLES_PER_SPEC = 2;
const SETTLE_CLUSTER_MINUTES = 15;

/**
 * Work that is not a wait and does not run on the cluster's clock: the layered image's build and push, a debug pod per
 * node, the report's gathering. On a real cluster a build from a remote base image takes minutes.
 */
function workAllowanceMs(isReference: boolean, nodeCount: number): number {
  const perNodeRead = isReference ? 2_000 : 60_000;
  return (isReference ? 120_000 : 30 * 60_000) + nodeCount * perNodeRead;
}

export interface PoolSizes {
  /** Machines of each pool, from its status. */
  machineCounts: number[];
  masters: number;
  nodes: number;
}

/** The mocha timeout of one test of an upgrade spec on this cluster, in wall milliseconds. */
export function testTimeoutMs(ctx: WaitContext & { isReference: boolean }, pools: PoolSizes): number {
  const largest = Math.max(1, ...pools.machineCounts);
  const rollout = budgetMs(ctx, poolRolloutClusterMinutes(largest));
  const upgrade = budgetMs(ctx, upgradeClusterMinutes(pools.masters));
  const settles = SETTLES_PER_SPEC * budgetMs(ctx, SETTLE_CLUSTER_MINUTES);
  return ROLLOUTS_PER_SPEC * rollout + upgrade + settles + workAllowanceMs(ctx.isReference, pools.nodes);
}

/** The mocha timeout of the after-all hook, which undoes the spec's changes and waits for the pools to settle back. */
export function cleanupTimeoutMs(ctx: WaitContext & { isReference: boolean }, pools: PoolSizes): number {
  const largest = Math.max(1, ...pools.machineCounts);
  return 2 * budgetMs(ctx, poolRolloutClusterMinutes(largest)) + workAllowanceMs(ctx.isReference, 0);
}
