/**
 * The upgrade timeline as lanes to draw, read from the monitor's intervals (monitor/recording.ts): one lane per
 * ClusterOperator condition, one for ClusterVersion, one per pool and one per node, on the recording's cluster clock,
 * with the upgrade's request and completion marked and each broken invariant placed by its judge's id where its
 * evidence says it broke. Pure: the chart (timeline-chart.ts) draws what this returns.
 */
import type { ClockPoint } from '../monitor/clock-map.js';
import { JudgeId, type JudgedInvariant } from '../monitor/judge.js';
import { clockMapOf, clockPointsOf, clusterOffsetMs, endClusterMs, States, targetCompletionIndex, type Interval, type RecordedKind, type UpgradeRecording } from '../monitor/recording.js';

export type Tone = 'ok' | 'busy' | 'bad' | 'idle' | 'unknown';

export interface Segment {
  /** Cluster ms since the chart's zero. */
  from: number;
  to: number;
  label: string;
  tone: Tone;
  detail: string;
}

export interface Lane {
  group: 'ClusterOperator' | 'ClusterVersion' | 'MachineConfigPool' | 'Node';
  name: string;
  segments: Segment[];
}

export interface Mark {
  at: number;
  label: string;
}

export interface Break {
  at: number;
  /** The lane it is drawn on (Lane.name), or undefined for the whole chart. */
  lane?: string;
  /** The judge's id and its title. */
  id: string;
  invariant: string;
  detail: string;
}

export interface TimelineModel {
  title: string;
  timeFactor: number;
  /** Wall ms (epoch) at cluster offset 0, so any point can be shown in wall time beside. */
  zeroWallMs: number;
  /**
   * Moments known on both clocks (the recording's), through which a cluster offset is shown in wall time; without
   * them, wall time is cluster time / factor.
   */
  clockPoints?: ClockPoint[];
  /** Cluster ms since zero at the end of the recording. */
  end: number;
  lanes: Lane[];
  marks: Mark[];
  breaks: Break[];
}

export interface ModelInput {
  title: string;
  recording: UpgradeRecording;
  /** The judges' answers over the recording; the broken ones are placed on the chart. */
  invariants: JudgedInvariant[];
  /** Wall ms when the recording ended; default: when it stopped, else now. */
  stoppedWallMs?: number;
}

/** A lane's state at one moment, worked out from what its object's streams say then. */
export interface LaneState {
  lane: string;
  group: Lane['group'];
  label: string;
  tone: Tone;
  detail: string;
}

const OPERATOR_LANES = ['Available', 'Progressing', 'Degraded'] as const;

const said = (state: ReadonlyMap<string, Interval>, condition: string): string => state.get(condition)?.value ?? '-';

function listed(locator: string, state: ReadonlyMap<string, Interval>, conditions: readonly string[]): string {
  const parts = conditions.filter((c) => state.has(c)).map((c) => {
    const i = state.get(c)!;
    return `${c}=${i.value}${i.reason ? ` (${i.reason})` : ''}${i.message ? `: ${i.message}` : ''}`;
  });
  return `${locator}: ${parts.join('; ')}`;
}

/** The lane an interval is drawn on, if it has one. */
export function laneOf(interval: Pick<Interval, 'kind' | 'name' | 'condition'>): string | undefined {
  switch (interval.kind) {
    case 'ClusterOperator':
      return (OPERATOR_LANES as readonly string[]).includes(interval.condition) ? `co/${interval.name} ${interval.condition}` : undefined;
    case 'ClusterVersion':
      return 'clusterversion';
    case 'MachineConfigPool':
      return `mcp/${interval.name}`;
    case 'Node':
      return `node/${interval.name}`;
    default:
      return undefined;
  }
}

/** The lanes of one object and what each shows, given what its streams say (condition → interval). */
export function lanesOf(kind: RecordedKind, name: string, state: ReadonlyMap<string, Interval>): LaneState[] {
  const locator = `${kind}/${name}`;
  switch (kind) {
    case 'ClusterOperator':
      return OPERATOR_LANES.map((condition) => {
        const status = said(state, condition);
        const message = state.get(condition)?.message;
        const bad = condition === 'Available' ? status === 'False' : condition === 'Degraded' && status === 'True';
        const tone: Tone = bad ? 'bad' : status === '-' ? 'unknown' : condition === 'Progressing' && status === 'True' ? 'busy' : 'ok';
        const label = condition === 'Degraded' && status === 'True' && message ? `True: ${message}` : status;
        return { lane: laneOf({ kind, name, condition })!, group: 'ClusterOperator' as const, label, tone, detail: listed(locator, state, [condition, States.operator.version]) };
      });
    case 'ClusterVersion': {
      const head = state.get(States.clusterVersion.history);
      const failing = said(state, 'Failing') === 'True';
      const progressing = said(state, 'Progressing') === 'True';
      const release = head?.fields?.version ?? head?.fields?.image;
      const label = head && head.value !== '-' ? `${head.value} ${release ?? ''}`.trim() + (failing ? ', Failing' : '') : failing ? 'Failing' : '-';
      const tone: Tone = failing ? 'bad' : progressing ? 'busy' : head?.value === 'Completed' ? 'ok' : 'idle';
      return [{ lane: 'clusterversion', group: 'ClusterVersion', label, tone, detail: listed(locator, state, [States.clusterVersion.desired, States.clusterVersion.history, 'Available', 'Progressing', 'Failing']) }];
    }
    case 'MachineConfigPool': {
      const degraded = said(state, 'Degraded') === 'True';
      const updating = said(state, 'Updating') === 'True';
      const updated = said(state, 'Updated') === 'True';
      const machines = state.get(States.pool.machines)?.value;
      const status = degraded ? 'Degraded' : updating ? 'Updating' : updated ? 'Updated' : 'not updated';
      const tone: Tone = degraded ? 'bad' : updating ? 'busy' : updated ? 'ok' : 'idle';
      const detail = listed(locator, state, [States.pool.targetConfig, States.pool.rolledOutConfig, States.pool.machines, 'Updated', 'Updating', 'Degraded', 'NodeDegraded', 'RenderDegraded']);
      return [{ lane: `mcp/${name}`, group: 'MachineConfigPool', label: `${status}${machines ? ` ${machines}` : ''}`, tone, detail }];
    }
    case 'Node': {
      const nodeState = said(state, States.node.state);
      const ready = said(state, States.node.ready) === 'True';
      const onTarget = said(state, States.node.currentConfig) === said(state, States.node.desiredConfig);
      const tone: Tone = nodeState === 'Degraded' ? 'bad' : nodeState === 'Working' || !ready || !onTarget ? 'busy' : 'ok';
      const detail = listed(locator, state, [States.node.state, States.node.currentConfig, States.node.desiredConfig, States.node.ready]);
      return [{ lane: `node/${name}`, group: 'Node', label: `${nodeState}${ready ? '' : ', not ready'}${onTarget ? '' : ', config pending'}`, tone, detail }];
    }
    default:
      return [];
  }
}

const GROUP_ORDER: Lane['group'][] = ['ClusterVersion', 'ClusterOperator', 'MachineConfigPool', 'Node'];

/**
 * Where each judge's broken invariant is drawn, by its id: at the start of its first evidence or at the end of the
 * recording, on the lane of its first evidence or of its first evidence of a kind.
 */
const PLACEMENT: Record<string, { at: 'evidence' | 'end'; on: 'evidence' | RecordedKind }> = {
  [JudgeId.osImageUrlMismatch]: { at: 'evidence', on: 'evidence' },
  [JudgeId.degradedAtEnd]: { at: 'end', on: 'evidence' },
  [JudgeId.masterBeforeCompletion]: { at: 'evidence', on: 'MachineConfigPool' },
};

function placeBreak(invariant: JudgedInvariant, recording: UpgradeRecording, end: number): Break {
  const rule = PLACEMENT[invariant.id] ?? { at: 'evidence', on: 'evidence' };
  const first = invariant.evidence[0];
  const at = rule.at === 'evidence' && first ? clusterOffsetMs(recording, first.from) : end;
  const onLane = rule.on === 'evidence' ? first : invariant.evidence.find((i) => i.kind === rule.on);
  return { at, lane: onLane ? laneOf(onLane) : undefined, id: invariant.id, invariant: invariant.title, detail: invariant.why };
}

/** The recording's intervals in groups that began together on one object (one change of it). */
function changesOf(timeline: Interval[]): Interval[][] {
  const groups: Interval[][] = [];
  for (const interval of timeline) {
    const last = groups.at(-1)?.[0];
    if (last && last.locator === interval.locator && last.from.wall === interval.from.wall) groups.at(-1)!.push(interval);
    else groups.push([interval]);
  }
  return groups;
}

/** The recording's two clocks, as the chart shows a point on both. */
export function clocksOf(recording: UpgradeRecording): Pick<TimelineModel, 'zeroWallMs' | 'timeFactor' | 'clockPoints'> {
  const clockPoints = clockPointsOf(recording);
  return { zeroWallMs: Date.parse(recording.startedAt), timeFactor: recording.timeFactor, ...(clockPoints.length ? { clockPoints } : {}) };
}

export function buildTimelineModel(input: ModelInput): TimelineModel {
  const { recording } = input;
  const offset = (at: Interval['from']) => clusterOffsetMs(recording, at);
  const lastAt = Math.max(0, ...recording.timeline.map((i) => offset(i.from)));
  const ended = input.stoppedWallMs !== undefined ? clockMapOf(recording).clusterAt(input.stoppedWallMs) : endClusterMs(recording);
  const end = Math.max(lastAt, ended, 1000);

  const lanes = new Map<string, Lane>();
  const states = new Map<string, Map<string, Interval>>();
  for (const change of changesOf(recording.timeline)) {
    const { kind, name, locator } = change[0]!;
    const at = offset(change[0]!.from);
    const state = states.get(locator) ?? new Map<string, Interval>();
    states.set(locator, state);
    for (const interval of change) state.set(interval.condition, interval);
    for (const s of lanesOf(kind, name, state)) {
      let lane = lanes.get(s.lane);
      if (!lane) {
        lane = { group: s.group, name: s.lane, segments: at > 0 ? [{ from: 0, to: at, label: 'not seen changing yet', tone: 'unknown', detail: 'the monitor had nothing on this lane before' }] : [] };
        lanes.set(s.lane, lane);
      }
      const previous = lane.segments.at(-1);
      if (previous && previous.tone !== 'unknown' && previous.label === s.label) continue; // same state, other fields moved
      if (previous) previous.to = at;
      lane.segments.push({ from: at, to: end, label: s.label, tone: s.tone, detail: s.detail });
    }
  }
  for (const lane of lanes.values()) lane.segments.at(-1)!.to = end;

  const marks: Mark[] = [{ at: 0, label: 'upgrade requested' }];
  const completion = recording.timeline[targetCompletionIndex(recording)];
  if (completion) marks.push({ at: offset(completion.from), label: `ClusterVersion Completed ${completion.fields?.version ?? completion.fields?.image}` });
  const breaks = input.invariants.filter((i) => !i.ok).map((i) => placeBreak(i, recording, end));

  const sorted = [...lanes.values()].sort((a, b) => GROUP_ORDER.indexOf(a.group) - GROUP_ORDER.indexOf(b.group) || a.name.localeCompare(b.name));
  return { title: input.title, ...clocksOf(recording), end, lanes: sorted, marks, breaks };
}
