/**
 * The upgrade pipeline on a cluster shaped as QE's often are: an infra pool (roles worker and infra, so it takes the
 * worker configs) and no way to quay.io but the mirror sets (ImageDigestMirrorSet / ImageTagMirrorSet on 4.18+). Pre
 * prepares every upgrade spec, the person upgrades with the real `oc adm upgrade --to-image <quay.io pullspec>
 * --allow-explicit-upgrade --force` (the cluster follows its mirrors), post judges each and cleans up: it passes and
 * leaves nothing overridden, degraded or paused, the infra pool included, and the mirror sets as they were.
 */
import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Cluster } from '../../helpers/cluster.js';
import { CUSTOM_POOL_LABEL } from '../../helpers/plan/custom-pools.js';
import { clusterUp, lastLine, ocAdmUpgradeToNext, ocpE2e, ROOT, type ClusterUp } from '../support/cli.js';

const OC = join(ROOT, '..', 'shared', 'upstream', 'bin', 'oc');
const PROFILE = '4.20-to-4.21';

describe('bin: the pipeline on an infra pool of a disconnected cluster', function () {
  this.timeout(900_000);
  let up: ClusterUp | undefined;
  afterEach(async () => {
    await up?.stop();
    up = undefined;
  });

  it(`${PROFILE} --infra-nodes 1 --disconnected: pre, oc adm upgrade by hand to the quay.io pullspec, post: passes and leaves nothing`, async () => {
    if (!existsSync(OC)) throw new Error(`the upstream oc is missing at ${OC} (../shared/upstream/bin/oc): the pipeline's upgrade step runs it`);
    up = await clusterUp(['--profile', PROFILE, '--workers', '16', '--infra-nodes', '1', '--disconnected']);
    const env = { ...up.env, PATH: `${dirname(OC)}:${process.env.PATH ?? ''}` };
    const cluster = Cluster.fromKubeconfig(up.kubeconfig);
    const mirrorSets = async () => [
      ...(await cluster.client.list('ImageDigestMirrorSet')).items.map((o) => `idms/${o.metadata.name}`),
      ...(await cluster.client.list('ImageTagMirrorSet')).items.map((o) => `itms/${o.metadata.name}`),
    ].sort();
    const before = await mirrorSets();
    expect(before, 'the disconnected cluster has its mirror sets').to.not.deep.equal([]);
    const phase = (name: string, extra: Record<string, string> = {}) =>
      ocpE2e(['run', '--target', 'cluster', '--kubeconfig', up!.kubeconfig, '--allow-disruptive', '--phase', name], { env: { ...env, ...extra }, timeoutMs: 400_000 });

    const pre = await phase('pre');
    expect(pre.exitCode, pre.output.slice(-3000)).to.equal(0);
    const target = await ocAdmUpgradeToNext(OC, up.kubeconfig, env);
    expect(target, 'the update the cluster offers is quay.io\'s, reached through the mirrors').to.match(/^quay\.io\/openshift-release-dev\/ocp-release@sha256:/);
    const post = await phase('post');
    expect(post.exitCode, post.output.slice(-3000)).to.equal(0);
    expect(lastLine(post.output)).to.match(/^\d+ passed, 0 failed/);
    // every spec pre prepared is judged by post, none fails as lacking its checkpoint; spec 19 (an upgrade to 4.22 only)
    // skipped itself in pre and skips again here with its reason
    expect(post.output).to.not.match(/: not prepared: no checkpoint/);
    expect(post.output).to.match(/have no checkpoint \(their --phase pre failed, did not run, or skipped them\)[^\n]*: 19-image-mode-pool-with-os-image-override\.spec\.ts\n/);
    expect(post.output).to.match(/SKIP \[sig-mco\] MCO on-cluster image mode: an osImageURL override on an image-mode pool: /);

    const cv = await cluster.getClusterVersion();
    expect((cv.status?.history ?? []).map((h) => `${h.state} ${h.version}`)).to.deep.equal(['Completed 4.21.0', 'Completed 4.20.0']);
    // nothing left: the suite's MachineConfigs and MachineOSConfigs, custom pools, node labels; no pool degraded or paused
    expect((await cluster.listMachineConfigs('ocp-e2e.io/run-id')).map((mc) => mc.metadata.name)).to.deep.equal([]);
    expect((await cluster.client.list('MachineOSConfig')).items.map((o) => o.metadata.name)).to.deep.equal([]);
    const pools = await cluster.listMachineConfigPools();
    expect(pools.filter((p) => p.metadata.labels?.[CUSTOM_POOL_LABEL]).map((p) => p.metadata.name)).to.deep.equal([]);
    expect(pools.map((p) => p.metadata.name).sort()).to.deep.equal(['infra', 'master', 'worker']);
    for (const p of pools) {
      const degraded = p.status?.conditions?.find((c) => c.type === 'Degraded')?.status;
      expect({ pool: p.metadata.name, degraded, paused: Boolean(p.spec?.paused) }).to.deep.equal({ pool: p.metadata.name, degraded: 'False', paused: false });
    }
    expect((await cluster.listNodes()).flatMap((n) => Object.keys(n.metadata?.labels ?? {}).filter((l) => l.includes('ocp-e2e')))).to.deep.equal([]);
    expect(await mirrorSets()).to.deep.equal(before);
  });
});
