/**
 * `oc` and `kubectl` as child processes (execa), pointed at the target's kubeconfig, with output masked before it is
 * shown anywhere. The suite prefers the API; the CLIs are used where the real workflow uses them (`oc adm upgrade`,
 * `oc debug node/...`) and for must-gather style dumps.
 */
import { readFile, realpath, rename, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { maskSecrets } from './secrets.js';

export type CliName = 'oc' | 'kubectl';

const versions = new Map<string, Promise<string | undefined>>();

/**
 * What `oc version --client` (`kubectl version --client=true`) prints, or undefined when the CLI is not on PATH or
 * does not run. Cached per process and PATH (a caller that changes PATH asks again), and across processes by the
 * binary's identity (its real path, inode, size and times: another build is another file): every `oc` costs a Go
 * start of about 0.06 s of CPU, and every spec process's facts ask the same question of the same binary.
 */
export function cliClientVersion(name: CliName): Promise<string | undefined> {
  const key = `${name}\0${process.env.PATH ?? ''}`;
  let known = versions.get(key);
  if (!known) {
    known = versionOf(name).catch(() => undefined);
    versions.set(key, known);
  }
  return known;
}

/** Answers of `version --client` by binary identity, for this user (helpers/cli.ts cliClientVersion). */
const VERSIONS_FILE = path.join(tmpdir(), `ocp-e2e-cli-versions-${process.getuid?.() ?? 'user'}.json`);
const VERSIONS_KEPT = 16;

async function versionOf(name: CliName): Promise<string | undefined> {
  const binary = await binaryIdentity(name);
  if (!binary) return undefined; // not on PATH
  const known = await readFile(VERSIONS_FILE, 'utf8').then((t) => JSON.parse(t) as Record<string, string>, () => ({}) as Record<string, string>);
  if (typeof known[binary] === 'string') return known[binary];
  const r = await execa(name, name === 'oc' ? ['version', '--client'] : ['version', '--client=true'], { reject: false, timeout: 10_000 });
  if (r.exitCode !== 0) return undefined;
  const answer = String(r.stdout);
  const kept = Object.entries({ ...known, [binary]: answer }).slice(-VERSIONS_KEPT);
  const partial = `${VERSIONS_FILE}.${process.pid}`;
  await writeFile(partial, JSON.stringify(Object.fromEntries(kept)), { mode: 0o600 })
    .then(() => rename(partial, VERSIONS_FILE))
    .catch(() => undefined); // a cache that cannot be written only costs the next process the question
  return answer;
}

/** The first `name` on PATH that is a file, as its real path, inode, size and times; undefined when there is none. */
async function binaryIdentity(name: string): Promise<string | undefined> {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    const file = path.join(dir, name);
    const st = await stat(file).catch(() => undefined);
    if (!st?.isFile()) continue;
    return `${await realpath(file)}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
  }
  return undefined;
}

/** Whether a CLI is on PATH and runs. */
export async function hasCli(name: CliName): Promise<boolean> {
  return (await cliClientVersion(name)) !== undefined;
}

export interface CliResult {
  command: string;
  exitCode: number;
  stdout: string;
  stderr: string;
}

export class CliError extends Error {
  readonly result: CliResult;
  /** `attempts`: how many times the command was run (helpers/cli-transient.ts), when more than once. */
  constructor(result: CliResult, attempts = 1) {
    const detail = (result.stderr || result.stdout).trim().split('\n').slice(-5).join('\n');
    super(`\`${result.command}\` exited ${result.exitCode}${attempts > 1 ? ` (run ${attempts} times)` : ''}: ${detail}`);
    this.name = 'CliError';
    this.result = result;
  }
}

export interface CliOptions {
  kubeconfig: string;
  timeoutMs?: number;
  /** Do not throw on a non-zero exit; the caller reads exitCode. */
  allowFailure?: boolean;
  input?: string;
}

/** Runs `oc`/`kubectl` with --kubeconfig; stdout/stderr come back masked. */
export async function runCli(name: CliName, args: string[], options: CliOptions): Promise<CliResult> {
  const fullArgs = [`--kubeconfig=${options.kubeconfig}`, ...args];
  const sub = await execa(name, fullArgs, {
    reject: false,
    timeout: options.timeoutMs ?? 120_000,
    input: options.input,
    env: { KUBECONFIG: options.kubeconfig },
  });
  const result: CliResult = {
    command: maskSecrets(`${name} ${args.join(' ')}`),
    exitCode: sub.exitCode ?? (sub.timedOut ? 124 : 1),
    stdout: maskSecrets(String(sub.stdout ?? '')),
    stderr: maskSecrets(sub.timedOut ? `timed out after ${options.timeoutMs ?? 120_000} ms\n${sub.stderr ?? ''}` : String(sub.stderr ?? '')),
  };
  if (result.exitCode !== 0 && !options.allowFailure) throw new CliError(result);
  return result;
}

export function oc(args: string[], options: CliOptions): Promise<CliResult> {
  return runCli('oc', args, options);
}

export function kubectl(args: string[], options: CliOptions): Promise<CliResult> {
  return runCli('kubectl', args, options);
}

/** `oc` if installed, else `kubectl`, else undefined: for reads both understand (get, describe). */
export async function anyCli(): Promise<CliName | undefined> {
  if (await hasCli('oc')) return 'oc';
  if (await hasCli('kubectl')) return 'kubectl';
  return undefined;
}
