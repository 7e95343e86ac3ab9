/**
 * Wall time, CPU and peak memory of the conformance suite on the embedded reference cluster, measured through the
 * command a user runs:
 *   node --import tsx bench/suite/run.ts [--runs N] [--jobs 1,2,3] [--record]
 * Measures `ocp-e2e run` (whole suite; goal <= 25 s) at each --jobs given (default: the default jobs only) and
 * `ocp-e2e run --grep 54183` (spec 1; goal <= 10 s), each N times (default 1), and prints the numbers; --record
 * appends them to the "## suite" section of bench/RESULTS.md. CPU is user+system of the whole process tree (GNU time
 * counts every waited-for descendant); peak memory is the largest sum of RSS over the tree, sampled every 100 ms.
 */
import { existsSync, readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { descendantsOf } from '../../bin/run/process-tree.js';
import { lastLine, ROOT, tempReportsDir } from '../../test/support/cli.js';

interface Sample {
  wallMs: number;
  cpuSeconds?: number;
  peakRssMb: number;
  exitCode: number;
  summary: string;
  /** Per spec file, from the run's own output: reference start and the file's wall time. */
  startsMs: number[];
  filesMs: number[];
  load: number;
}

interface Case {
  name: string;
  args: string[];
  goalMs: number;
  samples: Sample[];
}

const arg = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const runs = Number(arg('--runs')) || 1;
const jobsList = arg('--jobs')?.split(',').map(Number) ?? [undefined];
const record = process.argv.includes('--record');
const GNU_TIME = '/usr/bin/time';

function rssMbOf(pids: number[]): number {
  let kb = 0;
  for (const pid of pids) {
    try {
      kb += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
    } catch { /* gone */ }
  }
  return kb / 1024;
}

async function measure(args: string[]): Promise<Sample> {
  const load = loadavg()[0]!;
  const cli = [process.execPath, '--import', 'tsx', join(ROOT, 'bin', 'ocp-e2e.ts'), ...args, '--reports-dir', tempReportsDir()];
  const timed = existsSync(GNU_TIME);
  const started = Date.now();
  const child = execa(timed ? GNU_TIME : cli[0]!, timed ? ['-f', 'ocp-e2e-bench-cpu %U %S', ...cli] : cli.slice(1), { cwd: ROOT, reject: false, all: true, timeout: 600_000 });
  let peakRssMb = 0;
  const sampler = setInterval(() => {
    if (child.pid) peakRssMb = Math.max(peakRssMb, rssMbOf([child.pid, ...descendantsOf(child.pid)]));
  }, 100);
  const r = await child;
  clearInterval(sampler);
  const wallMs = Date.now() - started;
  const output = String(r.all ?? '');
  const cpu = /ocp-e2e-bench-cpu ([\d.]+) ([\d.]+)/.exec(output);
  const runOutput = output.replace(/^ocp-e2e-bench-cpu .*$/m, '');
  return {
    wallMs,
    cpuSeconds: cpu ? Number(cpu[1]) + Number(cpu[2]) : undefined,
    peakRssMb,
    exitCode: r.exitCode ?? -1,
    summary: lastLine(runOutput),
    startsMs: [...runOutput.matchAll(/ready in (\d+(?:\.\d+)?)s/g)].map((x) => Math.round(Number(x[1]) * 1000)),
    filesMs: [...runOutput.matchAll(/skipped in (\d+(?:\.\d+)?)s wall/g)].map((x) => Math.round(Number(x[1]) * 1000)),
    load,
  };
}

const cases: Case[] = [
  ...jobsList.map((jobs) => ({
    name: `whole suite (6 spec files${jobs ? `, --jobs ${jobs}` : ', default jobs'})`,
    args: ['run', ...(jobs ? ['--jobs', String(jobs)] : [])],
    goalMs: 25_000,
    samples: [],
  })),
  { name: 'spec 1 (--grep 54183)', args: ['run', '--grep', '54183'], goalMs: 10_000, samples: [] },
];

for (const c of cases) {
  for (let i = 0; i < runs; i++) {
    const s = await measure(c.args);
    c.samples.push(s);
    console.log(`${c.name}: run ${i + 1}/${runs}: ${(s.wallMs / 1000).toFixed(1)} s wall, ${s.cpuSeconds?.toFixed(1) ?? '?'} s CPU, peak ${s.peakRssMb.toFixed(0)} MB, load ${s.load.toFixed(1)}, exit ${s.exitCode}, "${s.summary}"`);
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const sec = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const lines = cases.map((c) => {
  const wall = median(c.samples.map((s) => s.wallMs));
  const cpu = c.samples.every((s) => s.cpuSeconds !== undefined) ? `${median(c.samples.map((s) => s.cpuSeconds!)).toFixed(1)} s` : 'n/a';
  const peak = `${median(c.samples.map((s) => s.peakRssMb)).toFixed(0)} MB`;
  const starts = c.samples.flatMap((s) => s.startsMs);
  const files = c.samples.flatMap((s) => s.filesMs);
  const detail = `reference start median ${sec(median(starts))}, spec file median ${sec(median(files))}`;
  const loads = c.samples.map((s) => s.load.toFixed(1)).join(', ');
  return `| ${c.name} | \`ocp-e2e ${c.args.join(' ')}\` | ${sec(wall)} (${c.samples.map((s) => sec(s.wallMs)).join(', ')}) | ${cpu} | ${peak} | ${sec(c.goalMs)} ${wall <= c.goalMs ? 'met' : 'MISSED'} | ${c.samples.at(-1)!.summary} (exit ${c.samples.at(-1)!.exitCode}); ${detail} | ${loads} |`;
});
const block = [
  '',
  `### ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB, node ${process.version}, ${runs} run(s) each`,
  '',
  'Command: `node --import tsx bench/suite/run.ts' + (runs > 1 ? ` --runs ${runs}` : '') + (arg('--jobs') ? ` --jobs ${arg('--jobs')}` : '') + ' --record` (the whole CLI process: reference starts, image builds and spec files included).',
  '',
  '| what | command | wall, median (all runs) | CPU user+sys, median | peak RSS of the tree, median | goal | result | 1-min load average at start |',
  '|---|---|---|---|---|---|---|---|',
  ...lines,
  '',
].join('\n');
console.log(block);

/** Inserts the block at the end of the "## suite" section (created at the end of the file if missing). */
export function insertIntoSuiteSection(text: string, addition: string): string {
  const heading = /^## suite[ \t]*$/m.exec(text);
  if (!heading) return `${text.trimEnd()}\n\n## suite\n${addition}`;
  const rest = text.slice(heading.index + heading[0].length);
  const next = /^## /m.exec(rest);
  const end = next ? heading.index + heading[0].length + next.index : text.length;
  return `${text.slice(0, end).trimEnd()}\n${addition}\n${text.slice(end)}`.replace(/\n{3,}/g, '\n\n');
}

if (record) {
  const path = join(ROOT, 'bench', 'RESULTS.md');
  await writeFile(path, insertIntoSuiteSection(await readFile(path, 'utf8'), block));
  console.log(`recorded under "## suite" in ${path}`);
}
