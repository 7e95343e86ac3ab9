/**
 * `ote run-test`: one test, run by `ocp-e2e run --target cluster` in a child process against $KUBECONFIG, read back
 * from the run's Allure results as one OTE result.
 *
 * The child is this same command started the same way (node, its loader, our entry point), so the image and the
 * checkout behave alike. Its output goes to our stderr as it comes (a human watching sees the run) and into the
 * result's `output`; stdout carries only result lines. Each test's reports go to their own folder under
 * $EXTENSION_ARTIFACT_DIR/reports, so the tests of one openshift-tests run (and its retries) never empty each other's.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { escapeRegExp } from '../run/regexp.js';
import { isFailure, lastAttempts, mochaFullTitle, readAllureResults, type AllureResult } from '../run/results/allure-results.js';
import { parseSummary } from '../run/results/counts.js';
import { withoutTimestamp } from '../run/timestamps.js';
import type { OteTest } from './tests.js';
import { dbTime, type ExtensionTestResult, type Lifecycle } from './types.js';

/** Environment variables run-test turns into options of the run (a CI step sets them; openshift-tests passes env only). */
export const RUN_OPTION_VARIABLES = {
  OCP_E2E_TO_IMAGE: '--to-image',
  OCP_E2E_IMAGE_REPO: '--image-repo',
  OCP_E2E_PULL_SECRET: '--pull-secret',
} as const;

/** The most of a run's output a result line carries (the whole log is in the test's reports folder). */
const OUTPUT_LIMIT = 256 * 1024;

export interface RunTestContext {
  /** Where the test's reports folder is made: $EXTENSION_ARTIFACT_DIR/reports. */
  reportsRoot: string;
  env: NodeJS.ProcessEnv;
  /** Kills the run (SIGTERM: it undoes what the spec changed first) after this long; none when undefined. */
  timeoutMs?: number;
  /** Aborted on SIGINT/SIGTERM: the signal is passed on to the run, which cleans up and ends. */
  signal: AbortSignal;
  /**
   * Whether a SIGINT is passed on. A Ctrl-C at a terminal reaches the run itself (same process group), and a second
   * one would make it skip its clean-up; a SIGINT sent to this process alone (CI) must be passed on.
   */
  forwardSigint: boolean;
}

/** The folder under the artefact dir that reports go to, when openshift-tests gave none: a new temporary one. */
export async function reportsRootOf(env: NodeJS.ProcessEnv): Promise<string> {
  const base = env.EXTENSION_ARTIFACT_DIR || (await mkdtemp(join(tmpdir(), 'ocp-e2e-ote-')));
  return join(base, 'reports');
}

export async function runTest(test: OteTest, ctx: RunTestContext): Promise<ExtensionTestResult> {
  const started = new Date();
  const reportsDir = await freshFolder(ctx.reportsRoot, test.slug);
  const run = await runChild(runArguments(test, reportsDir, ctx.env), childEnv(ctx.env), ctx);
  const ended = new Date();
  await writeFile(join(reportsDir, 'ocp-e2e-run.log'), run.output).catch(() => undefined);
  const verdict = await verdictOf(test, reportsDir, run);
  return result(test.spec.name, test.spec.lifecycle, started, ended, {
    ...verdict,
    output: clip(`${run.output}${run.output.endsWith('\n') || !run.output ? '' : '\n'}reports: ${reportsDir}\n`, reportsDir),
  });
}

/** The one-line answer for a test that was not run: an unknown name, a missing cluster, an interruption. */
export function notRun(name: string, error: string, lifecycle: Lifecycle = 'blocking', output = ''): ExtensionTestResult {
  const now = new Date();
  return result(name, lifecycle, now, now, { result: 'failed', error, output });
}

function result(name: string, lifecycle: Lifecycle, started: Date, ended: Date, verdict: Pick<ExtensionTestResult, 'result' | 'output' | 'error' | 'details'>): ExtensionTestResult {
  // Go's field order (ExtensionTestResult), so the line reads like any extension's.
  return {
    name,
    lifecycle,
    duration: ended.getTime() - started.getTime(),
    startTime: dbTime(started),
    endTime: dbTime(ended),
    result: verdict.result,
    output: verdict.output,
    ...(verdict.error ? { error: verdict.error } : {}),
    ...(verdict.details?.length ? { details: verdict.details } : {}),
  };
}

function runArguments(test: OteTest, reportsDir: string, env: NodeJS.ProcessEnv): string[] {
  const args = ['run', '--target', 'cluster', '--grep', `^${escapeRegExp(test.fullTitle)}$`, '--allow-disruptive', '--reports-dir', reportsDir];
  // The first path of $KUBECONFIG, as kubectl reads it; without one the run says where it looked.
  const kubeconfig = env.KUBECONFIG?.split(':').find(Boolean);
  if (kubeconfig) args.push('--kubeconfig', kubeconfig);
  for (const [variable, option] of Object.entries(RUN_OPTION_VARIABLES)) {
    const value = env[variable];
    if (value) args.push(option, value);
  }
  return args;
}

function childEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const copy = { ...env };
  for (const variable of Object.keys(RUN_OPTION_VARIABLES)) delete copy[variable]; // given to the run as options
  return copy;
}

/** `<root>/<slug>`, or `<slug>-2`, `-3`... when an earlier run of the test (a retry) has it. */
async function freshFolder(root: string, slug: string): Promise<string> {
  let dir = join(root, slug);
  for (let n = 2; existsSync(dir); n++) dir = join(root, `${slug}-${n}`);
  await mkdir(dir, { recursive: true });
  return dir;
}

interface ChildRun {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  output: string;
  timedOut: boolean;
  interrupted?: string;
  spawnError?: string;
}

function runChild(args: string[], env: NodeJS.ProcessEnv, ctx: RunTestContext): Promise<ChildRun> {
  return new Promise((resolve) => {
    // The same node, loader and entry point as this process: `ocp-e2e run` exactly as `ocp-e2e ote` was started.
    const child = spawn(process.execPath, [...process.execArgv, process.argv[1]!, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let timedOut = false;
    let interrupted: string | undefined;
    let spawnError: string | undefined;
    const take = (text: string) => {
      process.stderr.write(text);
      output += text;
    };
    // Decoded per stream, so a character split across two chunks stays whole.
    child.stdout.setEncoding('utf8').on('data', take);
    child.stderr.setEncoding('utf8').on('data', take);
    const timer = ctx.timeoutMs === undefined ? undefined : setTimeout(() => {
      timedOut = true;
      child.kill('SIGTERM');
    }, ctx.timeoutMs);
    const onAbort = () => {
      interrupted = String(ctx.signal.reason ?? 'SIGTERM');
      if (interrupted !== 'SIGINT') child.kill('SIGTERM');
      else if (ctx.forwardSigint) child.kill('SIGINT');
    };
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    child.on('error', (error) => { spawnError = error.message; });
    child.on('close', (exitCode, signal) => {
      clearTimeout(timer);
      ctx.signal.removeEventListener('abort', onAbort);
      resolve({ exitCode, signal, output, timedOut, interrupted, spawnError });
    });
  });
}

type Verdict = Pick<ExtensionTestResult, 'result' | 'error' | 'details'>;

async function verdictOf(test: OteTest, reportsDir: string, run: ChildRun): Promise<Verdict> {
  if (run.spawnError) return { result: 'failed', error: `ocp-e2e run could not be started: ${run.spawnError}` };
  const found = await allureResultOf(test, reportsDir);
  const exit = run.exitCode ?? run.signal;
  if (run.timedOut) return { result: 'failed', error: `timed out: ocp-e2e run was stopped (SIGTERM) after --timeout${found?.statusDetails?.message ? `; ${found.statusDetails.message}` : ''}` };
  if (run.interrupted) return { result: 'failed', error: `interrupted by ${run.interrupted}: ocp-e2e run undid what it could and ended (exit ${exit})` };
  if (found && isFailure(found)) return { result: 'failed', error: failureText(found) };
  if (run.exitCode !== 0) {
    // No failed test, yet the run failed: it never reached the test (preflight: kubeconfig, server, credentials) or
    // something around it failed (a hook, the leak check). Its one-line message says which.
    const why = runMessage(run.output);
    const after = found?.status === 'passed' ? 'after the test passed' : found?.status === 'skipped' ? 'after the test was skipped' : 'before the test ran';
    return { result: 'failed', error: `ocp-e2e run exited ${exit} ${after}${why ? `: ${why}` : ''}` };
  }
  if (found?.status === 'passed') return { result: 'passed' };
  const summary = parseSummary(run.output);
  if (found?.status === 'skipped' || (!found && summary?.skipped === 1 && summary.passed === 0 && summary.failed === 0)) {
    const reason = skipReason(run.output, test.fullTitle) ?? found?.statusDetails?.message ?? '';
    return { result: 'skipped', details: reason ? [{ name: 'skip reason', value: reason }] : [] };
  }
  return { result: 'failed', error: `ocp-e2e run ended (exit 0) without a result for this test in ${join(reportsDir, 'allure-results')}` };
}

async function allureResultOf(test: OteTest, reportsDir: string): Promise<AllureResult | undefined> {
  const results = lastAttempts(await readAllureResults(join(reportsDir, 'allure-results'))).map((f) => f.result);
  return results.find((r) => mochaFullTitle(r) === test.fullTitle);
}

/**
 * The failure as the suite words it (phase, what was expected, what the cluster said), then where it was thrown: the
 * stack's frames only, as its first lines repeat the message.
 */
function failureText(r: AllureResult): string {
  const message = r.statusDetails?.message?.trim() || `test ${r.status}`;
  const frames = (r.statusDetails?.trace ?? '').split('\n').filter((l) => /^\s+at /.test(l));
  return [message, ...frames].join('\n');
}

/** The run's own one-line message (`ocp-e2e run: ...`, `ocp-e2e setup: MISSING ...`, `error: ...`), else its last line; lines read past their timestamps. */
function runMessage(output: string): string {
  const lines = output.split('\n').map((l) => withoutTimestamp(l).trim()).filter(Boolean);
  return [...lines].reverse().find((l) => /^(ocp-e2e( [\w-]+)?|error):/.test(l)) ?? lines.at(-1) ?? '';
}

/**
 * The reason of the session's `SKIP <describe title>: <reason>` line. Describe titles hold colons themselves, so the
 * title part is the text before a `: ` that begins this test's full title.
 */
function skipReason(output: string, fullTitle: string): string | undefined {
  for (const line of output.split('\n').reverse()) {
    const text = /^\s*SKIP (.*)$/.exec(withoutTimestamp(line))?.[1];
    if (text === undefined) continue;
    for (let at = text.indexOf(': '); at >= 0; at = text.indexOf(': ', at + 1)) {
      if (fullTitle.startsWith(`${text.slice(0, at)} `)) return text.slice(at + 2).trim();
    }
  }
  return undefined;
}

function clip(output: string, reportsDir: string): string {
  if (output.length <= OUTPUT_LIMIT) return output;
  const cut = output.length - OUTPUT_LIMIT;
  return `… (${cut} characters cut; the whole log is ${join(reportsDir, 'ocp-e2e-run.log')})\n${output.slice(cut)}`;
}
