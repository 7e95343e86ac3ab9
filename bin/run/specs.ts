/** Which spec files a run runs: the given ones or every specs/*.spec.ts, narrowed to those --grep selects. */
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { runnableSpec, SPECS_DIR } from './paths.js';
import { listTests } from './spec-listing.js';
import { UsageError } from './usage-error.js';
import type { RunPhase } from '../../helpers/target.js';

export async function selectSpecFiles(given: string[] | undefined, grep: string | undefined, phase: RunPhase = 'all'): Promise<string[]> {
  let files = await specFiles(given);
  if (grep) files = await filesMatching(files, grep, phase);
  if (files.length === 0) throw new UsageError(grep ? `no spec title matches --grep ${grep}` : `no *.spec.ts in ${SPECS_DIR}`);
  return files;
}

/** The names of every spec file in specs/, sorted: what a run runs without --grep (and what the help counts). */
export function specFileNames(): string[] {
  return readdirSync(SPECS_DIR).filter((n) => n.endsWith('.spec.ts')).sort();
}

async function specFiles(given: string[] | undefined): Promise<string[]> {
  if (given?.length) return given.map((f) => runnableSpec(resolve(f)));
  return specFileNames().map((n) => join(SPECS_DIR, n));
}

/** The spec files with at least one test whose full title matches --grep, as mocha's --grep matches it. */
async function filesMatching(files: string[], grep: string, phase: RunPhase): Promise<string[]> {
  const pattern = new RegExp(grep);
  const wanted = new Set((await listTests(files, phase)).filter((t) => pattern.test(t.fullTitle)).map((t) => t.file));
  return files.filter((f) => wanted.has(f));
}
