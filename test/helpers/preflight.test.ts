/** The OpenShift preflight (helpers/preflight/openshift.ts) against the mock API server: each missing fact is named. */
import { expect } from 'chai';
import { checkOpenShift, NotOpenShiftError } from '../../helpers/preflight/openshift.js';
import { KINDS } from '../../lib/kube/kinds.js';
import { FROM, MockCluster } from './fixture.js';

describe('helpers: the OpenShift preflight', function () {
  this.timeout(30_000);
  let mock: MockCluster;
  beforeEach(async () => {
    mock = await MockCluster.start();
  });
  afterEach(async () => {
    await mock.stop();
  });

  const missing = async () => {
    const error = await checkOpenShift(mock.cluster).then(() => undefined, (e: unknown) => e);
    expect(error, 'the preflight passed').to.be.instanceOf(NotOpenShiftError);
    return (error as NotOpenShiftError).missing;
  };

  it('passes a settled OpenShift cluster, reporting its version, nodes, roles and pools', async () => {
    await mock.seedSettledCluster();
    expect(await checkOpenShift(mock.cluster)).to.deep.equal({ version: FROM, nodes: 5, roles: { master: 3, worker: 5 }, pools: ['master', 'worker'] });
  });

  it('names every fact that is missing', async () => {
    expect(await missing()).to.deep.equal(['no ClusterVersion "version" (config.openshift.io/v1)', 'no machine-config pool master or worker', 'no nodes']);
    await mock.seedSettledCluster();
    await mock.patchStatus(KINDS.ClusterVersion, 'version', { history: null, desired: null });
    await mock.patch(KINDS.Node, 'worker-0', { metadata: { labels: { 'node-role.kubernetes.io/worker': null } } });
    expect(await missing()).to.deep.equal(['ClusterVersion "version" names no current version (no Completed history entry, no status.desired)']);
    for (const node of ['master-0', 'master-1', 'master-2', 'worker-1']) {
      await mock.patch(KINDS.Node, node, { metadata: { labels: { 'node-role.kubernetes.io/master': null, 'node-role.kubernetes.io/worker': null } } });
    }
    expect(await missing()).to.include('none of its 5 nodes has a role (node-role.kubernetes.io/<role> label)');
  });
});
