/**
 * No lost updates: 20 concurrent writers do read-modify-write (GET, change, PUT with the resourceVersion read) on
 * five shared ConfigMaps, retrying on 409 Conflict. Each acknowledged write increments a counter and adds its own
 * key, so the final state shows exactly which writes survived. Three watchers, opened before the load, must see
 * every committed change exactly once and in resourceVersion order. Seeded (LOST_UPDATES_SEED).
 */
import { expect } from 'chai';
import { startApiServer, type RunningApiServer } from '../../mock/index.js';
import { agentFor, openWatchStream, seededRandom, send, type WatchStream } from '../support/http.js';

const SEED = Number(process.env.LOST_UPDATES_SEED ?? 7);
const WRITERS = 20;
const WRITES_PER_WRITER = 25;
const OBJECTS = 5;
const WATCHERS = 3;
const MAX_RETRIES = 200;
const NS_PATH = '/api/v1/namespaces/default/configmaps';

interface Ack { object: string; key: string; rv: number }

describe('reliability: no lost updates under 20 concurrent read-modify-write writers', function () {
  this.timeout(90_000);
  let server: RunningApiServer;
  const watches: WatchStream[] = [];

  before(async () => { server = await startApiServer(); });
  after(async () => {
    for (const w of watches) w.close();
    await server?.close();
  });

  it('counts every acknowledged write in the final state, and every watcher sees each commit once, in order', async () => {
    const agent = agentFor(server, WRITERS + 4);
    const names = Array.from({ length: OBJECTS }, (_, i) => `counter-${i}`);
    let startRv = 0;
    for (const name of names) {
      const r = await send(server, agent, { method: 'POST', path: NS_PATH, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ metadata: { name }, data: { count: '0' } }) });
      expect(r.status, r.text).to.equal(201);
      startRv = Math.max(startRv, Number(JSON.parse(r.text).metadata.resourceVersion));
    }
    for (let i = 0; i < WATCHERS; i++) watches.push(await openWatchStream(server, `${NS_PATH}?watch=1&resourceVersion=${startRv}`));

    const acks: Ack[] = [];
    let conflicts = 0;
    const started = Date.now();
    const writer = async (id: number) => {
      const rand = seededRandom(SEED * 1000 + id);
      for (let seq = 0; seq < WRITES_PER_WRITER; seq++) {
        const object = names[Math.floor(rand() * names.length)]!;
        const key = `w${id}-${seq}`;
        for (let attempt = 1; ; attempt++) {
          if (attempt > MAX_RETRIES) throw new Error(`writer ${id}: ${key} on ${object} still conflicting after ${MAX_RETRIES} attempts`);
          const got = await send(server, agent, { method: 'GET', path: `${NS_PATH}/${object}` });
          expect(got.status, got.text).to.equal(200);
          const cm = JSON.parse(got.text);
          cm.data = { ...cm.data, count: String(Number(cm.data.count) + 1), [key]: String(id) };
          const put = await send(server, agent, { method: 'PUT', path: `${NS_PATH}/${object}`, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(cm) });
          if (put.status === 409) { conflicts++; continue; }
          expect(put.status, put.text).to.equal(200);
          acks.push({ object, key, rv: Number(JSON.parse(put.text).metadata.resourceVersion) });
          break;
        }
      }
    };
    await Promise.all(Array.from({ length: WRITERS }, (_, id) => writer(id)));
    const elapsed = Date.now() - started;

    // Final state: every acknowledged write is counted and its key is there.
    let lost = 0;
    for (const name of names) {
      const cm = JSON.parse((await send(server, agent, { method: 'GET', path: `${NS_PATH}/${name}` })).text);
      const mine = acks.filter((a) => a.object === name);
      const missing = mine.filter((a) => cm.data[a.key] === undefined);
      lost += missing.length;
      expect(missing.map((a) => a.key), `writes acknowledged on ${name} but absent`).to.deep.equal([]);
      expect(Number(cm.data.count), `${name} counter`).to.equal(mine.length);
    }
    agent.destroy();

    // Watchers: exactly the acknowledged commits, each once, in resourceVersion order.
    const ackedRvs = acks.map((a) => a.rv).sort((a, b) => a - b);
    const lastRv = ackedRvs[ackedRvs.length - 1]!;
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && watches.some((w) => Number(w.events.at(-1)?.object.metadata.resourceVersion ?? 0) < lastRv)) {
      await new Promise((r) => setTimeout(r, 20));
    }
    let dropped = 0, duplicated = 0, outOfOrder = 0;
    for (const [i, w] of watches.entries()) {
      const rvs = w.events.map((e) => Number(e.object.metadata.resourceVersion));
      for (let j = 1; j < rvs.length; j++) if (rvs[j]! <= rvs[j - 1]!) outOfOrder++;
      const seen = new Set(rvs);
      duplicated += rvs.length - seen.size;
      dropped += ackedRvs.filter((rv) => !seen.has(rv)).length;
      expect(w.events.every((e) => e.type === 'MODIFIED'), `watcher ${i}: only MODIFIED events`).to.equal(true);
      expect(rvs, `watcher ${i}: the committed resourceVersions, in order, once each`).to.deep.equal(ackedRvs);
      // Each event carries the state it committed: its counter equals the writes to that object up to it.
      for (const e of w.events) {
        const upTo = acks.filter((a) => a.object === e.object.metadata.name && a.rv <= Number(e.object.metadata.resourceVersion)).length;
        expect(Number(e.object.data.count), `watcher ${i}: ${e.object.metadata.name} at rv ${e.object.metadata.resourceVersion}`).to.equal(upTo);
      }
    }
    console.log(`lost updates: ${acks.length} writes acknowledged by ${WRITERS} writers in ${(elapsed / 1000).toFixed(1)} s (${conflicts} conflicts retried); ` +
      `updates lost ${lost}; ${WATCHERS} watchers: events dropped ${dropped}, duplicated ${duplicated}, out of order ${outOfOrder}`);
    expect(acks.length).to.equal(WRITERS * WRITES_PER_WRITER);
    expect(conflicts, 'the load must actually contend').to.be.greaterThan(0);
  });
});
