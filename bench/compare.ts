/**
 * Side by side: this tree against another commit, measured in one session and interleaved, so both sides see the
 * same machine load. Checks BASE_REF out in a temporary worktree (sharing this tree's node_modules when the lockfiles
 * match, else `npm ci` there), then for each case runs base and new alternately, --runs times each, and prints medians
 * and the ratio new/base.
 *
 *   node --import tsx bench/compare.ts BASE_REF [--runs 5] [--cases spec1,suite,rollout] [--keep-worktree]
 *
 * Cases: spec1 = `bin/ocp-e2e run --grep 54183`; suite = `bin/ocp-e2e run --jobs 2`; rollout = the 1,000-node pool
 * rollout (bench/reference/rollout-1000.ts, its "rollout" figure). Each run's exit code is printed: a case whose exit
 * differs between the sides is flagged, since a faster run that fails measures nothing.
 */
import { execa } from 'execa';
import { existsSync, readFileSync, utimesSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const args = process.argv.slice(2);
const option = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const baseRef = args.find((a, i) => !a.startsWith('--') && !(i > 0 && args[i - 1]!.startsWith('--') && args[i - 1] !== '--keep-worktree'));
if (!baseRef) {
  console.error('usage: node --import tsx bench/compare.ts BASE_REF [--runs N] [--cases spec1,suite,rollout] [--keep-worktree]');
  process.exit(2);
}
const runs = Number(option('--runs') ?? 5);
const caseNames = (option('--cases') ?? 'spec1,suite,rollout').split(',');

interface CaseDef {
  name: string;
  command: (tree: string) => { file: string; args: string[] };
  /** The figure of one run, in ms: the process's wall time unless the case reads its own. */
  figure?: (output: string) => number | undefined;
}

const reportsDir = () => join(tmpdir(), `ocp-e2e-compare-${process.pid}-${Math.random().toString(36).slice(2, 8)}`);
const CASES: Record<string, CaseDef> = {
  spec1: { name: 'spec 1 (run --grep 54183)', command: (t) => ({ file: join(t, 'bin', 'ocp-e2e'), args: ['run', '--grep', '54183', '--reports-dir', reportsDir()] }) },
  suite: { name: 'whole suite (run --jobs 2)', command: (t) => ({ file: join(t, 'bin', 'ocp-e2e'), args: ['run', '--jobs', '2', '--reports-dir', reportsDir()] }) },
  rollout: {
    name: '1,000-node rollout',
    command: (t) => ({ file: process.execPath, args: ['--import', 'tsx', join(t, 'bench', 'reference', 'rollout-1000.ts')] }),
    // the benchmark prints one JSON line; its rollout figure leaves out the cluster's start and seeding
    figure: (out) => {
      const m = /"rolloutWallSeconds":([\d.]+)/.exec(out);
      return m ? Number(m[1]) * 1000 : undefined;
    },
  },
};

async function prepareBase(ref: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'ocp-e2e-base-'));
  const tree = join(dir, 'tree');
  await execa('git', ['worktree', 'add', '--detach', tree, ref], { cwd: ROOT });
  const sameLock = readFileSync(join(ROOT, 'package-lock.json'), 'utf8') === readFileSync(join(tree, 'package-lock.json'), 'utf8');
  if (sameLock && existsSync(join(ROOT, 'node_modules', '.package-lock.json'))) {
    // A copy of hard links, never a symlink: the launcher there runs `npm ci` when it finds its lockfile newer than
    // node_modules (a fresh checkout is), and through a symlink that would empty this tree's node_modules.
    await execa('cp', ['-al', join(ROOT, 'node_modules'), join(tree, 'node_modules')]);
    const now = new Date();
    utimesSync(join(tree, 'node_modules', '.package-lock.json'), now, now);
  } else await execa('npm', ['ci', '--no-audit', '--no-fund'], { cwd: tree, stdio: 'inherit' });
  return tree;
}

interface Sample {
  ms: number;
  exit: number;
}

async function runOnce(def: CaseDef, tree: string): Promise<Sample> {
  const { file, args: a } = def.command(tree);
  const started = Date.now();
  const r = await execa(file, a, { cwd: tree, reject: false, all: true, timeout: 900_000 });
  const wall = Date.now() - started;
  return { ms: def.figure?.(String(r.all ?? '')) ?? wall, exit: r.exitCode ?? -1 };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

const baseTree = await prepareBase(baseRef);
const head = (await execa('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT })).stdout;
const base = (await execa('git', ['rev-parse', '--short', baseRef], { cwd: ROOT })).stdout;
const rows: string[] = [];
try {
  for (const name of caseNames) {
    const def = CASES[name];
    if (!def) throw new Error(`unknown case ${name}: one of ${Object.keys(CASES).join(', ')}`);
    const samples = { base: [] as Sample[], new: [] as Sample[] };
    for (let i = 0; i < runs; i++) {
      // alternate which side goes first, so a warming cache or a load spike does not favour one side
      const order: ('base' | 'new')[] = i % 2 ? ['new', 'base'] : ['base', 'new'];
      for (const side of order) {
        const s = await runOnce(def, side === 'base' ? baseTree : ROOT);
        samples[side].push(s);
        console.log(`${def.name}: ${side} run ${i + 1}/${runs}: ${(s.ms / 1000).toFixed(1)} s, exit ${s.exit}, load ${loadavg()[0]!.toFixed(1)}`);
      }
    }
    const b = median(samples.base.map((s) => s.ms));
    const n = median(samples.new.map((s) => s.ms));
    const exits = (xs: Sample[]) => [...new Set(xs.map((s) => s.exit))].join('/');
    const flag = exits(samples.base) === exits(samples.new) ? '' : ' (exit codes differ)';
    rows.push(`| ${def.name} | ${(b / 1000).toFixed(1)} s (exit ${exits(samples.base)}) | ${(n / 1000).toFixed(1)} s (exit ${exits(samples.new)}) | ${(n / b).toFixed(2)}${flag} |`);
  }
} finally {
  if (!args.includes('--keep-worktree')) await execa('git', ['worktree', 'remove', '--force', baseTree], { cwd: ROOT, reject: false });
  await rm(resolve(baseTree, '..'), { recursive: true, force: true }).catch(() => undefined);
}
console.log(
  [
    '',
    `### ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC: ${head} against ${base}, ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB, node ${process.version}, ${runs} interleaved runs a side`,
    '',
    `Command: \`node --import tsx bench/compare.ts ${baseRef} --runs ${runs} --cases ${caseNames.join(',')}\``,
    '',
    '| case | base, median | new, median | new/base |',
    '|---|---|---|---|',
    ...rows,
    '',
  ].join('\n'),
);
