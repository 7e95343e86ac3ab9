import { expect } from 'chai';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { CRD_DIR, loadCrdsFrom, PARSED_CRDS_FILE } from '../../reference/crds/index.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** What a checkout needs for the build and the launcher (its tests and benches are not built). */
const COPIED = ['bin', 'helpers', 'lib', 'mock', 'reference', 'specs', 'images', 'scripts', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'];

/**
 * A copy of the checkout to build in, so the test's edits never touch the shared one; node_modules is linked (or,
 * with `without`, a folder of links to every package but those), .build/stage seeded from the checkout's so tsc
 * compiles incrementally.
 */
function copyOfCheckout(without: string[] = []): string {
  const dir = mkdtempSync(join(tmpdir(), 'ocp-e2e-build-'));
  for (const name of COPIED) cpSync(join(ROOT, name), join(dir, name), { recursive: true, preserveTimestamps: true, verbatimSymlinks: true });
  if (without.length === 0) {
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  } else {
    mkdirSync(join(dir, 'node_modules'));
    for (const name of readdirSync(join(ROOT, 'node_modules'))) {
      if (!without.includes(name)) symlinkSync(join(ROOT, 'node_modules', name), join(dir, 'node_modules', name));
    }
  }
  if (existsSync(join(ROOT, '.build', 'stage'))) cpSync(join(ROOT, '.build', 'stage'), join(dir, '.build', 'stage'), { recursive: true, preserveTimestamps: true });
  // the dependency bundles of the same lockfile, unless the copy is to go without the bundler
  if (!without.includes('esbuild') && existsSync(join(ROOT, '.build'))) {
    for (const name of readdirSync(join(ROOT, '.build')).filter((n) => /^vendor-[0-9a-f]+$/.test(n))) {
      cpSync(join(ROOT, '.build', name), join(dir, '.build', name), { recursive: true, preserveTimestamps: true });
    }
  }
  return dir;
}

const build = (dir: string, ...args: string[]) => execa('bash', [join(dir, 'scripts', 'build.sh'), ...args], { cwd: dir, reject: false });

/** A `node` first on PATH that writes its arguments to a file, then runs the real one: which entry point ran. */
function recordingNode(dir: string): { path: string; calls: () => string[] } {
  const bin = join(dir, 'fake-bin');
  const log = join(dir, 'node-calls.log');
  mkdirSync(bin);
  writeFileSync(join(bin, 'node'), `#!/bin/sh\necho "$*" >> ${log}\nexec ${process.execPath} "$@"\n`);
  chmodSync(join(bin, 'node'), 0o755);
  return { path: `${bin}:${process.env.PATH ?? ''}`, calls: () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : []) };
}

describe('scripts/build.sh and the launcher: compiled JavaScript, rebuilt when the sources change, tsx when it cannot build', function () {
  this.timeout(420_000);
  const dirs: string[] = [];
  after(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('publishes a tree with the specs under their own names, is current until a source changes, and drops what a deleted source compiled to', async () => {
    const dir = copyOfCheckout();
    dirs.push(dir);
    const first = await build(dir);
    expect(first.exitCode, first.stderr).to.equal(0);
    const tree = first.stdout.trim();
    expect(readlinkSync(join(dir, '.build', 'current'))).to.equal(tree.split('/').at(-1));
    expect(readlinkSync(join(tree, 'specs', '01-upgrade-custom-os-image-both-pools.spec.ts'))).to.equal('01-upgrade-custom-os-image-both-pools.spec.js');
    for (const f of ['bin/ocp-e2e.js', 'helpers/mocha/suite-reporter.cjs', 'reference/crds/machineconfig.yaml', 'images/layered-os/Containerfile', 'package.json', 'specs/mocharc.json']) {
      expect(existsSync(join(tree, f)), f).to.equal(true);
    }
    expect(existsSync(join(tree, 'bin', 'ocp-e2e.ts')), 'no TypeScript in a tree but the spec links').to.equal(false);
    // the CRDs parsed at build time, so that no cluster's start parses their YAML: the same objects as the YAML
    expect(JSON.parse(readFileSync(join(tree, 'reference', 'crds', PARSED_CRDS_FILE), 'utf8'))).to.deep.equal(loadCrdsFrom(CRD_DIR));
    expect((await build(dir, '--check')).stdout.trim()).to.equal(tree);

    const added = join(dir, 'specs', '99-added.spec.ts');
    writeFileSync(added, "describe('added', () => { it('runs', () => undefined); });\n");
    expect((await build(dir, '--check')).exitCode, 'a new source makes the tree stale').to.equal(1);
    const second = await build(dir);
    expect(second.exitCode, second.stderr).to.equal(0);
    const tree2 = second.stdout.trim();
    expect(tree2).to.not.equal(tree);
    expect(existsSync(join(tree2, 'specs', '99-added.spec.js'))).to.equal(true);
    expect(existsSync(join(tree, 'bin', 'ocp-e2e.js')), 'a published tree is never changed: runs started from it go on').to.equal(true);

    rmSync(added);
    const third = await build(dir);
    expect(third.exitCode, third.stderr).to.equal(0);
    expect(readdirSync(join(third.stdout.trim(), 'specs')).filter((n) => n.startsWith('99-'))).to.deep.equal([]);
  });

  it('links the heaviest packages to one-file bundles that export what the packages do; without esbuild, to the packages', async () => {
    const dir = copyOfCheckout();
    dirs.push(dir);
    const built = await build(dir);
    expect(built.exitCode, built.stderr).to.equal(0);
    const tree = built.stdout.trim();
    const names = `const pkgs = ['@kubernetes/client-node', 'dockerode', 'execa', 'yaml', '@bufbuild/cel', '@bufbuild/cel/ext', '@bufbuild/re2'];
      for (const p of pkgs) { const m = await import(p); console.log(p, Object.keys(m).sort().join(',').length, typeof m.default); }`;
    const fromTree = await execa('node', ['--input-type=module', '-e', names], { cwd: join(tree, 'bin'), reject: false });
    const fromCheckout = await execa('node', ['--input-type=module', '-e', names], { cwd: ROOT, reject: false });
    expect(fromTree.exitCode, fromTree.stderr).to.equal(0);
    expect(fromTree.stdout, 'the same export names through a bundle').to.equal(fromCheckout.stdout);
    expect(readlinkSync(join(tree, 'node_modules', '@kubernetes', 'client-node'))).to.match(/^\.\.\/\.\.\/\.\.\/vendor-[0-9a-f]+\/node_modules\/@kubernetes\/client-node$/);
    expect(readdirSync(join(tree, 'node_modules', '@kubernetes', 'client-node'))).to.deep.equal(['bundle.cjs', 'bundle.cjs.cache', 'index.mjs', 'package.json', 'vendor-loader.cjs']);
    expect(readlinkSync(join(tree, 'node_modules', 'mocha')), 'the runner stays the installed package').to.equal('../../../node_modules/mocha');
    // a group's packages are faces of one bundle: RE2 is the copy CEL runs with
    expect(readdirSync(join(tree, 'node_modules', '@bufbuild', 're2'))).to.deep.equal(['index.mjs', 'package.json']);

    const noBundler = copyOfCheckout(['esbuild']);
    dirs.push(noBundler);
    const plain = await build(noBundler);
    expect(plain.exitCode, plain.stderr).to.equal(0);
    expect(plain.stderr).to.match(/build: could not bundle the dependencies \(above\); the tree loads them as installed/);
    expect(readlinkSync(join(plain.stdout.trim(), 'node_modules', 'dockerode'))).to.equal('../../../node_modules/dockerode');
    const version = await execa(join(noBundler, 'bin', 'ocp-e2e'), ['--version'], { reject: false });
    expect(version.exitCode, version.stderr).to.equal(0);
  });

  it('bin/ocp-e2e runs the compiled entry point; without TypeScript installed it runs tsx, saying so once on stderr', async () => {
    const dir = copyOfCheckout();
    dirs.push(dir);
    const node = recordingNode(dir);
    const compiled = await execa(join(dir, 'bin', 'ocp-e2e'), ['--version'], { reject: false, env: { PATH: node.path } });
    expect(compiled.exitCode, compiled.stderr).to.equal(0);
    expect(compiled.stdout).to.match(/^ocp-e2e \d+\.\d+\.\d+ \(node v20/);
    expect(node.calls().at(-1)).to.match(/\.build\/tree-[0-9a-f]+\/bin\/ocp-e2e\.js --version$/);

    const noTsc = copyOfCheckout(['typescript']);
    dirs.push(noTsc);
    const node2 = recordingNode(noTsc);
    const fallback = await execa(join(noTsc, 'bin', 'ocp-e2e'), ['--version'], { reject: false, env: { PATH: node2.path } });
    expect(fallback.exitCode, fallback.stderr).to.equal(0);
    expect(fallback.stdout).to.match(/^ocp-e2e \d+\.\d+\.\d+/);
    expect(fallback.stderr.trim().split('\n')).to.have.length(1);
    expect(fallback.stderr).to.match(/^ocp-e2e: cannot compile the sources \(build: TypeScript is not installed.*running them with tsx/);
    expect(node2.calls().at(-1)).to.match(/tsx\/dist\/loader\.mjs \S+\/bin\/ocp-e2e\.ts --version$/);
  });
});
