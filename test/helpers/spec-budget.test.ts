/**
 * The tests' timeouts follow the cluster: larger pools and a slower clock give more time, always more than the waits
 * a spec makes, so that a wait's diagnosis fires before mocha's bare timeout; `--timeout-scale` scales the waits and
 * the timeouts together.
 */
import { expect } from 'chai';
import { poolRolloutClusterMinutes } from '../../helpers/capabilities.js';
import { budgetMs, upgradeClusterMinutes, type WaitContext } from '../../helpers/cluster-waits.js';
import { cleanupTimeoutMs, testTimeoutMs } from '../../helpers/spec-budget.js';

const ctx = (timeFactor: number, scale?: number): WaitContext & { isReference: boolean } =>
  ({ watcher: undefined as never, caps: { timeFactor }, isReference: timeFactor > 1, scale });
const pools = (workers: number, masters = 3) => ({ machineCounts: [masters, workers], masters, nodes: masters + workers });

describe('helpers: the tests\' timeouts follow the waits of the cluster', () => {
  it('grows with the largest pool, and always covers the three roll-outs, the upgrade and the settles of spec 1', () => {
    for (const [factor, workers] of [[600, 2], [600, 27], [600, 117], [1, 3], [1, 120]] as const) {
      const c = ctx(factor);
      const rollout = budgetMs(c, poolRolloutClusterMinutes(Math.max(3, workers)));
      const upgrade = budgetMs(c, upgradeClusterMinutes(3));
      const spec1Waits = 3 * rollout + upgrade + 2 * budgetMs(c, 15);
      expect(testTimeoutMs(c, pools(workers)), `factor ${factor}, ${workers} workers`).to.be.greaterThan(spec1Waits);
      expect(cleanupTimeoutMs(c, pools(workers))).to.be.greaterThan(rollout);
    }
    expect(testTimeoutMs(ctx(600), pools(117))).to.be.greaterThan(testTimeoutMs(ctx(600), pools(27)));
    expect(testTimeoutMs(ctx(600), pools(27)), 'the fixed 60 s that 27 workers outgrew').to.be.greaterThan(60_000);
  });

  it('--timeout-scale scales every wait and the timeout with them; the work that is not waiting keeps its allowance', () => {
    const base = ctx(600);
    const doubled = ctx(600, 2);
    expect(budgetMs(doubled, 40)).to.equal(2 * budgetMs(base, 40));
    const extra = testTimeoutMs(doubled, pools(27)) - testTimeoutMs(base, pools(27));
    const waitsOnly = testTimeoutMs(base, pools(27)) - testTimeoutMs(ctx(600, 1e-9), pools(27));
    expect(extra).to.be.closeTo(waitsOnly, 10);
  });
});
