/**
 * The loop of an operator whose whole state is one object (the CVO's ClusterVersion, the MCO's ClusterOperator): a
 * single key, so no queue. Events mark it dirty; a sync may ask to run again at a cluster time when a timeout expires
 * without any event (the CVO's 40-minute wait, the MCO's informer resync); a lone event syncs in the next turn, one
 * right after a sync waits as long as that sync took, at most the batch window (sync-pause.ts), so a burst is few
 * syncs; a failed sync runs again after a pause.
 */
import { wallSleep, type ClusterClock } from '../clock.js';
import { SyncPause } from './sync-pause.js';

const FAILURE_PAUSE_WALL_MS = 100;

export interface SyncLoopOptions {
  clock: ClusterClock;
  signal: AbortSignal;
  sync: () => Promise<void>;
  /** Longest pause between two syncs, to coalesce bursts (see sync-pause.ts). */
  batchWallMs: number;
  log: (line: string) => void;
  /** Return true for an error after which the sync should run again at once, without the failure pause. */
  retryAtOnce?: (error: unknown) => boolean;
}

export class SyncLoop {
  private dirty = true;
  private wake?: () => void;
  private loop?: Promise<void>;
  private wakeAtMs?: number;
  private readonly pause: SyncPause;

  constructor(private readonly options: SyncLoopOptions) {
    this.pause = new SyncPause(options.batchWallMs);
  }

  start(): void {
    this.loop = this.run();
  }

  /** Waits for the loop to end; the caller aborts the signal first. */
  async stop(): Promise<void> {
    this.wake?.();
    await this.loop;
  }

  /** Something changed: sync soon. */
  trigger(): void {
    this.dirty = true;
    this.wake?.();
  }

  /** Sync again at cluster time `ms` even if nothing changes; the earliest request wins until it runs. */
  syncAt(ms: number): void {
    if (this.wakeAtMs === undefined || ms < this.wakeAtMs) this.wakeAtMs = ms;
  }

  private async run(): Promise<void> {
    const { signal, clock } = this.options;
    while (!signal.aborted) {
      const due = this.wakeAtMs !== undefined && clock.nowMs() >= this.wakeAtMs;
      if (!this.dirty && !due) {
        // no event: sleep until the scheduled sync (a cluster timer the clock may jump to) or the next trigger
        await clock.waitUntil(this.wakeAtMs, signal, (wake) => (this.wake = wake));
        continue;
      }
      // from the batching pause to the end of the sync this loop is working: the cluster clock does not jump over it
      await clock.busyDuring(() => this.syncOnce()).catch(() => undefined);
    }
  }

  private async syncOnce(): Promise<void> {
    const { signal } = this.options;
    const synced = await this.pause.wait('', signal);
    if (signal.aborted) return;
    this.dirty = false;
    this.wakeAtMs = undefined;
    try {
      await this.options.sync().finally(synced);
    } catch (error) {
      if (signal.aborted) return;
      this.dirty = true;
      if (this.options.retryAtOnce?.(error)) return;
      this.options.log(`sync failed: ${(error as Error).message}`);
      await wallSleep(FAILURE_PAUSE_WALL_MS, signal).catch(() => undefined);
    }
  }
}
