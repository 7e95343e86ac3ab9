/** One mocha child on some spec files against one target: its output passed to a lane as it comes, its counts returned. */
import { basename } from 'node:path';
import { execa } from 'execa';
import { targetEnvironment, type TargetConfig } from '../../helpers/target.js';
import type { Lane } from './output.js';
import { MOCHA_CLI, ROOT, specNodeOptions } from './paths.js';
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
  /** Further environment of the child (e.g. SSL_CERT_FILE naming the reference registry's CA bundle). */
  env?: Record<string, string>;
}

export async function runMocha(run: MochaRun, supervisor: Supervisor, lane: Lane): Promise<Counts> {
  const args = [...specNodeOptions(run.files), MOCHA_CLI, '--config', runMochaConfig(run.target.reportsDir), '--timeout', String(run.timeoutMs)];
  if (run.grep) args.push('--grep', run.grep);
  args.push(...run.files);
  const junit = junitPath(run.target.reportsDir, run.junitName);
  const child = execa(process.execPath, args, {
    cwd: ROOT,
    reject: false,
    buffer: false,
    env: { ...run.env, ...targetEnvironment(run.target), OCP_E2E_JUNIT_FILE: junit },
  });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => { stdout += text; lane.out(text); });
  child.stderr.setEncoding('utf8').on('data', (text: string) => lane.err(text));
  const result = await supervisor.child(child);
  const interrupted = supervisor.interruptedBy;
  if (interrupted) await recordInterruption(junit, run.junitName, interrupted);
  const counts = parseSummary(stdout);
  if (!counts) {
    if (!interrupted) lane.err(`ocp-e2e: mocha exited ${result.exitCode ?? result.signal} before reporting results for ${run.files.map((f) => basename(f)).join(', ')}\n`);
    return ONE_FAILURE;
  }
  // A non-zero exit with no failed test (a hook or the reporter failed) still fails the run.
  if (result.exitCode !== 0 && counts.failed === 0) return { ...counts, failed: 1 };
  return counts;
}
