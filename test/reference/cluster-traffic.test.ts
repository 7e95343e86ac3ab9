/**
 * What the API server's traffic means for the skipping clock (reference/cluster-traffic.ts): a component's watch event
 * holds the clock until its informer has handled it, and so does its informer between two streams; outside clients'
 * requests and conversations open a quiet window, outside watches do not; and, end to end over the mock server, an
 * informer given the receipts reports every event.
 */
import { expect } from 'chai';
import type { IncomingMessage } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { CLIENT_WORK_PATH, startApiServer, type RunningApiServer } from '../../mock/index.js';
import { ClientWork } from '../../lib/kube/client-work.js';
import { KubeClient, type KubeObject } from '../../lib/kube/client.js';
import { InformerFactory } from '../../lib/kube/informer.js';
import { ClusterClock, wallSleep } from '../../reference/clock.js';
import { ClusterTraffic, COMPONENT_HEADER } from '../../reference/cluster-traffic.js';

const HOUR = 3600_000;

async function settlesWithin(p: Promise<unknown>, wallMs: number): Promise<boolean> {
  return Promise.race([p.then(() => true, () => true), wallSleep(wallMs).then(() => false)]);
}

const request = (component?: string): IncomingMessage => ({ headers: component ? { [COMPONENT_HEADER]: component } : {} }) as unknown as IncomingMessage;

describe('reference cluster traffic and the skipping clock', function () {
  this.timeout(30_000);
  const clocks: ClusterClock[] = [];
  const skipClock = (quietWallMs = 100): ClusterClock => {
    const c = new ClusterClock({ factor: 1, mode: 'skip', start: new Date('2022-09-12T00:00:00Z'), quietWallMs });
    clocks.push(c);
    return c;
  };
  after(() => clocks.forEach((c) => c.stop()));

  it("a component's watch event holds the clock until its informer reports it handled; a stream's end releases it", async () => {
    const clock = skipClock();
    const traffic = new ClusterTraffic(clock);
    const id = traffic.receipts.open();
    const url = new URL(`https://api/api/v1/configmaps?watch=true&${traffic.receipts.param}=${id}`);
    const stream = traffic.stream(request('machine-config-daemon'), url);
    stream.wrote();
    stream.wrote();
    const sleeper = clock.sleep(HOUR);
    expect(await settlesWithin(sleeper, 150), 'two events unhandled').to.equal(false);
    traffic.receipts.handled(id);
    expect(await settlesWithin(sleeper, 150), 'one event unhandled').to.equal(false);
    expect(traffic.unhandledEvents).to.equal(1);
    const handledAt = Date.now();
    traffic.receipts.handled(id);
    await sleeper;
    expect(Date.now() - handledAt, 'handled: a jump at once, no quiet window').to.be.below(60);
    traffic.receipts.handled(id); // more receipts than events change nothing

    const second = traffic.receipts.open();
    const cut = traffic.stream(request('machine-config-daemon'), new URL(`https://api/apis/x/v1/y?watch=1&${traffic.receipts.param}=${second}`));
    cut.wrote();
    const later = clock.sleep(HOUR);
    expect(await settlesWithin(later, 150)).to.equal(false);
    cut.closed(); // its client will re-list (a request); what it did not read holds nothing
    expect(await settlesWithin(later, 150)).to.equal(true);
    expect(traffic.unhandledEvents).to.equal(0);
  });

  it("a component's informer with no stream open (a backoff, a re-list) holds the clock until its next stream opens", async () => {
    const clock = skipClock();
    const traffic = new ClusterTraffic(clock);
    const blind = traffic.receipts.unwatched!();
    const sleeper = clock.sleep(HOUR);
    expect(await settlesWithin(sleeper, 150), 'an informer blind: no jump').to.equal(false);
    blind();
    blind(); // released once, however often called
    await sleeper;
    expect(clock.skippedMs, 'watching again: the jump').to.be.at.least(HOUR - 1000);
  });

  it("outside clients: a request's answer and a conversation's writes open the quiet window, a watch's events do not; a component's request does not", async () => {
    const clock = skipClock(100);
    const traffic = new ClusterTraffic(clock);
    const timeToJump = async (act: () => void): Promise<number> => {
      await wallSleep(120); // past any window of the step before
      const sleeper = clock.sleep(HOUR);
      const t = Date.now();
      act();
      await sleeper;
      return Date.now() - t;
    };
    expect(await timeToJump(() => traffic.request(request())()), 'the suite answered').to.be.at.least(90);
    expect(await timeToJump(() => traffic.request(request('machine-config-operator'))()), 'a component answered').to.be.below(60);
    const watch = traffic.stream(request(), new URL('https://api/api/v1/nodes?watch=true'));
    expect(await timeToJump(() => watch.wrote()), "an event on the suite's watch").to.be.below(60);
    const exec = traffic.stream(request(), new URL('https://api/api/v1/namespaces/n/pods/p/exec?command=sh'));
    expect(await timeToJump(() => exec.wrote()), "output on the suite's exec").to.be.at.least(90);
  });

  describe('over the mock API server', () => {
    let api: RunningApiServer;
    let dir: string;
    let informers: InformerFactory | undefined;
    afterEach(async () => {
      await informers?.stopAll();
      await api?.close();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it("an informer given the receipts names its stream, and every event it is sent is reported handled", async () => {
      const clock = skipClock(25);
      const traffic = new ClusterTraffic(clock);
      let changes = 0;
      const noteChange = clock.noteChange.bind(clock);
      clock.noteChange = () => {
        changes++;
        noteChange();
      };
      api = await startApiServer({ activity: traffic });
      dir = await mkdtemp(path.join(tmpdir(), 'ref-traffic-'));
      const kubeconfig = path.join(dir, 'kubeconfig');
      await api.writeKubeconfig(kubeconfig);
      const component = KubeClient.fromFile(kubeconfig, { headers: traffic.clientHeaders('test-component') });
      informers = new InformerFactory(component, { receipts: traffic.receipts });
      const cms = informers.for<KubeObject>('ConfigMap', 'default');
      await informers.startAll();
      const outside = KubeClient.fromFile(kubeconfig);
      for (let i = 0; i < 5; i++) await outside.create('ConfigMap', { metadata: { name: `cm-${i}`, namespace: 'default' } } as KubeObject);
      const deadline = Date.now() + 5_000;
      while (cms.list().length < 5 && Date.now() < deadline) await wallSleep(20);
      expect(cms.list()).to.have.length(5);
      expect(changes, 'the server counted the five events on the component watch').to.be.at.least(5);
      expect(traffic.unhandledEvents, 'and the informer reported each one handled').to.equal(0);
    });

    it('a client that says it works holds the clock until it says it waits; its hold ends with it, and is opened again after a server drop', async () => {
      const clock = skipClock(25);
      api = await startApiServer({ activity: new ClusterTraffic(clock) });
      dir = await mkdtemp(path.join(tmpdir(), 'ref-traffic-'));
      const kubeconfig = path.join(dir, 'kubeconfig');
      await api.writeKubeconfig(kubeconfig);
      const work = await ClientWork.forServer(KubeConfigFromFile(kubeconfig), CLIENT_WORK_PATH);
      try {
        let sleeper!: Promise<void>;
        await work.workingDuring(async () => {
          sleeper = clock.sleep(HOUR);
          expect(await settlesWithin(sleeper, 300), 'the client works: no jump').to.equal(false);
          api.dropWatches(); // as a restart of the server: the hold is lost, and opened again
          await wallSleep(400);
          const dropped = clock.sleep(HOUR);
          expect(await settlesWithin(dropped, 300), 'still working after the drop: no jump').to.equal(false);
          await work.waitingDuring(async () => {
            expect(await settlesWithin(sleeper, 2_000), 'the client waits: the jump').to.equal(true);
          });
          const later = clock.sleep(HOUR);
          expect(await settlesWithin(later, 300), 'working again: no jump').to.equal(false);
        });
        const idle = clock.sleep(HOUR);
        expect(await settlesWithin(idle, 2_000), 'the client is done: the clock may jump').to.equal(true);
        expect(work.lastError, 'the hold was never refused').to.equal(undefined);
      } finally {
        work.close();
      }
    });

    it('a server without the client-work path: the client stops asking, and its work goes on', async () => {
      api = await startApiServer({});
      dir = await mkdtemp(path.join(tmpdir(), 'ref-traffic-'));
      const kubeconfig = path.join(dir, 'kubeconfig');
      await api.writeKubeconfig(kubeconfig);
      const work = await ClientWork.forServer(KubeConfigFromFile(kubeconfig), '/no/such/path');
      try {
        expect(await work.workingDuring(async () => 'done')).to.equal('done');
        expect(work.lastError).to.match(/answered 404/);
        expect(work.holding, 'no hold on a server that refused one').to.equal(false);
      } finally {
        work.close();
      }
    });
  });
});

function KubeConfigFromFile(file: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(file);
  return kc;
}
