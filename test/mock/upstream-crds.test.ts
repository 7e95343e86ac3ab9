/**
 * The real OpenShift 4.12 CRDs (steering repository fixtures) apply over the project's own and serve objects.
 * Skipped, saying why, only when that folder is absent.
 */
import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { OPENSHIFT_EXTRA_PRINTER_COLUMNS } from '../../reference/crds/index.js';
import { startTestServer, type TestServer } from './support.js';

const FIXTURES = process.env.OCP_E2E_UPSTREAM_CRDS ?? '/work/shared/fixtures/openshift-4.12-crds';

describe('mock API server: upstream OpenShift 4.12 CRDs', function () {
  this.timeout(60_000);
  let t: TestServer;

  before(async function () {
    if (!existsSync(FIXTURES)) {
      console.log(`    skipped: upstream CRD fixtures not found at ${FIXTURES} (set OCP_E2E_UPSTREAM_CRDS to their folder)`);
      this.skip();
    }
    t = await startTestServer({ extraPrinterColumns: OPENSHIFT_EXTRA_PRINTER_COLUMNS });
  });
  after(async () => { await t?.stop(); });

  it('applies over the project\'s CRDs with kubectl apply (client- and server-side)', async () => {
    const out = await t.kubectlOk(['apply', '-f', FIXTURES]);
    expect(out.match(/configured|unchanged/g)).to.have.length(5);
    expect(await t.kubectlOk(['apply', '--server-side', '--force-conflicts', '-f', FIXTURES])).to.contain('serverside-applied');
    const names = (await t.kubectlOk(['get', 'crd', '-o', 'name'])).trim().split('\n');
    expect(names).to.include.members([
      'customresourcedefinition.apiextensions.k8s.io/clusteroperators.config.openshift.io',
      'customresourcedefinition.apiextensions.k8s.io/machineconfigpools.machineconfiguration.openshift.io',
    ]);
  });

  it('serves and validates objects under the upstream schemas', async () => {
    await t.kubectlOk(['create', '-f', '-'], JSON.stringify({ apiVersion: 'machineconfiguration.openshift.io/v1', kind: 'MachineConfig', metadata: { name: '99-worker-os' }, spec: { osImageURL: 'quay.io/x/y@sha256:abc', config: { ignition: { version: '3.2.0' } } } }));
    expect(await t.kubectlOk(['get', 'mc'])).to.match(/^99-worker-os\s+3\.2\.0\s+\d+s$/m);
    await t.kubectlOk(['create', '-f', '-'], JSON.stringify({ apiVersion: 'machineconfiguration.openshift.io/v1', kind: 'MachineConfigPool', metadata: { name: 'worker' }, spec: { maxUnavailable: 1, machineConfigSelector: { matchLabels: { 'machineconfiguration.openshift.io/role': 'worker' } } } }));
    expect((await t.kubectlOk(['get', 'mcp'])).split('\n')[0]).to.match(/^NAME\s+CONFIG\s+UPDATED\s+UPDATING\s+DEGRADED\s+MACHINECOUNT\s+READYMACHINECOUNT\s+UPDATEDMACHINECOUNT\s+DEGRADEDMACHINECOUNT\s+AGE$/);
    await t.kubectlOk(['create', '-f', '-'], JSON.stringify({ apiVersion: 'config.openshift.io/v1', kind: 'ClusterVersion', metadata: { name: 'version' }, spec: { clusterID: '00000000-0000-0000-0000-000000000000' } }));
    const bad = await t.kubectl(['create', '-f', '-'], JSON.stringify({ apiVersion: 'config.openshift.io/v1', kind: 'ClusterVersion', metadata: { name: 'other' }, spec: {} }));
    expect(bad.stderr).to.contain('spec.clusterID: Required value');
    await t.kubectlOk(['create', '-f', '-'], JSON.stringify({ apiVersion: 'config.openshift.io/v1', kind: 'ClusterOperator', metadata: { name: 'machine-config' }, spec: {} }));
    // Upstream's manifest has no MESSAGE column: OpenShift's API server adds it, here through extraPrinterColumns.
    expect((await t.kubectlOk(['get', 'co'])).split('\n')[0]!.split(/\s+/)).to.deep.equal(['NAME', 'VERSION', 'AVAILABLE', 'PROGRESSING', 'DEGRADED', 'SINCE', 'MESSAGE']);
  });
});
