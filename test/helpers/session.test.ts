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

  /** ClusterVersion as a cluster of `version` reports it, settled. */
  const runningVersion = (version: string) =>
    mock.patchStatus(KINDS.ClusterVersion, 'version', {
      desired: { version, image: 'quay.io/openshift-release-dev/ocp-release@sha256:' + '2'.repeat(64) },
      history: [{ state: 'Completed', version, image: 'quay.io/openshift-release-dev/ocp-release@sha256:' + '2'.repeat(64), startedTime: new Date().toISOString(), completionTime: new Date().toISOString(), verified: false }],
    });

  it('skips on a release older than the suite knows, naming the ones it knows, before the preflight', async () => {
    await runningVersion('4.11.44');
    session = new ConformanceSession({ disruptive: true }, targetOf(mock));
    expect(await session.prepareSuite()).to.equal('OpenShift 4.11 (4.11.44) is older than any release ocp-e2e knows (4.12 to 4.22): its texts and rules are not in the suite\'s table');
  });

  it('goes ahead on a release newer than the table, judged by the newest row, warning once what it cannot vouch for', async () => {
    await runningVersion('4.23.2');
    const warnings: string[] = [];
    const warn = console.warn;
    console.warn = (...args: unknown[]) => void warnings.push(args.join(' '));
    try {
      session = new ConformanceSession({ disruptive: true }, targetOf(mock));
      expect(await session.prepareSuite()).to.equal(undefined);
      expect(session.release()).to.deep.include({ vouched: false, version: '4.23.2' });
      expect(session.release().rules.release).to.equal('4.22');
    } finally {
      console.warn = warn;
    }
    expect(warnings.join('\n')).to.match(/warning: OpenShift 4\.23 \(4\.23\.2\) is newer than the releases ocp-e2e knows \(4\.12 to 4\.22\): it judges it by 4\.22's rules and cannot vouch for the daemon's and the operator's texts/);
  });

  it("skips a spec whose premise the cluster's release does not have, with the spec's reason", async () => {
    await runningVersion('4.21.3');
    session = new ConformanceSession({ disruptive: true, notOn: (r) => (r.render.templatesCarryOsImage ? undefined : 'the templates carry no osImageURL') }, targetOf(mock));
    expect(await session.prepareSuite()).to.equal('does not apply to OpenShift 4.21 (4.21.3): the templates carry no osImageURL');
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
    session = new ConformanceSession({ disruptive: true, upgrades: true }, targetOf(mock, { toImages: ['r/ocp/release:next'] }));
    expect(await session.prepareSuite()).to.equal(undefined);
  });
});
