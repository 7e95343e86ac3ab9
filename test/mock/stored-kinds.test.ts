/**
 * The namespaced kinds the mock only stores (Endpoints, EndpointSlice, NetworkPolicy, PersistentVolumeClaim,
 * PodDisruptionBudget), judged by kubectl: discovery lists them, they are created and read back, and `kubectl get`
 * prints kubectl's own columns for them.
 */
import { expect } from 'chai';
import { useTestServer } from './support.js';

const NS = 'default';
const OBJECTS = [
  { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'svc', namespace: NS }, subsets: [{ addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }], ports: [{ port: 9001 }, { port: 8443 }] }] },
  { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'svc-abcde', namespace: NS }, addressType: 'IPv4', ports: [{ port: 9001 }], endpoints: [{ addresses: ['10.0.0.1'] }] },
  { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'deny', namespace: NS }, spec: { podSelector: { matchLabels: { app: 'x' } } } },
  { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data', namespace: NS }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: 'gp3' } },
  { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'guard', namespace: NS }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'x' } } } },
];

/** The header and the rows of a `kubectl get` table, split on runs of two or more spaces. */
const table = (out: string) => out.trim().split('\n').map((l) => l.trim().split(/\s{2,}/));

describe('mock API server: kinds stored only (endpoints, endpointslices, networkpolicies, pvcs, pdbs)', function () {
  this.timeout(60_000);
  const t = useTestServer();

  before(async () => {
    await t.kubectlOk(['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: OBJECTS }));
  });

  it('discovery lists each with its short name', async () => {
    const rows = table(await t.kubectlOk(['api-resources', '--namespaced=true']));
    const find = (name: string) => rows.find((r) => r[0] === name);
    expect(find('endpoints')).to.deep.equal(['endpoints', 'ep', 'v1', 'true', 'Endpoints']);
    expect(find('endpointslices')).to.deep.equal(['endpointslices', 'discovery.k8s.io/v1', 'true', 'EndpointSlice']);
    expect(find('networkpolicies')).to.deep.equal(['networkpolicies', 'netpol', 'networking.k8s.io/v1', 'true', 'NetworkPolicy']);
    expect(find('persistentvolumeclaims')).to.deep.equal(['persistentvolumeclaims', 'pvc', 'v1', 'true', 'PersistentVolumeClaim']);
    expect(find('poddisruptionbudgets')).to.deep.equal(['poddisruptionbudgets', 'pdb', 'policy/v1', 'true', 'PodDisruptionBudget']);
  });

  it('kubectl get prints kubectl\'s columns for each', async () => {
    const get = async (what: string, ...more: string[]) => table(await t.kubectlOk(['get', what, '-n', NS, ...more])).map((r) => r.filter((_, i) => i !== r.length - 1 || !/^\d+[smhd]$/.test(r[i]!)));
    expect((await get('ep'))).to.deep.equal([['NAME', 'ENDPOINTS', 'AGE'], ['svc', '10.0.0.1:9001,10.0.0.2:9001,10.0.0.1:8443 + 1 more...']]);
    expect((await get('endpointslices'))).to.deep.equal([['NAME', 'ADDRESSTYPE', 'PORTS', 'ENDPOINTS', 'AGE'], ['svc-abcde', 'IPv4', '9001', '10.0.0.1']]);
    expect((await get('netpol'))).to.deep.equal([['NAME', 'POD-SELECTOR', 'AGE'], ['deny', 'app=x']]);
    expect((await get('pvc', '-o', 'wide'))[0]).to.deep.equal(['NAME', 'STATUS', 'VOLUME', 'CAPACITY', 'ACCESS MODES', 'STORAGECLASS', 'AGE', 'VOLUMEMODE']);
    expect((await get('pdb'))).to.deep.equal([['NAME', 'MIN AVAILABLE', 'MAX UNAVAILABLE', 'ALLOWED DISRUPTIONS', 'AGE'], ['guard', '1', 'N/A', '0']]);
  });

  it('each is read back as written', async () => {
    const pvc = JSON.parse(await t.kubectlOk(['get', 'pvc', 'data', '-n', NS, '-o', 'json']));
    expect(pvc.spec.resources.requests.storage).to.equal('1Gi');
    const ep = JSON.parse(await t.kubectlOk(['get', 'endpoints', 'svc', '-n', NS, '-o', 'json']));
    expect(ep.subsets[0].ports).to.have.length(2);
  });
});
