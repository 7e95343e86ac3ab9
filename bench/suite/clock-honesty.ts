/**
 * Does cluster time mean the same on both reference clocks? (issue 46 item 1)
 *   node --import tsx bench/suite/clock-honesty.ts [--runs 3] [--grep 54183 | --all] [-- more run switches]
 * Runs `bin/ocp-e2e run --grep <case> --clock fixed` and `--clock skip` in turn, N times each, reads every
 * "phase P passed in <cluster time> cluster time (<wall>s wall)" line the specs print, sums each phase over the specs of
 * a run (--all: the whole suite), and prints per phase the median cluster time on each clock, the ratio skip/fixed and
 * the median wall time. On `fixed` cluster time is wall time × factor; `skip` may jump only while the suite waits on the
 * cluster, so the two should tell the same story (the goal: within ±50%).
 */
import { execa } from 'execa';

const value = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const runs = Number(value('--runs') ?? 3);
const all = process.argv.includes('--all');
const grep = all ? undefined : (value('--grep') ?? '54183');
const more = process.argv.includes('--') ? process.argv.slice(process.argv.indexOf('--') + 1) : [];
const CLOCKS = ['fixed', 'skip'] as const;
type ClockName = (typeof CLOCKS)[number];

const PHASE_LINE = /■ phase (\w+) (?:passed in|failed after) (?:(\d+)m)?(\d+)s cluster time \(([\d.]+)s wall\)/;

interface PhaseTotals {
  clusterS: number;
  wallS: number;
}

/** One run's phases, each summed over the specs of the run. */
async function oneRun(clock: ClockName): Promise<{ phases: Map<string, PhaseTotals>; summary: string }> {
  const args = ['run', '--clock', clock, ...(grep ? ['--grep', grep] : []), ...more];
  const result = await execa('bin/ocp-e2e', args, { all: true, reject: false, env: { FORCE_COLOR: '0' } });
  const phases = new Map<string, PhaseTotals>();
  for (const line of (result.all ?? '').split('\n')) {
    const m = PHASE_LINE.exec(line);
    if (!m) continue;
    const totals = phases.get(m[1]!) ?? { clusterS: 0, wallS: 0 };
    totals.clusterS += Number(m[2] ?? 0) * 60 + Number(m[3]);
    totals.wallS += Number(m[4]);
    phases.set(m[1]!, totals);
  }
  const summary = (result.all ?? '').split('\n').reverse().find((l) => /\d+ passed, \d+ failed/.test(l))?.trim() ?? `exit ${result.exitCode}`;
  return { phases, summary };
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s[Math.floor((s.length - 1) / 2)]! + s[Math.ceil((s.length - 1) / 2)]!) / 2 : Number.NaN;
};
const minutes = (s: number): string => `${Math.floor(s / 60)}m${String(Math.round(s % 60)).padStart(2, '0')}s`;

const seen: Record<ClockName, Map<string, PhaseTotals>[]> = { fixed: [], skip: [] };
for (let i = 1; i <= runs; i++) {
  for (const clock of CLOCKS) {
    const { phases, summary } = await oneRun(clock);
    seen[clock].push(phases);
    const text = [...phases].map(([p, t]) => `${p} ${minutes(t.clusterS)} (${t.wallS.toFixed(1)}s wall)`).join(', ');
    console.log(`run ${i} --clock ${clock}: ${text || 'no phase line'}  [${summary}]`);
  }
}

const names = [...new Set(CLOCKS.flatMap((c) => seen[c].flatMap((r) => [...r.keys()])))];
console.log(`\nmedians of ${runs} runs (${grep ? `--grep ${grep}` : 'the whole suite'}${more.length ? ` ${more.join(' ')}` : ''}):`);
console.log('| phase | fixed: cluster time | skip: cluster time | skip / fixed | fixed: wall | skip: wall |');
console.log('|---|---|---|---|---|---|');
for (const name of names) {
  const of = (clock: ClockName, key: keyof PhaseTotals) => median(seen[clock].map((r) => r.get(name)?.[key] ?? 0));
  const ratio = of('skip', 'clusterS') / of('fixed', 'clusterS');
  console.log(`| ${name} | ${minutes(of('fixed', 'clusterS'))} | ${minutes(of('skip', 'clusterS'))} | ${ratio.toFixed(2)} | ${of('fixed', 'wallS').toFixed(1)} s | ${of('skip', 'wallS').toFixed(1)} s |`);
}
