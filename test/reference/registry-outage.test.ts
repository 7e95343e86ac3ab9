/**
 * The daemons ride out a registry outage as the real 4.12 daemon does (reference/mcd/daemon.ts PULL_RETRY_DELAYS_MS):
 * a pull is retried for 158 cluster seconds before the update fails. An outage longer than that degrades the node
 * and its pool with the pull error; once the registry is back the requeued update succeeds and the pool settles.
 * (The shorter outage, which must cost nothing, is test/reference/upgrade-restarts.test.ts.)
 */
import { expect } from 'chai';
import { ANN } from '../../reference/constants.js';
import { startReferenceCluster, type ReferenceCluster } from '../../reference/index.js';
import { KubeClient } from '../../lib/kube/client.js';
import { cond, describeCluster, nodesOfRole, poolSettledOnNew, requestUpgrade, TEST_WORK_DIR, waitFor, type Obj } from './support/cluster.js';

/** Longer than the daemon's retries (158 s), in cluster ms. */
const LONG_OUTAGE_MS = 6 * 60_000;

describe('reference daemons through a registry outage', function () {
  this.timeout(90_000);
  let cluster: ReferenceCluster | undefined;
  afterEach(async () => {
    await cluster?.stop();
    cluster = undefined;
  });

  it('an outage longer than the pull retries degrades the node, and the pool recovers once the registry is back', async () => {
    const log: string[] = [];
    let cut: (() => void) | undefined;
    const pulling = new Promise<void>((resolve) => (cut = resolve));
    cluster = await startReferenceCluster({
      workDir: TEST_WORK_DIR,
      log: (line) => {
        log.push(line);
        // cut the registry off the moment the first node starts pulling, so the outage is sure to hit that pull
        if (cut && /mcd\/\S+: pulling /.test(line)) {
          cluster?.setRegistryReachable(false);
          cut();
          cut = undefined;
        }
      },
    });
    const k = KubeClient.fromFile(cluster.kubeconfigPath);
    const before: Record<string, string> = {};
    for (const pool of ['master', 'worker']) before[pool] = (await k.get<Obj>('MachineConfigPool', pool))!.status.configuration.name;
    await requestUpgrade(k, cluster!.releases.next.image);
    await waitFor('a node to start pulling', () => pulling.then(() => true), 45_000, () => describeCluster(k));

    const degraded = await waitFor('a node degraded by the outage', async () => {
      const nodes = (await k.list<Obj>('Node')).items;
      return nodes.find((n) => n.metadata.annotations?.[ANN.state] === 'Degraded');
    }, 20_000, () => describeCluster(k));
    expect(degraded.metadata.annotations![ANN.reason]).to.match(/connect: connection refused/);
    const pullFailures = log.filter((l) => /pull of \S+ failed \(try \d+ of 8\)/.test(l) && l.includes(degraded.metadata.name!));
    expect(pullFailures.length, 'tries before the node degraded').to.be.at.least(8);
    const role = degraded.metadata.labels?.['node-role.kubernetes.io/master'] !== undefined ? 'master' : 'worker';
    await waitFor(`pool ${role} NodeDegraded`, async () => cond(await k.get<Obj>('MachineConfigPool', role), 'NodeDegraded').status === 'True', 10_000, () => describeCluster(k));

    await cluster!.sleep(LONG_OUTAGE_MS);
    cluster!.setRegistryReachable(true);
    await waitFor(`pool ${role} to settle on the new release`, () => poolSettledOnNew(k, role, before[role]), 45_000, () => describeCluster(k));
    for (const node of await nodesOfRole(k, role)) expect(node.metadata.annotations?.[ANN.state], node.metadata.name).to.equal('Done');
    expect(cond(await k.get<Obj>('MachineConfigPool', role), 'Degraded').status).to.equal('False');
  });
});
