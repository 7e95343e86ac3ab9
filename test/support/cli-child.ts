/** Runs the `ocp-e2e` command as a child process (compiled, as a user does: ./cli-entry.ts), with its output collected as it comes. */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ocpE2eEntry } from './cli-entry.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface CliProcess {
  child: ChildProcess;
  /** stdout and stderr interleaved, so far. */
  output(): string;
  /** Resolves with the exit code (or 128 + signal number) and the wall time from start. */
  exited: Promise<{ code: number; signal: NodeJS.Signals | null; at: number }>;
  /** Resolves when the output matches, rejects after timeoutMs or when the process exits first. */
  waitFor(pattern: RegExp, timeoutMs: number): Promise<void>;
  /** Wall time (ms since epoch) at which the output first matched, or undefined. */
  firstSeen(pattern: RegExp): number | undefined;
}

/**
 * What a client of a reference cluster started in this process needs, as `cluster up --env-out` writes it: trust in
 * the cluster's CA (its registry serves TLS; `oc` reads SSL_CERT_FILE) and the registry's credentials.
 */
export function referenceClientEnv(cluster: { registryFiles: { caBundleFile: string; authFile: string } }): Record<string, string> {
  return { SSL_CERT_FILE: cluster.registryFiles.caBundleFile, REGISTRY_AUTH_FILE: cluster.registryFiles.authFile };
}

const SIGNAL_NUMBERS: Record<string, number> = { SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };

export function startCli(args: string[], env: Record<string, string> = {}): CliProcess {
  // detached: the child leads its own process group, so the test can find every process it left behind.
  const child = spawn(process.execPath, [...ocpE2eEntry(), ...args], {
    cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true,
  });
  let out = '';
  const arrivals: Array<{ end: number; at: number }> = [];
  const listeners = new Set<() => void>();
  const onData = (d: Buffer) => {
    out += d.toString('utf8');
    arrivals.push({ end: out.length, at: Date.now() });
    for (const l of [...listeners]) l();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<{ code: number; signal: NodeJS.Signals | null; at: number }>((resolve) => {
    child.once('exit', (code, signal) => {
      resolve({ code: code ?? 128 + (SIGNAL_NUMBERS[signal ?? ''] ?? 0), signal, at: Date.now() });
      for (const l of [...listeners]) l();
    });
  });
  return {
    child,
    output: () => out,
    exited,
    firstSeen(pattern) {
      const m = pattern.exec(out);
      if (!m) return undefined;
      return arrivals.find((a) => a.end > m.index)?.at;
    },
    waitFor(pattern, timeoutMs) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (pattern.test(out)) { done(); resolve(); } else if (child.exitCode !== null || child.signalCode !== null) { done(); reject(new Error(`ocp-e2e exited before printing ${pattern}; output:\n${out.slice(-3000)}`)); }
        };
        const timer = setTimeout(() => { done(); reject(new Error(`no ${pattern} within ${timeoutMs} ms; output:\n${out.slice(-3000)}`)); }, timeoutMs);
        const done = () => { clearTimeout(timer); listeners.delete(check); };
        listeners.add(check);
        check();
      });
    },
  };
}

/**
 * The end of a run's output for an assertion's message, without stack frames: a failing spec prints its reason and
 * then a long stack, which a plain tail keeps instead of the reason.
 */
export function outputTail(output: string, chars = 4000): string {
  return output
    .split('\n')
    .filter((line) => !/^(?:\S+\s+)?\s+at \S/.test(line))
    .join('\n')
    .slice(-chars);
}
