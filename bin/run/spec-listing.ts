/**
 * The tests of the spec files (file and full title), as mocha lists them with --dry-run. Listing loads every spec
 * and the whole helpers/ tree (seconds of CPU), so the last few listings are kept in spec-listing.json in the cache
 * folder (paths.ts cacheDir: the checkout's .cache unless OCP_E2E_CACHE_DIR or XDG_CACHE_HOME say otherwise), each
 * with the path, size and modification time of every source file a title could come from (specs/, helpers/, lib/,
 * the lockfile, the listed files): any edit there lists again. A listing also answers a request for some of its files
 * (a run lists every spec to select by --grep, then the selected ones again). The cache is best-effort: where it
 * cannot be written (a read-only install, such as the image), every run lists again.
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
/** The cached format's version: a cache of another format is a miss, listed again and replaced. */
const FORMAT = 4;
/**
 * How many listings the cache keeps, newest first. One run asks for several (all the spec files of the phase to
 * select by --grep, then the selected ones for the preflights and the upgrade's plan), and a user alternates between
 * a few selections; a listing of every spec is a few hundred kB, so the file stays small enough to parse per call.
 */
const KEPT = 4;

/** One listing: of `files` (path relative to ROOT → its size and mtime when listed) in `phase` at `sources`. */
interface CachedListing {
  phase: RunPhase;
  /** sourcesKey: the stats of every file a title could come from, so any edit there makes the listing stale. */
  sources: string;
  files: Record<string, string>;
  /** As mocha listed them, the file relative to ROOT. */
  tests: ListedTest[];
}

/**
 * `phase` changes the titles of upgrade tests (PreChkUpgrade / PstChkUpgrade), so it is part of what a listing is of.
 * A listing answers any request for some of its files in the same phase at the same sources: mocha lists each spec
 * file's tests and declarations from that file alone (the others given with it change nothing), so the subset's
 * tests are the listing's tests of those files.
 */
export async function listTests(files: string[], phase: RunPhase = 'all'): Promise<ListedTest[]> {
  const asked = [...new Set(files)];
  const order = new Map(asked.map((f, i) => [f, i]));
  const [sources, stats] = await Promise.all([sourcesKey(), fileStats(asked)]);
  const cache = join(cacheDir(), 'spec-listing.json');
  const cached = await readCachedListings(cache);
  const hit = cached.find((l) => l.phase === phase && l.sources === sources && Object.entries(stats).every(([f, s]) => l.files[f] === s));
  if (hit) {
    // in the order asked, as mocha lists the files it is given; within a file, as listed
    const tests = hit.tests.map((t) => ({ ...t, file: join(ROOT, t.file) })).filter((t) => order.has(t.file));
    return tests.map((t, i) => ({ t, i })).sort((a, b) => order.get(a.t.file)! - order.get(b.t.file)! || a.i - b.i).map(({ t }) => t);
  }
  const tests = await dryRun(asked, phase);
  const listing: CachedListing = { phase, sources, files: stats, tests: tests.map((t) => ({ ...t, file: relative(ROOT, t.file) })) };
  // a listing the new one covers can answer nothing the new one cannot
  const covered = (l: CachedListing) => l.phase === phase && l.sources === sources && Object.keys(l.files).every((f) => stats[f] === l.files[f]);
  const kept = [listing, ...cached.filter((l) => !covered(l))].slice(0, KEPT);
  await writeCache(cache, JSON.stringify({ format: FORMAT, listings: kept }));
  return tests;
}

/**
 * The cached listings, or none when there are none or the cache cannot be read. Runs started at once share the cache
 * (CI's tests, a sharded fan-out), so a cache that does not parse is a miss, never the run's error: CI once ended
 * a `--phase post` with `SyntaxError: Unexpected end of JSON input` from a cache another run was writing.
 */
async function readCachedListings(path: string): Promise<CachedListing[]> {
  const text = await readFile(path, 'utf8').catch(() => undefined);
  if (text === undefined) return [];
  try {
    const parsed = JSON.parse(text) as { format?: number; listings?: CachedListing[] };
    return parsed.format === FORMAT && Array.isArray(parsed.listings) ? parsed.listings : [];
  } catch {
    return [];
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

async function sourcesKey(): Promise<string> {
  const hash = createHash('sha256');
  const entries = [join(ROOT, 'package-lock.json'), ...(await Promise.all(SOURCES.map((d) => filesUnder(join(ROOT, d))))).flat()];
  for (const path of entries.sort()) {
    const s = await stat(path).catch(() => undefined);
    hash.update(`${relative(ROOT, path)}\0${s?.size ?? -1}\0${s?.mtimeMs ?? -1}\n`);
  }
  return hash.digest('hex');
}

/** Each listed file (relative to ROOT) with its size and mtime: a spec file given from outside the sources counts too. */
async function fileStats(files: string[]): Promise<Record<string, string>> {
  const stats = await Promise.all(files.map((f) => stat(f).catch(() => undefined)));
  return Object.fromEntries(files.map((f, i) => [relative(ROOT, f), `${stats[i]?.size ?? -1}:${stats[i]?.mtimeMs ?? -1}`]));
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
