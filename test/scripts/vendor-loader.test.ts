// scripts/vendor-loader.cjs: a CommonJS bundle loaded with V8's code cache made beside it, and loaded all the same
// (compiled from source) when the cache is missing or V8 rejects it; the bundle runs as Node runs a CommonJS file:
// strict (as the ES bundles it replaces), its own __filename, require resolving from its folder.
import { expect } from 'chai';
import { execa } from 'execa';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT } from '../support/cli.js';

const LOADER = path.join(ROOT, 'scripts', 'vendor-loader.cjs');

describe('scripts/vendor-loader.cjs: bundles with a code cache', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'ocp-e2e-vendor-loader-'));
    mkdirSync(path.join(dir, 'node_modules', 'beside'), { recursive: true });
    writeFileSync(path.join(dir, 'node_modules', 'beside', 'index.js'), 'module.exports = 42;\n');
    writeFileSync(
      path.join(dir, 'bundle.cjs'),
      `"use strict";
let strict = false; try { undeclared = 1; } catch { strict = true; }
exports.strict = strict;
exports.file = __filename;
exports.beside = require('beside');
exports.nodeBuiltin = typeof require('node:path').join;
`,
    );
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** Loads the bundle in a fresh process (the loader keeps a bundle per process) and says what it found. */
  async function loadFresh(): Promise<{ use: string; strict: boolean; file: string; beside: number; nodeBuiltin: string }> {
    const script = `const l = require(${JSON.stringify(LOADER)}); const f = ${JSON.stringify(path.join(dir, 'bundle.cjs'))};
      const m = l.load(f); console.log(JSON.stringify({ use: l.cacheUse(f), strict: m.strict, file: m.file, beside: m.beside, nodeBuiltin: m.nodeBuiltin }));`;
    const r = await execa(process.execPath, ['-e', script], { reject: false });
    expect(r.exitCode, r.stderr).to.equal(0);
    expect(r.stderr, 'no warning').to.equal('');
    return JSON.parse(r.stdout);
  }

  const same = { strict: true, beside: 42, nodeBuiltin: 'function' };

  it('without a cache compiles the source; --write-cache makes one that the next process accepts', async () => {
    expect(await loadFresh()).to.deep.include({ use: 'none', file: path.join(dir, 'bundle.cjs'), ...same });
    const made = await execa(process.execPath, [LOADER, '--write-cache', path.join(dir, 'bundle.cjs')], { reject: false });
    expect(made.exitCode, made.stderr).to.equal(0);
    expect(existsSync(path.join(dir, 'bundle.cjs.cache'))).to.equal(true);
    expect(await loadFresh()).to.deep.include({ use: 'accepted', ...same });
  });

  it('a cache V8 rejects (not V8 code cache at all here) costs only the compile', async () => {
    writeFileSync(path.join(dir, 'bundle.cjs.cache'), 'not a V8 code cache');
    expect(await loadFresh()).to.deep.include({ use: 'rejected', ...same });
  });

  it('loads a bundle once per process', () => {
    const { load } = createRequire(import.meta.url)(LOADER) as { load: (f: string) => unknown };
    expect(load(path.join(dir, 'bundle.cjs'))).to.equal(load(path.join(dir, 'bundle.cjs')));
  });
});
