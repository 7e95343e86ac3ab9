/**
 * The suite's flake rate on the reference, over seeds (issue 14):
 *   node --import tsx bench/reliability/flake-rate.ts [--spec1-seeds 100] [--suite-seeds 20] [--first-seed 1]
 *     [--parallel 1] [--budget-minutes M] [--clock fixed|skip] [--record]
 * Runs `ocp-e2e run --grep 54183 --seed S` on 4.12-ga (must pass) and on the nightly (must fail with the report's
 * deadlock diagnosis) for each seed, and the whole suite on 4.12-ga (must pass), then prints the failures with the
 * command that replays each and the spread of wall times. With --budget-minutes it stops starting runs when the
 * budget is spent and says how many ran. --clock runs every case on that reference clock (default: the run's own).
 * --record appends the figures to bench/RESULTS.md ("## reliability").
 */
import { cpus, loadavg, totalmem } from 'node:os';
import { CASES, runSeeded, spread, type SeededCase, type SeededRun } from '../../test/bin/support/seeded-runs.js';
import { recordReliability } from './record.js';

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const spec1Seeds = arg('--spec1-seeds', 100);
const suiteSeeds = arg('--suite-seeds', 20);
const firstSeed = arg('--first-seed', 1);
const parallel = arg('--parallel', 1);
const budgetMs = arg('--budget-minutes', Infinity) * 60_000;
const record = process.argv.includes('--record');
const clockAt = process.argv.indexOf('--clock');
const clockArgs = clockAt >= 0 ? ['--clock', process.argv[clockAt + 1]!] : [];
const withClock = (c: SeededCase): SeededCase => ({ ...c, args: [...c.args, ...clockArgs] });
const started = Date.now();

interface Outcome {
  c: SeededCase;
  planned: number;
  runs: SeededRun[];
}

// One queue with the cases interleaved (ga seed 1, nightly seed 1, ga seed 2, ..., a whole-suite run every few
// seeds), so a time budget cuts every case short evenly instead of leaving the last one out.
const outcomes: Outcome[] = [
  { c: withClock(CASES.spec1Ga), planned: spec1Seeds, runs: [] },
  { c: withClock(CASES.spec1Nightly), planned: spec1Seeds, runs: [] },
  { c: withClock(CASES.suiteGa), planned: suiteSeeds, runs: [] },
];
const queue: Array<{ o: Outcome; seed: number }> = [];
const suiteEvery = suiteSeeds > 0 ? Math.max(1, Math.floor(spec1Seeds / suiteSeeds)) : Infinity;
for (let i = 0, suiteDone = 0; i < Math.max(spec1Seeds, suiteSeeds); i++) {
  if (i < spec1Seeds) queue.push({ o: outcomes[0]!, seed: firstSeed + i }, { o: outcomes[1]!, seed: firstSeed + i });
  if (suiteDone < suiteSeeds && (i % suiteEvery === 0 || i >= spec1Seeds)) queue.push({ o: outcomes[2]!, seed: firstSeed + suiteDone++ });
}
let next = 0;
await Promise.all(
  Array.from({ length: Math.max(1, parallel) }, async () => {
    while (next < queue.length && Date.now() - started < budgetMs) {
      const { o, seed } = queue[next++]!;
      const run = await runSeeded(o.c, seed);
      o.runs.push(run);
      console.log(`${o.c.name}: seed ${run.seed}: ${(run.wallMs / 1000).toFixed(1)} s${run.wrong ? `, WRONG: ${run.wrong} (output and reports kept in ${run.keptAt})` : ', as expected'} (${o.runs.length}/${o.planned})`);
    }
  }),
);
for (const o of outcomes) o.runs.sort((a, b) => a.seed - b.seed);

const expectation = (o: Outcome): string => (o.c.name === CASES.spec1Nightly.name ? 'fails with the deadlock diagnosis' : 'passes');
const rows = outcomes.map((o) => {
  const wrong = o.runs.filter((r) => r.wrong);
  const seeds = o.runs.length ? `seeds ${o.runs[0]!.seed}-${o.runs.at(-1)!.seed}` : 'none';
  return `| ${o.c.name} | \`ocp-e2e ${o.c.args.join(' ')} --seed S\` | ${o.runs.length} of ${o.planned} (${seeds}) | ${expectation(o)} | ${o.runs.length - wrong.length} as expected, ${wrong.length} not${wrong.length ? `: ${wrong.map((r) => `seed ${r.seed} (${r.wrong})`).join('; ')}` : ''} | ${spread(o.runs)} |`;
});
const block = [
  '',
  `### Flake rate over seeds, ${new Date(started).toISOString().slice(0, 16).replace('T', ' ')} UTC, ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB, node ${process.version}`,
  '',
  `Command: \`node --import tsx bench/reliability/flake-rate.ts --spec1-seeds ${spec1Seeds} --suite-seeds ${suiteSeeds}${parallel > 1 ? ` --parallel ${parallel}` : ''}${Number.isFinite(budgetMs) ? ` --budget-minutes ${budgetMs / 60_000}` : ''} --record\`; ` +
    `${parallel} run(s) at a time; load average at the end ${loadavg().map((l) => l.toFixed(1)).join(' ')} (other jobs shared the machine). ` +
    `Wall time is the whole CLI process (reference start included). A wrong run is replayed with its command and seed.`,
  '',
  '| case | command | runs | expected | result | wall time |',
  '|---|---|---|---|---|---|',
  ...rows,
  '',
  `Total ${((Date.now() - started) / 60_000).toFixed(1)} minutes.`,
  '',
];
console.log(block.join('\n'));
if (record) console.log(`recorded in ${await recordReliability(block)}`);
