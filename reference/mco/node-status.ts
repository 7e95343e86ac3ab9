/**
 * The node controller's pure logic (spec §4): per-node predicates, the pool status it computes, the condition setter
 * with its quirk, and the choice of the next nodes to update.
 */
import type { V1Node } from '@kubernetes/client-node';
import { ANN, LABEL } from '../constants.js';
import type { Condition, MachineConfigPool } from './types.js';
import type { NodeControllerCode } from '../profiles/profile.js';
import { goQuote } from './go-quote.js';
import { buildFailed, buildPrepared, buildRunning, buildSucceeded, isLayered, moscImage, type LayeredObjects } from './layered-pool.js';
import { compareNames, isEmptySelector, selectorMatches } from './render.js';

const annotation = (node: V1Node, key: string): string => node.metadata?.annotations?.[key] ?? '';

const hasAnnotation = (node: V1Node, key: string): boolean => node.metadata?.annotations?.[key] !== undefined;

/**
 * LayeredNodeState.isNodeImageDone (pkg/controller/common/layered_node_state.go, 4.19 on): no image annotation at all,
 * or a desired image the daemon has booted. A node of a cluster without image mode has neither.
 */
function isNodeImageDone(node: V1Node): boolean {
  if (!hasAnnotation(node, ANN.desiredImage) && !hasAnnotation(node, ANN.currentImage)) return true;
  const desired = annotation(node, ANN.desiredImage);
  return desired !== '' && desired === annotation(node, ANN.currentImage);
}

export function isNodeDone(node: V1Node): boolean {
  const current = annotation(node, ANN.currentConfig);
  const desired = annotation(node, ANN.desiredConfig);
  return current !== '' && desired !== '' && current === desired && isNodeImageDone(node) && annotation(node, ANN.state) === 'Done';
}

/** IsDesiredEqualToBuild: the node is pointed at the build's rendered config and the MachineOSConfig's image. */
export function isDesiredEqualToBuild(node: V1Node, { mosc, mosb }: LayeredObjects): boolean {
  const image = annotation(node, ANN.desiredImage);
  return mosc !== undefined && mosb !== undefined && image !== '' && image === moscImage(mosc) && annotation(node, ANN.desiredConfig) === (mosb.spec?.machineConfig?.name ?? '');
}

/**
 * LayeredNodeState.IsDone: done on the pool's target and, in a layered pool, pointed at its build; in any other pool
 * without a desired image (a node still on an image after its pool's MachineOSConfig went is not updated).
 */
export function isNodeUpdated(node: V1Node, target: string, layered: LayeredObjects = {}): boolean {
  if (!isNodeDone(node) || annotation(node, ANN.currentConfig) !== target) return false;
  return isLayered(layered) ? isDesiredEqualToBuild(node, layered) : !hasAnnotation(node, ANN.desiredImage);
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

export function isNodeReady(node: V1Node, target: string, layered: LayeredObjects = {}): boolean {
  return isNodeUpdated(node, target, layered) && isNodeReadyForPool(node);
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
 * reason (so its message is NOT refreshed, 4.12-4.14) or, with `refreshMessage` (4.15 on), the same message too;
 * lastTransitionTime moves only when the status flips.
 */
export function setPoolCondition(conditions: Condition[], next: Condition, now: string, refreshMessage = false): Condition[] {
  return setCondition(conditions, next, now, refreshMessage);
}

function setCondition(conditions: Condition[], next: Condition, now: string, refreshMessage: boolean): Condition[] {
  const index = conditions.findIndex((c) => c.type === next.type);
  if (index < 0) return [...conditions, { ...next, lastTransitionTime: now }];
  const current = conditions[index]!;
  const sameMessage = !refreshMessage || (current.message ?? '') === (next.message ?? '');
  if (current.status === next.status && (current.reason ?? '') === (next.reason ?? '') && sameMessage) return conditions;
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

/** What calculateStatus knows of image mode: the pool's objects and the node controller's code (absent: no image mode). */
export interface ImageModeView {
  objects: LayeredObjects;
  code: NodeControllerCode;
}

/**
 * getPoolUpdateLine: "MachineConfig <rendered>", with " / Image <pullspec>" for a layered pool whose MachineOSConfig
 * names an image. Only where the cluster has image mode; older code says the rendered config's name alone.
 */
function poolUpdateLine(pool: MachineConfigPool, image: ImageModeView | undefined): string {
  const target = pool.spec.configuration?.name ?? '';
  if (!image) return target;
  const line = `MachineConfig ${target}`;
  const pullspec = isLayered(image.objects) ? moscImage(image.objects.mosc) : '';
  return pullspec ? `${line} / Image ${pullspec}` : line;
}

/** calculateStatus: counts, Updated/Updating/NodeDegraded/Degraded, and status.configuration copied only when done. */
export function calculateStatus(pool: MachineConfigPool, nodes: readonly V1Node[], now: string, image?: ImageModeView): PoolStatus {
  const target = pool.spec.configuration?.name ?? '';
  const layered = image?.objects ?? {};
  const line = poolUpdateLine(pool, image);
  const refresh = image?.code.refreshesConditionMessages ?? false;
  const setPoolCondition = (list: Condition[], next: Condition, at: string): Condition[] => setCondition(list, next, at, refresh);
  const machineCount = nodes.length;
  let updated = 0;
  let ready = 0;
  let unavailable = 0;
  const degradedNodes: V1Node[] = [];
  for (const node of nodes) {
    if (isNodeUpdated(node, target, layered)) updated++;
    if (isNodeReady(node, target, layered)) ready++;
    if (isNodeUnavailable(node)) unavailable++;
    if (isNodeDegraded(node)) degradedNodes.push(node);
  }
  const previous = pool.status ?? {};
  let conditions = [...(previous.conditions ?? [])];
  const allUpdated = updated === machineCount && ready === machineCount && unavailable === 0;
  let configuration = previous.configuration;
  if (allUpdated) {
    conditions = setPoolCondition(conditions, { type: 'Updated', status: 'True', reason: '', message: `All nodes are updated with ${line}` }, now);
    conditions = setPoolCondition(conditions, { type: 'Updating', status: 'False', reason: '', message: '' }, now);
    configuration = pool.spec.configuration;
  } else {
    conditions = setPoolCondition(conditions, { type: 'Updated', status: 'False', reason: '', message: '' }, now);
    conditions = pool.spec.paused
      ? setPoolCondition(conditions, { type: 'Updating', status: 'False', reason: '', message: `Pool is paused; will not update to ${line}` }, now)
      : setPoolCondition(conditions, { type: 'Updating', status: 'True', reason: '', message: `All nodes are updating to ${line}` }, now);
  }
  if (image) conditions = buildUpdatingCondition(pool, conditions, image, now);
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
  let buildDegraded = false;
  if (image?.code.imageBuildDegraded) ({ conditions, buildDegraded } = imageBuildDegraded(conditions, image.objects, now));
  const degraded = nodeDegraded || isConditionTrue(conditions, 'RenderDegraded') || buildDegraded;
  const degradedMessage = !nodeDegraded && buildDegraded ? 'Custom OS image build failed' : '';
  conditions = setPoolCondition(conditions, { type: 'Degraded', status: degraded ? 'True' : 'False', reason: '', message: degradedMessage }, now);
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

/**
 * The Updating condition of a pool with a MachineOSConfig (status.go): waiting for a build to start or end; from 4.20 a
 * failed build stops it, and a pool degraded by anything but its build pauses it.
 */
function buildUpdatingCondition(pool: MachineConfigPool, conditions: Condition[], image: ImageModeView, now: string): Condition[] {
  const { mosc, mosb } = image.objects;
  if (!mosc || pool.spec.paused) return conditions;
  const refresh = image.code.refreshesConditionMessages;
  const updating = (status: 'True' | 'False', message: string): Condition[] => setCondition(conditions, { type: 'Updating', status, reason: '', message }, now, refresh);
  if (image.code.imageBuildDegraded && ['RenderDegraded', 'NodeDegraded', 'PinnedImageSetsDegraded'].some((t) => isConditionTrue(pool.status?.conditions, t))) {
    return updating('False', 'Pool update paused due to degraded condition');
  }
  if (!mosb) return updating('True', `Pool is waiting for a new OS image build to start (mosc: ${mosc.metadata.name})`);
  if (buildRunning(mosb) || buildPrepared(mosb)) return updating('True', `Pool is waiting for OS image build to complete (mosb: ${mosb.metadata.name})`);
  if (image.code.imageBuildDegraded && buildFailed(mosb)) return updating('False', `Pool update stopped due to OS image build failure (mosb: ${mosb.metadata.name})`);
  return conditions;
}

/**
 * 4.20+: the node controller's side of ImageBuildDegraded (status.go). The build controller sets it True on a failed
 * build; here it is cleared by a new or successful build, by a MachineOSConfig waiting for its build, or once no
 * image-mode object is left, and a True one that stays degrades the pool.
 */
function imageBuildDegraded(conditions: Condition[], { mosc, mosb }: LayeredObjects, now: string): { conditions: Condition[]; buildDegraded: boolean } {
  const wasTrue = isConditionTrue(conditions, 'ImageBuildDegraded');
  const clear = (reason: string, message: string): { conditions: Condition[]; buildDegraded: boolean } => ({
    conditions: setCondition(conditions, { type: 'ImageBuildDegraded', status: 'False', reason, message }, now, true),
    buildDegraded: false,
  });
  if (mosb) {
    if (buildRunning(mosb) || buildPrepared(mosb)) return clear('Building', 'New build started');
    if (buildSucceeded(mosb)) return clear('BuildSuccess', 'Build completed successfully');
  } else if (mosc) {
    if (wasTrue) return clear('BuildPending', 'MachineOSConfig updated/created, waiting for MachineOSBuild');
  } else if (wasTrue) {
    return clear('NoLayeredObjects', 'No layered pool objects found, clearing stale build degraded condition');
  }
  return { conditions, buildDegraded: wasTrue };
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

/**
 * CheckNodeCandidacyForUpdate: a node of a layered pool not yet pointed at the build; a node of another pool not on the
 * target, or on it with a desired image left from a MachineOSConfig since deleted (the rollback).
 */
export function needsUpdate(node: V1Node, target: string, layered: LayeredObjects = {}): boolean {
  if (isLayered(layered)) return !isDesiredEqualToBuild(node, layered);
  return annotation(node, ANN.desiredConfig) !== target || hasAnnotation(node, ANN.desiredImage);
}

/** The nodes to point at the target next (getCandidateMachines plus the zone/age order), at most `capacity` of them. */
export function chooseCandidates(pool: MachineConfigPool, nodes: readonly V1Node[], layered: LayeredObjects = {}): V1Node[] {
  const target = pool.spec.configuration?.name ?? '';
  if (!target) return [];
  const unavailable = nodes.filter(isNodeUnavailable).length;
  const failingOnTarget = nodes.filter((n) => !needsUpdate(n, target, layered) && isNodeFailing(n)).length;
  const capacity = maxUnavailable(pool, nodes.length) - unavailable - failingOnTarget;
  if (capacity <= 0) return [];
  const candidates = nodes.filter((n) => needsUpdate(n, target, layered));
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
