/**
 * `ocp-e2e run`: runs the conformance specs against a target and exits 0 (all passed), 1 (failures) or 2 (usage or
 * environment problem, said in one message).
 *
 * Both targets take the same path: mocha runs the specs in a child process that learns the target from environment
 * variables (helpers/target.ts) and reaches it only through its kubeconfig, `oc`/`kubectl`, the engine and registries.
 * `--target reference` only adds a step before: start the embedded reference cluster here, in this process. Each spec
 * file gets a fresh reference cluster, because a cluster can be upgraded to the next release only once.
 */
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Option, type Command } from 'commander';
import { execa, type ResultPromise } from 'execa';
import { Cluster } from '../../helpers/cluster.js';
import { discoverCapabilities } from '../../helpers/capabilities.js';
import { loadPullSecret, maskSecrets } from '../../helpers/secrets.js';
import { newRunId, targetEnvironment, type TargetConfig } from '../../helpers/target.js';
import { currentVersion } from '../../helpers/upgrade.js';
import { connectEngine } from '../../lib/oci/engine.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SPECS_DIR = join(ROOT, 'specs');
const MOCHA_CONFIG = join(SPECS_DIR, 'mocharc.json');
const MOCHA_BIN = join(ROOT, 'node_modules', '.bin', 'mocha');
const SUITE_REPORTER = join(ROOT, 'helpers', 'mocha', 'suite-reporter.cts');

export interface RunOptions {
  target: 'reference' | 'cluster';
  profile?: string;
  fault?: string[];
  grep?: string;
  toImage?: string;
  imageRepo?: string;
  pullSecret?: string;
  kubeconfig?: string;
  allowDisruptive?: boolean;
  keepOnFailure?: boolean;
  timeFactor?: number;
  /** Where allure-results, junit and artifacts go (default `reports`). */
  reportsDir?: string;
  /** Spec files to consider (default: every specs/*.spec.ts). */
  specs?: string[];
}

/** A problem with how the command was called or with this machine: exit code 2, one clear message. */
export class UsageError extends Error {
  readonly exitCode = 2;
}

export interface Counts {
  passed: number;
  failed: number;
  skipped: number;
}

const SUMMARY_LINE = /^(\d+) passed, (\d+) failed, (\d+) skipped\s*$/m;

/** The summary line the suite reporter prints last, or undefined when the child died before printing it. */
export function parseSummary(output: string): Counts | undefined {
  const lines = [...output.matchAll(new RegExp(SUMMARY_LINE.source, 'gm'))];
  const last = lines.at(-1);
  return last ? { passed: Number(last[1]), failed: Number(last[2]), skipped: Number(last[3]) } : undefined;
}

function positiveNumber(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`--time-factor must be a positive number, got "${value}"`);
  return n;
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, ...value.split(',').map((v) => v.trim()).filter(Boolean)];
}

export function register(program: Command): void {
  program
    .command('run')
    .description('run the conformance suite against the embedded reference cluster (default) or a real cluster')
    .addOption(new Option('--target <target>', 'where to run').choices(['reference', 'cluster']).default('reference'))
    .option('--profile <profile>', 'reference only: 4.12-ga (fixed code) or 4.12-nightly-2022-09-08 (the report\'s buggy code)')
    .option('--fault <name...>', 'reference only: break behaviours on purpose (names as in specs/README.md; repeatable)', collect)
    .option('--grep <regexp>', 'run only the specs whose title matches, e.g. 54183')
    .option('--to-image <pullspec>', 'release image to upgrade to (default: the cluster\'s first available update)')
    .option('--image-repo <repository>', 'where layered OS images are pushed (required on real clusters)')
    .option('--pull-secret <file>', 'registry credentials for pulling base images and pushing layered images')
    .option('--kubeconfig <file>', 'cluster only: kubeconfig of the cluster (default $KUBECONFIG, then ~/.kube/config)')
    .option('--allow-disruptive', 'run specs that upgrade the cluster or change its pools (real clusters; implied on the reference)')
    .option('--keep-on-failure', 'leave what a failed spec created in place for inspection')
    .option('--time-factor <n>', 'reference only: cluster seconds per wall second (default: the reference\'s)', positiveNumber)
    .option('--reports-dir <dir>', 'where Allure results, JUnit XML and failure artefacts go (emptied first)', 'reports')
    .action(async (options: RunOptions) => {
      const code = await runSuite(options);
      process.exit(code);
    });
}

function validate(options: RunOptions): void {
  if (options.target === 'cluster') {
    for (const [flag, value] of [['--profile', options.profile], ['--fault', options.fault], ['--time-factor', options.timeFactor]] as const) {
      if (value !== undefined) throw new UsageError(`${flag} applies to --target reference only`);
    }
  } else if (options.kubeconfig) {
    throw new UsageError('--kubeconfig applies to --target cluster only (the reference cluster makes its own)');
  }
  if (options.grep !== undefined) {
    try {
      new RegExp(options.grep);
    } catch (error) {
      throw new UsageError(`--grep is not a regular expression: ${(error as Error).message}`);
    }
  }
}

async function specFiles(options: RunOptions): Promise<string[]> {
  if (options.specs?.length) return options.specs.map((f) => resolve(f));
  const names = (await readdir(SPECS_DIR)).filter((n) => n.endsWith('.spec.ts')).sort();
  return names.map((n) => join(SPECS_DIR, n));
}

/** The spec files with at least one test whose full title matches --grep (mocha --dry-run; no target needed). */
async function filesMatching(files: string[], grep: string): Promise<string[]> {
  const r = await execa(MOCHA_BIN, ['--config', MOCHA_CONFIG, '--dry-run', '--reporter', 'json', '--grep', grep, ...files], {
    cwd: ROOT,
    reject: false,
    env: { KUBECONFIG: '' },
  });
  let report: { tests?: { file?: string }[] };
  try {
    report = JSON.parse(String(r.stdout)) as { tests?: { file?: string }[] };
  } catch {
    throw new UsageError(`cannot list the specs (mocha --dry-run exited ${r.exitCode}): ${String(r.stderr).split('\n').slice(0, 5).join('\n')}`);
  }
  const wanted = new Set((report.tests ?? []).map((t) => t.file).filter(Boolean) as string[]);
  return files.filter((f) => wanted.has(f));
}

/**
 * Empties this run's report folders and writes the mocha config of the run: specs/mocharc.json with the results folder
 * and the reporter made absolute, so results land in --reports-dir whatever the working directory.
 */
async function prepareReports(reportsDir: string): Promise<string> {
  for (const dir of ['allure-results', 'junit', 'artifacts']) {
    await rm(join(reportsDir, dir), { recursive: true, force: true });
    await mkdir(join(reportsDir, dir), { recursive: true });
  }
  const base = JSON.parse(await readFile(MOCHA_CONFIG, 'utf8')) as Record<string, unknown>;
  const config = { ...base, 'reporter-option': [`resultsDir=${join(reportsDir, 'allure-results')}`, `extraReporters=${SUITE_REPORTER}`] };
  const path = join(reportsDir, '.mocharc.run.json');
  await writeFile(path, JSON.stringify(config, null, 2));
  return path;
}

/** What this command uses of a started reference cluster (docs/architecture.md, reference/). */
interface ReferenceCluster {
  kubeconfigPath: string;
  apiUrl: string;
  timeFactor: number;
  stop(): Promise<void>;
}

let activeChild: ResultPromise | undefined;
const activeClusters = new Set<{ stop(): Promise<void> }>();

/** Runs mocha on the files against one target; prints its output as it comes and returns its counts. */
async function runMocha(files: string[], config: TargetConfig, options: RunOptions, junitName: string, timeoutMs: number): Promise<Counts> {
  const args = ['--config', join(config.reportsDir, '.mocharc.run.json'), '--timeout', String(timeoutMs)];
  if (options.grep) args.push('--grep', options.grep);
  args.push(...files);
  const child = execa(MOCHA_BIN, args, {
    cwd: ROOT,
    reject: false,
    env: { ...targetEnvironment(config), OCP_E2E_JUNIT_FILE: join(config.reportsDir, 'junit', `${junitName}.xml`) },
    stdout: ['pipe', 'inherit'],
    stderr: 'inherit',
  });
  activeChild = child;
  const result = await child;
  activeChild = undefined;
  if (interruptedBy) await recordInterruption(join(config.reportsDir, 'junit', `${junitName}.xml`), junitName, interruptedBy);
  const counts = parseSummary(String(result.stdout ?? ''));
  if (!counts) {
    if (interruptedBy) return { passed: 0, failed: 1, skipped: 0 };
    console.error(`ocp-e2e: mocha exited ${result.exitCode ?? result.signal} before reporting results for ${files.map((f) => basename(f)).join(', ')}`);
    return { passed: 0, failed: 1, skipped: 0 };
  }
  if (result.exitCode !== 0 && counts.failed === 0) return { ...counts, failed: 1 };
  return counts;
}

function add(a: Counts, b: Counts): Counts {
  return { passed: a.passed + b.passed, failed: a.failed + b.failed, skipped: a.skipped + b.skipped };
}

async function ensureEngine(): Promise<void> {
  try {
    const engine = await connectEngine();
    void engine;
  } catch (error) {
    throw new UsageError(`${(error as Error).message}`);
  }
}

async function runOnCluster(files: string[], options: RunOptions, base: Omit<TargetConfig, 'kind' | 'kubeconfigPath'>): Promise<Counts> {
  const kubeconfigPath = resolve(options.kubeconfig ?? process.env.KUBECONFIG?.split(':')[0] ?? join(homedir(), '.kube', 'config'));
  if (!existsSync(kubeconfigPath)) throw new UsageError(`no kubeconfig at ${kubeconfigPath}: pass --kubeconfig FILE or set KUBECONFIG`);
  let cluster: Cluster;
  let version: string | undefined;
  let nodes: number;
  try {
    cluster = Cluster.fromKubeconfig(kubeconfigPath);
    const cv = await cluster.getClusterVersion();
    version = currentVersion(cv);
    nodes = (await cluster.listNodes()).length;
  } catch (error) {
    throw new UsageError(`cannot reach the cluster of ${kubeconfigPath}: ${(error as Error).message}`);
  }
  const caps: { isReference: boolean; timeFactor: number; imageRepo?: string } = await discoverCapabilities(cluster).catch(() => ({ isReference: false, timeFactor: 1 }));
  console.log(`target: cluster ${cluster.apiUrl}`);
  console.log(`current version: ${version ?? 'unknown'} (${nodes} nodes${caps.isReference ? `, an ocp-e2e reference cluster, time factor ${caps.timeFactor}` : ''})`);
  if (!options.allowDisruptive) {
    console.log('disruptive specs (upgrades, pool changes) will be SKIPPED: nothing on this cluster is changed; pass --allow-disruptive to run them');
  } else {
    if (!options.imageRepo && !caps.imageRepo) {
      throw new UsageError('--image-repo is required on a real cluster: the repository the layered OS images are pushed to and the nodes pull from (push credentials in --pull-secret)');
    }
    await ensureEngine();
  }
  const timeoutMs = Math.max(60_000, Math.ceil((4 * 3600_000) / caps.timeFactor));
  return runMocha(files, { ...base, kind: 'cluster', kubeconfigPath }, options, 'cluster', timeoutMs);
}

async function runOnReference(files: string[], options: RunOptions, base: Omit<TargetConfig, 'kind' | 'kubeconfigPath'>): Promise<Counts> {
  await ensureEngine();
  const profile = options.profile ?? '4.12-ga';
  console.log(`target: embedded reference cluster, profile ${profile}${options.fault?.length ? `, faults ${options.fault.join(', ')}` : ''}`);
  console.log('disruptive specs run: the reference cluster is made for this run and thrown away (one per spec file)');
  if (options.keepOnFailure) {
    console.log('--keep-on-failure: a failed spec leaves its objects, but its reference cluster still stops with its file; to inspect by hand, use `ocp-e2e cluster up` and --target cluster');
  }
  let total: Counts = { passed: 0, failed: 0, skipped: 0 };
  for (const file of files) {
    if (interruptedBy) break;
    const started = Date.now();
    let reference: ReferenceCluster;
    try {
      // Loaded here, not at the top: `run --target cluster` never needs the reference's code.
      const { startReferenceCluster } = await import('../../reference/index.js');
      reference = await startReferenceCluster({ profile, timeFactor: options.timeFactor, faults: options.fault ?? [] });
    } catch (error) {
      throw new UsageError(`cannot start the reference cluster: ${(error as Error).message}`);
    }
    activeClusters.add(reference);
    try {
      console.log(`\n${basename(file)}: reference cluster ${reference.apiUrl} ready in ${((Date.now() - started) / 1000).toFixed(1)}s (time factor ${reference.timeFactor})`);
      const timeoutMs = Math.max(60_000, Math.ceil((4 * 3600_000) / reference.timeFactor));
      const counts = await runMocha(
        [file],
        { ...base, kind: 'reference', kubeconfigPath: reference.kubeconfigPath, allowDisruptive: true },
        options,
        basename(file, '.spec.ts'),
        timeoutMs,
      );
      total = add(total, counts);
      console.log(`${basename(file)}: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped in ${((Date.now() - started) / 1000).toFixed(1)}s wall`);
    } finally {
      activeClusters.delete(reference);
      await reference.stop();
    }
  }
  return total;
}

let interruptedBy: NodeJS.Signals | undefined;

/**
 * The JUnit file of a spec file whose mocha was stopped mid-test is cut in half (the reporter writes as it goes);
 * replace it with a whole one that records the interruption, so CI readers of reports/ get valid XML.
 */
async function recordInterruption(path: string, suite: string, signal: NodeJS.Signals): Promise<void> {
  const text = await readFile(path, 'utf8').catch(() => '');
  if (/<\/testsuites?>\s*$/.test(text)) return;
  const name = suite.replace(/[<>&"]/g, '_');
  await writeFile(path, `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="ocp-e2e conformance">\n<testsuite name="${name}" tests="1" failures="0" errors="1" skipped="0">\n<testcase classname="${name}" name="${name}"><error message="interrupted by ${signal}: the run was stopped before this spec file finished"/></testcase>\n</testsuite>\n</testsuites>\n`);
}

/** First SIGINT/SIGTERM: stop mocha and the reference clusters, then exit 130/143. A second one exits at once. */
function onSignal(signal: NodeJS.Signals): void {
  const code = signal === 'SIGTERM' ? 143 : 130;
  if (interruptedBy) {
    console.error(`\nocp-e2e: second ${signal}: exiting now, without waiting for the cleanup`);
    activeChild?.kill('SIGKILL');
    process.exit(code);
  }
  interruptedBy = signal;
  console.error(`\nocp-e2e: ${signal}: stopping (cleanup first; send it again to exit at once)`);
  // SIGINT, whatever we got: mocha's launcher passes SIGINT on to the process running the specs, while a SIGTERM
  // would end the launcher alone and leave the specs running as an orphan.
  activeChild?.kill('SIGINT');
  // mocha first (its specs clean up through the cluster's API), then the reference clusters, then exit.
  void Promise.resolve(activeChild)
    .then(() => Promise.allSettled([...activeClusters].map((c) => c.stop())))
    .then(() => process.exit(code));
}

/** Runs the suite; returns the exit code (0 pass, 1 failures, 2 usage/environment). */
export async function runSuite(options: RunOptions): Promise<number> {
  try {
    validate(options);
    if (options.pullSecret) {
      try {
        loadPullSecret(resolve(options.pullSecret)); // registers its credentials for masking our own output too
      } catch (error) {
        throw new UsageError((error as Error).message);
      }
    }
    let files = await specFiles(options);
    if (options.grep) files = await filesMatching(files, options.grep);
    if (files.length === 0) throw new UsageError(options.grep ? `no spec title matches --grep ${options.grep}` : `no *.spec.ts in ${SPECS_DIR}`);
    const reportsDir = resolve(options.reportsDir ?? 'reports');
    await prepareReports(reportsDir);
    const base = {
      reportsDir,
      toImage: options.toImage,
      imageRepo: options.imageRepo,
      pullSecretPath: options.pullSecret ? resolve(options.pullSecret) : undefined,
      allowDisruptive: Boolean(options.allowDisruptive),
      keepOnFailure: Boolean(options.keepOnFailure),
      runId: newRunId(),
    };
    // `on`, not `once`: a second signal must reach onSignal (and tsx ends the process itself when none listens).
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    const counts = options.target === 'cluster' ? await runOnCluster(files, options, base) : await runOnReference(files, options, base);
    console.log(`\nresults: ${join(reportsDir, 'allure-results')} (HTML: ocp-e2e report), JUnit: ${join(reportsDir, 'junit')}, failure artefacts: ${join(reportsDir, 'artifacts')}`);
    console.log(`${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`);
    if (interruptedBy) return interruptedBy === 'SIGTERM' ? 143 : 130;
    return counts.failed > 0 ? 1 : 0;
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`ocp-e2e run: ${maskSecrets(error.message)}`);
      return 2;
    }
    console.error(`ocp-e2e run: ${maskSecrets((error as Error).stack ?? String(error))}`);
    return 2;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
