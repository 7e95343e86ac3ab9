/**
 * Runs of `ocp-e2e run` on the reference under many seeds, and what each must show: spec 1 passes on 4.12-ga, spec 1
 * fails on the nightly with the report's deadlock (the kill matrix's diagnosis), the whole suite passes. Shared by the
 * flake-rate benchmark (bench/reliability/flake-rate.ts) and its CI sample (test/bin/flake-sample.test.ts).
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { KILL_MATRIX } from './kill-matrix.js';
import { lastLine, ocpE2e, tempReportsDir } from '../../support/cli.js';

export const NIGHTLY = '4.12-nightly-2022-09-08';
const DEADLOCK = KILL_MATRIX.find((row) => row.grep === '54183' && row.profile === NIGHTLY)!.expect;

export interface SeededCase {
  name: string;
  args: string[];
  /** What this case must show; returns why not, or undefined when it did. */
  judge(exitCode: number, output: string): string | undefined;
}

const passed = (exitCode: number, output: string): string | undefined => {
  const last = lastLine(output);
  return exitCode === 0 && / 0 failed/.test(last) && !/^0 passed/.test(last) ? undefined : `exit ${exitCode}, "${last}"`;
};

export const CASES = {
  spec1Ga: { name: 'spec 1 on 4.12-ga', args: ['run', '--grep', '54183', '--profile', '4.12-ga'], judge: passed },
  spec1Nightly: {
    name: 'spec 1 on the nightly',
    args: ['run', '--grep', '54183', '--profile', NIGHTLY],
    judge: (exitCode, output) => {
      if (exitCode !== 1) return `exit ${exitCode}, "${lastLine(output)}" (expected 1: the deadlock)`;
      const missing = DEADLOCK.filter((p) => !p.test(output));
      return missing.length ? `failed without the deadlock diagnosis (no ${missing.join(', ')}): "${lastLine(output)}"` : undefined;
    },
  },
  suiteGa: { name: 'whole suite on 4.12-ga', args: ['run'], judge: passed },
} satisfies Record<string, SeededCase>;

export interface SeededRun {
  seed: number;
  wallMs: number;
  /** Why the run did not show what it must; undefined when it did. */
  wrong?: string;
  /** The seed the run's output says it used (the replay line). */
  reportedSeed?: number;
  /** The run's allure-results/environment.properties ('' when absent). */
  environment: string;
  /** A wrong run's console output and reports, kept for whoever looks into it (the rest are removed). */
  keptAt?: string;
}

export async function runSeeded(c: SeededCase, seed: number, options: { timeoutMs?: number } = {}): Promise<SeededRun> {
  const reportsDir = tempReportsDir();
  try {
    const r = await ocpE2e([...c.args, '--seed', String(seed)], { timeoutMs: options.timeoutMs ?? 600_000, reportsDir });
    const reported = /seed (\d+) \(replay with --seed \d+\)/.exec(r.output)?.[1];
    const envFile = join(reportsDir, 'allure-results', 'environment.properties');
    const environment = existsSync(envFile) ? readFileSync(envFile, 'utf8') : '';
    let wrong = c.judge(r.exitCode, r.output);
    if (!wrong && reported !== String(seed)) wrong = `the run did not say it used seed ${seed}`;
    if (!wrong && !environment.includes(`reference.seed = ${seed}\n`)) wrong = `the report's environment does not name seed ${seed}`;
    const keptAt = wrong ? keep(c, seed, r.output, reportsDir) : undefined;
    return { seed, wallMs: r.wallMs, wrong, reportedSeed: reported === undefined ? undefined : Number(reported), environment, ...(keptAt ? { keptAt } : {}) };
  } finally {
    rmSync(dirname(reportsDir), { recursive: true, force: true });
  }
}

/** A rare failure is worth its evidence: the output and the reports of a wrong run go to a folder that stays. */
function keep(c: SeededCase, seed: number, output: string, reportsDir: string): string {
  const dir = mkdtempSync(join(tmpdir(), `ocp-e2e-wrong-${c.name.replace(/[^a-z0-9]+/gi, '-')}-seed-${seed}-`));
  writeFileSync(join(dir, 'output.log'), output);
  if (existsSync(reportsDir)) cpSync(reportsDir, join(dir, 'reports'), { recursive: true });
  return dir;
}

/**
 * Runs `seeds` with at most `parallel` at a time, calling `progress` after each; stops starting new runs once
 * `mayStart` says no (a time budget).
 */
export async function runSeeds(
  c: SeededCase,
  seeds: number[],
  options: { parallel?: number; progress?: (run: SeededRun, done: number) => void; mayStart?: () => boolean } = {},
): Promise<SeededRun[]> {
  const { parallel = 1, progress, mayStart = () => true } = options;
  const out: SeededRun[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.max(1, Math.min(parallel, seeds.length)) }, async () => {
      while (next < seeds.length && mayStart()) {
        const run = await runSeeded(c, seeds[next++]!);
        out.push(run);
        progress?.(run, out.length);
      }
    }),
  );
  return out.sort((a, b) => a.seed - b.seed);
}

/** min / median / p90 / max of wall times, in seconds. */
export function spread(runs: SeededRun[]): string {
  const xs = runs.map((r) => r.wallMs / 1000).sort((a, b) => a - b);
  if (xs.length === 0) return '-';
  const at = (q: number): number => xs[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;
  return `min ${xs[0]!.toFixed(1)} s, median ${at(0.5).toFixed(1)} s, p90 ${at(0.9).toFixed(1)} s, max ${xs.at(-1)!.toFixed(1)} s`;
}
