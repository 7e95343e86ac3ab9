/** Runs the `ocp-e2e` command the way a user does (compiled, as bin/ocp-e2e runs it: ./cli-entry.ts) and captures its output. */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa, type ResultPromise } from 'execa';
import { Cluster } from '../../helpers/cluster.js';
import { ocpE2eEntry } from './cli-entry.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface CliRun {
  exitCode: number;
  output: string;
  reportsDir: string;
  wallMs: number;
}

export function tempReportsDir(): string {
  return join(mkdtempSync(join(tmpdir(), 'ocp-e2e-suite-')), 'reports');
}

export async function ocpE2e(args: string[], options: { timeoutMs?: number; env?: Record<string, string>; reportsDir?: string } = {}): Promise<CliRun> {
  const reportsDir = options.reportsDir ?? tempReportsDir();
  const withReports = args[0] === 'run' ? [...args, '--reports-dir', reportsDir] : args;
  const started = Date.now();
  const r = await execa(process.execPath, [...ocpE2eEntry(), ...withReports], {
    cwd: ROOT,
    reject: false,
    all: true,
    timeout: options.timeoutMs ?? 240_000,
    env: { ...options.env },
  });
  return { exitCode: r.exitCode ?? -1, output: String(r.all ?? ''), reportsDir, wallMs: Date.now() - started };
}

export function lastLine(output: string): string {
  return output.trimEnd().split('\n').at(-1) ?? '';
}

/**
 * What a failed run says about its failures, for an assertion's message: each spec file's "N failing" block (the
 * failures with their last observation), else the output's end. A whole-suite run's end is its last spec's passing
 * output, and a CI failure once showed nothing of the spec that failed.
 */
export function whatFailed(output: string, maxChars = 8000): string {
  const lines = output.split('\n');
  const blocks: string[] = [];
  lines.forEach((line, i) => {
    if (/^\S*\s+\d+ failing$/.test(line)) blocks.push(lines.slice(i, i + 40).join('\n'));
  });
  const text = blocks.length ? blocks.join('\n…\n') : output.slice(-maxChars);
  return text.length > maxChars ? `${text.slice(0, maxChars)}\n…` : text;
}

export interface ClusterUp {
  kubeconfig: string;
  /** What sourcing its env file gives a shell (the registry's CA bundle and credentials files). */
  env: Record<string, string>;
  process: ResultPromise;
  stop(): Promise<void>;
}

/**
 * `ocp-e2e cluster up --env-out` in the background, as a user would start it in another terminal; `env` is what
 * sourcing its env file gives a shell (the registry's CA bundle and credentials files).
 */
export async function clusterUp(args: string[] = [], options: { env?: Record<string, string> } = {}): Promise<ClusterUp> {
  const dir = mkdtempSync(join(tmpdir(), 'ocp-e2e-cluster-'));
  const kubeconfig = join(dir, 'kubeconfig');
  const envFile = join(dir, 'env');
  const child = execa(process.execPath, [...ocpE2eEntry(), 'cluster', 'up', '--kubeconfig-out', kubeconfig, '--env-out', envFile, ...args], {
    cwd: ROOT,
    reject: false,
    all: true,
    env: { ...options.env },
  });
  const deadline = Date.now() + 90_000;
  while (!existsSync(envFile)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGTERM');
      const r = await child;
      throw new Error(`ocp-e2e cluster up did not write ${envFile} (exit ${r.exitCode}):\n${String(r.all ?? '').slice(-2000)}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  const env = Object.fromEntries([...readFileSync(envFile, 'utf8').matchAll(/^export (\w+)='([^']*)'$/gm)].map((m) => [m[1]!, m[2]!]));
  const missing = ['KUBECONFIG', 'SSL_CERT_FILE', 'REGISTRY_AUTH_FILE', 'DOCKER_CONFIG'].filter((name) => !env[name]);
  if (missing.length) {
    child.kill('SIGTERM');
    await child;
    throw new Error(`ocp-e2e cluster up wrote ${envFile} without ${missing.join(', ')}`);
  }
  delete env.KUBECONFIG; // the runs below pass --kubeconfig
  return {
    kubeconfig,
    env,
    process: child,
    async stop() {
      child.kill('SIGTERM');
      await child;
    },
  };
}

/**
 * The pipeline's own upgrade step, as the report runs it with the real `oc`: `oc adm upgrade --to-image <the
 * cluster's first available update> --allow-explicit-upgrade --force`. Returns the image; throws with oc's output
 * when it does not exit 0.
 */
export async function ocAdmUpgradeToNext(oc: string, kubeconfig: string, env: Record<string, string>): Promise<string> {
  const cv = await Cluster.fromKubeconfig(kubeconfig).getClusterVersion();
  const image = cv.status?.availableUpdates?.[0]?.image;
  if (!image) throw new Error('the reference cluster offers no update');
  const r = await execa(oc, ['adm', 'upgrade', `--to-image=${image}`, '--allow-explicit-upgrade', '--force', `--kubeconfig=${kubeconfig}`], { env, reject: false, all: true });
  if (r.exitCode !== 0) throw new Error(`oc adm upgrade exited ${r.exitCode}:\n${String(r.all)}`);
  return image;
}
