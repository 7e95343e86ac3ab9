/**
 * Records an upgrade as origin's monitor does, without judging it: a timeline of what changed (ClusterVersion,
 * ClusterOperators, pools, nodes, one line each), the machine-config ClusterOperator's Degraded periods, and how the
 * master pool stood at the moment ClusterVersion first reported the upgrade completed. With the cluster's events it
 * also records the restarts of the components the upgrade depends on (restart-events.ts). judge.ts turns the
 * recording into verdicts.
 */
import type { CoreV1Event } from '@kubernetes/client-node';
import { RestartRecorder } from '../restart-events.js';
import type { ClusterWatcher, ObjectChange } from '../cluster-watcher.js';
import type { TargetCapabilities } from '../capabilities.js';
import type { ApiObject, ClusterOperator, ClusterVersion } from '../types.js';
import { operatorDegradation } from '../facts/cluster-operator.js';
import { upgradeCompleted, type ReleaseTarget } from '../facts/cluster-version.js';
import type { Fact } from '../facts/fact.js';
import { renderedRelease } from '../facts/machine-config.js';
import { poolLine, poolRolledOut } from '../facts/pool.js';
import { summarize } from '../facts/summary.js';

export interface TimelineEntry {
  /** Wall-clock time the change was seen. */
  at: string;
  /** Cluster time since the recording started, e.g. "+12m30s". */
  clusterTime: string;
  kind: string;
  name: string;
  change: string;
}

export interface DegradedPeriod {
  from: string;
  /** Absent when the operator was still Degraded when the recording stopped. */
  to?: string;
  clusterMinutes: number;
  reason?: string;
  message?: string;
}

/** The master pool when ClusterVersion first reported the upgrade completed. */
export interface MasterAtCompletion {
  /** The version ClusterVersion reported completed. */
  version?: string;
  rolledOut: Fact;
  /** The release the pool's target config was rendered for. */
  renderedFor?: string;
  line: string;
}

export interface UpgradeRecording {
  /** Cluster seconds per wall second while recording (for charts and cluster-time figures). */
  timeFactor: number;
  timeline: TimelineEntry[];
  /** machine-config ClusterOperator Degraded periods, oldest first. */
  degradedPeriods: DegradedPeriod[];
  masterAtCompletion?: MasterAtCompletion;
}

export class UpgradeRecorder {
  private readonly recording: UpgradeRecording;
  private readonly last = new Map<string, string>();
  private readonly started = Date.now();
  private degradedSince?: { at: number; reason?: string; message?: string };
  private readonly listener = (change: ObjectChange) => this.record(change);
  private stopped = false;
  private readonly restarts?: RestartRecorder;

  /**
   * Starts recording at once; `target` is the release the upgrade goes to. `events`, when given, lists the cluster's
   * events: component restarts (pods killed and started) then go on the timeline too.
   */
  constructor(
    private readonly watcher: ClusterWatcher,
    private readonly caps: Pick<TargetCapabilities, 'timeFactor'>,
    private readonly target: ReleaseTarget,
    events?: { list: () => Promise<CoreV1Event[]>; intervalMs: number },
  ) {
    this.recording = { timeFactor: caps.timeFactor, timeline: [], degradedPeriods: [] };
    if (events) {
      this.restarts = new RestartRecorder(events.list, (restart, at) => this.push(at, 'Pod', restart.pod, restart.change), events.intervalMs);
      this.restarts.start();
    }
    const snap = watcher.snapshot();
    const seed = (kind: string, objects: Iterable<ApiObject>) => {
      for (const o of objects) this.last.set(`${kind}/${o.metadata.name}`, summarize(kind, o));
    };
    if (snap.clusterVersion) seed('ClusterVersion', [snap.clusterVersion]);
    seed('ClusterOperator', snap.operators.values());
    seed('MachineConfigPool', snap.pools.values());
    seed('Node', snap.nodes.values() as Iterable<ApiObject>);
    const d = operatorDegradation(snap.operators.get('machine-config'));
    if (d) this.degradedSince = { at: this.started, reason: d.reason, message: d.message };
    watcher.onChange(this.listener);
    // Following an upgrade someone else started (--phase post), it may be over already: the master pool is then judged
    // as it stands now, and the recording says so.
    if (snap.clusterVersion) this.recordCompletion(snap.clusterVersion, ' (the upgrade had completed before monitoring began: the pool as found then)');
  }

  private clusterStamp(now: number): string {
    const seconds = Math.round(((now - this.started) * this.caps.timeFactor) / 1000);
    return `+${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`;
  }

  private record(change: ObjectChange): void {
    if (this.stopped || change.kind === 'MachineConfig') return;
    const key = `${change.kind}/${change.object.metadata.name}`;
    const summary = change.type === 'DELETED' ? 'deleted' : summarize(change.kind, change.object);
    if (this.last.get(key) === summary) return;
    this.last.set(key, summary);
    const now = change.at.getTime();
    this.push(change.at, change.kind, change.object.metadata.name ?? '?', summary);
    if (change.kind === 'ClusterOperator' && change.object.metadata.name === 'machine-config') this.recordDegradation(change.object as ClusterOperator, now);
    if (change.kind === 'ClusterVersion') this.recordCompletion(change.object as ClusterVersion);
  }

  private push(at: Date, kind: string, name: string, change: string): void {
    if (this.stopped) return;
    this.recording.timeline.push({ at: at.toISOString(), clusterTime: this.clusterStamp(at.getTime()), kind, name, change });
  }

  private recordDegradation(co: ClusterOperator, now: number): void {
    const d = operatorDegradation(co);
    if (d && !this.degradedSince) this.degradedSince = { at: now, reason: d.reason, message: d.message };
    else if (d && this.degradedSince) this.degradedSince.message = d.message; // keep the latest text
    else if (!d && this.degradedSince) this.closeDegraded(now);
  }

  private recordCompletion(cv: ClusterVersion, note = ''): void {
    if (this.recording.masterAtCompletion || !upgradeCompleted(cv, this.target).ok) return;
    const snap = this.watcher.snapshot();
    const master = snap.pools.get('master');
    const target = master?.spec?.configuration?.name;
    const renderedFor = target ? renderedRelease(snap.machineConfigs.get(target)) : undefined;
    this.recording.masterAtCompletion = {
      version: cv.status?.history?.[0]?.version,
      rolledOut: master ? poolRolledOut(master) : { ok: false, why: 'no master pool' },
      renderedFor,
      line: master ? `${poolLine(master)}, rolled out ${master.status?.configuration?.name ?? '-'}, target rendered for ${renderedFor ?? 'unknown release'}${note}` : 'no master pool',
    };
  }

  private closeDegraded(now: number, stillDegraded = false): void {
    if (!this.degradedSince) return;
    this.recording.degradedPeriods.push({
      from: new Date(this.degradedSince.at).toISOString(),
      ...(stillDegraded ? {} : { to: new Date(now).toISOString() }),
      clusterMinutes: Math.round((((now - this.degradedSince.at) * this.caps.timeFactor) / 60_000) * 10) / 10,
      reason: this.degradedSince.reason,
      message: this.degradedSince.message,
    });
    this.degradedSince = undefined;
  }

  /** Stops recording and returns the recording; an open Degraded period is closed at "now" without an end. */
  stop(): UpgradeRecording {
    if (!this.stopped) {
      this.stopped = true;
      this.watcher.offChange(this.listener);
      this.restarts?.stop();
      this.closeDegraded(Date.now(), true);
    }
    return this.recording;
  }
}
