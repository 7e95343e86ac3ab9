/**
 * The controllers' informers keep their caches right when watches are cut and history is compacted (410 → relist),
 * and tell a server in the same process when they have no stream open (WatchReceipts.unwatched).
 */
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startApiServer, type RunningApiServer } from '../../../mock/index.js';
import { KubeClient, type KubeObject } from '../../../lib/kube/client.js';
import { InformerFactory } from '../../../lib/kube/informer.js';
import type { WatchReceipts } from '../../../lib/kube/paced-watch.js';

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

    // the errors hit the informer's lists and watches (a path ending in /configmaps), not the test's own delete,
    // which half of all requests failing would fail six times in a row once in 64 runs
    api.setFaults({ watchCutSeconds: 1, rate500: 0.3, rate429: 0.2, pathPattern: '/configmaps$' });
    await new Promise((r) => setTimeout(r, 1200));
    await client.delete('ConfigMap', 'b', 'default');
    api.setFaults({});
    await until('b deleted', () => cms.get('b') === undefined);
    expect(seen).to.include('delete:b:1');
  });

  it('a resume answered 410 Gone re-lists at once, as no failure; the informer says it is unwatched from a stream\'s end to the next stream, and not once stopped', async () => {
    const client = KubeClient.fromFile(path.join(dir, 'kubeconfig'));
    let streams = 0;
    let unwatched = 0;
    let held = 0;
    const receipts: WatchReceipts = {
      param: 'stream',
      open: () => String(++streams),
      handled: () => undefined,
      unwatched: () => {
        unwatched++;
        held++;
        let released = false;
        return () => {
          if (!released) held--;
          released = true;
        };
      },
    };
    informers = new InformerFactory(client, { receipts });
    const cms = informers.for<ConfigMap>('ConfigMap', 'default');
    await informers.startAll();
    const until = async (what: string, ok: () => boolean) => {
      const deadline = Date.now() + 15_000;
      while (!ok()) {
        if (Date.now() > deadline) throw new Error(`never ${what} (unwatched ${unwatched} times, ${held} held, last error ${cms.lastError})`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    await until('a stream opened', () => streams === 1 && held === 0);
    // an event makes the stream a healthy one, so that its end below is no failure either
    await client.create('ConfigMap', { metadata: { name: 'before', namespace: 'default' } } as ConfigMap);
    await until('the change before seen', () => cms.get('before') !== undefined);

    // what an API server restart does to a watch: the stream ends, and the resume is too old for the server's history.
    // (The write right after dropWatches also failed, with the event kept from every watch, while the mock wrote to
    // the streams it had ended before their 'finish' unsubscribed them: mock/http/handlers/watch.ts.)
    api.compactHistory();
    api.dropWatches();
    await client.create('ConfigMap', { metadata: { name: 'after', namespace: 'default' } } as ConfigMap);
    await until('the change after the 410 seen', () => cms.get('after') !== undefined);
    await until('watching again', () => held === 0);
    expect(cms.lastError, 'the 410 counted as a failure (a backoff before the re-list, closer to polling)').to.equal(undefined);
    expect(unwatched, 'unwatched from the cut stream to the next').to.be.at.least(1);

    await api.close();
    await until('unwatched while the server is away', () => held === 1);
    await informers.stopAll();
    expect(held, 'a stopped informer holds nothing').to.equal(0);
  });
});
