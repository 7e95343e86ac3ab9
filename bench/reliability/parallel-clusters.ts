/**
 * Parallel reference clusters that must not cross (issue 25 item 3):
 *   PATH=../shared/upstream/bin:$PATH node --import tsx bench/reliability/parallel-clusters.ts [--rounds 20]
 *     [--clusters 6] [--budget-minutes M] [--record]
 * Each round starts `--clusters` `ocp-e2e cluster up` processes at once on one shared work folder (as users share the
 * default), checks each as test/bin/parallel-clusters.test.ts does (its registry's and API server's certificates
 * signed by its own CA, its release read with the real oc naming only its own registry, its kubeconfig served), stops
 * them all and checks nothing is left. A round counts as served when every cluster of it started and served its own.
 * Prints one line per round and the totals; --record appends them to bench/RESULTS.md ("## reliability").
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { startClusters, stopClusters, verifyCluster } from '../../test/bin/support/parallel-clusters.js';
import { recordReliability } from './record.js';

const refuse = (message: string): never => {
  console.error(`parallel-clusters: ${message}`);
  process.exit(2);
};
const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(name);
  const value = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  return value > 0 ? value : refuse(`${name} must be a positive number, got ${JSON.stringify(process.argv[i + 1] ?? '')}`);
};
const rounds = arg('--rounds', 20);
const clusters = arg('--clusters', 6);
const budgetMs = process.argv.includes('--budget-minutes') ? arg('--budget-minutes', 1) * 60_000 : Infinity;
const record = process.argv.includes('--record');
const oc = (await execa('sh', ['-c', 'command -v oc'], { reject: false })).stdout.trim();
if (!oc) refuse('oc is not on PATH: put ../shared/upstream/bin first (each cluster\'s release is read with it)');

interface Round {
  served: number;
  started: number;
  problems: string[];
  left: string[];
  startMs: number;
  wallMs: number;
}

const began = Date.now();
const done: Round[] = [];
const loads: number[] = [];
for (let r = 1; r <= rounds && Date.now() - began < budgetMs; r++) {
  const t0 = Date.now();
  const workRoot = await mkdtemp(path.join(tmpdir(), 'ocp-e2e-parallel-bench-'));
  const workDir = path.join(workRoot, 'reference');
  const run = await startClusters(clusters, workDir, oc);
  const startMs = Date.now() - t0;
  loads.push(loadavg()[0]!);
  const verdicts = await Promise.all(run.started.map((c) => verifyCluster(c, run.started, oc)));
  const left = await stopClusters(run.started, workDir);
  await rm(workRoot, { recursive: true, force: true });
  const problems = [...run.failures, ...verdicts.flatMap((v) => v.problems.map((p) => `cluster ${v.index}: ${p}`))];
  const round = { served: verdicts.filter((v) => !v.problems.length).length, started: run.started.length, problems, left, startMs, wallMs: Date.now() - t0 };
  done.push(round);
  console.log(`round ${r}: ${round.served}/${clusters} served their own CA and release, started in ${(startMs / 1000).toFixed(1)} s, round ${(round.wallMs / 1000).toFixed(1)} s${left.length ? `, LEFT: ${left.join('; ')}` : ''}`);
  for (const p of problems) console.log(`  ${p}`);
}

const whole = done.filter((d) => d.served === clusters && !d.left.length).length;
const servedClusters = done.reduce((n, d) => n + d.served, 0);
const seconds = (ms: number[]): string => {
  const s = [...ms].sort((a, b) => a - b);
  return `min ${(s[0]! / 1000).toFixed(1)} s, median ${(s[Math.floor(s.length / 2)]! / 1000).toFixed(1)} s, max ${(s.at(-1)! / 1000).toFixed(1)} s`;
};
const block = [
  '',
  `### Parallel reference clusters (issue 25 item 3), ${new Date(began).toISOString().slice(0, 16).replace('T', ' ')} UTC, ${cpus().length} cores, node ${process.version}`,
  '',
  `Command: \`PATH=../shared/upstream/bin:$PATH node --import tsx bench/reliability/parallel-clusters.ts --rounds ${rounds} --clusters ${clusters}${Number.isFinite(budgetMs) ? ` --budget-minutes ${budgetMs / 60_000}` : ''}${record ? ' --record' : ''}\`. ` +
    `Each round: ${clusters} \`cluster up\` processes at once on one fresh work folder, each checked through its env file and kubeconfig, then all stopped (SIGTERM) and checked for leftovers. ` +
    `Load average (1 min) after the starts: ${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)}.`,
  '',
  `- rounds run: ${done.length} of ${rounds}${done.length < rounds ? ' (time budget spent)' : ''}`,
  `- rounds where all ${clusters} started, served their own CA and release, and left nothing: **${whole} of ${done.length}**`,
  `- clusters that served their own CA and release: ${servedClusters} of ${done.length * clusters}; leftovers: ${done.reduce((n, d) => n + d.left.length, 0)}`,
  `- time to all ${clusters} up: ${seconds(done.map((d) => d.startMs))}; whole round: ${seconds(done.map((d) => d.wallMs))}`,
  ...done.flatMap((d, i) => [...d.problems, ...d.left].map((p) => `- round ${i + 1}: ${p}`)),
  '',
  `Total ${((Date.now() - began) / 60_000).toFixed(1)} minutes.`,
  '',
];
console.log(block.join('\n'));
if (record) console.log(`recorded in ${await recordReliability(block)}`);
