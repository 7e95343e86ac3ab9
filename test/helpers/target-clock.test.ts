/**
 * The suite's clock of the target: read from the server's `Date` (the reference stamps cluster time there), counted on
 * at the factor between reads, never backwards; a wait's budget is spent on it, so a reference clock that jumps over
 * idle time ends a hopeless wait in the wall time of the jump, not of the factor. And a recording made on such a clock
 * maps its moments between the two clocks through what it saw, not through the factor.
 */
import { expect } from 'chai';
import { EventEmitter } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { serverDateReader } from '../../lib/kube/server-date.js';
import type { ClusterSnapshot, ClusterWatcher } from '../../helpers/cluster-watcher.js';
import { clockMap } from '../../helpers/monitor/clock-map.js';
import { ServerTargetClock } from '../../helpers/target-clock.js';
import { waitFor, WaitTimeoutError } from '../../helpers/wait.js';

const HOUR = 3_600_000;

function stuckWatcher(): ClusterWatcher {
  const events = new EventEmitter();
  const snapshot = { pools: new Map(), nodes: new Map(), operators: new Map(), machineConfigs: new Map() } as unknown as ClusterSnapshot;
  return { snapshot: () => snapshot, onChange: (l: () => void) => events.on('change', l), offChange: (l: () => void) => events.off('change', l), lastError: undefined } as unknown as ClusterWatcher;
}

const silent = Object.assign(() => {}, { note: () => {}, end: () => {} });

/** A plain-HTTP API server whose `/version` says the time `date()` gives (or a header of the test's choosing). */
async function versionServer(date: () => string | undefined): Promise<{ server: Server; kubeConfig: KubeConfig; hits: () => number }> {
  let hits = 0;
  const server = createServer((req, res) => {
    hits++;
    const header = date();
    res.sendDate = false;
    if (header !== undefined) res.setHeader('Date', header);
    res.end(req.url === '/version' ? '{"major":"1","minor":"25"}' : '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'c', server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, skipTLSVerify: true }],
    users: [{ name: 'u' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return { server, kubeConfig, hits: () => hits };
}

describe('the target clock', function () {
  this.timeout(20_000);

  it('reads cluster time from the server and follows its jumps, never going back', async () => {
    let serverMs = Date.parse('2022-09-12T10:00:00Z');
    const { server, kubeConfig, hits } = await versionServer(() => new Date(serverMs).toUTCString());
    const clock = await ServerTargetClock.start(kubeConfig, 600);
    try {
      const first = clock.nowMs();
      expect(first).to.be.within(serverMs, serverMs + 60_000);
      serverMs += 2 * HOUR; // the reference skipped two idle hours
      await new Promise((r) => setTimeout(r, 600));
      expect(clock.nowMs() - first).to.be.at.least(2 * HOUR);
      const afterJump = clock.nowMs();
      serverMs -= HOUR; // a server answering an older time (a stale proxy) does not turn the clock back
      await new Promise((r) => setTimeout(r, 600));
      expect(clock.nowMs()).to.be.at.least(afterJump);
      expect(hits()).to.be.at.least(4);
    } finally {
      clock.stop();
      server.close();
    }
    const stoppedAt = hits();
    await new Promise((r) => setTimeout(r, 500));
    expect(hits(), 'a stopped clock asks no more').to.equal(stoppedAt);
  });

  it('readNow asks the server at once, so a jump made since the last read is in it (the estimate lags it)', async () => {
    let serverMs = Date.parse('2022-09-12T10:00:00Z');
    const { server, kubeConfig } = await versionServer(() => new Date(serverMs).toUTCString());
    // reads every 10 wall minutes: between two, the estimate knows nothing of a jump
    const reader = await serverDateReader(kubeConfig);
    const clock = new ServerTargetClock(600, await reader.read(), reader.read, reader.close, 600_000);
    try {
      const before = clock.nowMs();
      serverMs += 8 * 60_000; // the reference skipped a drain and a pull's waits
      expect(clock.nowMs() - before, 'the estimate has not seen the jump').to.be.below(60_000);
      const now = await clock.readNow();
      // the header has whole seconds, and the estimate counted on at the factor meanwhile
      expect(now.targetMs - before).to.be.within(8 * 60_000 - 5_000, 9 * 60_000);
      expect(now.wallMs).to.be.within(Date.now() - 1_000, Date.now());
      expect(clock.nowMs(), 'the estimate goes on from the read').to.be.at.least(now.targetMs);
    } finally {
      clock.stop();
      server.close();
    }
    const stopped = await clock.readNow();
    expect(stopped.targetMs, 'a stopped clock gives its estimate').to.be.at.least(serverMs);
  });

  it('refuses a server without a readable Date, naming the request', async () => {
    const { server, kubeConfig } = await versionServer(() => 'not a date');
    try {
      const error = await ServerTargetClock.start(kubeConfig, 600, { attempts: 2 }).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(error?.message).to.match(/^the cluster did not tell its time after 2 tries: GET http:\/\/127\.0\.0\.1:\d+\/version answered without a readable Date header \(not a date\)$/);
    } finally {
      server.close();
    }
  });

  it('tries the first read again when the server drops it', async () => {
    let answered = 0;
    const { server, kubeConfig } = await versionServer(() => (answered++ < 2 ? undefined : 'Mon, 12 Sep 2022 10:00:00 GMT'));
    try {
      const clock = await ServerTargetClock.start(kubeConfig, 600);
      clock.stop();
      expect(clock.nowMs()).to.be.at.least(Date.parse('2022-09-12T10:00:00Z'));
    } finally {
      server.close();
    }
  });

  it('ends a wait when its budget has passed in cluster time, long before the wall budget when the clock jumps', async () => {
    let serverMs = Date.parse('2022-09-12T10:00:00Z');
    const { server, kubeConfig } = await versionServer(() => new Date(serverMs).toUTCString());
    const clock = await ServerTargetClock.start(kubeConfig, 600);
    try {
      const started = Date.now();
      setTimeout(() => (serverMs += 3 * HOUR), 300);
      // 10 s of wall at 600x is 100 cluster minutes; the jump of 3 hours spends it at once.
      const error = await waitFor(stuckWatcher(), { what: 'pool worker to roll out', expected: 'Updated=True', judge: () => ({ done: false, progress: 'worker 0/2' }), budgetMs: 10_000, caps: { timeFactor: 600, clock } }, silent).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(error).to.be.instanceOf(WaitTimeoutError);
      expect(Date.now() - started, 'wall time of the wait').to.be.below(3_000);
      expect(error!.message).to.match(/^timed out after (1[89]\d|2\d\d)m\d\ds cluster time \(\d\.\ds wall\) waiting for pool worker to roll out/);
    } finally {
      clock.stop();
      server.close();
    }
  });

  it("starts a wait's budget at the server's time, not at an estimate that lags a jump made just before the wait", async () => {
    let serverMs = Date.parse('2022-09-12T10:00:00Z');
    const { server, kubeConfig } = await versionServer(() => new Date(serverMs).toUTCString());
    // the clock reads the server every 200 ms: its estimate lags a jump until the next read, within the wait
    const clock = await ServerTargetClock.start(kubeConfig, 600);
    try {
      serverMs += 10 * HOUR; // the cluster ran ahead while the suite did something else
      let satisfied = false;
      setTimeout(() => (satisfied = true), 600);
      const done = await waitFor(stuckWatcher(), { what: 'pool worker to render', expected: 'rendered', judge: () => ({ done: satisfied, progress: 'not yet' }), budgetMs: 5_000, caps: { timeFactor: 600, clock } }, silent).then(
        () => true,
        (e: Error) => e.message,
      );
      expect(done, 'a wait of 50 cluster minutes is not charged the 10 hours before it').to.equal(true);
    } finally {
      clock.stop();
      server.close();
    }
  });

  it('keeps a wait on a clock that does not jump as long as its factor says', async () => {
    const { server, kubeConfig } = await versionServer(() => new Date().toUTCString());
    const clock = await ServerTargetClock.start(kubeConfig, 1);
    try {
      const started = Date.now();
      const error = await waitFor(stuckWatcher(), { what: 'x', expected: 'y', judge: () => ({ done: false, progress: 'z' }), budgetMs: 1_500, caps: { timeFactor: 1, clock } }, silent).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(error).to.be.instanceOf(WaitTimeoutError);
      expect(Date.now() - started).to.be.within(1_400, 2_500);
    } finally {
      clock.stop();
      server.close();
    }
  });

  it('reads the Date of one answer', async () => {
    const { server, kubeConfig } = await versionServer(() => 'Mon, 12 Sep 2022 10:00:00 GMT');
    try {
      const reader = await serverDateReader(kubeConfig);
      const read = await reader.read().finally(() => reader.close());
      expect(read.serverMs).to.equal(Date.parse('2022-09-12T10:00:00Z'));
      expect(Math.abs(read.wallMs - Date.now())).to.be.below(2_000);
    } finally {
      server.close();
    }
  });
});

describe('a recording on both clocks', () => {
  const zero = Date.parse('2026-12-02T10:00:00Z');

  it('maps through the moments it saw on both clocks, and at the factor where it saw none', () => {
    // 1 s of wall at 600x, then a jump of 2 cluster hours in 10 ms, then 1 s at 600x again.
    const map = clockMap(zero, 600, [
      { wallMs: zero + 1000, clusterMs: 600_000 },
      { wallMs: zero + 1010, clusterMs: 600_000 + 2 * HOUR },
      { wallMs: zero + 2010, clusterMs: 1_200_000 + 2 * HOUR },
    ]);
    expect(map.clusterAt(zero + 500)).to.equal(300_000);
    expect(map.clusterAt(zero + 1005)).to.equal(600_000 + HOUR);
    expect(map.wallAt(600_000 + HOUR)).to.equal(zero + 1005);
    expect(map.clusterAt(zero + 3010)).to.equal(1_800_000 + 2 * HOUR);
    expect(map.wallAt(1_800_000 + 2 * HOUR)).to.equal(zero + 3010);
  });

  it('is the factor alone without moments (a recording made before it kept cluster time)', () => {
    const map = clockMap(zero, 600, []);
    expect(map.clusterAt(zero + 1000)).to.equal(600_000);
    expect(map.wallAt(600_000)).to.equal(zero + 1000);
  });
});
