/**
 * The tests of the spec files (file and full title), as mocha lists them with --dry-run. Listing loads every spec
 * and the whole helpers/ tree (seconds of CPU), so the listing is kept in spec-listing.json in the cache folder
 * (paths.ts cacheDir: the checkout's .cache unless OCP_E2E_CACHE_DIR or XDG_CACHE_HOME say otherwise) under a key made
 * of the path, size and modification time of every source file a title could come from (specs/, helpers/, lib/,
 * the lockfile): any edit there lists again. The cache is best-effort: where it cannot be written (a read-only
 * install, such as the image), every run lists again.
 */
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { execa } from 'execa';
import { writeWhole } from '../../lib/files/write-whole.js';
import { cacheDir, LISTING_REPORTER, MOCHA_CLI, MOCHA_CONFIG, ROOT, specNodeOptions } from './paths.js';
import { UsageError } from './usage-error.js';
import type { DeclaredCase } from '../../helpers/declared-case.js';
import { TargetEnv, type RunPhase } from '../../helpers/target.js';

export interface ListedTest {
  /** Absolute path of the spec file. */
  file: string;
  /** What --grep matches: the describe titles and the test's, joined by spaces. */
  fullTitle: string;
  /** What the test's `session.test(...)` declared (case, tags, changes, disruptive, upgrades); absent if nothing. */
  declared?: DeclaredCase;
}

const SOURCES = ['specs', 'helpers', 'lib'];

/** `phase` changes the titles of upgrade tests (PreChkUpgrade / PstChkUpgrade), so it is part of the listing's key. */
export async function listTests(files: string[], phase: RunPhase = 'all'): Promise<ListedTest[]> {
  // The version names the cached format (v2: with the declarations), so an older cache is listed again.
  // The listed files are part of the key: a listing of some files (a --grep run's) holds no test of the others.
  const listed = [...new Set(files.map((f) => relative(ROOT, f)))].sort().join(',');
  const key = `v3:${phase}:${listed}:${await sourcesKey(files)}`;
  const cache = join(cacheDir(), 'spec-listing.json');
  const cached = await readCachedListing(cache);
  const asked = new Set(files);
  if (cached?.key === key) return cached.tests.map((t) => ({ ...t, file: join(ROOT, t.file) })).filter((t) => asked.has(t.file));
  const tests = await dryRun(files, phase);
  await writeCache(cache, JSON.stringify({ key, tests: tests.map((t) => ({ ...t, file: relative(ROOT, t.file) })) }));
  return tests;
}

/**
 * The cached listing, or undefined when there is none or it cannot be read. Runs started at once share the cache
 * (CI's tests, a sharded fan-out), so a listing that does not parse is a miss, never the run's error: CI once ended
 * a `--phase post` with `SyntaxError: Unexpected end of JSON input` from a cache another run was writing.
 */
async function readCachedListing(path: string): Promise<{ key: string; tests: ListedTest[] } | undefined> {
  const text = await readFile(path, 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as { key: string; tests: ListedTest[] };
  } catch {
    return undefined;
  }
}

/**
 * Written whole (renamed into place), so a run reading it meanwhile sees the old listing or the new one. A cache that
 * cannot be written (EROFS, EACCES, a full disk) costs the next run a listing, never this run.
 */
async function writeCache(path: string, text: string): Promise<void> {
  try {
    await mkdir(dirname(path), { recursive: true });
    await writeWhole(path, (partial) => writeFile(partial, text));
  } catch {
    // not cached
  }
}

async function sourcesKey(files: string[]): Promise<string> {
  const hash = createHash('sha256');
  const entries = [...files, join(ROOT, 'package-lock.json'), ...(await Promise.all(SOURCES.map((d) => filesUnder(join(ROOT, d))))).flat()];
  for (const path of [...new Set(entries)].sort()) {
    const s = await stat(path).catch(() => undefined);
    hash.update(`${relative(ROOT, path)}\0${s?.size ?? -1}\0${s?.mtimeMs ?? -1}\n`);
  }
  return hash.digest('hex');
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const nested = await Promise.all(entries.map((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : Promise.resolve([join(dir, e.name)]))));
  return nested.flat();
}

/** mocha --dry-run over the files: loads them without running anything; no target is needed. */
async function dryRun(files: string[], phase: RunPhase): Promise<ListedTest[]> {
  const r = await execa(process.execPath, [...specNodeOptions(files), MOCHA_CLI, '--config', MOCHA_CONFIG, '--dry-run', '--reporter', LISTING_REPORTER, ...files], {
    cwd: ROOT,
    reject: false,
    env: { KUBECONFIG: '', [TargetEnv.phase]: phase },
  });
  let report: { tests?: { file?: string; fullTitle?: string; declared?: DeclaredCase }[] };
  try {
    report = JSON.parse(String(r.stdout)) as typeof report;
  } catch {
    throw new UsageError(`cannot list the specs (mocha --dry-run exited ${r.exitCode}): ${String(r.stderr).split('\n').slice(0, 5).join('\n')}`);
  }
  return (report.tests ?? []).filter((t) => t.file && t.fullTitle !== undefined).map((t) => ({ file: t.file!, fullTitle: t.fullTitle!, ...(t.declared ? { declared: t.declared } : {}) }));
}
