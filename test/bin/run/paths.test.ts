import { expect } from 'chai';
import { join } from 'node:path';
import { execa } from 'execa';
import { cacheDir, COMPILED, ROOT, SOURCE_ROOT } from '../../../bin/run/paths.js';

const SPEC1 = 'specs/01-upgrade-custom-os-image-both-pools.spec.ts';

/** bin/run/paths.js as the compiled tree of scripts/build.sh sees itself, read in a node without tsx. */
async function compiledPaths(): Promise<Record<string, unknown>> {
  const tree = String((await execa('bash', [join(ROOT, 'scripts', 'build.sh')], { cwd: ROOT })).stdout).trim();
  const probe = `
    const p = await import(${JSON.stringify(join(tree, 'bin', 'run', 'paths.js'))});
    console.log(JSON.stringify({ tree: ${JSON.stringify(tree)}, COMPILED: p.COMPILED, ROOT: p.ROOT, SOURCE_ROOT: p.SOURCE_ROOT, SUITE_REPORTER: p.SUITE_REPORTER,
      fromCheckout: p.runnableSpec(${JSON.stringify(join(ROOT, SPEC1))}), elsewhere: p.runnableSpec('/elsewhere/x.spec.ts'),
      compiledOptions: p.specNodeOptions([p.runnableSpec(${JSON.stringify(join(ROOT, SPEC1))})]),
      typeScriptOptions: p.specNodeOptions([${JSON.stringify(join(ROOT, SPEC1))}]), cache: p.cacheDir({}) }));`;
  const r = await execa(process.execPath, ['--input-type=module', '-e', probe], { cwd: '/' });
  return JSON.parse(String(r.stdout)) as Record<string, unknown>;
}

describe('bin/run/paths: where the suite runs from, in TypeScript and compiled', function () {
  this.timeout(180_000);

  it('under tsx the checkout is both the tree and the source', () => {
    expect(COMPILED).to.equal(false);
    expect(SOURCE_ROOT).to.equal(ROOT);
  });

  it('caches go to $OCP_E2E_CACHE_DIR, else $XDG_CACHE_HOME/ocp-e2e, else the checkout\'s .cache', () => {
    expect(cacheDir({ OCP_E2E_CACHE_DIR: '/c', XDG_CACHE_HOME: '/x' })).to.equal('/c');
    expect(cacheDir({ XDG_CACHE_HOME: '/x' })).to.equal('/x/ocp-e2e');
    expect(cacheDir({ XDG_CACHE_HOME: '' })).to.equal(join(ROOT, '.cache'));
  });

  it('compiled, it knows its checkout, runs the checkout\'s specs compiled (no tsx) and others with tsx', async () => {
    const p = await compiledPaths();
    expect(p.COMPILED).to.equal(true);
    expect(p.ROOT).to.equal(p.tree);
    expect(p.SOURCE_ROOT).to.equal(ROOT.replace(/\/$/, ''));
    expect(p.cache, 'the checkout\'s .cache, shared by every tree').to.equal(join(ROOT, '.cache'));
    expect(p.SUITE_REPORTER).to.equal(join(p.tree as string, 'helpers', 'mocha', 'suite-reporter.cjs'));
    expect(p.fromCheckout).to.equal(join(p.tree as string, SPEC1));
    expect(p.elsewhere).to.equal('/elsewhere/x.spec.ts');
    expect(p.compiledOptions).to.deep.equal([]);
    expect((p.typeScriptOptions as string[])[0]).to.equal('--import');
  });
});
