/**
 * `--timeout-scale` reaches every wait of the spec process: with the budgets cut to a hundredth, spec 1 on `cluster
 * up` fails on its first roll-out with the wait's own diagnosis (what it waited for, its budget, what it last saw),
 * never with mocha's bare "Timeout of N ms exceeded", whose limit is derived from the same budgets. A value that is not
 * a positive number is refused before anything runs.
 */
import { expect } from 'chai';
import { clusterUp, lastLine, ocpE2e, type ClusterUp } from '../support/cli.js';

describe('run --timeout-scale: the waits\' budgets, and the timeouts derived from them', function () {
  this.timeout(300_000);
  let up: ClusterUp;
  before(async () => {
    up = await clusterUp();
  });
  after(async () => {
    await up?.stop();
  });

  it('cut to 0.01: the first roll-out fails with the wait\'s diagnosis, and no mocha timeout fires', async () => {
    const run = await ocpE2e(['run', '--target', 'cluster', '--kubeconfig', up.kubeconfig, '--allow-disruptive', '--grep', '54183', '--timeout-scale', '0.01'], { env: up.env });
    expect(run.exitCode, run.output.slice(-3000)).to.equal(1);
    expect(run.output).to.match(/timed out after \S+ cluster time .* waiting for pools (master, worker|worker, master) to roll out/);
    expect(run.output).to.match(/last observed: .*(master|worker) \d\/\d updated/);
    expect(run.output).to.not.match(/Timeout of \d+ms exceeded/);
    // the after-all hook's undo waits under the same cut budget, and says so the same way
    expect(lastLine(run.output)).to.match(/^0 passed, [12] failed, 0 skipped$/);
  });

  it('a scale that is not a positive number is a usage error (exit 2) before anything runs', async () => {
    const run = await ocpE2e(['run', '--target', 'cluster', '--kubeconfig', up.kubeconfig, '--allow-disruptive', '--timeout-scale', '0'], { env: up.env });
    expect(run.exitCode, run.output).to.equal(2);
    expect(run.output).to.match(/--timeout-scale/);
  });
});
