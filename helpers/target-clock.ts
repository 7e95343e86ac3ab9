/**
 * The target's time, as the suite budgets and reports in it. On a real cluster that is the wall clock. On the reference
 * it is cluster time, which runs `timeFactor` times faster than the wall while the cluster works and, with its
 * `skip` clock, jumps over idle stretches (a drain's grace, a reboot, the CVO's wait) in no wall time at all. The suite
 * cannot compute that from the factor: it reads it from the server, as the `Date` of `GET /version` (the reference
 * stamps cluster time there), a few times a wall second, and between two reads counts on at the factor (the slowest
 * the cluster clock ever runs). So the estimate is never ahead of the cluster, and at most one read behind its jumps.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { ClientWork } from '../lib/kube/client-work.js';
import { serverDateReader, type ServerDate } from '../lib/kube/server-date.js';

export interface TargetClock {
  /** The target's time now, epoch ms. */
  nowMs(): number;
  /**
   * The target's time at a recent wall moment (epoch ms), as nowMs() would have said then: one reading of the wall
   * clock for both, where nowMs() and a separate Date.now() may fall on either side of a millisecond (600 cluster ms
   * apart at the reference's factor).
   */
  atWallMs(wallMs: number): number;
  /**
   * The target's time now, asked of the target at once rather than estimated from the last read, with the wall moment
   * it stands for (epoch ms both): for a moment that must not lag the clock's jumps, such as the end of a span the suite
   * judges. Where the target cannot be asked (or the read fails) it is the estimate.
   */
  readNow(): Promise<{ targetMs: number; wallMs: number }>;
  /** Target ms per wall ms at the least (1 on a real cluster). */
  readonly factor: number;
  /**
   * Runs `body` as the suite's own work (building, reading, judging): a target whose clock skips idle time (the
   * reference's `skip` clock) runs at its factor meanwhile instead of jumping ahead of a suite that is not waiting.
   * Absent where the target cannot be told (a real cluster, whose clock is the wall's anyway).
   */
  workingDuring?<T>(body: () => Promise<T>): Promise<T>;
  /** Runs `body` as a wait on the target, inside work: the target's clock may skip its idle time meanwhile. */
  waitingDuring?<T>(body: () => Promise<T>): Promise<T>;
  /** Stops reading the server (idempotent). */
  stop(): void;
}

/** How often the server is asked (wall ms): a jump is seen within one of these. */
const SERVER_CLOCK_READ_MS = 200;

/**
 * Cluster time from the server's `Date`. `read` is one read of the server (tests give their own); a failed read keeps
 * the estimate counting on at the factor and is retried on the next tick.
 */
export class ServerTargetClock implements TargetClock {
  private base: ServerDate;
  private readonly timer: NodeJS.Timeout;
  private reading = false;
  private stopped = false;
  /** The last read's error, for a wait that wants to say why its clock looks slow. */
  lastError?: string;

  constructor(
    readonly factor: number,
    first: ServerDate,
    private readonly read: () => Promise<ServerDate>,
    private readonly onStop: () => void = () => {},
    readMs = SERVER_CLOCK_READ_MS,
    /** How the suite tells the target it works or waits (the reference's client-work path); none: it is not told. */
    private readonly work?: ClientWork,
  ) {
    this.base = first;
    this.timer = setInterval(() => void this.refresh(), readMs);
    this.timer.unref(); // asking the time never keeps a finished run alive
  }

  /**
   * A clock reading `kubeConfig`'s server. The first read is tried a few times (a server that drops the odd request
   * must not fail a run on its first look at the time); it rejects when none succeeds, with the last read's error.
   */
  static async start(kubeConfig: KubeConfig, factor: number, options: { attempts?: number; clientWorkPath?: string } = {}): Promise<ServerTargetClock> {
    const attempts = options.attempts ?? 6;
    const reader = await serverDateReader(kubeConfig);
    const work = options.clientWorkPath ? await ClientWork.forServer(kubeConfig, options.clientWorkPath) : undefined;
    const close = (): void => {
      reader.close();
      work?.close();
    };
    let lastError: unknown;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      try {
        return new ServerTargetClock(factor, await reader.read(), reader.read, close, SERVER_CLOCK_READ_MS, work);
      } catch (error) {
        lastError = error;
        if (attempt < attempts) await new Promise((r) => setTimeout(r, 100 * 2 ** (attempt - 1)));
      }
    }
    close();
    throw new Error(`the cluster did not tell its time after ${attempts} tries: ${(lastError as Error).message}`);
  }

  nowMs(): number {
    return this.atWallMs(Date.now());
  }

  atWallMs(wallMs: number): number {
    return this.base.serverMs + (wallMs - this.base.wallMs) * this.factor;
  }

  workingDuring<T>(body: () => Promise<T>): Promise<T> {
    return this.work && !this.stopped ? this.work.workingDuring(body) : body();
  }

  waitingDuring<T>(body: () => Promise<T>): Promise<T> {
    return this.work && !this.stopped ? this.work.waitingDuring(body) : body();
  }

  private async refresh(): Promise<void> {
    if (this.reading || this.stopped) return;
    this.reading = true;
    try {
      this.take(await this.read());
      this.lastError = undefined;
    } catch (error) {
      this.lastError = (error as Error).message;
    } finally {
      this.reading = false;
    }
  }

  /** A read's sample, kept when it is ahead of the estimate; returns the time at the sample's wall moment. */
  private take(sample: ServerDate): number {
    // The header has whole seconds and the estimate counts at the slowest rate: keep whichever is later, so the
    // clock never runs backwards and a jump shows as soon as the server has made it.
    const estimate = this.atWallMs(sample.wallMs);
    if (sample.serverMs > estimate) this.base = sample;
    return Math.max(sample.serverMs, estimate);
  }

  async readNow(): Promise<{ targetMs: number; wallMs: number }> {
    if (!this.stopped) {
      try {
        const sample = await this.read();
        return { targetMs: this.take(sample), wallMs: sample.wallMs };
      } catch (error) {
        this.lastError = (error as Error).message;
      }
    }
    const wallMs = Date.now();
    return { targetMs: this.atWallMs(wallMs), wallMs };
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.timer);
    this.onStop();
  }
}
