/** Reading (and amending) the Allure result files of a reports folder: one `*-result.json` per test attempt. */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface AllureResult {
  uuid: string;
  name: string;
  fullName?: string;
  testCaseId?: string;
  status?: 'passed' | 'failed' | 'broken' | 'skipped' | 'unknown';
  statusDetails?: { message?: string; trace?: string; known?: boolean };
  titlePath?: string[];
  labels?: Array<{ name: string; value: string }>;
  links?: Array<{ name?: string; url: string; type?: string }>;
  stop?: number;
}

export interface ResultFile {
  path: string;
  result: AllureResult;
}

export async function readAllureResults(resultsDir: string): Promise<ResultFile[]> {
  const names = (await readdir(resultsDir).catch(() => [] as string[])).filter((n) => n.endsWith('-result.json'));
  const files = await Promise.all(names.map(async (n) => {
    const path = join(resultsDir, n);
    try {
      return { path, result: JSON.parse(await readFile(path, 'utf8')) as AllureResult };
    } catch {
      return undefined; // a result cut short by an interruption: nothing to learn from it
    }
  }));
  return files.filter((f): f is ResultFile => f !== undefined);
}

export async function writeAllureResult(file: ResultFile): Promise<void> {
  await writeFile(file.path, JSON.stringify(file.result));
}

/** The last attempt of each test (retries write one result each). */
export function lastAttempts(files: ResultFile[]): ResultFile[] {
  const byTest = new Map<string, ResultFile>();
  for (const f of files) {
    const key = f.result.fullName ?? f.result.name;
    const seen = byTest.get(key);
    if (!seen || (f.result.stop ?? 0) >= (seen.result.stop ?? 0)) byTest.set(key, f);
  }
  return [...byTest.values()];
}

export const isFailure = (r: AllureResult): boolean => r.status === 'failed' || r.status === 'broken';

/** The spec file of a result, relative to the checkout (allure-mocha's titlePath: project, folders..., file, suites...). */
export function specFileOf(r: AllureResult): string | undefined {
  const path = r.titlePath ?? [];
  const fileIndex = path.findIndex((p) => p.endsWith('.spec.ts'));
  return fileIndex < 0 ? undefined : path.slice(1, fileIndex + 1).join('/');
}

/** mocha's full title of a test (what --grep matches): its describe titles and its own, joined by spaces. */
export function mochaFullTitle(r: AllureResult): string {
  const path = r.titlePath ?? [];
  const fileIndex = path.findIndex((p) => p.endsWith('.spec.ts'));
  return [...path.slice(fileIndex + 1), r.name].join(' ');
}
