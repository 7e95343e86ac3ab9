/**
 * `--rerun-failed [DIR]`: the spec files and tests that failed in the run whose reports are in DIR (default the
 * --reports-dir), as the spec list and an exact --grep for a new run. Read before the new run empties its folder.
 */
import { join, resolve } from 'node:path';
import { escapeRegExp } from './regexp.js';
import { isFailure, lastAttempts, mochaFullTitle, readAllureResults, specFileOf } from './results/allure-results.js';
import { readManifest } from './results/manifest.js';
import { ROOT } from './paths.js';
import { UsageError } from './usage-error.js';

export interface Rerun {
  /** Absolute paths of the spec files with a failed test. */
  files: string[];
  /** Matches exactly the full titles of the failed tests. */
  grep: string;
  titles: string[];
}

export async function failuresOf(reportsDir: string, target: string): Promise<Rerun> {
  const dir = resolve(reportsDir);
  const manifest = await readManifest(dir).catch((error: Error) => { throw new UsageError(error.message); });
  if (!manifest) throw new UsageError(`--rerun-failed: ${dir} has no run.json: not the reports folder of an \`ocp-e2e run\``);
  if (manifest.target !== target) {
    throw new UsageError(`--rerun-failed: the run in ${dir} was on --target ${manifest.target}; re-run its failures with --target ${manifest.target}`);
  }
  const failed = lastAttempts(await readAllureResults(join(dir, 'allure-results'))).map((f) => f.result).filter(isFailure);
  const titles = [...new Set(failed.map(mochaFullTitle))].sort();
  const files = [...new Set(failed.map(specFileOf).filter((f): f is string => f !== undefined && manifest.files.includes(f)))].sort();
  return { files: files.map((f) => join(ROOT, f)), titles, grep: `^(?:${titles.map(escapeRegExp).join('|')})$` };
}
