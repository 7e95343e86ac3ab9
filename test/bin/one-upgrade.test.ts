/**
 * The whole suite on one cluster, as QE runs it: one upgrade shared by every upgrade spec (bin/run/targets/
 * one-upgrade.ts). On `--target reference --one-cluster` (the real-cluster plan at 600x) it passes on 4.12-ga with one
 * upgrade that every spec judges, and on the report's nightly every upgrade spec fails with the deadlock diagnosis; on
 * three workers the specs that do not fit are named before any spec runs and the others pass; the pipeline over all specs (pre, the report's
 * `oc adm upgrade` by hand, post without an engine or --image-repo) passes on 4.12-ga, fails on the nightly, and
 * leaves nothing behind.
 */
import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Cluster } from '../../helpers/cluster.js';
import { CUSTOM_POOL_LABEL } from '../../helpers/plan/custom-pools.js';
import { clusterUp, lastLine, ocAdmUpgradeToNext, ocpE2e, ROOT, type ClusterUp } from '../support/cli.js';
import { KILL_MATRIX } from './support/kill-matrix.js';

const OC = join(ROOT, '..', 'shared', 'upstream', 'bin', 'oc');
const NIGHTLY = '4.12-nightly-2022-09-08';
const DEADLOCK = KILL_MATRIX.find((row) => row.grep === '54183' && row.profile === NIGHTLY)!.expect;
const UPGRADE_SPECS = ['01-upgrade-custom-os-image-both-pools', '02-upgrade-custom-os-image-worker-only', '03-upgrade-without-override', '05-remove-override-after-upgrade', '07-upgrade-with-extension', '09-custom-os-image-with-extension', '10-custom-os-image-with-realtime-kernel', '11-custom-os-image-with-kernel-arguments', '12-custom-os-image-changes-etc-usr-rpm', '13-custom-os-image-rebuilt-on-next-release', '14-kubelet-skew-after-upgrade-with-override'];

/** The upgrade each spec's checkpoint recorded (the local copies post leaves in reports/checkpoints). */
function recordedUpgrades(reportsDir: string): Array<{ spec: string; finishedAt?: string; version?: string }> {
  const dir = join(reportsDir, 'checkpoints');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => {
      const c = JSON.parse(readFileSync(join(dir, f), 'utf8')) as { specFile: string; upgrade?: { finishedAt?: string; version?: string } };
      return { spec: c.specFile, finishedAt: c.upgrade?.finishedAt, version: c.upgrade?.version };
    });
}

/** How many failure blocks of the console ("N) [sig-mco] …" up to the next blank line) match every pattern. */
function failuresMatching(output: string, patterns: RegExp[]): number {
  return output.split(/\n\s*\n/).filter((block) => /^\S*\s*\d+\) \[sig-mco\]/m.test(block) && patterns.every((p) => p.test(block))).length;
}

describe('bin: the whole suite on one cluster shares one upgrade', function () {
  this.timeout(900_000);

  it('--one-cluster on 4.12-ga: every spec passes, the upgrade specs judge one and the same upgrade, nothing is left', async () => {
    const r = await ocpE2e(['run', '--one-cluster'], { timeoutMs: 800_000 });
    expect(r.exitCode, r.output.slice(-4000)).to.equal(0);
    // specs 15 to 19 (image mode) do not apply to 4.12: left out of the plan (17 and 18 do not upgrade), they skip saying why
    expect(lastLine(r.output)).to.equal('36 passed, 0 failed, 5 skipped');
    expect(r.output).to.match(/plan: 11 upgrade specs share one upgrade, after 5 spec\(s\) that do not upgrade/);
    expect(r.output).to.match(/15-image-mode-pool-keeps-custom-image-through-upgrade: not in the plan, it does not apply to this cluster's release \(the release has no on-cluster image mode/);
    expect(r.output).to.include('01-upgrade-custom-os-image-both-pools: master, worker');
    // one upgrade: the checkpoint of every upgrade spec holds the same one, finished at the same moment
    const upgrades = recordedUpgrades(r.reportsDir);
    expect(upgrades.map((u) => u.spec.replace(/\.spec\.[jt]s$/, '')).sort()).to.deep.equal(UPGRADE_SPECS);
    expect(new Set(upgrades.map((u) => `${u.version} ${u.finishedAt}`)).size, JSON.stringify(upgrades)).to.equal(1);
    for (const name of ['cluster', 'cluster-pre', 'cluster-upgrade', 'cluster-upgrade-shared', 'cluster-post']) expect(existsSync(join(r.reportsDir, 'junit', `${name}.xml`)), name).to.equal(true);
    expect(r.output).to.match(/custom pool ocp-e2e-05 removed; node \S+ is back in pool worker/);
  });

  it('--one-cluster on the report\'s nightly: every upgrade spec fails with the deadlock diagnosis', async () => {
    const r = await ocpE2e(['run', '--one-cluster', '--profile', NIGHTLY, '--grep', '54183|E2E-00[235]'], { timeoutMs: 800_000 });
    expect(r.exitCode, r.output.slice(-4000)).to.equal(1);
    // each spec's post follows the same stuck upgrade (no spec's cleanup ran before all had judged it)
    expect(failuresMatching(r.output, DEADLOCK), r.output.slice(-6000)).to.be.at.least(4);
    expect(r.output).to.include('cleanup held back until 05-remove-override-after-upgrade has judged the same upgrade');
  });
});

describe('bin: a pipeline over all specs on one cluster', function () {
  this.timeout(900_000);
  let up: ClusterUp | undefined;
  afterEach(async () => {
    await up?.stop();
    up = undefined;
  });

  it("on the installer's default of three workers: runs every spec that fits one upgrade and names the others before any cluster time", async () => {
    up = await clusterUp(['--workers', '3']);
    const r = await ocpE2e(['run', '--target', 'cluster', '--kubeconfig', up.kubeconfig, '--allow-disruptive'], { env: up.env, timeoutMs: 800_000 });
    expect(r.exitCode, r.output.slice(-4000)).to.equal(0);
    // the specs of the suite's layered image share pools master and worker, the release specs one custom pool, and the
    // first spec with a pool of its own (05) gets the last worker: 12 and 13, with images of their own, are left over
    // for another cluster, said in the plan (the goal: at most two)
    expect(r.output).to.match(/plan: 9 upgrade specs share one upgrade, after 5 spec\(s\) that do not upgrade; 2 left over for another cluster:/);
    const leftOver = [...r.output.matchAll(/^\S*\s+(\S+): left over, needs another cluster: (.*)$/gm)].map((m) => m[1]);
    expect(leftOver).to.deep.equal(['12-custom-os-image-changes-etc-usr-rpm', '13-custom-os-image-rebuilt-on-next-release']);
    expect(r.output).to.match(/needs custom pool ocp-e2e-12 \(layered image of 12-custom-os-image-changes-etc-usr-rpm\): one upgrade for every selected spec needs 5 worker node\(s\)/);
    // each skips with that reason before any cluster time, and the plan's placing of the others holds
    expect(r.output, (r.output.match(/^.*SKIP.*$/gm) ?? []).join('\n')).to.match(/SKIP [^\n]*a custom osImage that changes \/etc, \/usr and the RPMs: needs another cluster: this cluster's 3 worker node\(s\)/);
    expect(r.output).to.include('09-custom-os-image-with-extension: worker');
    expect(r.output).to.include('10-custom-os-image-with-realtime-kernel: worker');
    expect(r.output).to.include('14-kubelet-skew-after-upgrade-with-override: master → ocp-e2e-release, worker');
    expect(lastLine(r.output)).to.match(/^\d+ passed, 0 failed, \d+ skipped$/);
    const cluster = Cluster.fromKubeconfig(up.kubeconfig);
    expect((await cluster.listMachineConfigs('ocp-e2e.io/run-id')).map((mc) => mc.metadata.name)).to.deep.equal([]);
    expect((await cluster.listMachineConfigPools()).filter((p) => p.metadata.labels?.[CUSTOM_POOL_LABEL]).map((p) => p.metadata.name)).to.deep.equal([]);
  });

  for (const profile of ['4.12-ga', NIGHTLY]) {
    // 4.12-ga on the installer's three workers, as QE gets it (two specs left over); the nightly with the workers for every spec
    const workers = profile === NIGHTLY ? 5 : 3;
    it(`pre, the report's oc adm upgrade by hand, then post without an engine or --image-repo, ${workers} workers: ${profile === NIGHTLY ? 'fails with the diagnosis' : 'passes'} and leaves nothing`, async () => {
      if (!existsSync(OC)) throw new Error(`the upstream oc is missing at ${OC} (../shared/upstream/bin/oc): the pipeline's upgrade step runs it`);
      up = await clusterUp(['--workers', String(workers), '--profile', profile]);
      const env = { ...up.env, PATH: `${dirname(OC)}:${process.env.PATH ?? ''}` };
      const phase = (name: string, extra: Record<string, string> = {}) =>
        ocpE2e(['run', '--target', 'cluster', '--kubeconfig', up!.kubeconfig, '--allow-disruptive', '--phase', name], { env: { ...env, ...extra }, timeoutMs: 400_000 });
      const pre = await phase('pre');
      // the nightly's daemon cannot even prepare specs 09 and 10 (BUG-B refuses extensions and the realtime kernel on a
      // layered image: their kill-matrix rows): pre fails them, and the pipeline goes on with the others
      expect(pre.exitCode, pre.output.slice(-3000)).to.equal(profile === NIGHTLY ? 1 : 0);
      expect(pre.output).to.match(/custom pool ocp-e2e-release created with node/);
      await ocAdmUpgradeToNext(OC, up.kubeconfig, env);
      const post = await phase('post', { DOCKER_HOST: 'unix:///nonexistent/ocp-e2e-no-engine.sock' });
      const cluster = Cluster.fromKubeconfig(up.kubeconfig);
      if (profile === NIGHTLY) {
        expect(post.exitCode, post.output.slice(-3000)).to.equal(1);
        // post judges every spec pre prepared: the report's deadlock, quoted
        expect(failuresMatching(post.output, DEADLOCK), post.output.slice(-6000)).to.be.at.least(4);
        expect(post.output, post.output.match(/^.*(have no checkpoint|SKIP|passed, ).*$/gm)?.join('\n')).to.match(/phase post: 2 spec file\(s\) have no checkpoint \(their --phase pre failed, did not run, or skipped them\): each skips here with its reason where it does not apply to this cluster, else fails as not prepared: 09-custom-os-image-with-extension\.spec\.ts, 10-custom-os-image-with-realtime-kernel\.spec\.ts/);
        expect(failuresMatching(post.output, [/09-custom-os-image-with-extension\.spec\.ts: not prepared: no checkpoint on this cluster/])).to.equal(1);
      } else {
        expect(post.exitCode, post.output.slice(-3000)).to.equal(0);
        // 5 that do not upgrade (17 and 18 of them image mode), specs 15, 16 and 19, which 4.12 rules out, and the plan's
        // two left over (no checkpoint, not 'not prepared'): pre skipped them, post says why again
        expect(lastLine(post.output)).to.equal('9 passed, 0 failed, 10 skipped');
        expect(post.output).to.match(/SKIP [^\n]*rebuilt on the next release[^\n]*: needs another cluster/);
        expect(post.output).to.not.match(/not prepared[^\n]*15-image-mode/);
        const cv = await cluster.getClusterVersion();
        expect((cv.status?.history ?? []).map((h) => h.state)).to.deep.equal(['Completed', 'Completed']); // the install and one upgrade
      }
      // nothing left: the suite's MachineConfigs, custom pools, node labels and namespace
      expect((await cluster.listMachineConfigs('ocp-e2e.io/run-id')).map((mc) => mc.metadata.name)).to.deep.equal([]);
      expect((await cluster.listMachineConfigPools()).filter((p) => p.metadata.labels?.[CUSTOM_POOL_LABEL]).map((p) => p.metadata.name)).to.deep.equal([]);
      expect((await cluster.listNodes()).flatMap((n) => Object.keys(n.metadata?.labels ?? {}).filter((l) => l.includes('ocp-e2e')))).to.deep.equal([]);
      // gone, or Terminating (its controller removes it in its own time, later on a loaded machine)
      const namespace = await cluster.client.get('Namespace', 'ocp-e2e');
      expect(namespace === undefined || Boolean(namespace.metadata.deletionTimestamp), 'namespace ocp-e2e left, not being deleted').to.equal(true);
    });
  }
});
