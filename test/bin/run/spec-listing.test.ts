import { expect } from 'chai';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
    const cached = JSON.parse(readFileSync(join(dir, 'cache', 'spec-listing.json'), 'utf8')) as { tests: unknown[] };
    expect(cached.tests).to.have.length(tests.length);
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
    for (const cut of ['', '{"key":"v3:all:specs/01-upgrade']) {
      writeFileSync(listing, cut);
      const tests = await listTests([SPEC1]);
      expect(tests.map((t) => t.file), `a cache of ${JSON.stringify(cut)}`).to.include(SPEC1);
      expect((JSON.parse(readFileSync(listing, 'utf8')) as { tests: unknown[] }).tests).to.have.length(tests.length);
    }
    expect(readdirSync(join(dir, 'cache')), 'no partial file is left beside it').to.deep.equal(['spec-listing.json']);
  });
});
