/**
 * The MCO's own end-to-end tests (test/e2e at the FIX commit) against `cluster up --profile 4.12-ga`, run as upstream
 * CI runs them: the six that only read the cluster or render configs each alone on a fresh cluster; the seven that
 * change nodes and run commands on them (`oc rsh … machine-config-daemon … /rootfs …`) together in one process, in
 * their file order, on one fresh cluster: TestKernelArguments makes the custom pool `infra` the later ones reuse.
 * TestOperatorLabel, which the issue does not name, runs alone too: it passes, so it stays checked.
 */
import { expect } from 'chai';
import { type Harness, startHarness } from '../support/cluster.js';
import { outputOf, runUpstreamTests, type UpstreamTestRun } from './support/mco-e2e.js';
import { ALONE, ON_NODES } from './support/mco-e2e.js';

const PROFILE = '4.12-ga';

function expectPassed(run: UpstreamTestRun, name: string): void {
  const verdict = run.verdicts.get(name);
  if (verdict !== 'PASS') {
    throw new Error(`upstream ${name}: ${verdict ?? 'no verdict'} (exit ${run.exitCode}, ${(run.wallMs / 1000).toFixed(1)} s wall); its output:\n${outputOf(run, name)}`);
  }
}

describe(`upstream MCO e2e tests (3943ef1d0) on the reference, ${PROFILE}`, function () {
  for (const name of ALONE) {
    it(`${name}, alone on a fresh cluster`, async function () {
      this.timeout(8 * 60_000);
      const h = await startHarness({ profile: PROFILE });
      try {
        const run = await runUpstreamTests(h.cluster.kubeconfigPath, [name], 5);
        expectPassed(run, name);
        expect(run.exitCode, run.output.slice(-2000)).to.equal(0);
      } finally {
        await h.cluster.stop();
      }
    });
  }

  describe('the seven that run commands on nodes, together in file order on one fresh cluster', function () {
    let h: Harness | undefined;
    let run: UpstreamTestRun;

    before(async function () {
      this.timeout(14 * 60_000);
      h = await startHarness({ profile: PROFILE });
      run = await runUpstreamTests(h.cluster.kubeconfigPath, ON_NODES, 12);
    });
    after(async () => h?.cluster.stop());

    for (const name of ON_NODES) it(name, () => expectPassed(run, name));

    it('ran each of them, in file order, and the process exited 0', () => {
      const order = [...run.output.matchAll(/^=== RUN   (\w+)$/gm)].map((m) => m[1]);
      expect(order).to.deep.equal(ON_NODES);
      expect(run.exitCode, run.output.slice(-2000)).to.equal(0);
    });
  });
});
