/**
 * Client resilience against the mock API server: the suite's cluster client (helpers/cluster.ts + withRetry) and the
 * reference controllers' client (lib/kube/client.ts, which the suite's Cluster also wraps) retry what is retryable (429 honouring Retry-After, 5xx,
 * connection resets; with growing backoff and a bound) and fail fast, after one request, on what is not (401, 403,
 * 404 of a required kind, 422), naming the API error. A scripted proxy in front of the mock counts the attempts and
 * times the waits; the mock's own random faults and watch cuts check the watcher. Times to fail fast are printed.
 */
import { expect } from 'chai';
import { KubeConfig } from '@kubernetes/client-node';
import { startApiServer, type RunningApiServer } from '../../../mock/index.js';
import { openShiftCrds } from '../../../reference/crds/index.js';
import { Cluster } from '../../../helpers/cluster.js';
import { ClusterWatcher } from '../../../helpers/cluster-watcher.js';
import { KubeClient } from '../../../lib/kube/client.js';
import { startFaultProxy, type FaultProxy } from '../../support/fault-proxy.js';

const CV_PATH = /clusterversions/;
const failFast: Record<string, number> = {};

function gaps(times: number[]): number[] {
  return times.slice(1).map((t, i) => t - times[i]!);
}

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; error?: Error; value?: T }> {
  const t0 = Date.now();
  try {
    const value = await fn();
    return { ms: Date.now() - t0, value };
  } catch (error) {
    return { ms: Date.now() - t0, error: error as Error };
  }
}

describe('reliability: clients retry what is retryable and fail fast on what is not', function () {
  this.timeout(60_000);
  let server: RunningApiServer;
  let bare: RunningApiServer;
  let proxy: FaultProxy;

  before(async () => {
    server = await startApiServer({ tls: false, crds: openShiftCrds(), token: 'resilience-token' });
    bare = await startApiServer({ tls: false, token: 'resilience-token' }); // no OpenShift kinds at all
    proxy = await startFaultProxy(server.url);
    const seed = new Cluster(proxy.kubeConfig(server.token));
    await seed.createMachineConfig({ metadata: { name: 'base' }, spec: {} } as never);
    const { CustomObjectsApi } = await import('@kubernetes/client-node');
    await proxy.kubeConfig(server.token).makeApiClient(CustomObjectsApi).createClusterCustomObject({
      group: 'config.openshift.io', version: 'v1', plural: 'clusterversions',
      body: { apiVersion: 'config.openshift.io/v1', kind: 'ClusterVersion', metadata: { name: 'version' }, spec: { clusterID: 'c0ffee' } },
    });
  });
  beforeEach(() => { proxy.seen.length = 0; proxy.rule = () => undefined; server.setFaults({}); });
  after(async () => {
    console.log(`time to fail fast (ms): ${Object.entries(failFast).map(([k, v]) => `${k} ${v}`).join(', ')}`);
    await proxy?.close();
    await server?.close();
    await bare?.close();
  });

  describe('the suite helpers (Cluster, withRetry)', () => {
    const cluster = () => new Cluster(proxy.kubeConfig(server.token));

    it('waits out 429 for the Retry-After the server asks, then succeeds', async () => {
      proxy.rule = (req, i) => (CV_PATH.test(req.url ?? '') && i < 2 ? { status: 429, reason: 'TooManyRequests', retryAfterSeconds: 1 } : undefined);
      const r = await timed(() => cluster().getClusterVersion());
      expect(r.error, String(r.error)).to.equal(undefined);
      const times = proxy.seen.filter((s) => CV_PATH.test(s.path)).map((s) => s.at);
      expect(times).to.have.length(3);
      for (const g of gaps(times)) expect(g, 'wait before retrying a 429 with Retry-After: 1').to.be.at.least(950);
    });

    it('retries 500, 502, 503, 504 and resets with growing backoff, then succeeds', async () => {
      const script = [{ status: 500, reason: 'InternalError' }, { status: 502, reason: 'BadGateway' }, 'reset', { status: 503, reason: 'ServiceUnavailable' }, { status: 504, reason: 'GatewayTimeout' }] as const;
      proxy.rule = (req, i) => (CV_PATH.test(req.url ?? '') ? script[i] : undefined);
      const r = await timed(() => cluster().getClusterVersion());
      expect(r.error, String(r.error)).to.equal(undefined);
      const times = proxy.seen.filter((s) => CV_PATH.test(s.path)).map((s) => s.at);
      expect(times).to.have.length(6);
      const g = gaps(times);
      expect(g[4]!, `backoff grows: ${g.join(', ')} ms`).to.be.greaterThan(g[0]!);
    });

    it('gives up on a server that keeps failing after a bounded number of attempts, naming the error', async () => {
      proxy.rule = () => ({ status: 500, reason: 'InternalError' });
      const r = await timed(() => cluster().listMachineConfigPools());
      expect(r.error?.message).to.match(/list MachineConfigPool failed: HTTP 500 InternalError: .* \(after 6 attempts\)/);
      expect(proxy.count(/machineconfigpools/)).to.equal(6);
      expect(r.ms, 'bounded retry time').to.be.below(15_000);
      failFast['helpers: 500 on every request (6 attempts)'] = r.ms;
    });

    it('rides out the mock\'s random 429s, 500s and resets', async () => {
      server.setFaults({ rate429: 0.05, retryAfterSeconds: 0, rate500: 0.05, resetRate: 0.05 });
      const direct = proxy.kubeConfig(server.token);
      direct.getCurrentCluster()!.server; // same credentials, straight to the server (no proxy in between)
      const kc = new KubeConfig();
      kc.loadFromOptions({ ...JSON.parse(JSON.stringify({ users: direct.users, contexts: direct.contexts, currentContext: direct.currentContext })), clusters: [{ name: 'proxy', server: server.url, skipTLSVerify: true }] });
      const c = new Cluster(kc);
      for (let i = 0; i < 20; i++) expect((await c.listMachineConfigs()).map((m) => m.metadata.name)).to.include('base');
    });

    const fastCases: Array<[string, () => Promise<unknown>, RegExp]> = [
      ['401 wrong token', () => new Cluster(proxy.kubeConfig('wrong-token')).getClusterVersion(), /get ClusterVersion version failed: HTTP 401: Unauthorized; .*log in again/],
      ['404 kind not served', () => new Cluster(new KubeConfig()).getClusterVersion(), /./], // replaced below
      ['422 invalid object', () => new Cluster(proxy.kubeConfig(server.token)).createMachineConfig({ metadata: { name: 'Not_Valid' }, spec: {} } as never), /create MachineConfig Not_Valid failed: HTTP 422 Invalid: .*metadata\.name.*invalid/],
    ];

    it('fails fast, after one request, on 401, 403, 404 of a required kind and 422', async () => {
      const bareProxy = await startFaultProxy(bare.url);
      try {
        fastCases[1] = ['404 kind not served', () => new Cluster(bareProxy.kubeConfig(bare.token)).listMachineConfigPools(), /list MachineConfigPool failed: HTTP 404 NotFound: .*does not serve this kind/];
        const forbidden: [string, () => Promise<unknown>, RegExp] = ['403 forbidden', () => { proxy.rule = () => ({ status: 403, reason: 'Forbidden' }); return cluster().listNodes(); }, /list Node failed: HTTP 403 Forbidden: .*needs the permissions of deploy\/clusterrole.yaml/];
        for (const [name, call, message] of [...fastCases, forbidden]) {
          proxy.seen.length = 0;
          bareProxy.seen.length = 0;
          const r = await timed(call);
          proxy.rule = () => undefined;
          expect(r.error?.message, `${name}: ${r.error?.message}`).to.match(message);
          expect(r.error?.message, name).to.not.match(/after \d+ attempts/);
          expect(proxy.seen.length + bareProxy.seen.length, `${name}: requests made`).to.equal(1);
          expect(r.ms, `${name}: time to fail`).to.be.below(1000);
          failFast[`helpers: ${name}`] = r.ms;
        }
      } finally {
        await bareProxy.close();
      }
    });

    it('keeps seeing changes while the server cuts every watch after 1.5 s', async () => {
      server.setFaults({ watchCutSeconds: 1.5 });
      const watcher = new ClusterWatcher(cluster(), { kinds: ['MachineConfig'] });
      try {
        await watcher.start();
        const watchesBefore = proxy.count(/machineconfigs/);
        for (let i = 0; i < 3; i++) {
          await new Promise((r) => setTimeout(r, 1700)); // past a cut
          await cluster().createMachineConfig({ metadata: { name: `after-cut-${i}` }, spec: {} } as never);
          const deadline = Date.now() + 3000;
          while (!watcher.snapshot().machineConfigs.has(`after-cut-${i}`) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
          expect(watcher.snapshot().machineConfigs.has(`after-cut-${i}`), `change ${i} seen after a cut`).to.equal(true);
        }
        expect(proxy.count(/machineconfigs/) - watchesBefore, 'the watcher re-watched after cuts').to.be.at.least(3);
        expect(watcher.modes.get('MachineConfig')).to.equal('watch');
      } finally {
        watcher.stop();
      }
    });
  });

  describe('the reference controllers\' client (KubeClient)', () => {
    const client = (token = server.token) => new KubeClient(proxy.kubeConfig(token), { retry: { attempts: 8 } });

    it('retries 429, 5xx and resets with backoff, then succeeds', async () => {
      const script = [{ status: 429, reason: 'TooManyRequests', retryAfterSeconds: 0 }, { status: 500, reason: 'InternalError' }, 'reset', { status: 503, reason: 'ServiceUnavailable' }] as const;
      proxy.rule = (req, i) => (CV_PATH.test(req.url ?? '') ? script[i] : undefined);
      const cv = await client().get('ClusterVersion', 'version');
      expect(cv?.metadata.name).to.equal('version');
      expect(proxy.count(CV_PATH)).to.equal(5);
    });

    it('gives up after its bound of attempts on a server that keeps failing', async () => {
      proxy.rule = () => ({ status: 503, reason: 'ServiceUnavailable' });
      const r = await timed(() => client().list('MachineConfigPool'));
      expect(r.error?.message).to.match(/list MachineConfigPool failed: HTTP 503 ServiceUnavailable: .*\(after 8 attempts\)/);
      expect(proxy.count(/machineconfigpools/)).to.equal(8);
      expect(r.ms).to.be.below(15_000);
      failFast['reference client: 503 on every request (8 attempts)'] = r.ms;
    });

    it('fails fast on 401, 403, 404 of a required kind and 422', async () => {
      const bareProxy = await startFaultProxy(bare.url);
      try {
        const cases: Array<[string, () => Promise<unknown>, number]> = [
          ['401 wrong token', () => client('wrong-token').list('Node'), 401],
          ['403 forbidden', () => { proxy.rule = () => ({ status: 403, reason: 'Forbidden' }); return client().list('Node'); }, 403],
          ['404 kind not served', () => new KubeClient(bareProxy.kubeConfig(bare.token)).list('MachineConfigPool'), 404],
          ['422 invalid object', () => client().create('MachineConfig', { metadata: { name: 'Not_Valid' }, spec: {} }), 422],
        ];
        for (const [name, call, status] of cases) {
          proxy.seen.length = 0;
          bareProxy.seen.length = 0;
          const r = await timed(call);
          proxy.rule = () => undefined;
          expect((r.error as { status?: number } | undefined)?.status, `${name}: ${r.error?.message}`).to.equal(status);
          expect(proxy.seen.length + bareProxy.seen.length, `${name}: requests made`).to.equal(1);
          expect(r.ms, `${name}: time to fail`).to.be.below(1000);
          failFast[`reference client: ${name}`] = r.ms;
        }
      } finally {
        await bareProxy.close();
      }
    });
  });
});
