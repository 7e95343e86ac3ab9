import { expect } from 'chai';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SPECS_DIR } from '../../../bin/run/paths.js';
import { listTests } from '../../../bin/run/spec-listing.js';

const SPEC1 = join(SPECS_DIR, '01-upgrade-custom-os-image-both-pools.spec.ts');

describe('bin/run/spec-listing: the listing cache is relocatable and best-effort', function () {
  this.timeout(120_000);
  const saved = process.env.OCP_E2E_CACHE_DIR;
  let dir = '';
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ocp-e2e-listing-'));
  });
  afterEach(() => {
    if (saved === undefined) delete process.env.OCP_E2E_CACHE_DIR;
    else process.env.OCP_E2E_CACHE_DIR = saved;
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes the listing into $OCP_E2E_CACHE_DIR', async () => {
    process.env.OCP_E2E_CACHE_DIR = join(dir, 'cache');
    const tests = await listTests([SPEC1]);
    expect(tests.map((t) => t.fullTitle).join('\n')).to.match(/54183/);
    expect(cachedListings(join(dir, 'cache'))[0]!.tests).to.have.length(tests.length);
  });

  it('lists all the same where the cache cannot be written (its folder would be under a file: ENOTDIR, as EROFS in an image)', async () => {
    writeFileSync(join(dir, 'a-file'), '');
    process.env.OCP_E2E_CACHE_DIR = join(dir, 'a-file', 'cache');
    const tests = await listTests([SPEC1]);
    expect(tests.map((t) => t.file)).to.deep.equal([SPEC1]);
    expect(existsSync(join(dir, 'a-file', 'cache'))).to.equal(false);
  });

  it('a cache cut short by another run (empty, half a listing) is a miss: it lists again and writes the cache whole', async () => {
    process.env.OCP_E2E_CACHE_DIR = join(dir, 'cache');
    mkdirSync(join(dir, 'cache'));
    const listing = join(dir, 'cache', 'spec-listing.json');
    for (const cut of ['', '{"format":4,"listings":[{"phase":"all","sources":"', '{"key":"v3:all:specs/01-upgrade', '{"format":4}']) {
      writeFileSync(listing, cut);
      const tests = await listTests([SPEC1]);
      expect(tests.map((t) => t.file), `a cache of ${JSON.stringify(cut)}`).to.include(SPEC1);
      expect(cachedListings(join(dir, 'cache'))[0]!.tests).to.have.length(tests.length);
    }
    expect(readdirSync(join(dir, 'cache')), 'no partial file is left beside it').to.deep.equal(['spec-listing.json']);
  });
});

interface Cached {
  phase: string;
  files: Record<string, string>;
  tests: { file: string; fullTitle: string }[];
}

function cachedListings(cache: string): Cached[] {
  return (JSON.parse(readFileSync(join(cache, 'spec-listing.json'), 'utf8')) as { listings: Cached[] }).listings;
}

/** Marks every cached title of `file`, so a listing that still carries the mark came from the cache, not from mocha. */
function markCached(cache: string, file: string): void {
  const path = join(cache, 'spec-listing.json');
  const parsed = JSON.parse(readFileSync(path, 'utf8')) as { listings: Cached[] };
  for (const l of parsed.listings) for (const t of l.tests) if (t.file.endsWith(file)) t.fullTitle = `${t.fullTitle} (cached)`;
  writeFileSync(path, JSON.stringify(parsed));
}

describe('bin/run/spec-listing: the cache keeps several listings and answers a subset from a listing of more', function () {
  this.timeout(120_000);
  const saved = process.env.OCP_E2E_CACHE_DIR;
  let dir = '';
  let cache = '';
  let a = '';
  let b = '';
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ocp-e2e-listing-'));
    cache = join(dir, 'cache');
    process.env.OCP_E2E_CACHE_DIR = cache;
    // spec files of their own, outside specs/: a test may edit them, and mocha lists them quickly
    a = join(dir, 'a.spec.ts');
    b = join(dir, 'b.spec.ts');
    writeFileSync(a, "describe('a', () => {\n  it('one', () => {});\n  it('two', () => {});\n});\n");
    writeFileSync(b, "describe('b', () => {\n  it('three', () => {});\n});\n");
  });
  afterEach(() => {
    if (saved === undefined) delete process.env.OCP_E2E_CACHE_DIR;
    else process.env.OCP_E2E_CACHE_DIR = saved;
    rmSync(dir, { recursive: true, force: true });
  });

  it('a listing of two files answers for either one, in the order asked, without listing again', async () => {
    const both = await listTests([a, b]);
    expect(both.map((t) => t.fullTitle)).to.deep.equal(['a one', 'a two', 'b three']);
    markCached(cache, 'b.spec.ts');
    expect((await listTests([b])).map((t) => t.fullTitle)).to.deep.equal(['b three (cached)']);
    expect((await listTests([b, a])).map((t) => t.fullTitle)).to.deep.equal(['b three (cached)', 'a one', 'a two']);
    expect(cachedListings(cache), 'a hit writes nothing').to.have.length(1);
  });

  it('keeps listings of other files and phases beside each other, and drops one a newer listing covers', async () => {
    await listTests([a]);
    await listTests([b]);
    await listTests([a], 'pre');
    expect(cachedListings(cache).map((l) => [l.phase, Object.keys(l.files).length])).to.deep.equal([['pre', 1], ['all', 1], ['all', 1]]);
    markCached(cache, '.spec.ts');
    expect((await listTests([a])).map((t) => t.fullTitle)).to.deep.equal(['a one (cached)', 'a two (cached)']);
    expect((await listTests([b])).map((t) => t.fullTitle)).to.deep.equal(['b three (cached)']);
    // a listing of both covers the two of phase all: they go, the pre one stays
    expect((await listTests([a, b])).map((t) => t.fullTitle)).to.deep.equal(['a one', 'a two', 'b three']);
    expect(cachedListings(cache).map((l) => [l.phase, Object.keys(l.files).length])).to.deep.equal([['all', 2], ['pre', 1]]);
  });

  it('a listing is not an answer for another phase, nor once a listed file changed', async () => {
    await listTests([a, b]);
    markCached(cache, '.spec.ts');
    expect((await listTests([a], 'post')).map((t) => t.fullTitle)).to.deep.equal(['a one', 'a two']);
    writeFileSync(a, "describe('a', () => {\n  it('one again', () => {});\n});\n");
    const { mtime } = statSync(a);
    utimesSync(a, mtime, new Date(mtime.getTime() + 5_000));
    expect((await listTests([a])).map((t) => t.fullTitle)).to.deep.equal(['a one again']);
    expect((await listTests([b])).map((t) => t.fullTitle), 'the unchanged file still hits').to.deep.equal(['b three (cached)']);
  });

  it('keeps at most four listings, the newest', async () => {
    const files = ['c', 'd', 'e', 'f', 'g'].map((n) => {
      const f = join(dir, `${n}.spec.ts`);
      writeFileSync(f, `describe('${n}', () => it('x', () => {}));\n`);
      return f;
    });
    for (const f of files) await listTests([f]);
    expect(cachedListings(cache).map((l) => Object.keys(l.files)[0]!.replace(/.*\//, ''))).to.deep.equal(['g.spec.ts', 'f.spec.ts', 'e.spec.ts', 'd.spec.ts']);
  });
});
