/**
 * The reference's required-pool check against the operator's own isMachineConfigPoolConfigurationValid (mco-oracle
 * pool-valid, BUG-B and FIX): the same error text, byte for byte, or none, for every seeded case.
 */
import { expect } from 'chai';
import { createRng } from '../../../reference/rng.js';
import { COMMITS } from './support/oracle.js';
import { comparePools, poolCase } from './support/pool-cases.js';
import { DIFF_SEED, POOL_CASES, saveDifferences } from './support/run-settings.js';

describe('upstream differential: required pools (isMachineConfigPoolConfigurationValid, BUG-B and FIX)', function () {
  this.timeout(120_000);
  for (const commit of COMMITS) {
    it(`${commit.label} (${commit.short}): the same error text, byte for byte, or none`, async () => {
      console.log(`      required-pools differential ${commit.label}: seed ${DIFF_SEED} (OCP_E2E_DIFF_SEED), ${POOL_CASES} cases (OCP_E2E_DIFF_POOL_CASES)`);
      const rng = createRng(DIFF_SEED);
      const cases = Array.from({ length: POOL_CASES }, () => poolCase(rng));
      const result = await comparePools(commit, cases);
      const first = result.differences[0];
      const where = first ? saveDifferences('pool-valid', commit.label, result.differences) : '';
      expect(result.differences.length, first ? `${result.differences.length} of ${result.cases} differ (seed ${DIFF_SEED}, saved in ${where}); case ${first.index}: upstream ${JSON.stringify(first.upstream)}, reference ${JSON.stringify(first.reference)}` : '').to.equal(0);
      // both outcomes occur: pools that pass and pools that fail
      if (POOL_CASES >= 500) expect(result.errors).to.be.within(POOL_CASES * 0.3, POOL_CASES * 0.97);
    });
  }
});
