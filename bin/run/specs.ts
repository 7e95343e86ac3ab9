/** Which spec files a run runs: the given ones or every specs/*.spec.ts, narrowed to those --grep selects. */
import { readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { MOCHA_BIN, MOCHA_CONFIG, ROOT, SPECS_DIR } from './paths.js';
import { UsageError } from './usage-error.js';

export async function selectSpecFiles(given: string[] | undefined, grep: string | undefined): Promise<string[]> {
  let files = await specFiles(given);
  if (grep) files = await filesMatching(files, grep);
  if (files.length === 0) throw new UsageError(grep ? `no spec title matches --grep ${grep}` : `no *.spec.ts in ${SPECS_DIR}`);
  return files;
}

async function specFiles(given: string[] | undefined): Promise<string[]> {
  if (given?.length) return given.map((f) => resolve(f));
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
