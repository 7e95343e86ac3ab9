/** The controllers' informers keep their caches right when watches are cut and history is compacted (410 → relist). */
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startApiServer, type RunningApiServer } from '../../../mock/index.js';
import { KubeClient, type KubeObject } from '../../../lib/kube/client.js';
import { InformerFactory } from '../../../lib/kube/informer.js';

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

describe('reference informers', function () {
  this.timeout(30_000);
  let api: RunningApiServer;
  let dir: string;
  let informers: InformerFactory;

  beforeEach(async () => {
    api = await startApiServer({});
    dir = await mkdtemp(path.join(tmpdir(), 'ref-informer-'));
    await api.writeKubeconfig(path.join(dir, 'kubeconfig'));
  });
  afterEach(async () => {
    await informers?.stopAll();
    await api.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('relists after a 410 and keeps following changes through cut watches and server errors', async () => {
    const client = KubeClient.fromFile(path.join(dir, 'kubeconfig'));
    informers = new InformerFactory(client);
    const cms = informers.for<ConfigMap>('ConfigMap', 'default');
    const seen: string[] = [];
    cms.onChange((type, cm) => seen.push(`${type}:${cm.metadata.name}:${cm.data?.v ?? ''}`));
    await client.create('ConfigMap', { metadata: { name: 'a', namespace: 'default' }, data: { v: '1' } } as ConfigMap);
    await informers.startAll();
    expect(cms.get('a')?.data?.v).to.equal('1');

    api.setFaults({ watchCutSeconds: 1 });
    api.compactHistory(); // the next resume from the old resourceVersion gets 410 Expired
    await client.patch('ConfigMap', 'a', { data: { v: '2' } }, 'default');
    await client.create('ConfigMap', { metadata: { name: 'b', namespace: 'default' }, data: { v: '1' } } as ConfigMap);
    const until = async (what: string, ok: () => boolean) => {
      const deadline = Date.now() + 15_000;
      while (!ok()) {
        if (Date.now() > deadline) throw new Error(`informer cache never showed ${what}; events seen: ${seen.join(' ')}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    await until('a=2 and b', () => cms.get('a')?.data?.v === '2' && cms.get('b') !== undefined);

    api.setFaults({ watchCutSeconds: 1, rate500: 0.3, rate429: 0.2 });
    await new Promise((r) => setTimeout(r, 1200));
    await client.delete('ConfigMap', 'b', 'default');
    api.setFaults({});
    await until('b deleted', () => cms.get('b') === undefined);
    expect(seen).to.include('delete:b:1');
  });
});
