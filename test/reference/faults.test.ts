/**
 * Each named fault must break the behaviour it names, observably through the API, or the suite's kill matrix would
 * prove nothing. One cluster per fault, fixed profile.
 */
import { expect } from 'chai';
import { ANN } from '../../reference/constants.js';
import { goQuote } from '../../reference/mco/go-quote.js';
import { NEXT_VERSION } from '../../reference/index.js';
import { baseOsImage } from '../../reference/releases/release-info.js';
import { bootedImage, cond, customImage, describeCluster, nodesOfRole, overrideMachineConfig, poolSettledOnNew, requestUpgrade, waitFor, type Harness, type Obj } from './support/cluster.js';
import { upgradeCompleted, withCluster } from './support/scenario-steps.js';

const WAIT_MS = 45_000;

const withFault = (fault: string, body: (h: Harness) => Promise<void>): Promise<void> => withCluster({ profile: '4.12-ga', faults: [fault] }, body);

const workerConfig = async (h: Harness): Promise<string> => (await h.k.get<Obj>('MachineConfigPool', 'worker'))!.status.configuration.name;

/** Creates an override of the worker pool's OS image and waits until the pool has rolled out a new rendered config. */
async function overrideWorkers(h: Harness, name: string, image: string, what: string): Promise<{ before: string; pool: Obj }> {
  const before = await workerConfig(h);
  await h.k.create('MachineConfig', overrideMachineConfig(name, 'worker', image));
  // settled on a config made from the override: a busy machine may first settle on a config rendered before it
  const pool = await waitFor(what, async () => {
    const settled = await poolSettledOnNew(h.k, 'worker', before);
    return settled?.status?.configuration?.source?.some((source: { name: string }) => source.name === name) ? settled : undefined;
  }, WAIT_MS, () => describeCluster(h.k, h.cluster));
  return { before, pool };
}

describe('reference faults', function () {
  this.timeout(120_000);

  it('keep-old-os-on-upgrade: an upgrade leaves the nodes on the old release OS image', async () => {
    await withFault('keep-old-os-on-upgrade', async (h) => {
      const before = await workerConfig(h);
      await requestUpgrade(h.k, h.cluster.releases.next.image);
      await waitFor('the worker pool on a new rendered config', () => poolSettledOnNew(h.k, 'worker', before), WAIT_MS, () => describeCluster(h.k, h.cluster));
      for (const node of await nodesOfRole(h.k, 'worker')) expect(bootedImage(h.cluster, node)).to.equal(baseOsImage(h.cluster.releases.current));
    });
  });

  it('render-merge-unsorted: an override named before the templates wins', async () => {
    await withFault('render-merge-unsorted', async (h) => {
      const custom = await customImage(h.cluster);
      await overrideWorkers(h, '00-aaa-early-override', custom, 'the early override to roll out');
      for (const node of await nodesOfRole(h.k, 'worker')) expect(bootedImage(h.cluster, node)).to.equal(custom);
    });
  });

  it('sticky-override: deleting the override leaves the custom image in place', async () => {
    await withFault('sticky-override', async (h) => {
      const custom = await customImage(h.cluster);
      await overrideWorkers(h, 'tc-sticky-worker', custom, 'the override to roll out');
      await h.k.delete('MachineConfig', 'tc-sticky-worker');
      const after = await waitFor('the render controller to drop the deleted config from the sources', async () => {
        const p = await h.k.get<Obj>('MachineConfigPool', 'worker');
        return p?.spec?.configuration?.source?.every((s: { name: string }) => s.name !== 'tc-sticky-worker') ? p : undefined;
      }, WAIT_MS, () => describeCluster(h.k, h.cluster));
      const target: string = after.spec.configuration.name;
      const rendered = await h.k.get<Obj>('MachineConfig', target);
      expect(rendered!.spec.osImageURL).to.equal(custom);
      // The pool settles on what the render controller made of the deletion, and its nodes still boot the custom image.
      const nodes = await waitFor(`the worker pool and its nodes settled on ${target}`, async () => {
        const pool = await h.k.get<Obj>('MachineConfigPool', 'worker');
        if (pool?.status?.configuration?.name !== target || cond(pool, 'Updated').status !== 'True') return undefined;
        const workers = await nodesOfRole(h.k, 'worker');
        return workers.every((n) => n.metadata.annotations?.[ANN.currentConfig] === target && n.metadata.annotations?.[ANN.state] === 'Done') ? workers : undefined;
      }, WAIT_MS, () => describeCluster(h.k, h.cluster));
      for (const node of nodes) expect(bootedImage(h.cluster, node), node.metadata.name).to.equal(custom);
    });
  });

  it('mcd-ignores-pull-errors: nodes report Done on the new config but boot nothing new', async () => {
    await withFault('mcd-ignores-pull-errors', async (h) => {
      const missing = `${h.cluster.registry}/ocp-e2e/does-not-exist@sha256:${'1'.repeat(64)}`;
      const { pool } = await overrideWorkers(h, 'tc-unpullable-worker', missing, 'the worker pool to claim the rollout done');
      expect(cond(pool, 'Degraded').status).to.equal('False');
      for (const node of await nodesOfRole(h.k, 'worker')) {
        expect(node.metadata.annotations?.[ANN.state]).to.equal('Done');
        expect(bootedImage(h.cluster, node)).to.equal(baseOsImage(h.cluster.releases.current));
      }
    });
  });

  it('mcd-retries-unpullable-pulls: a node that cannot pull is Degraded only after an hour of retries, not after the 4.12 tries', async () => {
    // Cluster time from the MachineConfig's creation to the pool's report of the degraded node, as the server stamps both.
    const untilDegraded = async (h: Harness): Promise<number> => {
      const missing = `${h.cluster.registry}/ocp-e2e/does-not-exist@sha256:${'2'.repeat(64)}`;
      const mc = await h.k.create<Obj>('MachineConfig', overrideMachineConfig('tc-hopeless-pull-worker', 'worker', missing));
      const pool = await waitFor('the worker pool to report a degraded node', async () => {
        const p = await h.k.get<Obj>('MachineConfigPool', 'worker');
        return cond(p, 'NodeDegraded').status === 'True' ? p : undefined;
      }, WAIT_MS, () => describeCluster(h.k, h.cluster));
      const since = (pool.status.conditions as { type: string; lastTransitionTime: string }[]).find((c) => c.type === 'NodeDegraded')!.lastTransitionTime;
      return new Date(since).getTime() - new Date(mc.metadata.creationTimestamp!).getTime();
    };
    let withoutFault = 0;
    await withCluster({ profile: '4.12-ga' }, async (h) => {
      withoutFault = await untilDegraded(h);
    });
    await withFault('mcd-retries-unpullable-pulls', async (h) => {
      const withFault_ = await untilDegraded(h);
      // The fault goes on once a minute until an hour has passed since the first try, so the node is Degraded an hour or
      // more after its MachineConfig; the 4.12 tries (158 s in all) report it within minutes. Each cluster is judged
      // on its own: work runs at the clock's factor, so a loaded machine adds cluster minutes to either (1010 s
      // without the fault were seen under a full npm test), never an hour.
      expect(withFault_, `with the fault ${withFault_ / 1000} s, without ${withoutFault / 1000} s`).to.be.at.least(60 * 60_000);
      const node = (await nodesOfRole(h.k, 'worker')).find((n) => n.metadata.annotations?.[ANN.state] === 'Degraded');
      expect(node?.metadata.annotations?.[ANN.reason]).to.match(/^Error checking type of update image: failed to run command podman \(6 tries\)/);
    });
    expect(withoutFault, `without the fault ${withoutFault / 1000} s`).to.be.within(158_000, 30 * 60_000);
  });

  it('mcd-skips-os-update: nodes report Done on an overriding config but keep booting the release image', async () => {
    await withFault('mcd-skips-os-update', async (h) => {
      const custom = await customImage(h.cluster);
      const { before } = await overrideWorkers(h, 'tc-skipped-rebase-worker', custom, 'the worker pool to roll out the override');
      for (const node of await nodesOfRole(h.k, 'worker')) {
        expect(node.metadata.annotations?.[ANN.currentConfig]).to.not.equal(before);
        expect(bootedImage(h.cluster, node)).to.equal(baseOsImage(h.cluster.releases.current));
      }
    });
  });

  it('mcd-no-extensions-repo-on-os-update: after an upgrade, a pool with an extension stays Degraded on its rebase', async () => {
    await withFault('mcd-no-extensions-repo-on-os-update', async (h) => {
      const before = await workerConfig(h);
      // adding the extension changes the extensions, so the repository is written and the rollout goes through
      await h.k.create('MachineConfig', { apiVersion: 'machineconfiguration.openshift.io/v1', kind: 'MachineConfig', metadata: { name: 'tc-extension-worker', labels: { 'machineconfiguration.openshift.io/role': 'worker' } }, spec: { extensions: ['usbguard'] } });
      const withExtension = await waitFor('the extension to roll out', () => poolSettledOnNew(h.k, 'worker', before), WAIT_MS, () => describeCluster(h.k, h.cluster));
      await requestUpgrade(h.k, h.cluster.releases.next.image);
      const next = baseOsImage(h.cluster.releases.next);
      const reason = `failed to update OS to ${next} : error running rpm-ostree rebase --experimental ostree-unverified-registry:${next}: error: No enabled repositories\n: exit status 1`;
      const pool = await waitFor('a worker node Degraded on its rebase', async () => {
        const p = await h.k.get<Obj>('MachineConfigPool', 'worker');
        return cond(p, 'NodeDegraded').status === 'True' ? p : undefined;
      }, WAIT_MS, () => describeCluster(h.k, h.cluster));
      const degraded = (await nodesOfRole(h.k, 'worker')).filter((n) => n.metadata.annotations?.[ANN.state] === 'Degraded');
      expect(degraded).to.have.length(1);
      expect(degraded[0]!.metadata.annotations?.[ANN.reason]).to.equal(reason);
      expect(cond(pool, 'NodeDegraded').message).to.equal(`Node ${degraded[0]!.metadata.name} is reporting: ${goQuote(reason)}`);
      expect(bootedImage(h.cluster, degraded[0]!), 'the node did not rebase').to.equal(baseOsImage(h.cluster.releases.current));
      expect(pool.status.configuration.name, 'the pool stays on the config with the extension').to.equal(withExtension.status.configuration.name);
    });
  });

  it('cvo-completes-early: ClusterVersion completes while the master pool is still updating', async () => {
    await withFault('cvo-completes-early', async (h) => {
      const masterBefore = (await h.k.get<Obj>('MachineConfigPool', 'master'))!.status.configuration.name;
      await requestUpgrade(h.k, h.cluster.releases.next.image);
      await upgradeCompleted(h, NEXT_VERSION, WAIT_MS);
      const master = await h.k.get<Obj>('MachineConfigPool', 'master');
      expect(master!.status.configuration.name, 'master must not have finished when the CVO completed').to.equal(masterBefore);
      expect(cond(master, 'Updated').status).to.equal('False');
      expect(cond(master, 'Updating').status).to.equal('True');
    });
  });
});
