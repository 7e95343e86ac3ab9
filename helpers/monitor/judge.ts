/**
 * The invariants origin's upgrade monitor checks, as judges over a finished recording (recording.ts). Each is an entry
 * of JUDGES: an id the report and the chart know it by, the title people read, and a judge that answers whether it
 * held, why, and the intervals that decided it (its evidence). They read only the recording, so a recording written to
 * a file is judged the same way later.
 *  - the machine-config ClusterOperator's Degraded periods: never about an osImageURL mismatch (the report's bug) and
 *    over by the end. A Degraded period while the master pool rolls is by design (MCO reports RequiredPools after 10
 *    minutes; a slow master rollout shows it for a while), so its length is reported, not judged;
 *  - the master pool has rolled out a config of the new release when ClusterVersion's history begins to say the
 *    upgrade Completed;
 *  - on a release that dropped it (the suite's table, releases/table.ts), machine-config never says Upgradeable=False
 *    because pools are updating.
 */
import { poolLine, poolRolledOut } from '../facts/pool.js';
import { releaseRules, UnknownReleaseError, type KnownRelease } from '../releases/select.js';
import type { Condition, MachineConfigPool } from '../types.js';
import { clusterOffsetMs, endClusterMs, stateAt, States, targetCompletionIndex, type Interval, type UpgradeRecording } from './recording.js';

export interface Verdict {
  ok: boolean;
  why: string;
  /** The intervals that decided, the first one where it broke (or held). */
  evidence: Interval[];
}

export interface Judge {
  id: string;
  title: string;
  judge(recording: UpgradeRecording): Verdict;
}

/** A judge's answer with the judge's id and title. */
export interface JudgedInvariant extends Verdict {
  id: string;
  title: string;
}

/** The judges' ids: what the report and the chart know each invariant by. */
export const JudgeId = {
  osImageUrlMismatch: 'mco-never-degraded-by-osimageurl-mismatch',
  degradedAtEnd: 'mco-not-degraded-at-end',
  masterBeforeCompletion: 'master-updated-before-completion',
  noPoolUpdatingReason: 'mco-upgradeable-not-blocked-by-updating-pools',
} as const;

const MACHINE_CONFIG_OPERATOR = 'ClusterOperator/machine-config';
const MASTER_POOL = 'MachineConfigPool/master';

/** One stretch of machine-config Degraded=True: the intervals in a row that said so (its message may change within). */
interface DegradedPeriod {
  intervals: Interval[];
  /** Still Degraded when the recording stopped. */
  open: boolean;
}

function degradedPeriods(recording: UpgradeRecording): DegradedPeriod[] {
  const periods: DegradedPeriod[] = [];
  let previous: Interval | undefined;
  for (const interval of recording.timeline) {
    if (interval.locator !== MACHINE_CONFIG_OPERATOR || interval.condition !== 'Degraded') continue;
    if (interval.value === 'True') {
      const goesOn = previous?.value === 'True' && previous.to?.wall === interval.from.wall;
      if (goesOn) periods.at(-1)!.intervals.push(interval);
      else periods.push({ intervals: [interval], open: false });
      periods.at(-1)!.open = interval.to === undefined;
    }
    previous = interval;
  }
  return periods;
}

/** "9.5 cluster minutes from <wall ISO> (still Degraded): <reason> <message>" (the reason of its start, the message given or its last). */
function describePeriod(recording: UpgradeRecording, period: DegradedPeriod, message = period.intervals.at(-1)!.message): string {
  const first = period.intervals[0]!;
  const end = period.intervals.at(-1)!.to;
  const clusterMs = (end ? clusterOffsetMs(recording, end) : endClusterMs(recording)) - clusterOffsetMs(recording, first.from);
  const minutes = Math.round((clusterMs / 60_000) * 10) / 10;
  return `${minutes} cluster minutes from ${first.from.wall}${period.open ? ' (still Degraded)' : ''}: ${first.reason ?? ''} ${message ?? ''}`.trim();
}

const neverDegradedByMismatch: Judge = {
  id: JudgeId.osImageUrlMismatch,
  title: 'machine-config ClusterOperator is never Degraded by an osImageURL mismatch',
  judge(recording) {
    const periods = degradedPeriods(recording);
    const mismatches = periods.flatMap((p) => p.intervals).filter((i) => /osImageURL mismatch/.test(i.message ?? ''));
    const first = mismatches[0];
    if (!first) return { ok: true, why: `${periods.length} Degraded period(s), none about osImageURL`, evidence: periods.flatMap((p) => p.intervals) };
    const period = periods.find((p) => p.intervals.includes(first))!;
    return { ok: false, why: describePeriod(recording, period, first.message), evidence: mismatches };
  },
};

const notDegradedAtEnd: Judge = {
  id: JudgeId.degradedAtEnd,
  title: 'machine-config ClusterOperator is not Degraded at the end of the upgrade',
  judge(recording) {
    const periods = degradedPeriods(recording);
    const open = periods.find((p) => p.open);
    if (open) return { ok: false, why: describePeriod(recording, open), evidence: open.intervals };
    const why = periods.length ? `recovered from: ${periods.map((p) => describePeriod(recording, p)).join('; ')}` : 'never Degraded';
    return { ok: true, why, evidence: periods.flatMap((p) => p.intervals) };
  },
};

/**
 * The pool as the recording shows it at one moment, in the shape the suite's facts read (facts/pool.ts): so "rolled
 * out" means here what it means in every wait and assertion.
 */
function poolAt(name: string, state: Map<string, Interval>): MachineConfigPool {
  const states = new Set<string>(Object.values(States.pool));
  const conditions: Condition[] = [...state.values()]
    .filter((i) => !states.has(i.condition))
    .map((i) => ({ type: i.condition, status: i.value, ...(i.reason ? { reason: i.reason } : {}), ...(i.message ? { message: i.message } : {}) }));
  const named = (condition: string) => {
    const value = state.get(condition)?.value;
    return value === undefined || value === '-' ? undefined : value;
  };
  const machines = state.get(States.pool.machines)?.fields;
  const generation = state.get(States.pool.observedGeneration);
  return {
    metadata: { name, generation: generation?.fields?.generation },
    spec: { configuration: { name: named(States.pool.targetConfig) } },
    status: {
      observedGeneration: generation ? Number(generation.value) : undefined,
      configuration: { name: named(States.pool.rolledOutConfig) },
      machineCount: machines?.machineCount,
      updatedMachineCount: machines?.updatedMachineCount,
      degradedMachineCount: machines?.degradedMachineCount,
      conditions,
    },
  } as MachineConfigPool;
}

const masterBeforeCompletion: Judge = {
  id: JudgeId.masterBeforeCompletion,
  title: 'the master pool is updated before ClusterVersion reports the new version',
  judge(recording) {
    const index = targetCompletionIndex(recording);
    if (index < 0) return { ok: false, why: 'ClusterVersion never reported the new version as Completed while monitored', evidence: [] };
    const completed = recording.timeline[index]!;
    const state = stateAt(recording, MASTER_POOL, index);
    if (state.size === 0) return { ok: false, why: 'when ClusterVersion reported Completed, there was no master pool', evidence: [completed] };
    const pool = poolAt('master', state);
    const target = state.get(States.pool.targetConfig);
    const renderedFor = target?.fields?.renderedFor;
    const version = completed.fields?.version;
    // Two releases that render a pool alike give its config the same name, and the controller stamps the new release
    // on that config in place. The name pins the content, so a stamp for the new version that the recording shows
    // later (its MachineConfig watch may deliver after ClusterVersion's: separate streams, resumed after an API
    // restart) says the target was the new release's config already.
    const stampedLater =
      renderedFor !== version &&
      recording.timeline.slice(index + 1).some((i) => i.locator === target?.locator && i.condition === States.pool.targetConfig && i.value === target?.value && i.fields?.renderedFor === version);
    // Following an upgrade someone else started (--phase post), it may have been over before the recording began.
    const note = completed.found ? ' (the upgrade had completed before monitoring began: the pool as found then)' : '';
    const stamp = stampedLater ? ` (stamped for ${version} in place, as the recording shows later)` : '';
    const ok = poolRolledOut(pool).ok && (renderedFor === undefined || renderedFor === version || stampedLater);
    const why = `when ClusterVersion reported Completed, master was: ${poolLine(pool)}, rolled out ${pool.status?.configuration?.name ?? '-'}, target rendered for ${renderedFor ?? 'unknown release'}${stamp}${note}`;
    const late = ok ? undefined : rolledOutBeforeCompletionSeenLater(recording, index);
    if (late) return { ok: true, why: `${why}; but ${late.why}`, evidence: [completed, ...late.state.values()] };
    return { ok, why, evidence: [completed, ...state.values()] };
  },
};

/**
 * The master pool's rollout when the recording saw it only after ClusterVersion's Completed, though the cluster had
 * done it first: the pool's and ClusterVersion's watches deliver on their own (under watch cuts, minutes of cluster
 * time apart), so the first later state that shows master rolled out to the new release's config counts when its
 * Updated condition changed, by the cluster's clock, no later than ClusterVersion's completionTime (both to the
 * second, as the API gives them). A pool that rolled out after the completion, as the early-completing CVO of the
 * kill matrix makes it, still fails.
 */
function rolledOutBeforeCompletionSeenLater(recording: UpgradeRecording, index: number): { state: Map<string, Interval>; why: string } | undefined {
  const completed = recording.timeline[index]!;
  const completedAt = Date.parse(completed.fields?.completedAt ?? '');
  if (Number.isNaN(completedAt)) return undefined;
  for (let j = index + 1; j < recording.timeline.length; j++) {
    if (recording.timeline[j]!.locator !== MASTER_POOL) continue;
    const state = stateAt(recording, MASTER_POOL, j);
    const renderedFor = state.get(States.pool.targetConfig)?.fields?.renderedFor;
    if (!poolRolledOut(poolAt('master', state)).ok || (renderedFor !== undefined && renderedFor !== completed.fields?.version)) continue;
    const changedAt = state.get('Updated')?.fields?.changedAt;
    if (changedAt === undefined || Date.parse(changedAt) > completedAt) return undefined;
    return { state, why: `its Updated condition changed at ${changedAt} by the cluster's clock, not after ClusterVersion's completionTime ${completed.fields?.completedAt} (its watch delivered the rollout later)` };
  }
  return undefined;
}

/** The suite's rules of the release upgraded to, where the recording names a version the table knows. */
function targetRules(recording: UpgradeRecording): KnownRelease | undefined {
  const version = recording.target.version;
  if (!version) return undefined;
  try {
    return releaseRules(version);
  } catch (error) {
    if (error instanceof UnknownReleaseError) return undefined;
    throw error;
  }
}

const noPoolUpdatingReason: Judge = {
  id: JudgeId.noPoolUpdatingReason,
  title: 'machine-config does not turn Upgradeable=False because pools are updating, where the release dropped that reason',
  judge(recording) {
    const said = recording.timeline.filter((i) => i.locator === MACHINE_CONFIG_OPERATOR && i.condition === 'Upgradeable' && i.value === 'False' && i.reason === 'PoolUpdating');
    const known = targetRules(recording);
    if (!known?.vouched || known.rules.operator.poolUpdatingReason !== 'no') {
      return { ok: true, why: `not judged: OpenShift ${known?.rules.release ?? recording.target.version ?? '(unknown)'} may say so (${said.length} such interval(s))`, evidence: said };
    }
    const first = said[0];
    if (!first) return { ok: true, why: 'never said', evidence: [] };
    return {
      ok: false,
      why:
        `machine-config said Upgradeable=False PoolUpdating (${first.message ?? ''}) from ${first.from.wall} during the upgrade to ${known.version}; ` +
        `OpenShift ${known.rules.release} dropped that reason (MCO 377a78bb9, on 4.18 by OCPBUGS-56517's backport): while pools roll or nodes join, the next minor update would be refused without --force`,
      evidence: said,
    };
  },
};

/** Every invariant of an upgrade, in the order the report shows them. */
export const JUDGES: readonly Judge[] = [neverDegradedByMismatch, notDegradedAtEnd, masterBeforeCompletion, noPoolUpdatingReason];

/** Each judge's answer over the recording, in JUDGES' order. */
export function judgeRecording(recording: UpgradeRecording, judges: readonly Judge[] = JUDGES): JudgedInvariant[] {
  return judges.map((j) => ({ id: j.id, title: j.title, ...j.judge(recording) }));
}
