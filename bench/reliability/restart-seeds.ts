/**
 * The restart tests over seeds (issue 46 item 4):
 *   node --import tsx bench/reliability/restart-seeds.ts [--seeds 20] [--first-seed 1] [--grep 'API server'] [--record]
 * For each seed and each disruption of test/reference/upgrade-restarts.test.ts whose title matches --grep (default:
 * the API server restarted from its data directory), runs spec 1 on 4.12-ga (must pass) and on the nightly (must fail
 * with the report's deadlock diagnosis) side by side, as the test does with seed 1, and prints the tally per profile
 * with what each wrong run got wrong (its output and reference log go to a file that stays). One seed at a time: the
 * two runs of a seed already take the machine's two cores. --record appends the tally to bench/RESULTS.md
 * ("## reliability"). `--grep ''` runs every disruption.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { DISRUPTIONS, GA, NIGHTLY, runBoth, wrongOf, type Outcome } from '../../test/reference/support/restarts.js';
import { recordReliability } from './record.js';

const value = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const seeds = Number(value('--seeds') ?? 20);
const firstSeed = Number(value('--first-seed') ?? 1);
const grep = value('--grep') ?? 'API server';
const record = process.argv.includes('--record');
const disruptions = DISRUPTIONS.filter((d) => d.what.includes(grep));
if (!disruptions.length) throw new Error(`no disruption matches --grep ${grep}; they are: ${DISRUPTIONS.map((d) => d.what).join('; ')}`);
const command = `node --import tsx bench/reliability/restart-seeds.ts --seeds ${seeds} --first-seed ${firstSeed} --grep '${grep}'`;
const started = Date.now();

interface Tally { disruption: string; profile: string; expected: string; ok: number; wrong: Array<{ seed: number; why: string; keptAt: string }>; walls: number[] }
const tallies: Tally[] = disruptions.flatMap((d) => [
  { disruption: d.what, profile: GA, expected: 'passes', ok: 0, wrong: [], walls: [] },
  { disruption: d.what, profile: NIGHTLY, expected: 'deadlocks', ok: 0, wrong: [], walls: [] },
]);

for (let seed = firstSeed; seed < firstSeed + seeds; seed++) {
  for (const d of disruptions) {
    let outcomes: Outcome[];
    try {
      outcomes = await runBoth(d, seed);
    } catch (error) {
      // a run that never reached the disruption counts against both profiles, with its reason
      const why = (error as Error).message;
      for (const t of tallies.filter((x) => x.disruption === d.what)) t.wrong.push({ seed, why: why.split('\n')[0]!, keptAt: keep(d.what, t.profile, seed, why) });
      console.log(`seed ${seed}, ${d.what}: ERROR ${why.split('\n')[0]}`);
      continue;
    }
    for (const o of outcomes) {
      const t = tallies.find((x) => x.disruption === d.what && x.profile === o.profile)!;
      t.walls.push(o.wallS);
      const why = wrongOf(o, d);
      if (why) t.wrong.push({ seed, why: why.split('\n')[0]!, keptAt: keep(d.what, o.profile, seed, why, o.log) });
      else t.ok++;
      console.log(`seed ${seed}, ${d.what}, ${o.profile}: ${o.wallS.toFixed(1)} s, ${why ? `WRONG: ${why.split('\n')[0]}` : t.expected}`);
    }
  }
}

/** A rare failure is worth its evidence: why, the run's output and the reference's whole log go to a folder that stays. */
function keep(what: string, profile: string, seed: number, text: string, log: string[] = []): string {
  const dir = mkdtempSync(join(tmpdir(), `ocp-e2e-restart-wrong-${profile}-seed-${seed}-`));
  writeFileSync(join(dir, 'why.log'), `${what}\n${text}\n`);
  if (log.length) writeFileSync(join(dir, 'reference.log'), log.join('\n') + '\n');
  return dir;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const lines = tallies.map((t) => {
  const n = t.ok + t.wrong.length;
  return `| ${t.disruption} | ${t.profile} | ${t.expected} | ${t.ok}/${n}${t.wrong.length ? `; wrong: ${t.wrong.map((w) => `seed ${w.seed} (${w.why})`).join('; ')}` : ''} | ${median(t.walls).toFixed(1)} |`;
});
const when = new Date().toISOString().slice(0, 16).replace('T', ' ');
const machine = `${cpus().length} cores (${cpus()[0]?.model.trim()}), ${Math.round(totalmem() / 2 ** 30)} GiB, node ${process.version}`;
const table = [
  '',
  `### The restart tests over seeds ${firstSeed}-${firstSeed + seeds - 1} (issue 46 item 4), ${when} UTC, ${machine}`,
  '',
  `Command: \`${command}\`; ${((Date.now() - started) / 60_000).toFixed(1)} minutes, one seed at a time (both profiles side by side); load average at the end ${loadavg().map((l) => l.toFixed(1)).join(' ')}.`,
  '',
  '| disruption | profile | must | as expected | median wall s |',
  '|---|---|---|---|---|',
  ...lines,
  '',
];
console.log(table.join('\n'));
for (const t of tallies) for (const w of t.wrong) console.log(`${t.profile}, seed ${w.seed}: output and reference log in ${w.keptAt}`);
if (record) console.log(`recorded in ${await recordReliability(table)}`);
process.exitCode = tallies.some((t) => t.wrong.length) ? 1 : 0;
