/**
 * Wall time of the conformance suite on the embedded reference cluster, measured through the command a user runs:
 *   node --import tsx bench/suite/run.ts [--runs N] [--record]
 * Measures `ocp-e2e run` (whole suite, goal <= 120 s) and `ocp-e2e run --grep 54183` (spec 1, goal <= 30 s), each N
 * times (default 1), and prints the numbers; --record appends them to the "## suite" section of bench/RESULTS.md.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { lastLine, ocpE2e, ROOT } from '../../test/suite/cli.js';

interface Measure {
  name: string;
  args: string[];
  goalMs: number;
  wallMs: number[];
  summary: string;
  exitCode: number;
  /** Per spec file: "ready in" of the reference and the mocha duration, from the run's own output. */
  referenceStartsMs: number[];
}

const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 1;
const record = process.argv.includes('--record');

const cases: Omit<Measure, 'wallMs' | 'summary' | 'exitCode' | 'referenceStartsMs'>[] = [
  { name: 'whole suite (6 specs, one reference cluster per spec file)', args: ['run'], goalMs: 120_000 },
  { name: 'spec 1 (--grep 54183)', args: ['run', '--grep', '54183'], goalMs: 30_000 },
];

const results: Measure[] = [];
for (const c of cases) {
  const m: Measure = { ...c, wallMs: [], summary: '', exitCode: 0, referenceStartsMs: [] };
  for (let i = 0; i < runs; i++) {
    const r = await ocpE2e(c.args, { timeoutMs: 600_000 });
    m.wallMs.push(r.wallMs);
    m.summary = lastLine(r.output);
    m.exitCode = r.exitCode;
    m.referenceStartsMs.push(...[...r.output.matchAll(/ready in (\d+(?:\.\d+)?)s/g)].map((x) => Math.round(Number(x[1]) * 1000)));
    console.log(`${c.name}: run ${i + 1}/${runs}: ${(r.wallMs / 1000).toFixed(1)} s, exit ${r.exitCode}, "${m.summary}"`);
  }
  results.push(m);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const lines = results.map((m) => {
  const med = median(m.wallMs);
  const starts = m.referenceStartsMs.length ? `; reference start median ${(median(m.referenceStartsMs) / 1000).toFixed(1)} s over ${m.referenceStartsMs.length} starts` : '';
  return `| ${m.name} | \`ocp-e2e ${m.args.join(' ')}\` | ${(med / 1000).toFixed(1)} s (${m.wallMs.map((w) => (w / 1000).toFixed(1)).join(', ')}) | ${(m.goalMs / 1000).toFixed(0)} s ${med <= m.goalMs ? 'met' : 'MISSED'} | ${m.summary} (exit ${m.exitCode})${starts} |`;
});
const block = [
  '',
  `### ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB, node ${process.version}, ${runs} run(s) each`,
  '',
  'Command: `node --import tsx bench/suite/run.ts' + (runs > 1 ? ` --runs ${runs}` : '') + ' --record` (wall time of the whole CLI process, reference start and image builds included).',
  '',
  '| what | command | wall time, median (all runs) | goal | result |',
  '|---|---|---|---|---|',
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
