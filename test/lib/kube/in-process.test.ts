/**
 * A client in the API server's own process (the reference cluster's components) connects in-process: calls, watches
 * and the server's faults as over TCP and TLS, no port needed, refused once the server is gone.
 */
import { expect } from 'chai';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startApiServer, type RunningApiServer } from '../../../mock/index.js';
import { KubeClient, type KubeObject } from '../../../lib/kube/client.js';
import { isUnreachable } from '../../../lib/kube/errors.js';
import { InformerFactory } from '../../../lib/kube/informer.js';

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

describe('lib/kube: in-process connections to an API server of the same process', function () {
  this.timeout(30_000);
  let api: RunningApiServer;
  let dir: string;
  let kubeconfig: string;
  let informers: InformerFactory | undefined;

  beforeEach(async () => {
    api = await startApiServer({});
    dir = await mkdtemp(path.join(tmpdir(), 'in-process-'));
    // a server URL nothing listens on: only the in-process connection can reach the server
    kubeconfig = path.join(dir, 'kubeconfig');
    await api.writeKubeconfig(kubeconfig);
    const text = await readFile(kubeconfig, 'utf8');
    await writeFile(kubeconfig, text.replace(new URL(api.url).host, '127.0.0.1:1'));
  });
  afterEach(async () => {
    await informers?.stopAll();
    informers = undefined;
    await api.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('serves calls and watches with neither a port nor TLS', async () => {
    const overTcp = KubeClient.fromFile(kubeconfig, { retry: { attempts: 1 } });
    const refused = await overTcp.get('ConfigMap', 'a', 'default').then(() => undefined, (error: unknown) => error);
    expect(isUnreachable(refused), String(refused)).to.equal(true);

    const client = KubeClient.fromFile(kubeconfig, { connect: () => api.connect() });
    await client.create('ConfigMap', { metadata: { name: 'a', namespace: 'default' }, data: { v: '1' } } as ConfigMap);
    informers = new InformerFactory(client);
    const cms = informers.for<ConfigMap>('ConfigMap', 'default');
    await informers.startAll();
    expect(cms.get('a')?.data?.v).to.equal('1');
    await client.patch('ConfigMap', 'a', { data: { v: '2'.repeat(200_000) } }, 'default');
    const deadline = Date.now() + 10_000;
    while (cms.get('a')?.data?.v?.length !== 200_000 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(cms.get('a')?.data?.v, 'the watch delivered the change (a body of many chunks)').to.have.length(200_000);
  });

  it("meets the server's faults, resets included, and is refused once the server is closed", async () => {
    const client = KubeClient.fromFile(kubeconfig, { connect: () => api.connect(), retry: { attempts: 1 } });
    await client.create('ConfigMap', { metadata: { name: 'b', namespace: 'default' } } as ConfigMap);
    api.setFaults({ rate500: 1 });
    const failed = await client.get('ConfigMap', 'b', 'default').then(() => undefined, (error: unknown) => error);
    expect(String(failed)).to.match(/500|internal/i);
    api.setFaults({ resetRate: 1 });
    const reset = await client.get('ConfigMap', 'b', 'default').then(() => undefined, (error: unknown) => error);
    expect(isUnreachable(reset), String(reset)).to.equal(true);
    api.setFaults({});
    expect((await client.read('ConfigMap', 'b', 'default')).metadata.name).to.equal('b');
    await api.close();
    const gone = await client.get('ConfigMap', 'b', 'default').then(() => undefined, (error: unknown) => error);
    expect(isUnreachable(gone), String(gone)).to.equal(true);
    expect(String(gone)).to.contain('ECONNREFUSED');
  });

  it('sends the kubeconfig\'s token, and a wrong one is refused as over TLS', async () => {
    const text = await readFile(kubeconfig, 'utf8');
    const wrong = path.join(dir, 'wrong-token');
    await writeFile(wrong, text.replace(api.token, 'not-the-token'));
    const refused = await KubeClient.fromFile(wrong, { connect: () => api.connect(), retry: { attempts: 1 } })
      .get('ConfigMap', 'c', 'default')
      .then(() => undefined, (error: unknown) => error);
    expect(String(refused)).to.match(/401|Unauthorized/);
    const client = KubeClient.fromFile(kubeconfig, { connect: () => api.connect() });
    expect(await client.get('ConfigMap', 'c', 'default')).to.equal(undefined);
  });
});
