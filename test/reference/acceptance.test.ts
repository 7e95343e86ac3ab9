/**
 * Acceptance of the reference cluster (issue 4, (a)-(g)): each test starts its own cluster and drives it through the
 * API only (client-node), as a person with kubectl would. Waits are bounded in wall time and print the cluster's
 * state when they expire.
 */
import { expect } from 'chai';
import { ANN } from '../../reference/constants.js';
import { goQuote } from '../../reference/mco/go-quote.js';
import { CURRENT_VERSION, NEXT_VERSION } from '../../reference/index.js';
import { baseOsImage, machineOsContent } from '../../reference/releases/release-info.js';
import {
  bootedImage,
  bootedPackages,
  cond,
  customImage,
  describeCluster,
  nodesOfRole,
  overrideMachineConfig,
  poolSettledOnNew,
  requestUpgrade,
  waitFor,
  type Harness,
  type Obj,
} from './support/cluster.js';
import { upgradeCompleted, withCluster } from './support/scenario-steps.js';

const BUGGY = '4.12-nightly-2022-09-08';
const FIXED = '4.12-ga';
const WAIT_MS = 45_000;

/** Create the report's two override MachineConfigs and wait until both pools run the overridden rendered configs. */
async function overrideBothPools(h: Harness, image: string): Promise<Record<string, string>> {
  const before: Record<string, string> = {};
  for (const pool of ['master', 'worker']) {
    before[pool] = (await h.k.get<Obj>('MachineConfigPool', pool))!.status.configuration.name;
    await h.k.create('MachineConfig', overrideMachineConfig(`tc-54183-new-os-image-upgrade-${pool}`, pool, image));
  }
  const after: Record<string, string> = {};
  for (const pool of ['master', 'worker']) {
    const p = await waitFor(`pool ${pool} to roll out the override`, () => poolSettledOnNew(h.k, pool, before[pool]), WAIT_MS, () => describeCluster(h.k, h.cluster));
    after[pool] = p.status.configuration.name;
  }
  return after;
}

describe('reference cluster acceptance (issue 4)', function () {
  this.timeout(120_000);

  it('(a) buggy profile: the report\'s messages, with master UPDATED=True', async () => {
    await withCluster({ profile: BUGGY }, async (h) => {
      const custom = await customImage(h.cluster);
      const { current, next } = h.cluster.releases;
      const renderedBefore = await overrideBothPools(h, custom);

      // first message of the report: at steady state, before any upgrade
      const steady = `Failed to resync ${CURRENT_VERSION} because: error during syncRequiredMachineConfigPools: [timed out waiting for the condition, pool master has not progressed to latest configuration: osImageURL mismatch for master in ${renderedBefore.master} expected: ${machineOsContent(current)} got: ${custom}, retrying]`;
      await waitFor('the steady-state Degraded message', async () => cond(await h.k.get<Obj>('ClusterOperator', 'machine-config'), 'Degraded').message === steady, WAIT_MS, () => describeCluster(h.k, h.cluster));

      await requestUpgrade(h.k, next.image);
      const cvMessage = `Unable to apply ${NEXT_VERSION}: wait has exceeded 40 minutes for these operators: machine-config`;
      await waitFor('ClusterVersion to give up on machine-config', async () => {
        const cv = await h.k.get<Obj>('ClusterVersion', 'version');
        const co = await h.k.get<Obj>('ClusterOperator', 'machine-config');
        return cond(cv, 'Progressing').message === cvMessage && /osImageURL mismatch/.test(cond(co, 'Degraded').message ?? '') && /Unable to apply/.test(cond(co, 'Degraded').message ?? '');
      }, WAIT_MS, () => describeCluster(h.k, h.cluster));

      const master = await waitFor('master pool on the new rendered config', () => poolSettledOnNew(h.k, 'master', renderedBefore.master), WAIT_MS, () => describeCluster(h.k, h.cluster));
      const co = await h.k.get<Obj>('ClusterOperator', 'machine-config');
      const cv = await h.k.get<Obj>('ClusterVersion', 'version');
      expect(cond(co, 'Degraded')).to.deep.include({
        status: 'True',
        reason: 'RequiredPoolsFailed',
        message: `Unable to apply ${NEXT_VERSION}: error during syncRequiredMachineConfigPools: [timed out waiting for the condition, pool master has not progressed to latest configuration: osImageURL mismatch for master in ${master.status.configuration.name} expected: ${machineOsContent(next)} got: ${custom}, retrying]`,
      });
      expect(cond(co, 'Available').status).to.equal('True');
      expect(co!.status.versions).to.deep.equal([{ name: 'operator', version: CURRENT_VERSION }]);
      expect(cond(cv, 'Progressing')).to.deep.include({ status: 'True', message: cvMessage });
      expect(cond(cv, 'Failing')).to.deep.include({ status: 'True', reason: 'ClusterOperatorDegraded', message: 'Cluster operator machine-config is degraded' });
      expect(cv!.status.history[0]).to.include({ state: 'Partial', version: NEXT_VERSION });
      expect(cv!.status.history.find((e: { state: string }) => e.state === 'Completed').version).to.equal(CURRENT_VERSION);
      expect([cond(master, 'Updated').status, cond(master, 'Updating').status, cond(master, 'Degraded').status]).to.deep.equal(['True', 'False', 'False']);
    });
  });

  it('(b) fixed profile: the upgrade completes and every node keeps the custom image', async () => {
    await withCluster({ profile: FIXED }, async (h) => {
      const custom = await customImage(h.cluster);
      const renderedBefore = await overrideBothPools(h, custom);
      await requestUpgrade(h.k, h.cluster.releases.next.image);
      await upgradeCompleted(h, NEXT_VERSION, WAIT_MS);
      const cv = await h.k.get<Obj>('ClusterVersion', 'version');
      expect(cv!.status.history[0]).to.include({ state: 'Completed', version: NEXT_VERSION });
      expect(cond(cv, 'Available').message).to.equal(`Done applying ${NEXT_VERSION}`);
      const co = await h.k.get<Obj>('ClusterOperator', 'machine-config');
      expect(co!.status.versions).to.deep.equal([{ name: 'operator', version: NEXT_VERSION }]);
      expect(cond(co, 'Degraded').status).to.equal('False');
      for (const pool of ['master', 'worker']) {
        const p = await waitFor(`${pool} on a rendered config of the new release`, () => poolSettledOnNew(h.k, pool, renderedBefore[pool]), WAIT_MS, () => describeCluster(h.k, h.cluster));
        const rendered = await h.k.get<Obj>('MachineConfig', p.status.configuration.name);
        expect(rendered!.spec.osImageURL).to.equal(custom);
        expect(rendered!.metadata.annotations).to.include({ [ANN.osImageUrlOverridden]: 'true', [ANN.releaseImageVersion]: NEXT_VERSION });
        for (const node of await nodesOfRole(h.k, pool)) {
          expect(node.metadata.annotations?.[ANN.currentConfig]).to.equal(p.status.configuration.name);
          expect(bootedImage(h.cluster, node)).to.equal(custom);
          expect(bootedPackages(h.cluster, node)).to.satisfy((pkgs: string[]) => pkgs.some((p) => p.startsWith('zsh-')));
        }
      }
    });
  });

  it('(c) no override: nodes move to the new release\'s OS image', async () => {
    await withCluster({ profile: FIXED }, async (h) => {
      const { current, next } = h.cluster.releases;
      const before = (await h.k.get<Obj>('MachineConfigPool', 'worker'))!.status.configuration.name;
      for (const node of await nodesOfRole(h.k, 'worker')) expect(bootedImage(h.cluster, node)).to.equal(baseOsImage(current));
      await requestUpgrade(h.k, next.image);
      await waitFor('the worker pool on the new release', () => poolSettledOnNew(h.k, 'worker', before), WAIT_MS, () => describeCluster(h.k, h.cluster));
      await upgradeCompleted(h, NEXT_VERSION, WAIT_MS);
      for (const node of [...(await nodesOfRole(h.k, 'master')), ...(await nodesOfRole(h.k, 'worker'))]) {
        expect(bootedImage(h.cluster, node), node.metadata.name).to.equal(baseOsImage(next));
        expect(node.status.nodeInfo.osImage).to.match(/202209121527/);
      }
    });
  });

  it('(d) an override named before 01-<role>-kubelet has no effect', async () => {
    await withCluster({ profile: FIXED }, async (h) => {
      const custom = await customImage(h.cluster);
      const before = (await h.k.get<Obj>('MachineConfigPool', 'worker'))!;
      await h.k.create('MachineConfig', overrideMachineConfig('00-aaa-early-override', 'worker', custom));
      const pool = await waitFor('the render controller to take the early MC in', async () => {
        const p = await h.k.get<Obj>('MachineConfigPool', 'worker');
        return p?.spec?.configuration?.source?.some((s: { name: string }) => s.name === '00-aaa-early-override') ? p : undefined;
      }, WAIT_MS, () => describeCluster(h.k, h.cluster));
      expect(pool.spec.configuration.name).to.equal(before.spec.configuration.name);
      await new Promise((r) => setTimeout(r, 3000)); // 30 cluster minutes: a rollout would have started
      for (const node of await nodesOfRole(h.k, 'worker')) {
        expect(node.metadata.annotations?.[ANN.desiredConfig]).to.equal(before.spec.configuration.name);
        expect(bootedImage(h.cluster, node)).to.equal(baseOsImage(h.cluster.releases.current));
      }
    });
  });

  it('(e) an unpullable custom image degrades the node and the pool', async () => {
    await withCluster({ profile: FIXED }, async (h) => {
      const missing = `${h.cluster.registry}/ocp-e2e/does-not-exist@sha256:${'0'.repeat(64)}`;
      await h.k.create('MachineConfig', overrideMachineConfig('tc-unpullable-worker', 'worker', missing));
      const pool = await waitFor('NodeDegraded on the worker pool', async () => {
        const p = await h.k.get<Obj>('MachineConfigPool', 'worker');
        return cond(p, 'NodeDegraded').status === 'True' ? p : undefined;
      }, WAIT_MS, () => describeCluster(h.k, h.cluster));
      expect(cond(pool, 'NodeDegraded').reason).to.equal('1 nodes are reporting degraded status on sync');
      expect(cond(pool, 'Degraded').status).to.equal('True');
      expect(pool.status.degradedMachineCount).to.equal(1);
      const degraded = (await nodesOfRole(h.k, 'worker')).filter((n) => n.metadata.annotations?.[ANN.state] === 'Degraded');
      expect(degraded).to.have.length(1);
      // IsBootableImage's inspection is what fails: the last of its six `podman pull` tries is quoted
      expect(degraded[0]!.metadata.annotations![ANN.reason]).to.equal(
        `Error checking type of update image: failed to run command podman (6 tries): [timed out waiting for the condition, running podman pull -q --authfile /var/lib/kubelet/config.json ${missing} failed: Error: initializing source docker://${missing}: reading manifest sha256:${'0'.repeat(64)} in ${h.cluster.registry}/ocp-e2e/does-not-exist: manifest unknown: manifest unknown\n: exit status 125]`,
      );
      expect(cond(pool, 'NodeDegraded').message).to.equal(`Node ${degraded[0]!.metadata.name} is reporting: ${goQuote(degraded[0]!.metadata.annotations![ANN.reason]!)}`);
    });
  });

  it('(f) a paused pool does not roll', async () => {
    await withCluster({ profile: FIXED }, async (h) => {
      const custom = await customImage(h.cluster);
      const before = (await h.k.get<Obj>('MachineConfigPool', 'worker'))!.spec.configuration.name;
      await h.k.patch('MachineConfigPool', 'worker', { spec: { paused: true } });
      await h.k.create('MachineConfig', overrideMachineConfig('tc-paused-worker', 'worker', custom));
      const pool = await waitFor('the paused pool to report its new target', async () => {
        const p = await h.k.get<Obj>('MachineConfigPool', 'worker');
        return p?.spec?.configuration?.name !== before && cond(p, 'Updated').status === 'False' ? p : undefined;
      }, WAIT_MS, () => describeCluster(h.k, h.cluster));
      // Updating was already False with reason "": the condition setter keeps the old (empty) message, so the
      // "Pool is paused; will not update to …" text does not show, as on a real 4.12 cluster (spec §4 quirk).
      expect(cond(pool, 'Updating')).to.deep.include({ status: 'False', message: '' });
      await new Promise((r) => setTimeout(r, 4000)); // 40 cluster minutes
      for (const node of await nodesOfRole(h.k, 'worker')) {
        expect(node.metadata.annotations?.[ANN.desiredConfig]).to.equal(before);
        expect(bootedImage(h.cluster, node)).to.equal(baseOsImage(h.cluster.releases.current));
      }
      await h.k.patch('MachineConfigPool', 'worker', { spec: { paused: false } });
      await waitFor('the unpaused pool to roll', () => poolSettledOnNew(h.k, 'worker', before), WAIT_MS, () => describeCluster(h.k, h.cluster));
    });
  });

  it('(g) deleting the override returns the nodes to the release image', async () => {
    await withCluster({ profile: FIXED }, async (h) => {
      const custom = await customImage(h.cluster);
      const original = (await h.k.get<Obj>('MachineConfigPool', 'worker'))!.status.configuration.name;
      await h.k.create('MachineConfig', overrideMachineConfig('tc-rollback-worker', 'worker', custom));
      const overridden = await waitFor('the override to roll out', () => poolSettledOnNew(h.k, 'worker', original), WAIT_MS, () => describeCluster(h.k, h.cluster));
      for (const node of await nodesOfRole(h.k, 'worker')) expect(bootedImage(h.cluster, node)).to.equal(custom);
      await h.k.delete('MachineConfig', 'tc-rollback-worker');
      const back = await waitFor('the rollback to roll out', () => poolSettledOnNew(h.k, 'worker', overridden.status.configuration.name), WAIT_MS, () => describeCluster(h.k, h.cluster));
      expect(back.status.configuration.name).to.equal(original); // same spec, same rendered name
      for (const node of await nodesOfRole(h.k, 'worker')) expect(bootedImage(h.cluster, node)).to.equal(baseOsImage(h.cluster.releases.current));
    });
  });
});

describe('reference cluster under API faults', function () {
  this.timeout(120_000);

  it('finishes the fixed upgrade with overrides despite 429s, 500s, resets and cut watches', async () => {
    await withCluster({ profile: FIXED }, async (h) => {
        const custom = await customImage(h.cluster);
        // the test's own client retries too; the point is the controllers
        h.cluster.setApiFaults({ rate429: 0.05, rate500: 0.05, resetRate: 0.02, watchCutSeconds: 1, latencyMs: 2, latencyJitterMs: 5 });
        const before = (await h.k.get<Obj>('MachineConfigPool', 'master'))!.status.configuration.name;
        await h.k.create('MachineConfig', overrideMachineConfig('tc-54183-new-os-image-upgrade-master', 'master', custom));
        await waitFor('master to roll out the override', () => poolSettledOnNew(h.k, 'master', before), 60_000, () => describeCluster(h.k, h.cluster));
        await requestUpgrade(h.k, h.cluster.releases.next.image);
        await upgradeCompleted(h, NEXT_VERSION, 60_000);
        h.cluster.setApiFaults({});
        for (const node of await nodesOfRole(h.k, 'master')) expect(bootedImage(h.cluster, node)).to.equal(custom);
    });
  });
});

describe('reference CVO payload errors', function () {
  this.timeout(60_000);

  it('an unreadable payload image is reported as ReleaseAccepted=False, not a hang', async () => {
    await withCluster({ profile: FIXED }, async (h) => {
        const missing = `${h.cluster.registry}/ocp/release:4.12.0-0.nightly-2099-01-01-000000`;
        await requestUpgrade(h.k, missing);
        const cv = await waitFor('ReleaseAccepted=False', async () => {
          const o = await h.k.get<Obj>('ClusterVersion', 'version');
          return cond(o, 'ReleaseAccepted').status === 'False' ? o : undefined;
        }, 20_000, () => describeCluster(h.k, h.cluster));
        expect(cond(cv, 'ReleaseAccepted')).to.deep.include({
          reason: 'RetrievePayload',
          message: `Retrieving payload failed version="" image="${missing}" failure=unable to read release image ${missing}: manifest unknown: manifest unknown`,
        });
        expect(cv.status.history).to.have.length(1);
        expect(cv.status.desired.version).to.equal(CURRENT_VERSION);
        // without --force an image outside the update graph is refused, as a real CVO refuses an unsigned one
        await h.k.patch('ClusterVersion', 'version', { spec: { desiredUpdate: { version: '', image: `${h.cluster.registry}/ocp/release@sha256:${'2'.repeat(64)}`, force: false } } });
        await waitFor('the unforced refusal', async () => /The update cannot be verified: unable to verify sha256:2{64} against keyrings: verifier-public-key-redhat$/.test(cond(await h.k.get<Obj>('ClusterVersion', 'version'), 'ReleaseAccepted').message ?? ''), 20_000, () => describeCluster(h.k, h.cluster));
    });
  });
});

describe('reference render errors', function () {
  this.timeout(60_000);

  it('an invalid MachineConfig sets RenderDegraded and blocks the operator through the degraded pool', async () => {
    await withCluster({ profile: FIXED }, async (h) => {
        await h.k.create('MachineConfig', { apiVersion: 'machineconfiguration.openshift.io/v1', kind: 'MachineConfig', metadata: { name: '99-worker-bad-kernel', labels: { 'machineconfiguration.openshift.io/role': 'worker' } }, spec: { kernelType: 'rt' } });
        const pool = await waitFor('RenderDegraded on worker', async () => {
          const p = await h.k.get<Obj>('MachineConfigPool', 'worker');
          return cond(p, 'RenderDegraded').status === 'True' ? p : undefined;
        }, 20_000, () => describeCluster(h.k, h.cluster));
        expect(cond(pool, 'RenderDegraded')).to.deep.include({ reason: '', message: 'Failed to render configuration for pool worker: kernelType=rt is invalid' });
        expect(cond(pool, 'Degraded').status).to.equal('True');
        const co = await waitFor('the operator to report the degraded pool', async () => {
          const o = await h.k.get<Obj>('ClusterOperator', 'machine-config');
          return /error pool worker is not ready, retrying\. Status: \(pool degraded: true total: 2, ready 2, updated: 2, unavailable: 0\)/.test(o?.status?.extension?.lastSyncError ?? '') ? o : undefined;
        }, 20_000, () => describeCluster(h.k, h.cluster));
        expect(cond(co, 'Upgradeable')).to.deep.include({ status: 'False', reason: 'DegradedPool' });
        expect(co.status.extension.worker).to.equal('pool is degraded because rendering fails with "": "Failed to render configuration for pool worker: kernelType=rt is invalid"');
    });
  });
});
