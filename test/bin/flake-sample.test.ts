/**
 * A small sample of the flake-rate benchmark (bench/reliability/flake-rate.ts, figures in bench/RESULTS.md), for CI:
 * spec 1 under three seeds other than the default on each profile, the two profiles side by side, so six runs take
 * the time of three (about 25 s each on a quiet machine). 4.12-ga must pass every
 * time and the nightly must fail every time with the report's deadlock; each run must say which seed it used, on the
 * console and in the report's environment, so a failure can be replayed.
 */
import { expect } from 'chai';
import { ocpE2e } from '../support/cli.js';
import { CASES, runSeeds, spread } from './support/seeded-runs.js';

const SEEDS = [2, 3, 4];

describe('flake sample: spec 1 over seeds on both profiles', function () {
  this.timeout(SEEDS.length * 150_000);

  it(`4.12-ga passes and the nightly deadlocks under seeds ${SEEDS.join(', ')}`, async () => {
    const cases = [CASES.spec1Ga, CASES.spec1Nightly];
    const results = await Promise.all(cases.map((c) => runSeeds(c, SEEDS)));
    cases.forEach((c, i) => console.log(`    ${c.name}, seeds ${SEEDS.join(', ')}: ${spread(results[i]!)}`));
    const wrong = cases.flatMap((c, i) => results[i]!.filter((r) => r.wrong).map((r) => `${c.name}, seed ${r.seed}: ${r.wrong} (replay: ocp-e2e ${c.args.join(' ')} --seed ${r.seed})`));
    expect(wrong).to.deep.equal([]);
    for (const r of results.flat()) expect(r.environment).to.match(new RegExp(`^replay = ocp-e2e run --profile \\S+ --seed ${r.seed} --clock skip$`, 'm'));
  });

  it('--seed is refused on a real cluster and must be a non-negative integer', async () => {
    const onCluster = await ocpE2e(['run', '--target', 'cluster', '--seed', '3']);
    expect(onCluster.exitCode).to.equal(2);
    expect(onCluster.output).to.match(/--seed applies to --target reference only/);
    const bad = await ocpE2e(['run', '--seed', '-1']);
    expect(bad.exitCode).to.equal(2);
    expect(bad.output).to.match(/--seed.*must be a non-negative integer/);
  });
});
