/**
 * The upgrade timeline as lanes to draw: what the monitor recorded (one summary line per object change) read back into
 * states per lane — one lane per ClusterOperator condition, one for ClusterVersion, one per pool and one per node — on
 * the monitor's clock, with the upgrade's request and completion and the broken invariants placed where they broke.
 * Pure: the chart (timeline-chart.ts) draws what this returns.
 */

/** One recorded change, as the monitor keeps it (helpers/monitor/record.ts TimelineEntry). */
export interface RecordedChange {
  /** Wall time (ISO) the change was seen. */
  at: string;
  /** Cluster time since the monitor started, "+12m30s". */
  clusterTime: string;
  kind: string;
  name: string;
  change: string;
}

export interface RecordedInvariant {
  name: string;
  passed: boolean;
  detail: string;
}

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
  invariant: string;
  detail: string;
}

export interface TimelineModel {
  title: string;
  timeFactor: number;
  /** Wall ms (epoch) at cluster offset 0, so any point can be shown in wall time beside. */
  zeroWallMs: number;
  /** Cluster ms since zero at the end of the recording. */
  end: number;
  lanes: Lane[];
  marks: Mark[];
  breaks: Break[];
}

export interface ModelInput {
  title: string;
  timeFactor: number;
  changes: RecordedChange[];
  invariants: RecordedInvariant[];
  /** The version being upgraded to (completion is ClusterVersion history[0] Completed at it). */
  targetVersion?: string;
  /** Wall ms when the recording stopped; default: the last change. */
  stoppedWallMs?: number;
}

/** "+12m30s" → ms. */
export function parseClusterOffset(text: string): number {
  const m = /^\+?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+(?:\.\d+)?)s)?$/.exec(text.trim());
  if (!m) return NaN;
  return ((Number(m[1] ?? 0) * 60 + Number(m[2] ?? 0)) * 60 + Number(m[3] ?? 0)) * 1000;
}

const field = (text: string, name: string): string | undefined => new RegExp(`(?:^|\\s)${name.replace(/[[\]]/g, '\\$&')}=([^\\s:]+)`).exec(text)?.[1];

/** The states one recorded change puts its lanes in, keyed by lane name. */
export function statesOf(kind: string, name: string, change: string): { lane: string; group: Lane['group']; label: string; tone: Tone }[] {
  if (change === 'deleted') return [{ lane: `${kind}/${name}`, group: kind as Lane['group'], label: 'deleted', tone: 'idle' }];
  switch (kind) {
    case 'ClusterOperator': {
      const degradedMessage = /Degraded=True: (.*)$/.exec(change)?.[1];
      return (['Available', 'Progressing', 'Degraded'] as const).map((condition) => {
        const status = field(change, condition) ?? '-';
        const bad = condition === 'Available' ? status === 'False' : condition === 'Degraded' && status === 'True';
        const tone: Tone = bad ? 'bad' : status === '-' ? 'unknown' : condition === 'Progressing' && status === 'True' ? 'busy' : 'ok';
        return { lane: `co/${name} ${condition}`, group: 'ClusterOperator' as const, label: condition === 'Degraded' && degradedMessage ? `True: ${degradedMessage}` : status, tone };
      });
    }
    case 'ClusterVersion': {
      const head = /history\[0\]=(\w+) (\S+)/.exec(change);
      const failing = field(change, 'Failing') === 'True';
      const progressing = field(change, 'Progressing') === 'True';
      const label = head ? `${head[1]} ${head[2]}${failing ? ', Failing' : ''}` : change.slice(0, 60);
      return [{ lane: 'clusterversion', group: 'ClusterVersion', label, tone: failing ? 'bad' : progressing ? 'busy' : head?.[1] === 'Completed' ? 'ok' : 'idle' }];
    }
    case 'MachineConfigPool': {
      const counts = /(\d+)\/(\d+) updated/.exec(change);
      const degraded = field(change, 'Degraded') === 'true';
      const updating = field(change, 'Updating') === 'true';
      const updated = field(change, 'Updated') === 'true';
      const state = degraded ? 'Degraded' : updating ? 'Updating' : updated ? 'Updated' : 'not updated';
      return [{ lane: `mcp/${name}`, group: 'MachineConfigPool', label: `${state}${counts ? ` ${counts[1]}/${counts[2]}` : ''}`, tone: degraded ? 'bad' : updating ? 'busy' : updated ? 'ok' : 'idle' }];
    }
    case 'Node': {
      const state = field(change, 'state') ?? '-';
      const ready = field(change, 'ready') !== 'false';
      const onTarget = field(change, 'current') === field(change, 'desired');
      const tone: Tone = state === 'Degraded' ? 'bad' : state === 'Working' || !ready || !onTarget ? 'busy' : 'ok';
      return [{ lane: `node/${name}`, group: 'Node', label: `${state}${ready ? '' : ', not ready'}${onTarget ? '' : ', config pending'}`, tone }];
    }
    default:
      return [];
  }
}

const GROUP_ORDER: Lane['group'][] = ['ClusterVersion', 'ClusterOperator', 'MachineConfigPool', 'Node'];

/** Where a broken invariant broke: the first change that shows it, else the end of the recording. */
function placeBreak(invariant: RecordedInvariant, timed: { at: number; entry: RecordedChange }[], completion: number | undefined, end: number): Break {
  const base = { invariant: invariant.name, detail: invariant.detail };
  if (/osImageURL/.test(invariant.name)) {
    const first = timed.find((t) => t.entry.kind === 'ClusterOperator' && /osImageURL mismatch/.test(t.entry.change));
    if (first) return { ...base, at: first.at, lane: `co/${first.entry.name} Degraded` };
  }
  if (/Degraded at the end/.test(invariant.name)) return { ...base, at: end, lane: 'co/machine-config Degraded' };
  if (/master pool is updated before/.test(invariant.name)) return { ...base, at: completion ?? end, lane: 'mcp/master' };
  return { ...base, at: end };
}

export function buildTimelineModel(input: ModelInput): TimelineModel {
  const timed = input.changes
    .map((entry) => ({ at: parseClusterOffset(entry.clusterTime), wall: Date.parse(entry.at), entry }))
    .filter((t) => Number.isFinite(t.at) && Number.isFinite(t.wall))
    .sort((a, b) => a.at - b.at);
  // The monitor's zero in wall time, from any change: wall = zero + cluster offset / factor.
  const zeroWallMs = timed.length ? timed[0]!.wall - timed[0]!.at / input.timeFactor : (input.stoppedWallMs ?? Date.now());
  const lastAt = timed.at(-1)?.at ?? 0;
  const end = Math.max(lastAt, input.stoppedWallMs !== undefined ? (input.stoppedWallMs - zeroWallMs) * input.timeFactor : lastAt, 1000);

  const lanes = new Map<string, Lane>();
  for (const t of timed) {
    for (const s of statesOf(t.entry.kind, t.entry.name, t.entry.change)) {
      let lane = lanes.get(s.lane);
      if (!lane) {
        lane = { group: s.group, name: s.lane, segments: t.at > 0 ? [{ from: 0, to: t.at, label: 'not seen changing yet', tone: 'unknown', detail: 'the monitor records changes; this lane had none before' }] : [] };
        lanes.set(s.lane, lane);
      }
      const previous = lane.segments.at(-1);
      if (previous && previous.tone !== 'unknown' && previous.label === s.label) continue; // same state, other fields moved
      if (previous) previous.to = t.at;
      lane.segments.push({ from: t.at, to: end, label: s.label, tone: s.tone, detail: `${t.entry.kind}/${t.entry.name}: ${t.entry.change}` });
    }
  }
  for (const lane of lanes.values()) lane.segments.at(-1)!.to = end;

  const marks: Mark[] = [{ at: 0, label: 'upgrade requested' }];
  // Without a version given, the one ClusterVersion was asked for (its `desired` while the upgrade ran).
  // The first lines may still show the old version as desired, so the last one counts.
  const target = input.targetVersion ?? timed.map((t) => (t.entry.kind === 'ClusterVersion' ? field(t.entry.change, 'desired') : undefined)).filter(Boolean).at(-1);
  const completed = timed.find((t) => t.entry.kind === 'ClusterVersion' && /history\[0\]=Completed (\S+)/.exec(t.entry.change)?.[1] === target && target !== undefined);
  if (completed) marks.push({ at: completed.at, label: `ClusterVersion Completed ${target}` });
  const breaks = input.invariants.filter((i) => !i.passed).map((i) => placeBreak(i, timed, completed?.at, end));

  const sorted = [...lanes.values()].sort((a, b) => GROUP_ORDER.indexOf(a.group) - GROUP_ORDER.indexOf(b.group) || a.name.localeCompare(b.name));
  return { title: input.title, timeFactor: input.timeFactor, zeroWallMs, end, lanes: sorted, marks, breaks };
}
