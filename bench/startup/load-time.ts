/**
 * Module-load time of the command and of one spec process, TypeScript through tsx against the compiled tree of
 * scripts/build.sh (hyperfine: wall time, and the CPU time that decides what 2 shared cores can run at once).
 *
 *   node --import tsx bench/startup/load-time.ts [--runs 10]
 *
 * Prints two Markdown tables for bench/RESULTS.md: tsx against compiled, and the heaviest packages as installed against
 * their one-file bundles in the tree (scripts/vendor-bundles.mjs). Needs hyperfine (apt-get install hyperfine).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { execa } from 'execa';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const runs = Number(process.argv[process.argv.indexOf('--runs') + 1] || 10);
const SPEC1 = 'specs/01-upgrade-custom-os-image-both-pools.spec.ts';

const tree = String((await execa('bash', [join(ROOT, 'scripts', 'build.sh')], { cwd: ROOT })).stdout).trim();
const tsx = `node --import ${join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')}`;
const mocha = (root: string) => `${join(root, 'node_modules', 'mocha', 'lib', 'cli', 'cli.js')} --config ${join(root, 'specs', 'mocharc.json')} --dry-run --reporter dot ${join(root, SPEC1)}`;

/** Each row: what is measured, then the command for each form. */
const ROWS: Array<{ what: string; tsx: string; compiled: string }> = [
  { what: '`ocp-e2e --version` (node only)', tsx: `${tsx} ${ROOT}bin/ocp-e2e.ts --version`, compiled: `node ${tree}/bin/ocp-e2e.js --version` },
  { what: '`ocp-e2e run --help` (node only)', tsx: `${tsx} ${ROOT}bin/ocp-e2e.ts run --help`, compiled: `node ${tree}/bin/ocp-e2e.js run --help` },
  { what: '`bin/ocp-e2e --version` (launcher: bash, ensure-env, build check)', tsx: `env OCP_E2E_TSX=1 ${ROOT}bin/ocp-e2e --version`, compiled: `${ROOT}bin/ocp-e2e --version` },
  { what: 'one spec process: mocha loads spec 1 (`--dry-run`)', tsx: `${tsx} ${mocha(ROOT)}`, compiled: `node ${mocha(tree)}` },
  { what: 'the same, compiled with `--enable-source-maps`', tsx: `${tsx} ${mocha(ROOT)}`, compiled: `node --enable-source-maps ${mocha(tree)}` },
];

interface Measured { mean: number; user: number; system: number }

async function measure(command: string): Promise<Measured> {
  const out = join(mkdtempSync(join(tmpdir(), 'ocp-e2e-bench-')), 'h.json');
  await execa('hyperfine', ['--warmup', '1', '--runs', String(runs), '--shell=none', '--export-json', out, command], { cwd: tmpdir() });
  const r = (JSON.parse(readFileSync(out, 'utf8')) as { results: Measured[] }).results[0]!;
  return { mean: r.mean, user: r.user, system: r.system };
}

const s = (x: number) => x.toFixed(2);
console.log(`${new Date().toISOString()}, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}, ${runs} runs each, tree ${tree}\n`);
console.log('| what | tsx wall s | tsx CPU s (user+sys) | compiled wall s | compiled CPU s | CPU saved |');
console.log('|---|---|---|---|---|---|');
for (const row of ROWS) {
  const a = await measure(row.tsx);
  const b = await measure(row.compiled);
  const cpuA = a.user + a.system;
  const cpuB = b.user + b.system;
  console.log(`| ${row.what} | ${s(a.mean)} | ${s(cpuA)} | ${s(b.mean)} | ${s(cpuB)} | ${s(cpuA - cpuB)} s (${Math.round((100 * (cpuA - cpuB)) / cpuA)}%) |`);
}

// The packages scripts/vendor-bundles.mjs bundles, imported as installed (the checkout's node_modules) and through
// the tree's links to their bundles: one process each, all of them in it.
const BUNDLED = ['@kubernetes/client-node', 'dockerode', 'execa', 'undici', 'yaml', 'ws', 'node-forge', 'semver'];
const importAll = (root: string) => {
  const resolve = createRequire(join(root, 'package.json')).resolve;
  const urls = BUNDLED.map((p) => pathToFileURL(resolve(p)).href);
  // no spaces or quotes in the script: hyperfine (--shell=none) splits the command at spaces and takes quotes away
  return `node --input-type=module -e Promise.all([${urls.map((u) => `import(\`${u}\`)`).join(',')}])`;
};
console.log('\n| what | as installed wall s | CPU s | bundled wall s | CPU s | CPU saved |');
console.log('|---|---|---|---|---|---|');
for (const row of [{ what: `import of ${BUNDLED.length} packages (${BUNDLED.join(', ')})`, plain: importAll(ROOT), bundled: importAll(tree) }]) {
  const a = await measure(row.plain);
  const b = await measure(row.bundled);
  const cpuA = a.user + a.system;
  const cpuB = b.user + b.system;
  console.log(`| ${row.what} | ${s(a.mean)} | ${s(cpuA)} | ${s(b.mean)} | ${s(cpuB)} | ${s(cpuA - cpuB)} s (${Math.round((100 * (cpuA - cpuB)) / cpuA)}%) |`);
}
