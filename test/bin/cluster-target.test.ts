import { expect } from 'chai';
import { Cluster } from '../../helpers/cluster.js';
import { clusterUp, lastLine, ocpE2e } from '../support/cli.js';
import { SPEC_COUNT } from './support/spec-files.js';
import { TIMESTAMP } from '../../bin/run/timestamps.js';

const CURRENT = '4.12.0-0.nightly-2022-09-08-002336';

describe('ocp-e2e run --target cluster against `ocp-e2e cluster up` (the real-cluster code path)', function () {
  this.timeout(300_000);
  let up: Awaited<ReturnType<typeof clusterUp>> | undefined;

  before(async () => {
    up = await clusterUp();
  });
  after(async () => {
    await up?.stop();
  });

  it('without --allow-disruptive: prints the API URL and version first, skips every spec saying why, changes nothing, needs no engine', async () => {
    // Nothing will be built, so no container engine is needed: one that cannot be reached must not stop the run.
    const r = await ocpE2e(['run', '--target', 'cluster', '--kubeconfig', up!.kubeconfig], { env: { DOCKER_HOST: 'unix:///nonexistent/docker.sock' } });
    expect(r.exitCode, r.output).to.equal(0);
    const lines = r.output.split('\n');
    // Each line starts with the wall-clock time (bin/run/timestamps.ts).
    expect(lines[0]).to.match(new RegExp(`^${TIMESTAMP}target: cluster https://127\\.0\\.0\\.1:\\d+$`));
    expect(lines[1]).to.match(new RegExp(`^${TIMESTAMP}current version: ${CURRENT.replace(/\./g, '\\.')} `));
    expect(r.output).to.include('will be SKIPPED: nothing on this cluster is changed; pass --allow-disruptive');
    expect(r.output.match(/SKIP .*: disruptive spec .*pass --allow-disruptive to run it/g)).to.have.length(SPEC_COUNT);
    expect(lastLine(r.output)).to.equal(`0 passed, 0 failed, ${SPEC_COUNT} skipped`);
    const cluster = Cluster.fromKubeconfig(up!.kubeconfig);
    const cv = await cluster.getClusterVersion();
    expect(cv.spec?.desiredUpdate ?? null, 'nothing may be upgraded').to.equal(null);
    expect((await cluster.listMachineConfigs('ocp-e2e.io/run-id')).map((m) => m.metadata.name)).to.deep.equal([]);
  });

  // The whole suite on one cluster (one upgrade shared, custom pools) needs 10 workers and is test/bin/one-upgrade.test.ts;
  // this 2-worker cluster runs the report's spec with the specs that do not upgrade, and leaves nothing.
  it('with --allow-disruptive: the report\'s spec and the specs that do not upgrade pass, and nothing is left', async () => {
    const r = await ocpE2e(['run', '--target', 'cluster', '--kubeconfig', up!.kubeconfig, '--allow-disruptive', '--grep', '54183|E2E-004|E2E-006'], { timeoutMs: 280_000, env: up!.env });
    expect(r.exitCode, r.output).to.equal(0);
    expect(r.output).to.match(/✔ Author:[^\n]*54183-\[Serial\]\[Disruptive\] upgrade with custom osImage in master and worker pools/);
    expect(lastLine(r.output)).to.equal('3 passed, 0 failed, 0 skipped');
    const cluster = Cluster.fromKubeconfig(up!.kubeconfig);
    expect((await cluster.listMachineConfigs('ocp-e2e.io/run-id')).map((m) => m.metadata.name)).to.deep.equal([]);
  });
});
