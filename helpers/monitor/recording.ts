/**
 * What the upgrade monitor records, as data: intervals per object, as origin's monitor keeps them. Each interval says
 * where (a locator: `ClusterOperator/machine-config`, `Node/<name>`, `Pod/<namespace>/<name>`), of what (a condition
 * such as `Degraded`, or a state such as a node's `state` or a pool's `targetConfig`), which value it had, from when to
 * when, and the message. A recording is plain JSON: it goes into a split run's checkpoint and into the reports folder,
 * and is judged (judge.ts) and drawn (report/timeline-model.ts) from what it holds, never from text.
 *
 * The queries below read a recording the same way for every reader: the streams of one object, and what an object's
 * streams said at the moment a given interval began.
 */

import { clockMap, type ClockMap, type ClockPoint } from './clock-map.js';

/** Bumped when a field changes meaning: a recording of another format is refused, not guessed at. */
export const RECORDING_FORMAT = 1;

export type RecordedKind = 'ClusterVersion' | 'ClusterOperator' | 'MachineConfigPool' | 'Node' | 'Pod' | 'MachineOSBuild';

/** A moment on both clocks. */
export interface Instant {
  /** Wall clock, ISO. */
  wall: string;
  /** Cluster time since the recording started, "+12m30s" (the cluster clock runs `timeFactor` times faster, or more). */
  cluster: string;
  /**
   * The same in ms, read on the target's clock (a reference clock that skips idle time is not wall time × factor).
   * Absent in recordings made before it was kept: readers then take wall time × factor.
   */
  clusterMs?: number;
}

/** Values an interval carries besides its `value`, for the readers that need them (see the recorder per condition). */
export interface IntervalFields {
  /** ClusterVersion `history` / `desired`, ClusterOperator `version`: the release. */
  version?: string;
  image?: string;
  /** MachineConfigPool `targetConfig`: the release its rendered config was made for (its annotation), if it says. */
  renderedFor?: string;
  /** MachineConfigPool `machines`. */
  machineCount?: number;
  updatedMachineCount?: number;
  degradedMachineCount?: number;
  /** MachineConfigPool `observedGeneration`: the pool's own generation, beside the one its controller has seen. */
  generation?: number;
  /**
   * A pool condition's lastTransitionTime (the cluster's clock, ISO): when it changed on the cluster. Separate watches
   * deliver in their own time (a cut watch resumes later), so this, not the timeline's order, says what came first.
   */
  changedAt?: string;
  /** ClusterVersion `history[0].completionTime` (the cluster's clock, ISO). */
  completedAt?: string;
  /**
   * MachineOSBuild `build`: the rendered config it builds, its MachineOSConfig, and its uid (a build deleted and made
   * again under the same name is another object: its uid tells). `image` is its digestedImagePushSpec.
   */
  renderedConfig?: string;
  machineOSConfig?: string;
  uid?: string;
}

export interface Interval {
  /** `<kind>/<name>`, or `Pod/<namespace>/<name>`. */
  locator: string;
  kind: RecordedKind;
  name: string;
  namespace?: string;
  /** What the interval is of: a condition type (`Degraded`, `Updating`, `Ready`) or a state (`state`, `history`, `restart`). */
  condition: string;
  /** What it was: a condition's status (`True`), a node's state (`Working`), a config's name, an event's reason. */
  value: string;
  reason?: string;
  message?: string;
  fields?: IntervalFields;
  from: Instant;
  /** Absent while open: still so when the recording stopped. A point (a restart event) has `to` equal to `from`. */
  to?: Instant;
  /** The value was found when the recording began, not seen changing. */
  found?: true;
}

export interface UpgradeRecording {
  format: typeof RECORDING_FORMAT;
  /** Cluster seconds per wall second while recording. */
  timeFactor: number;
  /** Wall time the recording began: cluster time zero. */
  startedAt: string;
  /** Wall time it stopped; absent while recording. */
  stoppedAt?: string;
  /** Cluster ms since the start when it stopped (see Instant.clusterMs). */
  stoppedClusterMs?: number;
  /** The release the upgrade went to (an explicit --to-image may learn its version only later). */
  target: { image?: string; version?: string };
  /** Every interval, in the order they began. */
  timeline: Interval[];
}

/**
 * The states recorded besides conditions, by kind (every condition in an object's status is recorded under its type).
 * The recorder writes these names and every reader reads them from here.
 */
export const States = {
  /** ClusterVersion: status.history[0] (value its state; fields version, image) and status.desired (fields version, image). */
  clusterVersion: { history: 'history', desired: 'desired' },
  /** ClusterOperator: versions[name=operator]. */
  operator: { version: 'version' },
  /**
   * MachineConfigPool: spec.configuration (fields renderedFor), status.configuration, the machine counts (value
   * "updated/all"; fields the three counts), status.observedGeneration (fields generation).
   */
  pool: { targetConfig: 'targetConfig', rolledOutConfig: 'rolledOutConfig', machines: 'machines', observedGeneration: 'observedGeneration' },
  /**
   * Node: the daemon's annotations (state with its reason) and the Ready condition; on a node of an image-mode pool
   * (one that carries them) the desiredImage and currentImage annotations too.
   */
  node: { state: 'state', currentConfig: 'currentConfig', desiredConfig: 'desiredConfig', desiredImage: 'desiredImage', currentImage: 'currentImage', ready: 'Ready' },
  /** MachineOSBuild: which of its conditions is True (value; fields renderedConfig, machineOSConfig, uid, image). */
  build: { state: 'build' },
  /** Pod: a Killing or Started event of a component's pod, as a point. */
  pod: { restart: 'restart' },
} as const;

/** The stream an interval belongs to: one object's one condition or state. */
export function streamOf(i: Pick<Interval, 'locator' | 'condition'>): string {
  return `${i.locator} ${i.condition}`;
}

export function locatorOf(kind: RecordedKind, name: string, namespace?: string): string {
  return namespace ? `${kind}/${namespace}/${name}` : `${kind}/${name}`;
}

/**
 * What the streams of `locator` said at the moment the interval at `index` of the timeline began: for each condition,
 * the last interval of that stream begun before it (the timeline's order decides, so two changes seen in the same
 * millisecond still have a before and after), unless it had ended by then (its object was deleted). What the recording
 * found when it began is one moment: a found interval sees every other found one.
 */
export function stateAt(recording: UpgradeRecording, locator: string, index: number): Map<string, Interval> {
  const state = new Map<string, Interval>();
  const reference = recording.timeline[index];
  const at = Date.parse(reference?.from.wall ?? '');
  recording.timeline.forEach((interval, i) => {
    if (interval.locator === locator && (i <= index || (reference?.found && interval.found))) state.set(interval.condition, interval);
  });
  for (const [condition, interval] of state) {
    if (interval.to && Date.parse(interval.to.wall) < at) state.delete(condition);
  }
  return state;
}

/**
 * Where ClusterVersion began to report the upgrade completed: the index of the first `history` interval that says
 * Completed for the recording's target release, or -1.
 */
export function targetCompletionIndex(recording: UpgradeRecording): number {
  const { image, version } = recording.target;
  const isTarget = (i: Interval) => (image !== undefined && i.fields?.image === image) || (version !== undefined && i.fields?.version === version);
  return recording.timeline.findIndex((i) => i.kind === 'ClusterVersion' && i.condition === States.clusterVersion.history && i.value === 'Completed' && isTarget(i));
}

/** Cluster ms since the recording began, of a moment it holds. */
export function clusterOffsetMs(recording: Pick<UpgradeRecording, 'startedAt' | 'timeFactor'>, at: Instant): number {
  return at.clusterMs ?? (Date.parse(at.wall) - Date.parse(recording.startedAt)) * recording.timeFactor;
}

/** The moments the recording holds on both clocks: every interval's start and end, and its stop. */
export function clockPointsOf(recording: UpgradeRecording): ClockPoint[] {
  const points: ClockPoint[] = [];
  const add = (at: Instant | undefined) => {
    if (at?.clusterMs !== undefined) points.push({ clusterMs: at.clusterMs, wallMs: Date.parse(at.wall) });
  };
  for (const interval of recording.timeline) {
    add(interval.from);
    add(interval.to);
  }
  if (recording.stoppedAt && recording.stoppedClusterMs !== undefined) points.push({ clusterMs: recording.stoppedClusterMs, wallMs: Date.parse(recording.stoppedAt) });
  return points;
}

/** Wall and cluster time of the recording mapped onto each other, through every moment it holds on both clocks. */
export function clockMapOf(recording: UpgradeRecording): ClockMap {
  return clockMap(Date.parse(recording.startedAt), recording.timeFactor, clockPointsOf(recording));
}

/** Cluster ms at which the recording ends: when it stopped, else now (a recording still going). */
export function endClusterMs(recording: UpgradeRecording, now = Date.now()): number {
  if (recording.stoppedAt && recording.stoppedClusterMs !== undefined) return recording.stoppedClusterMs;
  return clockMapOf(recording).clusterAt(endWallMs(recording, now));
}

/** Wall ms at which the recording ends: when it stopped, else now (a recording still going). */
function endWallMs(recording: Pick<UpgradeRecording, 'stoppedAt'>, now = Date.now()): number {
  return recording.stoppedAt ? Date.parse(recording.stoppedAt) : now;
}

/** "+12m30s" for a number of cluster ms. */
export function clusterStamp(ms: number): string {
  const seconds = Math.round(ms / 1000);
  return `+${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`;
}

/** One line for an interval, as a person reads it: `ClusterOperator/machine-config Degraded=True (Reason): message`. */
export function describeInterval(i: Interval): string {
  const fields = i.fields ? Object.entries(i.fields).filter(([, v]) => v !== undefined).map(([k, v]) => `${k}=${v}`) : [];
  const span = `${i.from.wall} → ${i.to ? i.to.wall : '(still so at the end)'}`;
  return `${i.locator} ${i.condition}=${i.value}${i.reason ? ` (${i.reason})` : ''}${fields.length ? ` [${fields.join(' ')}]` : ''}${i.message ? `: ${i.message}` : ''}; ${span}`;
}
