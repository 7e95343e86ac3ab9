/** One mocha child on some spec files against one target: its output passed to a lane as it comes, its counts returned. */
import { basename } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { TARGET_HANDOFF_ENV } from '../../helpers/mocha/target-handoff.js';
import { targetEnvironment, TargetEnv, type RunPhase, type TargetConfig } from '../../helpers/target.js';
import type { Lane } from './output.js';
import { MOCHA_CLI, ROOT, specNodeOptions, TARGET_HANDOFF } from './paths.js';
import { ONE_FAILURE, parseSummary, type Counts } from './results/counts.js';
import { recordInterruption } from './results/junit-repair.js';
import { junitPath, runMochaConfig } from './results/reports-dir.js';
import type { Supervisor } from './supervisor.js';

/** What a spec process needs to be started: all but its target. */
export interface MochaStart {
  files: string[];
  /** The run's reports folder (its mocha config and JUnit file are there) and phase (it changes the titles). */
  reportsDir: string;
  phase: RunPhase;
  grep?: string;
  /** Name of the JUnit file (reports/junit/NAME.xml) and of its test suite. */
  junitName: string;
  timeoutMs: number;
}

export interface MochaRun extends Omit<MochaStart, 'reportsDir' | 'phase'> {
  target: TargetConfig;
  /** Further environment of the child (e.g. SSL_CERT_FILE naming the reference registry's CA bundle). */
  env?: Record<string, string>;
}

/** A spec process loading its files, waiting for its target (helpers/mocha/target-handoff.ts). */
export interface PendingMocha {
  /** Hands the target over and waits for the process's counts. */
  run(target: TargetConfig, env?: Record<string, string>): Promise<Counts>;
  /** The target will never come (its cluster did not start): ends the process. */
  cancel(): Promise<void>;
}

export async function runMocha(run: MochaRun, supervisor: Supervisor, lane: Lane): Promise<Counts> {
  const pending = startMocha({ ...run, reportsDir: run.target.reportsDir, phase: run.target.phase }, supervisor, lane);
  return pending.run(run.target, run.env);
}

/** Starts the spec process now; it loads its files and waits in mocha's global setup until `run` gives the target. */
export function startMocha(start: MochaStart, supervisor: Supervisor, lane: Lane): PendingMocha {
  const args = [...specNodeOptions(start.files), MOCHA_CLI, '--config', runMochaConfig(start.reportsDir), '--require', TARGET_HANDOFF, '--timeout', String(start.timeoutMs)];
  if (start.grep) args.push('--grep', start.grep);
  args.push(...start.files);
  const junit = junitPath(start.reportsDir, start.junitName);
  const child = execa(process.execPath, args, {
    cwd: ROOT,
    reject: false,
    buffer: false,
    stdin: 'pipe',
    // The phase is known now and read while the files load (titles); the rest of the target comes with `run`.
    env: { [TargetEnv.phase]: start.phase, [TARGET_HANDOFF_ENV]: 'stdin', OCP_E2E_JUNIT_FILE: junit },
  });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => { stdout += text; lane.out(text); });
  child.stderr.setEncoding('utf8').on('data', (text: string) => lane.err(text));
  // Tracked from the start, so a signal while the cluster starts stops this process too.
  const exited = supervisor.child(child);
  // A child that died before it was handed its target must not fail the write (EPIPE).
  child.stdin.on('error', () => undefined);
  return {
    async run(target, env = {}) {
      child.stdin.end(`${JSON.stringify({ ...env, ...targetEnvironment(target) })}\n`);
      return countsOf(await exited, stdout, start, supervisor, lane);
    },
    async cancel() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

async function countsOf(result: Awaited<ResultPromise>, stdout: string, start: MochaStart, supervisor: Supervisor, lane: Lane): Promise<Counts> {
  const interrupted = supervisor.interruptedBy;
  if (interrupted) await recordInterruption(junitPath(start.reportsDir, start.junitName), start.junitName, interrupted);
  const counts = parseSummary(stdout);
  if (!counts) {
    if (!interrupted) lane.err(`ocp-e2e: mocha exited ${result.exitCode ?? result.signal} before reporting results for ${start.files.map((f) => basename(f)).join(', ')}\n`);
    return ONE_FAILURE;
  }
  // A non-zero exit with no failed test (a hook or the reporter failed) still fails the run.
  if (result.exitCode !== 0 && counts.failed === 0) return { ...counts, failed: 1 };
  return counts;
}
