/**
 * Records an upgrade as origin's monitor does, and does nothing else: for ClusterVersion, every ClusterOperator, pool
 * and node (and every MachineOSBuild, where the watcher follows them), one stream of intervals per condition or state
 * (recording.ts), a new interval each time what it says changes; with the cluster's events, the restarts of the components the upgrade depends on (restart-events.ts), one
 * point each on their Pod. Judging is judge.ts's, over the finished recording; drawing is report/timeline-model.ts's.
 */
import type { CoreV1Event } from '@kubernetes/client-node';
import { RestartRecorder, type RestartSeen } from '../restart-events.js';
import type { ClusterSnapshot, ClusterWatcher, ObjectChange } from '../cluster-watcher.js';
import { clockOf, type TargetCapabilities } from '../capabilities.js';
import type { TargetClock } from '../target-clock.js';
import type { ReleaseTarget } from '../facts/cluster-version.js';
import { renderedRelease } from '../facts/machine-config.js';
import { ImageAnnotations, type MachineOSBuild } from '../image-mode/types.js';
import { NodeAnnotations, type ApiObject, type ClusterOperator, type ClusterVersion, type Condition, type MachineConfigPool, type Node } from '../types.js';
import { clusterStamp, locatorOf, RECORDING_FORMAT, States, streamOf, type Instant, type Interval, type IntervalFields, type RecordedKind, type UpgradeRecording } from './recording.js';

export type { UpgradeRecording } from './recording.js';

/** What one condition or state of an object says now: an interval's content without its times. */
export interface Reading {
  condition: string;
  value: string;
  reason?: string;
  message?: string;
  fields?: IntervalFields;
}

/** What the recorder needs of the cluster watcher: its snapshot and its changes (a test feeds a fake one). */
export type WatchedChanges = Pick<ClusterWatcher, 'snapshot' | 'onChange' | 'offChange'>;

export interface RecorderOptions {
  /** Lists the cluster's events: component restarts (pods killed and started) are recorded too. */
  events?: { list: () => Promise<CoreV1Event[]>; intervalMs: number };
  /** Wall clock of the recording's start (tests pass a fixed one). */
  now?: () => Date;
}

const RECORDED_KINDS: ReadonlySet<string> = new Set<RecordedKind>(['ClusterVersion', 'ClusterOperator', 'MachineConfigPool', 'Node', 'MachineOSBuild']);
/** A build's conditions in the order one True among them says most: its end first, then where it is. */
const BUILD_STATES = ['Succeeded', 'Failed', 'Interrupted', 'Building', 'Prepared'] as const;

function conditionReadings(conditions: Condition[] | undefined, withChangeTime = false): Reading[] {
  return (conditions ?? []).map((c) => ({
    condition: c.type,
    value: c.status,
    reason: c.reason || undefined,
    message: c.message || undefined,
    ...(withChangeTime && c.lastTransitionTime ? { fields: { changedAt: c.lastTransitionTime } } : {}),
  }));
}

function clusterVersionReadings(cv: ClusterVersion): Reading[] {
  const head = cv.status?.history?.[0];
  const desired = cv.status?.desired;
  return [
    ...conditionReadings(cv.status?.conditions),
    { condition: States.clusterVersion.history, value: head?.state ?? '-', fields: { version: head?.version || undefined, image: head?.image || undefined, completedAt: head?.completionTime || undefined } },
    { condition: States.clusterVersion.desired, value: desired?.version || desired?.image || '-', fields: { version: desired?.version || undefined, image: desired?.image || undefined } },
  ];
}

function operatorReadings(co: ClusterOperator): Reading[] {
  return [...conditionReadings(co.status?.conditions), { condition: States.operator.version, value: co.status?.versions?.find((v) => v.name === 'operator')?.version ?? '-' }];
}

function poolReadings(pool: MachineConfigPool, snapshot: ClusterSnapshot): Reading[] {
  const target = pool.spec?.configuration?.name;
  const status = pool.status;
  return [
    // with their change times: the judges order a pool's rollout against ClusterVersion by them (judge.ts)
    ...conditionReadings(status?.conditions, true),
    { condition: States.pool.targetConfig, value: target ?? '-', fields: { renderedFor: target ? renderedRelease(snapshot.machineConfigs.get(target)) : undefined } },
    { condition: States.pool.rolledOutConfig, value: status?.configuration?.name ?? '-' },
    {
      condition: States.pool.machines,
      value: `${status?.updatedMachineCount ?? 0}/${status?.machineCount ?? 0}`,
      fields: { machineCount: status?.machineCount ?? 0, updatedMachineCount: status?.updatedMachineCount ?? 0, degradedMachineCount: status?.degradedMachineCount ?? 0 },
    },
    { condition: States.pool.observedGeneration, value: String(status?.observedGeneration ?? 0), fields: { generation: pool.metadata.generation ?? 0 } },
  ];
}

function nodeReadings(node: Node): Reading[] {
  const a = node.metadata?.annotations ?? {};
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
  return [
    { condition: States.node.state, value: a[NodeAnnotations.state] ?? '-', reason: a[NodeAnnotations.reason] || undefined },
    { condition: States.node.currentConfig, value: a[NodeAnnotations.currentConfig] ?? '-' },
    { condition: States.node.desiredConfig, value: a[NodeAnnotations.desiredConfig] ?? '-' },
    // only a node of an image-mode pool carries these: the node controller writes desiredImage with desiredConfig, the
    // daemon currentImage with currentConfig, so each pair changes in one event and is read here at one moment
    ...imageReadings(a),
    { condition: States.node.ready, value: ready?.status ?? '-', reason: ready?.reason || undefined, message: ready?.message || undefined },
  ];
}

function imageReadings(annotations: Record<string, string>): Reading[] {
  const desired = annotations[ImageAnnotations.desiredImage];
  const current = annotations[ImageAnnotations.currentImage];
  if (desired === undefined && current === undefined) return [];
  return [
    { condition: States.node.desiredImage, value: desired || '-' },
    { condition: States.node.currentImage, value: current || '-' },
  ];
}

function machineOSBuildReadings(build: MachineOSBuild): Reading[] {
  const isTrue = (type: string) => build.status?.conditions?.some((c) => c.type === type && c.status === 'True') ?? false;
  const fields = {
    renderedConfig: build.spec?.machineConfig?.name,
    machineOSConfig: build.spec?.machineOSConfig?.name,
    uid: build.metadata.uid,
    image: build.status?.digestedImagePushSpec || undefined,
  };
  return [{ condition: States.build.state, value: BUILD_STATES.find(isTrue) ?? '-', fields }];
}

/** What an object of a recorded kind says now, one reading per condition or state. */
export function readingsOf(kind: RecordedKind, object: ApiObject, snapshot: ClusterSnapshot): Reading[] {
  switch (kind) {
    case 'ClusterVersion':
      return clusterVersionReadings(object as ClusterVersion);
    case 'ClusterOperator':
      return operatorReadings(object as ClusterOperator);
    case 'MachineConfigPool':
      return poolReadings(object as MachineConfigPool, snapshot);
    case 'Node':
      return nodeReadings(object as Node);
    case 'MachineOSBuild':
      return machineOSBuildReadings(object as MachineOSBuild);
    default:
      return [];
  }
}

const sameContent = (a: Reading, b: Reading): boolean =>
  a.value === b.value && a.reason === b.reason && a.message === b.message && JSON.stringify(a.fields ?? {}) === JSON.stringify(b.fields ?? {});

export class UpgradeRecorder {
  private readonly recording: UpgradeRecording;
  /** The open interval of each stream. */
  private readonly open = new Map<string, Interval>();
  private readonly started: number;
  private readonly clock: TargetClock;
  private readonly clusterStarted: number;
  private readonly listener = (change: ObjectChange) => this.observe(change);
  private stopped = false;
  private readonly restarts?: RestartRecorder;

  /** Starts recording at once, with what every object says now as its first intervals; `target` is where the upgrade goes. */
  constructor(
    private readonly watcher: WatchedChanges,
    caps: Pick<TargetCapabilities, 'timeFactor' | 'clock'>,
    target: ReleaseTarget,
    options: RecorderOptions = {},
  ) {
    const start = options.now?.() ?? new Date();
    this.started = start.getTime();
    this.clock = clockOf(caps);
    this.clusterStarted = this.clock.atWallMs(this.started);
    this.recording = { format: RECORDING_FORMAT, timeFactor: caps.timeFactor, startedAt: start.toISOString(), target: { ...target }, timeline: [] };
    const snap = watcher.snapshot();
    const found = (kind: RecordedKind, objects: Iterable<ApiObject>) => {
      for (const o of objects) this.read(kind, o, snap, start, true);
    };
    if (snap.clusterVersion) found('ClusterVersion', [snap.clusterVersion]);
    found('ClusterOperator', snap.operators.values());
    found('MachineConfigPool', snap.pools.values());
    found('Node', snap.nodes.values() as Iterable<ApiObject>);
    found('MachineOSBuild', snap.machineOSBuilds?.values() ?? []);
    watcher.onChange(this.listener);
    if (options.events) {
      this.restarts = new RestartRecorder(options.events.list, (restart, at) => this.restart(restart, at), options.events.intervalMs);
      this.restarts.start();
    }
  }

  /**
   * A moment on both clocks. Changes are recorded as they arrive, so the target's clock at the change's wall time is
   * its cluster time (tests give moments of their own: the same rule holds).
   */
  private instant(at: Date): Instant {
    const clusterMs = Math.max(0, Math.round(this.clock.atWallMs(at.getTime()) - this.clusterStarted));
    return { wall: at.toISOString(), cluster: clusterStamp(clusterMs), clusterMs };
  }

  private observe(change: ObjectChange): void {
    if (this.stopped) return;
    const snap = this.watcher.snapshot();
    if (change.kind === 'MachineConfig') {
      // A pool's target config records the release it was rendered for: read it again when that config shows up.
      for (const pool of snap.pools.values()) {
        if (pool.spec?.configuration?.name === change.object.metadata.name) this.read('MachineConfigPool', pool, snap, change.at);
      }
      return;
    }
    if (!RECORDED_KINDS.has(change.kind)) return;
    const kind = change.kind as RecordedKind;
    if (change.type === 'DELETED') this.closeAll(locatorOf(kind, change.object.metadata.name ?? '?'), change.at);
    else this.read(kind, change.object, snap, change.at);
  }

  /** Opens an interval for every reading that differs from its stream's open one, and closes streams no longer read. */
  private read(kind: RecordedKind, object: ApiObject, snap: ClusterSnapshot, at: Date, found = false): void {
    const name = object.metadata.name ?? '?';
    const locator = locatorOf(kind, name);
    const readings = readingsOf(kind, object, snap);
    const read = new Set(readings.map((r) => r.condition));
    for (const [stream, interval] of this.open) {
      if (interval.locator === locator && !read.has(interval.condition)) this.close(stream, at);
    }
    for (const reading of readings) {
      const stream = streamOf({ locator, condition: reading.condition });
      const current = this.open.get(stream);
      if (current && sameContent(current, reading)) continue;
      if (current) this.close(stream, at);
      const interval: Interval = { locator, kind, name, ...withoutEmpty(reading), from: this.instant(at), ...(found ? { found: true as const } : {}) };
      this.open.set(stream, interval);
      this.recording.timeline.push(interval);
    }
  }

  private restart(restart: RestartSeen, at: Date): void {
    if (this.stopped) return;
    const when = this.instant(at);
    this.recording.timeline.push({
      locator: locatorOf('Pod', restart.pod, restart.namespace),
      kind: 'Pod',
      name: restart.pod,
      namespace: restart.namespace,
      condition: States.pod.restart,
      value: restart.reason,
      ...(restart.message ? { message: restart.message } : {}),
      from: when,
      to: when,
    });
  }

  private close(stream: string, at: Date): void {
    const interval = this.open.get(stream);
    if (!interval) return;
    interval.to = this.instant(at);
    this.open.delete(stream);
  }

  private closeAll(locator: string, at: Date): void {
    for (const [stream, interval] of this.open) if (interval.locator === locator) this.close(stream, at);
  }

  /** As stop(), after a last look at the events, so that no restart before the end is left out. */
  async finish(now = new Date()): Promise<UpgradeRecording> {
    if (!this.stopped) await this.restarts?.finish(now);
    return this.stop(now);
  }

  /** Stops recording and returns the recording; intervals still open stay without an end. */
  stop(now = new Date()): UpgradeRecording {
    if (!this.stopped) {
      this.stopped = true;
      this.watcher.offChange(this.listener);
      this.restarts?.stop();
      this.recording.stoppedAt = now.toISOString();
      this.recording.stoppedClusterMs = this.instant(now).clusterMs;
    }
    return this.recording;
  }
}

/** A reading without its absent parts, so the JSON holds only what was said. */
function withoutEmpty(reading: Reading): Reading {
  const fields = reading.fields && Object.fromEntries(Object.entries(reading.fields).filter(([, v]) => v !== undefined));
  return {
    condition: reading.condition,
    value: reading.value,
    ...(reading.reason ? { reason: reading.reason } : {}),
    ...(reading.message ? { message: reading.message } : {}),
    ...(fields && Object.keys(fields).length ? { fields } : {}),
  };
}
