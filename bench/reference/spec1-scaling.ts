/**
 * How spec 1's wall time grows with the cluster (issue 25 item 5):
 *   node --import tsx bench/reference/spec1-scaling.ts [--nodes 5,30,120] [--clock skip|fixed] [--runs 1]
 * For each size, starts `ocp-e2e cluster up` with 3 masters and N-3 workers, then runs spec 1 against it as QE runs it
 * on a real cluster (`run --target cluster --allow-disruptive --grep 54183`, the shell set up from the env file), and
 * prints the run's wall time (the cluster's start is not counted), its exit code and the ratio to the smallest size.
 * The worker pool rolls one node at a time, twice (the override, then the upgrade), so its cluster time grows with
 * the pool; the question is how much wall time that costs.
 */
import { execa, type ResultPromise } from 'execa';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const CLI = join(ROOT, 'bin', 'ocp-e2e');
const args = process.argv.slice(2);
const option = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const sizes = (option('--nodes') ?? '5,30,120').split(',').map(Number);
const clock = option('--clock') ?? 'skip';
const runs = Number(option('--runs') ?? 1);
const MASTERS = 3;

/** The env file's `export NAME=value` lines (cluster up writes plain paths, one per line). */
function readEnvFile(path: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const m = /^export ([A-Z_]+)=(?:'([^']*)'|"([^"]*)"|(\S*))$/.exec(line.trim());
    if (m) env[m[1]!] = m[2] ?? m[3] ?? m[4] ?? '';
  }
  return env;
}

async function waitForFile(path: string, up: ResultPromise, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(path)) {
    if (up.exitCode !== null && up.exitCode !== undefined) throw new Error(`cluster up exited ${up.exitCode} before writing ${path}`);
    if (Date.now() > deadline) throw new Error(`cluster up wrote no ${path} within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

interface Measured {
  nodes: number;
  wallMs: number[];
  exits: number[];
}

async function measure(nodes: number): Promise<Measured> {
  const out: Measured = { nodes, wallMs: [], exits: [] };
  for (let i = 0; i < runs; i++) {
    const dir = await mkdtemp(join(tmpdir(), 'ocp-e2e-scaling-'));
    const envFile = join(dir, 'ref.env');
    const up = execa(CLI, ['cluster', 'up', '--workers', String(nodes - MASTERS), '--clock', clock, '--env-out', envFile], { reject: false, all: true });
    try {
      await waitForFile(envFile, up, 300_000); // written whole once the cluster is ready
      const env = readEnvFile(envFile);
      const started = Date.now();
      const run = await execa(CLI, ['run', '--target', 'cluster', '--kubeconfig', env.KUBECONFIG!, '--allow-disruptive', '--grep', '54183', '--reports-dir', join(dir, 'reports')], {
        reject: false,
        all: true,
        env: { ...env, OCP_E2E_NO_TIMESTAMPS: '1' },
      });
      out.wallMs.push(Date.now() - started);
      out.exits.push(run.exitCode ?? -1);
      const last = (run.all ?? '').trimEnd().split('\n').at(-1);
      console.log(`${nodes} nodes, run ${i + 1}: ${((Date.now() - started) / 1000).toFixed(1)} s wall, exit ${run.exitCode}: ${last}`);
      if (run.exitCode !== 0) console.log((run.all ?? '').split('\n').slice(-30).join('\n'));
    } finally {
      up.kill('SIGINT');
      await up;
      await rm(dir, { recursive: true, force: true });
    }
  }
  return out;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`spec 1 against cluster up of ${sizes.join(', ')} nodes (${MASTERS} masters), --clock ${clock}, ${runs} run(s) each; ${cpus().length} cores, load ${loadavg()[0]!.toFixed(1)}`);
const results: Measured[] = [];
for (const n of sizes) results.push(await measure(n));
const base = median(results[0]!.wallMs);
console.log('\n| nodes | spec 1 wall (median) | runs | exits | ratio to the smallest |\n|---|---|---|---|---|');
for (const r of results) console.log(`| ${r.nodes} | ${(median(r.wallMs) / 1000).toFixed(1)} s | ${r.wallMs.length} | ${r.exits.join(' ')} | ${(median(r.wallMs) / base).toFixed(2)} |`);
console.log(`load at the end: ${loadavg()[0]!.toFixed(1)}`);
