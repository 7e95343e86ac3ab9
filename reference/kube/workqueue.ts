/**
 * A work queue like client-go's: keys are coalesced, one key is never processed twice at the same time, a key added
 * while it is being processed runs once more afterwards, and a failed key is retried with backoff. A lone event runs its
 * key in the next turn; right after a run of the same key it waits as long as that run took, at most the batch window
 * (sync-pause.ts), so bursts of watch events become few syncs.
 */
import { wallSleep, type ClusterClock } from '../clock.js';
import { SyncPause } from './sync-pause.js';

export interface WorkQueueOptions {
  name: string;
  /** Longest pause between two runs of one key, to coalesce bursts (default 10; see sync-pause.ts). */
  batchWallMs?: number;
  log?: (line: string) => void;
  signal: AbortSignal;
  /** The cluster clock, told that a key being batched, synced or backed off is work (it does not jump over it). */
  clock?: ClusterClock;
}

export class WorkQueue {
  private readonly dirty = new Set<string>();
  private readonly running = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly idleWaiters: Array<() => void> = [];
  private active = 0;
  private started = false;
  private readonly pause: SyncPause;

  constructor(
    private readonly handler: (key: string) => Promise<void>,
    private readonly options: WorkQueueOptions,
  ) {
    this.pause = new SyncPause(options.batchWallMs ?? 10);
  }

  /**
   * Begins processing, with every key added so far: a controller starts its queue once its caches are synced, as
   * client-go's controllers wait for WaitForCacheSync, so that no sync sees a cache half filled (a node controller
   * that synced a pool before its node cache was listed wrote the pool's status with 0 machines, and the operator
   * took 0/0 for a pool rolled out).
   */
  start(): void {
    this.started = true;
    for (const key of this.dirty) if (!this.running.has(key)) void this.run(key);
  }

  add(key: string): void {
    if (this.options.signal.aborted) return;
    if (this.dirty.has(key)) return;
    this.dirty.add(key);
    if (this.started && !this.running.has(key)) void this.run(key);
  }

  private async run(key: string): Promise<void> {
    this.running.add(key);
    this.active++;
    const { clock } = this.options;
    try {
      await (clock ? clock.busyDuring(() => this.process(key)) : this.process(key));
    } finally {
      this.running.delete(key);
      this.active--;
      if (this.active === 0) for (const w of this.idleWaiters.splice(0)) w();
    }
  }

  private async process(key: string): Promise<void> {
    while (this.dirty.has(key) && !this.options.signal.aborted) {
      const synced = await this.pause.wait(key, this.options.signal);
      if (this.options.signal.aborted) break;
      this.dirty.delete(key);
      try {
        await this.handler(key).finally(synced);
        this.failures.delete(key);
      } catch (error) {
        if (this.options.signal.aborted) break;
        const n = (this.failures.get(key) ?? 0) + 1;
        this.failures.set(key, n);
        this.options.log?.(`${this.options.name}: sync of ${key} failed (attempt ${n}): ${(error as Error).message}`);
        await wallSleep(Math.min(20 * 2 ** n, 2000), this.options.signal).catch(() => undefined);
        this.dirty.add(key);
      }
    }
  }

  /** Resolves when nothing is queued or running (used by stop()). */
  idle(): Promise<void> {
    if (this.active === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }
}
