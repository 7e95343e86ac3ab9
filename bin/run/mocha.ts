/** One mocha child on some spec files against one target: its output shown as it comes, its counts returned. */
import { basename } from 'node:path';
import { execa } from 'execa';
import { targetEnvironment, type TargetConfig } from '../../helpers/target.js';
import { MOCHA_BIN, ROOT } from './paths.js';
import { ONE_FAILURE, parseSummary, type Counts } from './results/counts.js';
import { recordInterruption } from './results/junit-repair.js';
import { junitPath, runMochaConfig } from './results/reports-dir.js';
import type { Supervisor } from './supervisor.js';

export interface MochaRun {
  files: string[];
  target: TargetConfig;
  grep?: string;
  /** Name of the JUnit file (reports/junit/NAME.xml) and of its test suite. */
  junitName: string;
  timeoutMs: number;
}

export async function runMocha(run: MochaRun, supervisor: Supervisor): Promise<Counts> {
  const args = ['--config', runMochaConfig(run.target.reportsDir), '--timeout', String(run.timeoutMs)];
  if (run.grep) args.push('--grep', run.grep);
  args.push(...run.files);
  const junit = junitPath(run.target.reportsDir, run.junitName);
  const result = await supervisor.child(execa(MOCHA_BIN, args, {
    cwd: ROOT,
    reject: false,
    env: { ...targetEnvironment(run.target), OCP_E2E_JUNIT_FILE: junit },
    stdout: ['pipe', 'inherit'],
    stderr: 'inherit',
  }));
  const interrupted = supervisor.interruptedBy;
  if (interrupted) await recordInterruption(junit, run.junitName, interrupted);
  const counts = parseSummary(String(result.stdout ?? ''));
  if (!counts) {
    if (!interrupted) console.error(`ocp-e2e: mocha exited ${result.exitCode ?? result.signal} before reporting results for ${run.files.map((f) => basename(f)).join(', ')}`);
    return ONE_FAILURE;
  }
  // A non-zero exit with no failed test (a hook or the reporter failed) still fails the run.
  if (result.exitCode !== 0 && counts.failed === 0) return { ...counts, failed: 1 };
  return counts;
}
