/**
 * A server in a child process (a TypeScript entry point run with tsx), for tests that stop it — with SIGKILL, as a
 * crash would, or SIGTERM — and start it again on the same data. The mock's persistence test, the `ocp-e2e apiserver`
 * test and the reliability durability test share it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ChildServer<T> {
  child: ChildProcess;
  /** What `ready` found in the output. */
  ready: T;
  /** Everything the child printed so far, stdout and stderr as they came. */
  output(): string;
}

/**
 * Starts `node --import tsx <args>`; resolves once `ready` finds what it waits for in the standard output so far,
 * rejects (with the output) if the child exits before.
 */
export function spawnServer<T>(args: string[], ready: (stdout: string) => T | undefined, options: { cwd?: string } = {}): Promise<ChildServer<T>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', ...args], { cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let all = '';
    child.stdout!.on('data', (d) => {
      stdout += d;
      all += d;
      const found = ready(stdout);
      if (found !== undefined) resolve({ child, ready: found, output: () => all });
    });
    child.stderr!.on('data', (d) => { all += d; });
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code} before it was ready:\n${all}`)));
  });
}

/** The `{url, token}` a server fixture prints as one JSON line once it serves (a complete line only). */
export function printedAddress(stdout: string): { url: string; token: string } | undefined {
  const line = stdout.split('\n').slice(0, -1).find((l) => l.startsWith('{'));
  return line ? (JSON.parse(line) as { url: string; token: string }) : undefined;
}

/** Stops the child with `signal` and resolves with its exit code (null when the signal ended it); at once if it has exited. */
export function stopChild(child: ChildProcess, signal: NodeJS.Signals): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.once('exit', (code) => resolve(code));
    child.kill(signal);
  });
}

/**
 * For the tests of the calling describe: a scratch folder (`dir()`, made before them) and the child server of the
 * moment (`track`), which is stopped with `signal` after them if it still runs; then the folder is removed.
 */
export function useChildServers(prefix: string, signal: NodeJS.Signals): { dir(): string; track(child: ChildProcess | undefined): void } {
  let dir: string | undefined;
  let current: ChildProcess | undefined;
  before(() => { dir = mkdtempSync(join(tmpdir(), prefix)); });
  after(async () => {
    if (current) await stopChild(current, signal);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return {
    dir: () => dir!,
    track: (child) => { current = child; },
  };
}
