/** The controllers' pause before a sync (reference/kube/sync-pause.ts): none for a lone event, as long as the last sync for a burst. */
import { expect } from 'chai';
import { wallSleep } from '../../reference/clock.js';
import { SyncPause } from '../../reference/kube/sync-pause.js';

describe('reference controllers: the pause before a sync', () => {
  const signal = new AbortController().signal;

  it('a key that has not synced lately syncs in the next turn; one that just did waits as long as that sync took, at most the window', async () => {
    const pause = new SyncPause(50);
    let t = performance.now();
    let synced = await pause.wait('pool/worker', signal);
    expect(performance.now() - t, 'a lone event').to.be.below(15);
    await wallSleep(30); // the sync takes 30 ms
    synced();
    t = performance.now();
    synced = await pause.wait('pool/worker', signal);
    expect(performance.now() - t, 'right after a 30 ms sync').to.be.within(25, 60);
    synced();
    t = performance.now();
    await pause.wait('pool/master', signal);
    expect(performance.now() - t, 'another key is not held').to.be.below(15);

    await wallSleep(200); // a sync that took long: the pause is capped
    synced = await pause.wait('slow', signal);
    await wallSleep(120);
    synced();
    t = performance.now();
    await pause.wait('slow', signal);
    expect(performance.now() - t, 'capped at the window').to.be.within(40, 90);
  });

  it('an abort ends the wait at once', async () => {
    const pause = new SyncPause(1000);
    const synced = await pause.wait('k', signal);
    await wallSleep(300); // the next sync of k would wait 300 ms
    synced();
    const stop = new AbortController();
    const waiting = pause.wait('k', stop.signal);
    stop.abort();
    const t = performance.now();
    await waiting;
    expect(performance.now() - t).to.be.below(50);
  });
});
