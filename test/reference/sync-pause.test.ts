/**
 * The controllers' pause before a sync (reference/kube/sync-pause.ts): none for a lone event, as long as the last sync
 * for a burst, at most the window. On a clock of the test's own, so what is judged is the pause asked for, not how a
 * loaded machine kept it (the wall-clock version of this test failed a CI run at 2 files at a time).
 */
import { expect } from 'chai';
import { SyncPause, type PauseClock } from '../../reference/kube/sync-pause.js';

/** A clock the test moves: `sleep` records the pause and moves time by it; `work` is a sync that takes time. */
function testClock(): PauseClock & { slept: number[]; turns: number; work(ms: number): void } {
  let now = 1_000;
  const clock = {
    slept: [] as number[],
    turns: 0,
    now: () => now,
    sleep: async (ms: number) => {
      clock.slept.push(ms);
      now += ms;
    },
    nextTurn: async () => {
      clock.turns++;
    },
    work: (ms: number) => {
      now += ms;
    },
  };
  return clock;
}

describe('reference controllers: the pause before a sync', () => {
  const signal = new AbortController().signal;

  it('a key that has not synced lately syncs in the next turn; one that just did waits as long as that sync took, at most the window', async () => {
    const clock = testClock();
    const pause = new SyncPause(50, clock);
    let synced = await pause.wait('pool/worker', signal);
    expect(clock.slept, 'a lone event: no pause').to.deep.equal([]);
    expect(clock.turns, 'but the next turn of the event loop').to.equal(1);
    clock.work(30); // the sync takes 30 ms
    synced();
    synced = await pause.wait('pool/worker', signal);
    expect(clock.slept, 'right after a 30 ms sync: 30 ms').to.deep.equal([30]);
    synced();
    await pause.wait('pool/master', signal);
    expect(clock.slept, 'another key is not held').to.deep.equal([30]);

    clock.work(200);
    synced = await pause.wait('slow', signal);
    clock.work(120); // a sync that took long: the pause is capped
    synced();
    await pause.wait('slow', signal);
    expect(clock.slept.slice(1), 'capped at the window').to.deep.equal([50]);

    clock.work(500);
    await pause.wait('pool/worker', signal);
    expect(clock.slept.slice(2), 'a key whose pause has passed waits no more').to.deep.equal([]);
  });

  it('an abort ends the wait at once', async () => {
    // a clock whose sleeps end only by an abort: the wait can have ended for no other reason
    const clock = testClock();
    const asleep: number[] = [];
    clock.sleep = (ms, sleeping) => new Promise((_resolve, reject) => {
      asleep.push(ms);
      sleeping.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
    });
    const pause = new SyncPause(1000, clock);
    const synced = await pause.wait('k', signal);
    clock.work(300); // the sync of k takes 300 ms
    synced();
    const stop = new AbortController();
    let ended = false;
    const waiting = pause.wait('k', stop.signal).then(() => {
      ended = true;
    });
    await new Promise((r) => setImmediate(r));
    expect(asleep, 'the next sync of k waits 300 ms').to.deep.equal([300]);
    expect(ended).to.equal(false);
    stop.abort();
    await waiting;
    expect(ended, 'ended by the abort').to.equal(true);
  });
});
