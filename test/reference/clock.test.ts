import { expect } from 'chai';
import { AbortedError, ClusterClock, wallSleep } from '../../reference/clock.js';
import { TimerHeap } from '../../reference/timer-heap.js';

const HOUR = 3600_000;
const START = new Date('2022-09-12T00:00:00Z');

/** Resolves to whether `p` settled within `wallMs`. */
async function settlesWithin(p: Promise<unknown>, wallMs: number): Promise<boolean> {
  return Promise.race([p.then(() => true, () => true), wallSleep(wallMs).then(() => false)]);
}

/** Factor 1 (real time): a jump shows as a sleep of an hour that ends in milliseconds. */
function clock(mode: 'fixed' | 'skip', quietWallMs = 20): ClusterClock {
  return new ClusterClock({ factor: 1, mode, start: START, quietWallMs });
}

describe('reference clock: fixed factor, or skipping idle time', () => {
  const made: ClusterClock[] = [];
  const make = (mode: 'fixed' | 'skip', quietWallMs?: number) => {
    const c = clock(mode, quietWallMs);
    made.push(c);
    return c;
  };
  const abort = new AbortController();
  after(() => {
    abort.abort();
    for (const c of made) c.stop();
  });

  it('fixed: an idle clock never jumps; a sleep takes its wall equivalent', async () => {
    const c = make('fixed');
    expect(await settlesWithin(c.sleep(HOUR, abort.signal), 150)).to.equal(false);
    expect(c.skippedMs).to.equal(0);
    const fast = new ClusterClock({ factor: 600, start: START });
    made.push(fast);
    const t0 = Date.now();
    await fast.sleep(60_000); // 100 ms wall at 600x
    expect(Date.now() - t0).to.be.within(90, 400);
  });

  it('skip: when nothing works, the clock jumps to the next deadline; cluster time at the wake is the deadline', async () => {
    const c = make('skip');
    const deadline = c.nowMs() + HOUR;
    expect(await settlesWithin(c.sleep(HOUR), 200)).to.equal(true);
    expect(c.nowMs()).to.be.at.least(deadline).and.below(deadline + 250);
    expect(c.skippedMs).to.be.above(HOUR - 1000);
    expect(c.jumpCount).to.equal(1);
  });

  it('skip: timers fire earliest first, equal deadlines in the order they were set, one jump each', async () => {
    const c = make('skip');
    const order: string[] = [];
    const at = c.nowMs();
    await Promise.all([
      c.sleepUntil(at + 3 * HOUR).then(() => order.push('3h')),
      c.sleepUntil(at + HOUR).then(() => order.push('1h-a')),
      c.sleepUntil(at + HOUR).then(() => order.push('1h-b')),
      c.sleepUntil(at + 2 * HOUR).then(() => order.push('2h')),
    ]);
    expect(order).to.deep.equal(['1h-a', '1h-b', '2h', '3h']);
    expect(c.jumpCount).to.equal(3);
  });

  it('skip: work keeps the clock at the factor, except while that work sleeps on the clock', async () => {
    const c = make('skip');
    const sleeper = c.sleep(HOUR);
    // work that computes (a wall wait stands for it) holds the clock back
    const working = c.busyDuring(() => wallSleep(200));
    expect(await settlesWithin(sleeper, 120)).to.equal(false);
    await working;
    expect(await settlesWithin(sleeper, 200)).to.equal(true);
    // work asleep on the clock is not working: it is jumped to
    const c2 = make('skip');
    expect(await settlesWithin(c2.busyDuring(async () => {
      await c2.sleep(HOUR);
      await c2.sleep(HOUR);
    }), 300)).to.equal(true);
    expect(c2.jumpCount).to.equal(2);
  });

  it('skip: a request in flight holds the clock; after it the quiet window does, then it jumps', async () => {
    const c = make('skip', 100);
    const done = c.busy();
    const sleeper = c.sleep(HOUR);
    expect(await settlesWithin(sleeper, 80)).to.equal(false);
    const released = Date.now();
    done();
    done(); // ending twice ends once
    await sleeper;
    expect(Date.now() - released, 'not before the quiet window has passed').to.be.at.least(90);
  });

  it('skip: a watch event sent (touch) starts the quiet window again', async () => {
    const c = make('skip', 80);
    c.touch();
    const sleeper = c.sleep(HOUR);
    const touching = setInterval(() => c.touch(), 20);
    expect(await settlesWithin(sleeper, 200)).to.equal(false);
    clearInterval(touching);
    expect(await settlesWithin(sleeper, 300)).to.equal(true);
  });

  it("skip: a component's request (quiet) ends without a window; resyncs that change nothing are braked, changes are not", async () => {
    const c = make('skip', 100);
    const done = c.busy({ quiet: true });
    const sleeper = c.sleep(HOUR);
    const released = Date.now();
    done();
    await sleeper;
    expect(Date.now() - released, 'no quiet window after a quiet end').to.be.below(60);

    // a jump, then work that asked the API and changed nothing: the next jump waits for the window after the last one
    const ticks: number[] = [];
    const noChange = async (): Promise<void> => {
      for (let i = 0; i < 3; i++) {
        await c.sleep(HOUR);
        ticks.push(Date.now());
        c.noteOwnRequest();
      }
    };
    await noChange();
    expect(ticks[2]! - ticks[1]!, 'braked').to.be.at.least(90);
    expect(ticks[1]! - ticks[0]!, 'braked').to.be.at.least(90);

    // the same with a change after each request: no brake
    ticks.length = 0;
    for (let i = 0; i < 3; i++) {
      await c.sleep(HOUR);
      ticks.push(Date.now());
      c.noteOwnRequest();
      c.noteChange();
    }
    expect(ticks[2]! - ticks[0]!, 'a chain of changes jumps at once').to.be.below(60);
    // and work without requests (a poll of a cache) is never braked
    ticks.length = 0;
    for (let i = 0; i < 3; i++) {
      await c.sleep(HOUR);
      ticks.push(Date.now());
    }
    expect(ticks[2]! - ticks[0]!).to.be.below(60);
  });

  it('an aborted sleep rejects and is not jumped to; waitUntil ends on wake, deadline or abort and never rejects', async () => {
    const c = make('skip');
    const stop = new AbortController();
    const aborted = c.sleep(HOUR, stop.signal);
    stop.abort();
    await aborted.then(() => expect.fail('resolved'), (e) => expect(e).to.be.instanceOf(AbortedError));
    await wallSleep(60);
    expect(c.skippedMs, 'nothing left to jump to').to.equal(0);
    expect(() => c.sleep(1, stop.signal)).to.not.throw();
    await c.sleep(1, stop.signal).catch((e) => expect(e).to.be.instanceOf(AbortedError));

    let wake: () => void = () => undefined;
    const live = new AbortController();
    const waiting = c.waitUntil(undefined, live.signal, (w) => (wake = w));
    expect(await settlesWithin(waiting, 80), 'no deadline: no jump').to.equal(false);
    wake();
    await waiting;
    const t = c.nowMs();
    await c.waitUntil(t + HOUR, live.signal, () => undefined);
    expect(c.nowMs()).to.be.at.least(t + HOUR);
    const ending = c.waitUntil(undefined, live.signal, () => undefined);
    live.abort();
    await ending;
  });

  it('a poll never waits less than the wall floor worth of cluster time', async () => {
    let wall = 1_000_000;
    const c = new ClusterClock({ factor: 600, start: START, wallNow: () => wall, mode: 'skip' });
    made.push(c);
    wall += 1000;
    expect(c.timestamp()).to.equal('2022-09-12T00:10:00Z');
    expect(c.pollWallMs(1000)).to.equal(25);
    expect(() => new ClusterClock({ factor: 1, mode: 'fast' as never })).to.throw('clock must be one of fixed, skip, got "fast"');
  });

  it('the timer heap keeps deadline order over many adds and cancels', () => {
    const heap = new TimerHeap();
    const timers = [5, 1, 4, 1, 3, 9, 2].map((d, i) => heap.add(d, () => i));
    timers[2]!.cancelled = true; // the 4
    const out: number[] = [];
    for (let t = heap.takeDue(100); t; t = heap.takeDue(100)) out.push(t.deadline);
    expect(out).to.deep.equal([1, 1, 2, 3, 5, 9]);
    heap.add(10, () => undefined);
    expect(heap.takeDue(9)).to.equal(undefined);
    expect(heap.size).to.equal(1);
  });
});
