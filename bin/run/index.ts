/**
 * `ocp-e2e run`: runs the conformance specs against a target and exits 0 (all passed), 1 (failures) or 2 (usage or
 * environment problem, said in one message).
 *
 * Both targets take the same path: mocha runs the specs in a child process that learns the target from environment
 * variables (helpers/target.ts) and reaches it only through its kubeconfig, `oc`/`kubectl`, the engine and registries.
 * `--target reference` only adds a step before: start the embedded reference cluster here, in this process.
 *
 *   options.ts      the command line and the checks made before any cluster time
 *   specs.ts        which spec files run
 *   targets/        how each target runs them (reference: one cluster per spec file)
 *   mocha.ts        one mocha child and its counts
 *   supervisor.ts   signals: what must be stopped, in which order
 *   results/        the reports folder, JUnit repair after an interruption, the counts and summary line
 */
import { resolve } from 'node:path';
import { maskSecrets } from '../../helpers/secrets.js';
import { newRunId } from '../../helpers/target.js';
import { validateOptions, type RunOptions } from './options.js';
import { formatCounts } from './results/counts.js';
import { describeReports, prepareReportsDir } from './results/reports-dir.js';
import { selectSpecFiles } from './specs.js';
import { Supervisor } from './supervisor.js';
import { runOnCluster } from './targets/cluster.js';
import type { RunConfig } from './targets/common.js';
import { runOnReference } from './targets/reference.js';
import { UsageError } from './usage-error.js';

export type { RunOptions } from './options.js';

/** Runs the suite; returns the exit code (0 pass, 1 failures, 2 usage/environment, 130/143 interrupted). */
export async function runSuite(options: RunOptions): Promise<number> {
  const supervisor = new Supervisor();
  try {
    validateOptions(options);
    const files = await selectSpecFiles(options.specs, options.grep);
    const reportsDir = resolve(options.reportsDir ?? 'reports');
    await prepareReportsDir(reportsDir);
    const config: RunConfig = {
      reportsDir,
      toImage: options.toImage,
      imageRepo: options.imageRepo,
      pullSecretPath: options.pullSecret ? resolve(options.pullSecret) : undefined,
      allowDisruptive: Boolean(options.allowDisruptive),
      keepOnFailure: Boolean(options.keepOnFailure),
      runId: newRunId(),
    };
    supervisor.install();
    const run = options.target === 'cluster' ? runOnCluster : runOnReference;
    const counts = await run(files, options, config, supervisor);
    console.log(`\n${describeReports(reportsDir)}`);
    console.log(formatCounts(counts));
    return supervisor.interruptedExitCode ?? (counts.failed > 0 ? 1 : 0);
  } catch (error) {
    const message = error instanceof UsageError ? error.message : (error as Error).stack ?? String(error);
    console.error(`ocp-e2e run: ${maskSecrets(message)}`);
    return 2;
  } finally {
    supervisor.uninstall();
  }
}
