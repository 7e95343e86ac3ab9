/**
 * The reference's render logic against the upstream render controller (RunBootstrap of BUG-B and FIX, the
 * mco-oracle binaries): the same seeded inputs must give the same rendered names, specs and annotations, or the same
 * error text. Both commits run at once, each in batches of one oracle process.
 */
import { expect } from 'chai';
import { createRng } from '../../../reference/rng.js';
import { COMMITS, type UpstreamCommit } from './support/oracle.js';
import { renderCase } from './support/render-cases.js';
import { compareRender, describeDifference, type RenderComparison } from './support/render-diff.js';
import { DIFF_SEED, RENDER_CASES, saveDifferences } from './support/run-settings.js';

describe('upstream differential: render (RunBootstrap, BUG-B and FIX)', function () {
  this.timeout(300_000);
  const runs = new Map<string, Promise<RenderComparison>>();

  before(() => {
    console.log(`      render differential: seed ${DIFF_SEED} (OCP_E2E_DIFF_SEED), ${RENDER_CASES} cases per commit (OCP_E2E_DIFF_RENDER_CASES)`);
    for (const commit of COMMITS) {
      const rng = createRng(DIFF_SEED);
      const cases = Array.from({ length: RENDER_CASES }, () => renderCase(rng, commit));
      const run = compareRender(commit, cases);
      run.catch(() => undefined); // awaited by the test of this commit
      runs.set(commit.label, run);
    }
  });

  const check = (commit: UpstreamCommit) => async () => {
    const result = await runs.get(commit.label)!;
    const first = result.differences[0];
    const where = result.differences.length > 0 ? saveDifferences('render', commit.label, result.differences) : '';
    expect(result.differences.length, first ? `${result.differences.length} of ${result.cases} cases differ (seed ${DIFF_SEED}, all saved in ${where}); case ${first.index}: ${describeDifference(first)}` : '').to.equal(0);
    expect(result.cases).to.equal(RENDER_CASES);
    // the generator reaches both outcomes: rendered configs and upstream errors
    if (RENDER_CASES >= 500) expect(result.errors).to.be.within(RENDER_CASES * 0.05, RENDER_CASES * 0.6);
  };

  for (const commit of COMMITS) {
    it(`${commit.label} (${commit.short}, profile ${commit.profile}): every case renders the same names, specs and annotations, or fails with the same text`, check(commit));
  }
});
