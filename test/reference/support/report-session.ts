/**
 * A person's shell beside `ocp-e2e cluster up --env-out`: the cluster runs in a child process until `stop()`, and
 * `sh` runs a command line in bash after `source <env file>`, with the upstream `oc` first on PATH, as
 * docs/reference-cluster.md tells a user to do.
 */
import { execa, type ResultPromise } from 'execa';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TEST_WORK_DIR } from './cluster.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
export const UPSTREAM_BIN = path.resolve(REPO, '..', 'shared', 'upstream', 'bin');

export interface ShellResult {
  exitCode: number | undefined;
  stdout: string;
  stderr: string;
  /** stdout and stderr interleaved, as a terminal shows them. */
  all: string;
}

export interface ReportSession {
  /** A temporary folder, the shell's working directory; removed by stop(). */
  readonly dir: string;
  readonly envFile: string;
  /** Everything `cluster up` printed until it was ready. */
  readonly output: string;
  /** The cluster's registry, host:port on loopback. */
  readonly registry: string;
  sh(command: string, env?: Record<string, string>): Promise<ShellResult>;
  /** Runs `command` until `done(stdout)` holds; fails with the last output seen. */
  until(command: string, done: (stdout: string) => boolean, timeoutMs?: number): Promise<string>;
  /** Ctrl-C to `cluster up`; resolves with its exit code and output, after removing the folder. */
  stop(): Promise<{ exitCode: number | undefined; all: string }>;
}

export function requireUpstreamOc(): void {
  if (!existsSync(path.join(UPSTREAM_BIN, 'oc'))) {
    throw new Error(`the real oc 4.12 is missing: expected ${path.join(UPSTREAM_BIN, 'oc')} (../shared/upstream/bin/oc, see its README); this test runs it and does not skip`);
  }
}

/** Waits until a `cluster up` child prints that it is ready; resolves with what it printed until then. */
export function clusterUpReady(child: ResultPromise, timeoutMs: number): Promise<string> {
  let output = '';
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`cluster up did not become ready in ${timeoutMs / 1000} s:\n${output}`)), timeoutMs);
    child.all!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Press Ctrl-C to stop.')) {
        clearTimeout(timer);
        resolve(output);
      }
    });
    void child.then(() => reject(new Error(`cluster up exited early:\n${output}`)));
  });
}

/** `cluster up --profile <profile>` with `more` switches (e.g. `--infra-nodes 1`), and a shell beside it. */
export async function startReportSession(profile: string, readyTimeoutMs: number, more: readonly string[] = []): Promise<ReportSession> {
  requireUpstreamOc();
  const dir = await mkdtemp(path.join(tmpdir(), `ocp-e2e-report-${profile}-`));
  const envFile = path.join(dir, 'env');
  const child: ResultPromise = execa('node', ['--import', 'tsx', 'bin/ocp-e2e.ts', 'cluster', 'up', '--profile', profile, ...more, '--env-out', envFile], {
    cwd: REPO,
    env: { OCP_E2E_REFERENCE_WORKDIR: TEST_WORK_DIR },
    reject: false,
    all: true,
  });
  let output: string;
  try {
    output = await clusterUpReady(child, readyTimeoutMs);
  } catch (error) {
    child.kill('SIGINT');
    await child;
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  const registry = /registry:\s+(127\.0\.0\.1:\d+)/.exec(output)![1]!;
  const sh = async (command: string, env: Record<string, string> = {}): Promise<ShellResult> => {
    const r = await execa('bash', ['-c', `source ${JSON.stringify(envFile)} && ${command}`], {
      cwd: dir,
      reject: false,
      all: true,
      env: { PATH: `${UPSTREAM_BIN}:${process.env.PATH}`, ...env },
      timeout: 120_000,
    });
    return { exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr, all: r.all };
  };
  const until = async (command: string, done: (stdout: string) => boolean, timeoutMs = 60_000): Promise<string> => {
    const deadline = Date.now() + timeoutMs;
    let last = '';
    while (Date.now() < deadline) {
      const r = await sh(command);
      last = String(r.all);
      if (r.exitCode === 0 && done(String(r.stdout))) return String(r.stdout);
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    throw new Error(`\`${command}\` did not show what was expected within ${timeoutMs / 1000} s; last output:\n${last}`);
  };
  const stop = async () => {
    child.kill('SIGINT');
    const result = await child;
    await rm(dir, { recursive: true, force: true });
    return { exitCode: result.exitCode, all: String(result.all) };
  };
  return { dir, envFile, output, registry, sh, until, stop };
}
