/**
 * Durability with a data directory: the mock API server runs in a child process under write load from 20
 * concurrent clients (creates of new objects and updates of per-client objects); it is killed with SIGKILL at a
 * seeded moment during the load, restarted on the same directory, and every write it acknowledged must be there
 * (creates present with their data, updates at least at the acknowledged sequence). Two kill/restart rounds, so a
 * log compacted at the first restart is also written to and recovered.
 */
import { expect } from 'chai';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { printedAddress, spawnServer, stopChild, useChildServers } from './child-server.js';
import { agentFor, seededRandom, send, type Target } from '../support/http.js';

const SERVE = fileURLToPath(new URL('./fixtures/serve-plain-data-dir.ts', import.meta.url));
const SEED = Number(process.env.DURABILITY_SEED ?? 11);
const CLIENTS = 20;
const CM = '/api/v1/namespaces/default/configmaps';

async function startChild(dataDir: string): Promise<{ child: ChildProcess; target: Target }> {
  const { child, ready } = await spawnServer([SERVE, dataDir], printedAddress);
  return { child, target: { ...ready, caPem: '' } };
}

const killHard = async (child: ChildProcess): Promise<void> => { await stopChild(child, 'SIGKILL'); };

interface Acked { creates: Map<string, string>; updates: Map<string, number>; maxRv: number; inFlightAtKill: number }

/** Runs the write load until the server dies; returns what it acknowledged. */
async function loadUntilKilled(target: Target, child: ChildProcess, round: number, killAfterMs: number): Promise<Acked> {
  const agent = agentFor(target, CLIENTS);
  const acked: Acked = { creates: new Map(), updates: new Map(), maxRv: 0, inFlightAtKill: 0 };
  let alive = true;
  let inFlight = 0;
  const killer = new Promise<void>((resolve) => setTimeout(() => {
    acked.inFlightAtKill = inFlight;
    alive = false;
    void killHard(child).then(resolve);
  }, killAfterMs));
  const client = async (id: number) => {
    const own = `r${round}-own-${id}`;
    for (let seq = 0; alive; seq++) {
      // Even steps create a new object; odd steps apply a new sequence number to this client's own object.
      const create = seq % 2 === 0;
      const name = create ? `r${round}-c${id}-${seq}` : own;
      const value = `${id}:${seq}`;
      inFlight++;
      try {
        const r = create
          ? await send(target, agent, { method: 'POST', path: CM, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ metadata: { name }, data: { value } }) }, { timeoutMs: 5000 })
          : await send(target, agent, { method: 'PATCH', path: `${CM}/${own}?fieldManager=durability`, headers: { 'Content-Type': 'application/apply-patch+yaml' }, body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: own }, data: { seq: String(seq) } }) }, { timeoutMs: 5000 });
        if (r.status === 200 || r.status === 201) {
          const rv = Number(JSON.parse(r.text).metadata.resourceVersion);
          acked.maxRv = Math.max(acked.maxRv, rv);
          if (create) acked.creates.set(name, value);
          else acked.updates.set(own, seq);
        } else if (alive) throw new Error(`unexpected ${r.status} while the server was alive: ${r.text}`);
      } catch (error) {
        if (alive) throw error; // a network error before the kill is a real failure
        return;
      } finally {
        inFlight--;
      }
    }
  };
  await Promise.all([...Array.from({ length: CLIENTS }, (_, id) => client(id)), killer]);
  agent.destroy();
  return acked;
}

describe('reliability: durability of acknowledged writes across kill -9 (dataDir)', function () {
  this.timeout(90_000);
  const servers = useChildServers('ocp-e2e-durability-', 'SIGKILL');

  it('keeps every acknowledged create and update through two kill -9 / restart rounds', async () => {
    const rand = seededRandom(SEED);
    const dataDir = join(servers.dir(), 'data');
    const all: Acked[] = [];
    for (let round = 1; round <= 2; round++) {
      const started = await startChild(dataDir);
      servers.track(started.child);
      const killAfterMs = 400 + Math.floor(rand() * 600);
      const acked = await loadUntilKilled(started.target, started.child, round, killAfterMs);
      all.push(acked);
      expect(acked.creates.size, `round ${round}: the load must have written something before the kill`).to.be.greaterThan(20);

      const restarted = await startChild(dataDir);
      servers.track(restarted.child);
      const agent = agentFor(restarted.target, 4);
      const list = JSON.parse((await send(restarted.target, agent, { method: 'GET', path: CM })).text);
      const stored = new Map<string, Record<string, string>>(list.items.map((o: { metadata: { name: string }; data: Record<string, string> }) => [o.metadata.name, o.data]));
      let lost = 0;
      for (const a of all) {
        for (const [name, value] of a.creates) if (stored.get(name)?.value !== value) lost++;
        for (const [name, seq] of a.updates) if (!(Number(stored.get(name)?.seq) >= seq)) lost++;
      }
      const acks = all.reduce((n, a) => n + a.creates.size + a.updates.size, 0);
      console.log(`durability round ${round}: killed after ${killAfterMs} ms with ${acked.inFlightAtKill} requests in flight; ` +
        `${acked.creates.size} creates and ${acked.updates.size} objects updated acknowledged this round; ${acks} acknowledged writes checked, lost ${lost}`);
      expect(lost, 'acknowledged writes missing after restart').to.equal(0);
      // resourceVersions keep growing past everything handed out before the kill.
      expect(Number(list.metadata.resourceVersion)).to.be.at.least(acked.maxRv);
      agent.destroy();
      await killHard(restarted.child);
      servers.track(undefined);
    }
  });
});
