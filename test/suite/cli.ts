/** Runs the `ocp-e2e` command the way a user does (the TypeScript entry point through tsx) and captures its output. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';

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
  const r = await execa(process.execPath, ['--import', 'tsx', join(ROOT, 'bin', 'ocp-e2e.ts'), ...withReports], {
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
