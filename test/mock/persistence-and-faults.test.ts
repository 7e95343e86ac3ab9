/** Persistence across kill -9, and fault injection (latency, 429 with Retry-After, 500, resets, watch cuts). */
import { expect } from 'chai';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startApiServer, type RunningApiServer } from '../../mock/index.js';
import { printedAddress, spawnServer, stopChild, useChildServers } from './child-server.js';
import { openWatch, request } from './support.js';

const SERVE = fileURLToPath(new URL('./fixtures/serve-data-dir.ts', import.meta.url));
const MC = '/apis/machineconfiguration.openshift.io/v1/machineconfigs';

/** The fixture server in a child process; only url, token and caPem are used by the request helper. */
async function startChild(dataDir: string): Promise<{ child: ChildProcess; server: RunningApiServer }> {
  const { child, ready } = await spawnServer([SERVE, dataDir], printedAddress);
  return { child, server: { ...ready, caPem: '' } as RunningApiServer };
}

const killHard = async (child: ChildProcess): Promise<void> => { await stopChild(child, 'SIGKILL'); };

describe('mock API server: persistence', function () {
  this.timeout(60_000);
  const servers = useChildServers('mock-data-', 'SIGKILL');

  it('keeps every acknowledged write across kill -9 and restart, with growing resourceVersions', async () => {
    const first = await startChild(join(servers.dir(), 'data'));
    servers.track(first.child);
    const s1 = first.server;
    for (let i = 0; i < 20; i++) {
      const r = await request(s1, 'POST', MC, { body: { apiVersion: 'machineconfiguration.openshift.io/v1', kind: 'MachineConfig', metadata: { name: `p-${i}` }, spec: { osImageURL: `i${i}` } } });
      expect(r.status).to.equal(201);
    }
    await request(s1, 'DELETE', `${MC}/p-3`);
    const patched = await request(s1, 'PATCH', `${MC}/p-4`, { body: { spec: { osImageURL: 'changed' } }, contentType: 'application/merge-patch+json' });
    await request(s1, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'gadgets.example.com' },
      spec: { group: 'example.com', scope: 'Cluster', names: { plural: 'gadgets', kind: 'Gadget' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] },
    } });
    await request(s1, 'POST', '/apis/example.com/v1/gadgets', { body: { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g' }, x: 1 } });
    const lastRv = Number((await request(s1, 'GET', MC)).json.metadata.resourceVersion);
    await killHard(first.child);

    const second = await startChild(join(servers.dir(), 'data'));
    servers.track(second.child);
    const s2 = second.server;
    const list = (await request(s2, 'GET', MC)).json;
    expect(list.items.map((o: any) => o.metadata.name)).to.have.length(19).and.not.include('p-3');
    const p4 = (await request(s2, 'GET', `${MC}/p-4`)).json;
    expect(p4.spec.osImageURL).to.equal('changed');
    expect(p4.metadata.resourceVersion).to.equal(patched.json.metadata.resourceVersion);
    expect((await request(s2, 'GET', '/apis/example.com/v1/gadgets/g')).json.x).to.equal(1);
    const next = await request(s2, 'POST', MC, { body: { apiVersion: 'machineconfiguration.openshift.io/v1', kind: 'MachineConfig', metadata: { name: 'after' }, spec: {} } });
    expect(Number(next.json.metadata.resourceVersion)).to.be.greaterThan(lastRv);
    await killHard(second.child);
    servers.track(undefined);
  });
});

describe('mock API server: fault injection', function () {
  this.timeout(30_000);
  let s: RunningApiServer;
  before(async () => { s = await startApiServer({ tls: false }); });
  after(async () => { await s?.close(); });
  afterEach(() => s.setFaults({}));

  it('answers every request with 429 and Retry-After when the share is 1, and recovers when faults are cleared', async () => {
    s.setFaults({ rate429: 1, retryAfterSeconds: 7 });
    const r = await request(s, 'GET', '/api/v1/namespaces');
    expect(r.status).to.equal(429);
    expect(r.headers['retry-after']).to.equal('7');
    expect(r.json).to.include({ reason: 'TooManyRequests', code: 429 });
    expect(r.json.details.retryAfterSeconds).to.equal(7);
    s.setFaults({});
    expect((await request(s, 'GET', '/api/v1/namespaces')).status).to.equal(200);
  });

  it('injects 500s for a share of requests only', async () => {
    s.setFaults({ rate500: 0.5 });
    const codes = await Promise.all(Array.from({ length: 60 }, () => request(s, 'GET', '/api/v1/namespaces/default').then((r) => r.status)));
    const failures = codes.filter((c) => c === 500).length;
    expect(failures).to.be.within(10, 50);
    expect(codes.filter((c) => c !== 500 && c !== 200)).to.deep.equal([]);
  });

  it('resets connections', async () => {
    s.setFaults({ resetRate: 1 });
    let error: any;
    try { await request(s, 'GET', '/api/v1/namespaces'); } catch (e) { error = e; }
    expect(error?.code).to.be.oneOf(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);
  });

  it('adds latency', async () => {
    s.setFaults({ latencyMs: 150 });
    const t0 = Date.now();
    await request(s, 'GET', '/api/v1/namespaces');
    expect(Date.now() - t0).to.be.at.least(140);
  });

  it('cuts watch streams after the configured time, and limits faults to matching paths', async () => {
    s.setFaults({ watchCutSeconds: 0.3, rate500: 1, pathPattern: '^/api/v1/nodes' });
    expect((await request(s, 'GET', '/api/v1/namespaces')).status).to.equal(200);
    expect((await request(s, 'GET', '/api/v1/nodes')).status).to.equal(500);
    const t0 = Date.now();
    const w = await openWatch(s, '/api/v1/namespaces?watch=1');
    await w.ended;
    expect(Date.now() - t0).to.be.within(250, 2000);
  });

  it('rejects fault settings out of range', () => {
    expect(() => s.setFaults({ rate429: 2 })).to.throw(/between 0 and 1/);
  });
});
