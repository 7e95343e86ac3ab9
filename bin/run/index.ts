/**
 * `ocp-e2e run`: runs the conformance specs against a target and exits 0 (all passed), 1 (failures) or 2 (usage or
 * environment problem, said in one message).
 *
 * Both targets take the same path: mocha runs the specs in a child process that learns the target from environment
 * variables (helpers/target.ts) and reaches it only through its kubeconfig, `oc`/`kubectl`, the engine and registries.
 * `--target reference` only adds a step before: start the embedded reference cluster here, in this process.
 *
 *   options.ts      the command line and the checks made before any cluster time
 *   specs.ts        which spec files run;  rerun.ts  which failed in an earlier run (--rerun-failed)
 *   list.ts         --list: what the run would run, with what each spec declares, without running it
 *   schedule/       --shard (which part of the files this job runs) and the pool of --jobs
 *   targets/        how each target runs them (reference: one cluster per spec file, --jobs at a time)
 *   output.ts       the output of files running at the same time, printed file by file
 *   timestamps.ts   the wall-clock time that starts each console line (not the closing summary line)
 *   mocha.ts        one mocha child and its counts
 *   supervisor.ts   signals: what must be stopped, in which order
 *   known-issues/   --known-issues: the file, and failures it matches reported as known issues
 *   results/        the reports folder and its run.json, JUnit repair after an interruption, the counts and summary
 *                   line, the merge of shards' reports
 */
import { basename, relative, resolve } from 'node:path';
import { parseBuildArgs } from '../../helpers/containerfile.js';
import { maskSecrets } from '../../helpers/secrets.js';
import { newRunId } from '../../helpers/target.js';
import { profileOf, validateOptions, type RunOptions } from './options.js';
import { formatCounts, NO_TESTS } from './results/counts.js';
import { suiteVersion, writeManifest } from './results/manifest.js';
import { describeReports, prepareReportsDir } from './results/reports-dir.js';
import { ROOT } from './paths.js';
import { filesOfShard, formatShard } from './schedule/shard.js';
import { applyKnownIssues, describeOutcome } from './known-issues/apply.js';
import { loadKnownIssues } from './known-issues/file.js';
import { printListing } from './list.js';
import { plainLine, stampConsole } from './timestamps.js';
import { failuresOf } from './rerun.js';
import { selectSpecFiles } from './specs.js';
import { Supervisor } from './supervisor.js';
import type { RunConfig } from './targets/common.js';
import { UsageError } from './usage-error.js';

export type { RunOptions } from './options.js';

/** Runs the suite; returns the exit code (0 pass, 1 failures, 2 usage/environment, 3-5 see preflight/exit-codes.ts, 130/143 interrupted). */
export async function runSuite(given: RunOptions): Promise<number> {
  const supervisor = new Supervisor();
  // The run's own lines and its spec processes' (output.ts) start with the wall-clock time; the closing line does not.
  const unstamp = stampConsole();
  try {
    validateOptions(given);
    if (given.list) return await printListing(given, given.output ?? 'text');
    const knownIssues = given.knownIssues ? await loadKnownIssues(resolve(given.knownIssues)) : undefined;
    const reportsDir = resolve(given.reportsDir ?? 'reports');
    const options = await withRerunSelection(given, reportsDir);
    if (!options) {
      plainLine('out', formatCounts(NO_TESTS));
      return 0;
    }
    const files = await filesOfThisRun(options);
    await prepareReportsDir(reportsDir);
    const config = runConfig(options, reportsDir);
    supervisor.install();
    const startedAt = new Date().toISOString();
    // Each target's code is loaded only when it runs: the cluster target's client stack costs a second of CPU.
    const run = options.target === 'cluster' ? (await import('./targets/cluster.js')).runOnCluster : (await import('./targets/reference.js')).runOnReference;
    let counts = files.length ? await run(files, options, config, supervisor) : NO_TESTS;
    if (knownIssues) {
      const outcome = await applyKnownIssues(reportsDir, knownIssues, new Date());
      for (const line of describeOutcome(outcome)) console.log(line);
      counts = { ...counts, failed: Math.max(0, counts.failed - outcome.known.length), skipped: counts.skipped + outcome.known.length };
    }
    await writeManifest(reportsDir, {
      suiteVersion: await suiteVersion(),
      target: options.target,
      profile: options.target === 'reference' ? profileOf(options) : undefined,
      grep: options.grep,
      phase: options.phase && options.phase !== 'all' ? options.phase : undefined,
      shard: options.shard ? formatShard(options.shard) : undefined,
      files: files.map((f) => relative(ROOT, f)),
      counts,
      runId: config.runId,
      startedAt,
      finishedAt: new Date().toISOString(),
      interruptedBy: supervisor.interruptedBy,
    });
    console.log(`\n${describeReports(reportsDir)}`);
    plainLine('out', formatCounts(counts));
    return supervisor.interruptedExitCode ?? (counts.failed > 0 ? 1 : 0);
  } catch (error) {
    const message = error instanceof UsageError ? error.message : (error as Error).stack ?? String(error);
    plainLine('err', `ocp-e2e run: ${maskSecrets(message)}`);
    return error instanceof UsageError ? error.exitCode : 2;
  } finally {
    unstamp();
    supervisor.uninstall();
  }
}

/** With --rerun-failed: the options narrowed to what failed; undefined when nothing failed (nothing to run). */
async function withRerunSelection(options: RunOptions, reportsDir: string): Promise<RunOptions | undefined> {
  if (options.rerunFailed === undefined) return options;
  const from = options.rerunFailed === true ? reportsDir : options.rerunFailed;
  const rerun = await failuresOf(from, options.target);
  if (rerun.titles.length === 0) {
    console.log(`--rerun-failed: nothing failed in ${from}; nothing to re-run`);
    return undefined;
  }
  console.log(`--rerun-failed: ${rerun.titles.length} failed test(s) in ${rerun.files.length} spec file(s):\n${rerun.titles.map((t) => `  ${t}`).join('\n')}`);
  return { ...options, specs: rerun.files, grep: rerun.grep };
}

/** The spec files selected by the options, narrowed to this job's shard. */
async function filesOfThisRun(options: RunOptions): Promise<string[]> {
  const selected = await selectSpecFiles(options.specs, options.grep, options.phase);
  if (!options.shard) return selected;
  const files = filesOfShard(selected, options.shard);
  console.log(`shard ${formatShard(options.shard)}: ${files.length} of ${selected.length} spec files${files.length ? `: ${files.map((f) => basename(f)).join(', ')}` : ''}`);
  return files;
}

function runConfig(options: RunOptions, reportsDir: string): RunConfig {
  return {
    reportsDir,
    toImages: options.toImage,
    imageRepo: options.imageRepo,
    pullSecretPath: options.pullSecret ? resolve(options.pullSecret) : undefined,
    allowDisruptive: Boolean(options.allowDisruptive),
    keepOnFailure: Boolean(options.keepOnFailure),
    runId: newRunId(),
    phase: options.phase ?? 'all',
    nodeReads: options.nodeReads ?? 'auto',
    ...(options.timeoutScale !== undefined ? { timeoutScale: options.timeoutScale } : {}),
    ...(options.containerfile ? { containerfile: resolve(options.containerfile) } : {}),
    ...(options.buildArg?.length ? { buildArgs: parseBuildArgs(options.buildArg) } : {}),
    ...(options.idmsFile?.length || options.icspFile?.length ? { mirrorFiles: [...(options.idmsFile ?? []), ...(options.icspFile ?? [])].map((f) => resolve(f)) } : {}),
  };
}
