import { expect } from 'chai';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { Cluster } from '../../helpers/cluster.js';
import { lastLine, ocpE2e, ROOT } from './cli.js';

const CURRENT = '4.12.0-0.nightly-2022-09-08-002336';

/**
 * `ocp-e2e cluster up --env-out` in the background, as a user would start it in another terminal; `env` is what
 * sourcing its env file gives a shell (the registry's CA bundle and credentials files).
 */
async function clusterUp(): Promise<{ kubeconfig: string; env: Record<string, string>; process: ResultPromise; stop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'ocp-e2e-cluster-'));
  const kubeconfig = join(dir, 'kubeconfig');
  const envFile = join(dir, 'env');
  const child = execa(process.execPath, ['--import', 'tsx', join(ROOT, 'bin', 'ocp-e2e.ts'), 'cluster', 'up', '--kubeconfig-out', kubeconfig, '--env-out', envFile], {
    cwd: ROOT,
    reject: false,
    all: true,
  });
  const deadline = Date.now() + 90_000;
  while (!existsSync(envFile)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGTERM');
      const r = await child;
      throw new Error(`ocp-e2e cluster up did not write ${envFile} (exit ${r.exitCode}):\n${String(r.all ?? '').slice(-2000)}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  const env = Object.fromEntries([...readFileSync(envFile, 'utf8').matchAll(/^export (\w+)='([^']*)'$/gm)].map((m) => [m[1]!, m[2]!]));
  delete env.KUBECONFIG; // the runs below pass --kubeconfig
  return {
    kubeconfig,
    env,
    process: child,
    async stop() {
      child.kill('SIGTERM');
      await child;
    },
  };
}

describe('ocp-e2e run --target cluster against `ocp-e2e cluster up` (the real-cluster code path)', function () {
  this.timeout(300_000);
  let up: Awaited<ReturnType<typeof clusterUp>> | undefined;

  before(async () => {
    up = await clusterUp();
  });
  after(async () => {
    await up?.stop();
  });

  it('without --allow-disruptive: prints the API URL and version first, skips every spec saying why, changes nothing', async () => {
    const r = await ocpE2e(['run', '--target', 'cluster', '--kubeconfig', up!.kubeconfig]);
    expect(r.exitCode, r.output).to.equal(0);
    const lines = r.output.split('\n');
    expect(lines[0]).to.match(/^target: cluster https:\/\/127\.0\.0\.1:\d+$/);
    expect(lines[1]).to.match(new RegExp(`^current version: ${CURRENT.replace(/\./g, '\\.')} `));
    expect(r.output).to.include('will be SKIPPED: nothing on this cluster is changed; pass --allow-disruptive');
    expect(r.output.match(/SKIP .*: disruptive spec .*pass --allow-disruptive to run it/g)).to.have.length(6);
    expect(lastLine(r.output)).to.equal('0 passed, 0 failed, 6 skipped');
    const cluster = Cluster.fromKubeconfig(up!.kubeconfig);
    const cv = await cluster.getClusterVersion();
    expect(cv.spec?.desiredUpdate ?? null, 'nothing may be upgraded').to.equal(null);
    expect((await cluster.listMachineConfigs('ocp-e2e.io/run-id')).map((m) => m.metadata.name)).to.deep.equal([]);
  });

  it('with --allow-disruptive: the suite passes; specs that need a further release skip saying so', async () => {
    const r = await ocpE2e(['run', '--target', 'cluster', '--kubeconfig', up!.kubeconfig, '--allow-disruptive'], { timeoutMs: 280_000, env: up!.env });
    expect(r.exitCode, r.output).to.equal(0);
    expect(r.output).to.match(/✔ Author:[^\n]*54183-\[Serial\]\[Disruptive\] upgrade with custom osImage in master and worker pools/);
    const summary = /^(\d+) passed, (\d+) failed, (\d+) skipped$/.exec(lastLine(r.output));
    expect(summary, r.output).to.not.equal(null);
    const [, passed, failed, skipped] = summary!.map(Number);
    expect(failed).to.equal(0);
    expect(passed! + skipped!).to.equal(6);
    // Each skip after the one upgrade must give the reason: the cluster is now at the last release it knows.
    expect((r.output.match(/SKIP /g) ?? []).length).to.equal(skipped);
    if (skipped! > 0) expect(r.output).to.include('lists no availableUpdates; pass --to-image');
  });
});
