/**
 * Each named fault must break the behaviour it names, observably through the API, or the suite's kill matrix would
 * prove nothing. One cluster per fault, fixed profile.
 */
import { expect } from 'chai';
import { ANN } from '../../reference/constants.js';
import { NEXT_VERSION } from '../../reference/index.js';
import {
  bootedImage,
  cond,
  customImage,
  describeCluster,
  nodesOfRole,
  overrideMachineConfig,
  poolSettledOnNew,
  requestUpgrade,
  startHarness,
  waitFor,
  type Harness,
  type Obj,
} from './support/cluster.js';

const WAIT_MS = 45_000;

async function withFault(fault: string, body: (h: Harness) => Promise<void>): Promise<void> {
  const h = await startHarness({ profile: '4.12-ga', faults: [fault] });
  try {
    await body(h);
  } finally {
    await h.cluster.stop();
  }
}

const workerConfig = async (h: Harness): Promise<string> => (await h.k.get<Obj>('MachineConfigPool', 'worker'))!.status.configuration.name;

describe('reference faults', function () {
  this.timeout(120_000);

  it('keep-old-os-on-upgrade: an upgrade leaves the nodes on the old release OS image', async () => {
    await withFault('keep-old-os-on-upgrade', async (h) => {
      const before = await workerConfig(h);
      await requestUpgrade(h.k, h.cluster.releases.next.image);
      await waitFor('the worker pool on a new rendered config', () => poolSettledOnNew(h.k, 'worker', before), WAIT_MS, () => describeCluster(h.k, h.cluster));
      for (const node of await nodesOfRole(h.k, 'worker')) expect(bootedImage(h.cluster, node)).to.equal(h.cluster.releases.current.rhelCoreos8);
    });
  });

  it('render-merge-unsorted: an override named before the templates wins', async () => {
    await withFault('render-merge-unsorted', async (h) => {
      const custom = await customImage(h.cluster);
      const before = await workerConfig(h);
      await h.k.create('MachineConfig', overrideMachineConfig('00-aaa-early-override', 'worker', custom));
      await waitFor('the early override to roll out', () => poolSettledOnNew(h.k, 'worker', before), WAIT_MS, () => describeCluster(h.k, h.cluster));
      for (const node of await nodesOfRole(h.k, 'worker')) expect(bootedImage(h.cluster, node)).to.equal(custom);
    });
  });

  it('sticky-override: deleting the override leaves the custom image in place', async () => {
    await withFault('sticky-override', async (h) => {
      const custom = await customImage(h.cluster);
      const before = await workerConfig(h);
      await h.k.create('MachineConfig', overrideMachineConfig('tc-sticky-worker', 'worker', custom));
      const overridden = await waitFor('the override to roll out', () => poolSettledOnNew(h.k, 'worker', before), WAIT_MS, () => describeCluster(h.k, h.cluster));
      await h.k.delete('MachineConfig', 'tc-sticky-worker');
      const after = await waitFor('the render controller to drop the deleted config from the sources', async () => {
        const p = await h.k.get<Obj>('MachineConfigPool', 'worker');
        return p?.spec?.configuration?.source?.every((s: { name: string }) => s.name !== 'tc-sticky-worker') ? p : undefined;
      }, WAIT_MS, () => describeCluster(h.k, h.cluster));
      const rendered = await h.k.get<Obj>('MachineConfig', after.spec.configuration.name);
      expect(rendered!.spec.osImageURL).to.equal(custom);
      await new Promise((r) => setTimeout(r, 3000));
      for (const node of await nodesOfRole(h.k, 'worker')) expect(bootedImage(h.cluster, node)).to.equal(custom);
      expect(overridden.status.configuration.name).to.be.a('string');
    });
  });

  it('mcd-ignores-pull-errors: nodes report Done on the new config but boot nothing new', async () => {
    await withFault('mcd-ignores-pull-errors', async (h) => {
      const before = await workerConfig(h);
      const missing = `${h.cluster.registry}/ocp-e2e/does-not-exist@sha256:${'1'.repeat(64)}`;
      await h.k.create('MachineConfig', overrideMachineConfig('tc-unpullable-worker', 'worker', missing));
      const pool = await waitFor('the worker pool to claim the rollout done', () => poolSettledOnNew(h.k, 'worker', before), WAIT_MS, () => describeCluster(h.k, h.cluster));
      expect(cond(pool, 'Degraded').status).to.equal('False');
      for (const node of await nodesOfRole(h.k, 'worker')) {
        expect(node.metadata.annotations?.[ANN.state]).to.equal('Done');
        expect(bootedImage(h.cluster, node)).to.equal(h.cluster.releases.current.rhelCoreos8);
      }
    });
  });

  it('mcd-skips-os-update: nodes report Done on an overriding config but keep booting the release image', async () => {
    await withFault('mcd-skips-os-update', async (h) => {
      const before = await workerConfig(h);
      const custom = await customImage(h.cluster);
      await h.k.create('MachineConfig', overrideMachineConfig('tc-skipped-rebase-worker', 'worker', custom));
      await waitFor('the worker pool to roll out the override', () => poolSettledOnNew(h.k, 'worker', before), WAIT_MS, () => describeCluster(h.k, h.cluster));
      for (const node of await nodesOfRole(h.k, 'worker')) {
        expect(node.metadata.annotations?.[ANN.currentConfig]).to.not.equal(before);
        expect(bootedImage(h.cluster, node)).to.equal(h.cluster.releases.current.rhelCoreos8);
      }
    });
  });

  it('cvo-completes-early: ClusterVersion completes while the master pool is still updating', async () => {
    await withFault('cvo-completes-early', async (h) => {
      const masterBefore = (await h.k.get<Obj>('MachineConfigPool', 'master'))!.status.configuration.name;
      await requestUpgrade(h.k, h.cluster.releases.next.image);
      await waitFor('history Completed at the new version', async () => {
        const head = (await h.k.get<Obj>('ClusterVersion', 'version'))?.status?.history?.[0];
        return head?.state === 'Completed' && head.version === NEXT_VERSION;
      }, WAIT_MS, () => describeCluster(h.k, h.cluster));
      const master = await h.k.get<Obj>('MachineConfigPool', 'master');
      expect(master!.status.configuration.name, 'master must not have finished when the CVO completed').to.equal(masterBefore);
      expect(cond(master, 'Updated').status).to.equal('False');
      expect(cond(master, 'Updating').status).to.equal('True');
    });
  });
});
