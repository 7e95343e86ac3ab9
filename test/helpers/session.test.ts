import { expect } from 'chai';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { ConformanceSession } from '../../helpers/conformance.js';
import { KINDS } from '../../lib/kube/kinds.js';
import type { TargetConfig } from '../../helpers/target.js';
import { MockCluster, cond, FROM } from './fixture.js';

describe('helpers: the conformance session refuses unsafe or meaningless runs, saying why', function () {
  this.timeout(30_000);
  let mock: MockCluster;
  let session: ConformanceSession | undefined;
  const targetOf = (m: MockCluster, overrides: Partial<TargetConfig> = {}): TargetConfig => ({
    kind: 'cluster',
    kubeconfigPath: m.kubeconfigPath,
    allowDisruptive: true,
    keepOnFailure: false,
    runId: 'session-test',
    reportsDir: '/tmp/ocp-e2e-session-test',
    phase: 'all',
    nodeReads: 'auto',
    ...overrides,
  });

  beforeEach(async () => {
    mock = await MockCluster.start();
    await mock.seedSettledCluster();
    // A fast clock, so the preflight's few cluster minutes of patience are its 5 s floor here.
    const kc = new KubeConfig();
    kc.loadFromFile(mock.kubeconfigPath);
    await kc.makeApiClient(CoreV1Api).createNamespacedConfigMap({
      namespace: 'kube-system',
      body: { metadata: { name: 'ocp-e2e-reference-cluster' }, data: { timeFactor: '60000', imageRepo: '127.0.0.1:1/x' } },
    });
  });
  afterEach(async () => {
    await session?.finish();
    session = undefined;
    await mock.stop();
  });

  it('skips disruptive specs without --allow-disruptive, before touching the cluster', async () => {
    session = new ConformanceSession({ disruptive: true }, targetOf(mock, { kubeconfigPath: '/nonexistent', allowDisruptive: false }));
    expect(await session.prepareSuite()).to.equal('disruptive spec (upgrades the cluster or changes its pools): pass --allow-disruptive to run it');
  });

  it('goes ahead on an idle cluster', async () => {
    session = new ConformanceSession({ disruptive: true, upgrades: true }, targetOf(mock));
    expect(await session.prepareSuite()).to.equal(undefined);
  });

  it('skips when ClusterVersion is progressing, quoting it', async () => {
    await mock.patchStatus(KINDS.ClusterVersion, 'version', {
      conditions: [cond('Available', 'True'), cond('Progressing', 'True', 'Working towards 4.12.1: 10 of 800 done'), cond('Failing', 'False')],
    });
    session = new ConformanceSession({ disruptive: true }, targetOf(mock));
    expect(await session.prepareSuite()).to.equal('preflight: ClusterVersion is progressing ("Working towards 4.12.1: 10 of 800 done"); wait for it to settle');
  });

  it('skips when a pool is degraded, quoting it', async () => {
    await mock.patchStatus(KINDS.MachineConfigPool, 'worker', mock.poolStatus('rendered-worker-a', 2, 'degraded', 'Node worker-1 is reporting: "boom"'));
    session = new ConformanceSession({ disruptive: true }, targetOf(mock));
    expect(await session.prepareSuite()).to.equal('preflight: pool worker is degraded ("Node worker-1 is reporting: "boom""); fix it first');
  });

  it('skips an upgrade spec when there is nothing to upgrade to, unless --to-image is given', async () => {
    await mock.patchStatus(KINDS.ClusterVersion, 'version', { availableUpdates: null });
    session = new ConformanceSession({ disruptive: true, upgrades: true }, targetOf(mock));
    expect(await session.prepareSuite()).to.equal(
      `needs a release to upgrade to: ClusterVersion (at ${FROM}) lists no availableUpdates; pass --to-image <release image>`,
    );
    await session.finish();
    session = new ConformanceSession({ disruptive: true, upgrades: true }, targetOf(mock, { toImage: 'r/ocp/release:next' }));
    expect(await session.prepareSuite()).to.equal(undefined);
  });
});
