/**
 * The pause before a controller's sync, shared by the work queue and the one-object sync loop. A sync runs in the next
 * turn of the event loop (after the watch events of the same read have all reached the cache), unless the same key
 * synced a moment ago: then it waits, after the end of that sync, as long as the sync took (at most `maxWindowMs`).
 * A key therefore syncs at most half the time however fast its events come: a burst of events (a 1,000-node rollout
 * sends thousands) is coalesced into few syncs, and a lone event, the usual case in a rollout's chain of one node after
 * another, costs no wall time. (A fixed pause before every sync, as before, put 10-25 ms of wall time on each link of
 * that chain: at 30 nodes about half of spec 1's wall time, bench/RESULTS.md.)
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { wallSleep } from '../clock.js';

/** Past this many keys, those whose pause has passed are dropped. */
const MAX_KEYS = 4096;

/** What the pause measures and waits with: the wall clock, or a test's own. */
export interface PauseClock {
  now(): number;
  /** Waits `ms`; an abort ends it at once (it may reject then). */
  sleep(ms: number, signal: AbortSignal): Promise<unknown>;
  /** Waits for the next turn of the event loop. */
  nextTurn(): Promise<unknown>;
}

const WALL: PauseClock = { now: () => performance.now(), sleep: wallSleep, nextTurn: () => nextTurn() };

export class SyncPause {
  /** When each key may sync again (the clock's ms). */
  private readonly nextAllowed = new Map<string, number>();

  constructor(
    private readonly maxWindowMs: number,
    private readonly clock: PauseClock = WALL,
  ) {}

  /**
   * Waits until `key` may sync (an abort ends the wait at once); call the returned function when the sync has ended:
   * how long it took sets the key's next pause.
   */
  async wait(key: string, signal: AbortSignal): Promise<() => void> {
    const pause = (this.nextAllowed.get(key) ?? 0) - this.clock.now();
    await (pause > 0 ? this.clock.sleep(pause, signal) : this.clock.nextTurn()).catch(() => undefined);
    const started = this.clock.now();
    return () => {
      const ended = this.clock.now();
      this.nextAllowed.set(key, ended + Math.min(ended - started, this.maxWindowMs));
      if (this.nextAllowed.size > MAX_KEYS) this.dropPassed(ended);
    };
  }

  /** A key whose pause has passed waits no more than an unknown one: dropping it keeps a churning queue's memory flat. */
  private dropPassed(now: number): void {
    for (const [key, at] of this.nextAllowed) if (at <= now) this.nextAllowed.delete(key);
  }
}
