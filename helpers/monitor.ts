/**
 * Watches the cluster through an upgrade and keeps a timeline of what changed (ClusterVersion, ClusterOperators,
 * pools, nodes), then judges the invariants origin's upgrade monitor checks:
 *  - the machine-config ClusterOperator's Degraded periods: never about an osImageURL mismatch (the report's bug) and
 *    over by the end. A Degraded period while the master pool rolls is by design (MCO reports RequiredPools after 10
 *    minutes; a slow master rollout shows it for a while), so its length is reported, not judged;
 *  - the master pool is updated before ClusterVersion reports the new version as Completed.
 */
import type { ClusterWatcher, ObjectChange } from './cluster-watcher.js';
import type { TargetCapabilities } from './capabilities.js';
import { poolSettled, viewNode, viewPool } from './pools.js';
import { findCondition, RenderedAnnotations, type ApiObject, type ClusterOperator, type ClusterVersion, type MachineConfigPool, type Node } from './types.js';

export interface TimelineEntry {
  /** Wall-clock time the change was seen. */
  at: string;
  /** Cluster time since the monitor started, e.g. "+12m30s". */
  clusterTime: string;
  kind: string;
  name: string;
  change: string;
}

export interface DegradedPeriod {
  from: string;
  to?: string;
  clusterMinutes: number;
  reason?: string;
  message?: string;
}

export interface InvariantResult {
  name: string;
  passed: boolean;
  detail: string;
}

/** One line per object: the fields whose changes matter for an upgrade. */
export function summarize(kind: string, object: ApiObject): string {
  const cond = (o: { status?: { conditions?: { type: string; status: string; message?: string }[] } }, t: string) =>
    findCondition(o.status?.conditions, t)?.status ?? '-';
  switch (kind) {
    case 'ClusterVersion': {
      const cv = object as ClusterVersion;
      const h = cv.status?.history?.[0];
      const progressing = findCondition(cv.status?.conditions, 'Progressing');
      return `desired=${cv.status?.desired?.version ?? '-'} history[0]=${h ? `${h.state} ${h.version ?? h.image}` : '-'} Available=${cond(cv, 'Available')} Failing=${cond(cv, 'Failing')} Progressing=${progressing?.status ?? '-'}: ${progressing?.message ?? ''}`;
    }
    case 'ClusterOperator': {
      const co = object as ClusterOperator;
      const degraded = findCondition(co.status?.conditions, 'Degraded');
      const version = co.status?.versions?.find((v) => v.name === 'operator')?.version ?? '-';
      return `version=${version} Available=${cond(co, 'Available')} Progressing=${cond(co, 'Progressing')} Degraded=${degraded?.status ?? '-'}${degraded?.status === 'True' ? `: ${degraded.message ?? ''}` : ''}`;
    }
    case 'MachineConfigPool': {
      const v = viewPool(object as MachineConfigPool);
      return `target=${v.target ?? '-'} Updated=${v.updated} Updating=${v.updating} Degraded=${v.degraded} ${v.updatedMachineCount}/${v.machineCount} updated`;
    }
    case 'Node': {
      const n = viewNode(object as Node);
      return `current=${n.current ?? '-'} desired=${n.desired ?? '-'} state=${n.state ?? '-'} ready=${n.ready}${n.reason ? ` reason=${n.reason}` : ''}`;
    }
    default:
      return '';
  }
}

export class UpgradeMonitor {
  readonly timeline: TimelineEntry[] = [];
  private readonly last = new Map<string, string>();
  private readonly started = Date.now();
  private readonly degraded: DegradedPeriod[] = [];
  private degradedSince?: { at: number; reason?: string; message?: string };
  private masterWhenCompleted?: { settled: boolean; renderedFor?: string; line: string };
  private readonly listener = (change: ObjectChange) => this.record(change);
  private stopped = false;

  constructor(
    private readonly watcher: ClusterWatcher,
    private readonly caps: Pick<TargetCapabilities, 'timeFactor'>,
    private readonly targetVersion: () => string | undefined,
  ) {
    const snap = watcher.snapshot();
    const seed = (kind: string, objects: Iterable<ApiObject>) => {
      for (const o of objects) this.last.set(`${kind}/${o.metadata.name}`, summarize(kind, o));
    };
    if (snap.clusterVersion) seed('ClusterVersion', [snap.clusterVersion]);
    seed('ClusterOperator', snap.operators.values());
    seed('MachineConfigPool', snap.pools.values());
    seed('Node', snap.nodes.values() as Iterable<ApiObject>);
    const mco = snap.operators.get('machine-config');
    const d = findCondition(mco?.status?.conditions, 'Degraded');
    if (d?.status === 'True') this.degradedSince = { at: this.started, reason: d.reason, message: d.message };
    watcher.onChange(this.listener);
  }

  private clusterMinutes(wallMs: number): number {
    return (wallMs * this.caps.timeFactor) / 60_000;
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
    this.timeline.push({ at: change.at.toISOString(), clusterTime: this.clusterStamp(now), kind: change.kind, name: change.object.metadata.name ?? '?', change: summary });

    if (change.kind === 'ClusterOperator' && change.object.metadata.name === 'machine-config') {
      const d = findCondition((change.object as ClusterOperator).status?.conditions, 'Degraded');
      if (d?.status === 'True' && !this.degradedSince) this.degradedSince = { at: now, reason: d.reason, message: d.message };
      else if (d?.status === 'True' && this.degradedSince) this.degradedSince.message = d.message; // keep the latest text
      else if (d?.status !== 'True' && this.degradedSince) this.closeDegraded(now);
    }
    if (change.kind === 'ClusterVersion' && !this.masterWhenCompleted) {
      const cv = change.object as ClusterVersion;
      const head = cv.status?.history?.[0];
      const target = this.targetVersion();
      if (head?.state === 'Completed' && target && (head.version === target || head.image === target)) {
        // "Updated" alone is not enough: right after the render controller retargets a pool its status still says
        // Updated=True for the old config. The pool must have rolled out its target, and that target must be the
        // config rendered for the new release.
        const snap = this.watcher.snapshot();
        const master = snap.pools.get('master');
        const target = master?.spec?.configuration?.name;
        const renderedFor = target ? snap.machineConfigs.get(target)?.metadata.annotations?.[RenderedAnnotations.releaseImageVersion] : undefined;
        this.masterWhenCompleted = {
          settled: master ? poolSettled(master) : false,
          renderedFor,
          line: master ? `${summarize('MachineConfigPool', master)}, rolled out ${master.status?.configuration?.name ?? '-'}, target rendered for ${renderedFor ?? 'unknown release'}` : 'no master pool',
        };
      }
    }
  }

  private closeDegraded(now: number): void {
    if (!this.degradedSince) return;
    this.degraded.push({
      from: new Date(this.degradedSince.at).toISOString(),
      to: new Date(now).toISOString(),
      clusterMinutes: Math.round(this.clusterMinutes(now - this.degradedSince.at) * 10) / 10,
      reason: this.degradedSince.reason,
      message: this.degradedSince.message,
    });
    this.degradedSince = undefined;
  }

  /** Stops recording; returns the machine-config Degraded periods (an open one is closed at "now" and flagged). */
  stop(): DegradedPeriod[] {
    if (!this.stopped) {
      this.stopped = true;
      this.watcher.offChange(this.listener);
      if (this.degradedSince) {
        this.closeDegraded(Date.now());
        delete this.degraded[this.degraded.length - 1]!.to; // still Degraded when the monitor stopped
      }
    }
    return this.degraded;
  }

  get degradedPeriods(): DegradedPeriod[] {
    return this.degraded;
  }

  /** Judges the invariants over what was recorded (call after stop()). */
  judge(): InvariantResult[] {
    const periods = this.degraded;
    const mismatch = periods.find((p) => /osImageURL mismatch/.test(p.message ?? ''));
    const open = periods.find((p) => p.to === undefined);
    const describe = (p: DegradedPeriod) => `${p.clusterMinutes} cluster minutes from ${p.from}${p.to ? '' : ' (still Degraded)'}: ${p.reason ?? ''} ${p.message ?? ''}`.trim();
    const results: InvariantResult[] = [
      {
        name: 'machine-config ClusterOperator is never Degraded by an osImageURL mismatch',
        passed: !mismatch,
        detail: mismatch ? describe(mismatch) : `${periods.length} Degraded period(s), none about osImageURL`,
      },
      {
        name: 'machine-config ClusterOperator is not Degraded at the end of the upgrade',
        passed: !open,
        detail: open ? describe(open) : periods.length ? `recovered from: ${periods.map(describe).join('; ')}` : 'never Degraded',
      },
    ];
    const m = this.masterWhenCompleted;
    const target = this.targetVersion();
    results.push({
      name: 'the master pool is updated before ClusterVersion reports the new version',
      passed: m !== undefined && m.settled && (m.renderedFor === undefined || m.renderedFor === target),
      detail: m ? `when ClusterVersion reported Completed, master was: ${m.line}` : 'ClusterVersion never reported the new version as Completed while monitored',
    });
    return results;
  }
}
