/**
 * The cluster clock. Cluster time runs `factor` times faster than wall time, so a ten-minute poll timeout of the real
 * MCO passes in one wall second at the default factor of 600. Every timestamp the reference writes, and every timer
 * its controllers set, is expressed in cluster time through this one object.
 *
 * Two modes:
 * - `fixed`: cluster time = start + wall time elapsed × factor, nothing else.
 * - `skip`: the same while something works; when nothing does, the clock jumps to the next timer's deadline, as a
 *   discrete-event simulator does. Most of an upgrade is waiting (a drain's grace, a reboot, a pull's back-off, the
 *   operator's sync timeout, the CVO's 40-minute wait), and a wait costs no wall time once nobody is busy.
 *
 * "Working" is what the clock is told: code run through `busyDuring` (a controller's sync, a daemon's update, a
 * kubelet's command) is busy except while it sleeps on this clock; `busy()` covers one API request in flight; `touch()`
 * marks activity (an answer or a watch event sent to a client outside the process: the suite, `oc`) after which the
 * clock stays at the factor for a quiet window, so that a client in the middle of a sequence of requests is not
 * overtaken by hours of cluster time between two of them. The cluster's own components need no window: their requests
 * are work while in flight, and each event on their watches is work until their informer has handled it (see
 * cluster-traffic.ts). Beyond the window the cluster may run ahead of an outside client, as a real one does while a
 * client thinks.
 *
 * A one-cluster-second poll would fire at 600 Hz at factor 600; `pollSleep` therefore never waits less than a
 * wall-clock floor's worth of cluster time, in both modes, so a poll loop costs a bounded amount of CPU.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { TimerHeap, type ClusterTimer } from './timer-heap.js';

export type ClockMode = 'fixed' | 'skip';
export const CLOCK_MODES: readonly ClockMode[] = ['fixed', 'skip'];
/**
 * The clock of a reference cluster unless asked otherwise, for `run`, `cluster up` and the clusters tests start in
 * process alike: waits cost no wall time. `fixed` is the one to ask for when durations must equal wall time × factor.
 */
export const DEFAULT_CLOCK: ClockMode = 'skip';
/** Cluster seconds per wall second unless --time-factor says otherwise: ten cluster minutes a wall second. */
export const DEFAULT_TIME_FACTOR = 600;

export interface ClockOptions {
  /** How many cluster milliseconds pass per wall millisecond. 1 is real time. */
  factor: number;
  /** `fixed` (default) or `skip` (jump over idle time). */
  mode?: ClockMode;
  /** Cluster time at the moment the clock is created. Default: wall now minus 30 days (see `defaultClusterStart`). */
  start?: Date;
  /** Shortest wall delay a poll may use, in ms. Default 25. */
  minPollWallMs?: number;
  /** Wall ms after the last activity before the clock may jump. Default 25. */
  quietWallMs?: number;
  /** Injected wall clock, for tests. */
  wallNow?: () => number;
}

/**
 * Why 30 days back: kubectl computes AGE/SINCE against the wall clock, and cluster time runs ahead of it. Starting a
 * month in the past keeps every timestamp in the past for the first 72 wall minutes at factor 600, so ages print as
 * durations instead of `<invalid>`, and the seeded objects look like a cluster installed a while ago.
 */
export function defaultClusterStart(wallNowMs: number): Date {
  return new Date(Math.floor(wallNowMs / 1000) * 1000 - 30 * 24 * 3600_000);
}

/** One piece of work run through `busyDuring`: busy unless every one of its sleeps is pending or it has finished. */
interface Work {
  sleeping: number;
  finished: boolean;
}

export class ClusterClock {
  readonly factor: number;
  readonly mode: ClockMode;
  readonly minPollWallMs: number;
  readonly quietWallMs: number;
  private readonly wallNow: () => number;
  private readonly wallStart: number;
  private readonly clusterStart: number;
  private skipped = 0;
  private jumps = 0;
  private readonly timers = new TimerHeap();
  private wallTimer?: NodeJS.Timeout;
  private wallTimerFor?: ClusterTimer;
  private busyCount = 0;
  private lastActivityWall = -Infinity;
  private checkQueued = false;
  private quietTimer?: NodeJS.Timeout;
  private stopped = false;
  /** Since the last jump: the cluster's own API requests, and the changes they made (see `noteOwnRequest`). */
  private requestsSinceJump = 0;
  private changesSinceJump = 0;
  private lastJumpWall = -Infinity;
  private readonly work = new AsyncLocalStorage<Work>();

  constructor(options: ClockOptions) {
    if (!(options.factor > 0) || !Number.isFinite(options.factor)) {
      throw new Error(`time factor must be a positive number, got ${options.factor}`);
    }
    const mode = options.mode ?? 'fixed';
    if (!CLOCK_MODES.includes(mode)) throw new Error(`clock must be one of ${CLOCK_MODES.join(', ')}, got "${String(mode)}"`);
    this.factor = options.factor;
    this.mode = mode;
    this.minPollWallMs = options.minPollWallMs ?? 25;
    this.quietWallMs = options.quietWallMs ?? 25;
    this.wallNow = options.wallNow ?? (() => performance.timeOrigin + performance.now());
    this.wallStart = this.wallNow();
    this.clusterStart = (options.start ?? defaultClusterStart(this.wallStart)).getTime();
    // for finding out why a cluster is slow: ten lines a wall second of what holds the clock back
    if (process.env.OCP_E2E_CLOCK_TRACE) setInterval(() => process.stderr.write(`${this.describe()}\n`), 100).unref();
  }

  /** The clock's state in one line: work in progress, timers, the next deadline, the quiet window, the jumps so far. */
  describe(): string {
    const next = this.timers.peek();
    const nextIn = next ? `${((next.deadline - this.nowMs()) / 1000).toFixed(1)}s` : 'none';
    return `clock ${this.mode}: busy=${this.busyCount} timers=${this.timers.size} next=${nextIn} lastActivity=${Math.round(this.wallNow() - this.lastActivityWall)}ms ago skipped=${Math.round(this.skipped / 1000)}s in ${this.jumps} jumps`;
  }

  /** Cluster time in ms since the epoch. */
  nowMs(): number {
    return this.clusterStart + (this.wallNow() - this.wallStart) * this.factor + this.skipped;
  }

  now(): Date {
    return new Date(this.nowMs());
  }

  /** RFC 3339 with second precision, the format Kubernetes uses for metav1.Time. */
  timestamp(): string {
    return rfc3339(this.nowMs());
  }

  /** Cluster ms jumped over so far, and how many jumps (0 in `fixed` mode). */
  get skippedMs(): number {
    return this.skipped;
  }

  get jumpCount(): number {
    return this.jumps;
  }

  /** Wall milliseconds that `clusterMs` of cluster time take at the factor (an upper bound in `skip` mode). */
  toWallMs(clusterMs: number): number {
    return clusterMs / this.factor;
  }

  /** Wall delay for a poll of `clusterMs` at the factor, never below the floor. */
  pollWallMs(clusterMs: number): number {
    return Math.max(this.toWallMs(clusterMs), this.minPollWallMs);
  }

  /** Resolve after `clusterMs` of cluster time (no floor: one-off waits such as a reboot). Rejects when aborted. */
  sleep(clusterMs: number, signal?: AbortSignal): Promise<void> {
    return this.sleepUntil(this.nowMs() + Math.max(0, clusterMs), signal);
  }

  /** Resolve after one poll interval of `clusterMs`, never less than the wall floor's worth of cluster time. */
  pollSleep(clusterMs: number, signal?: AbortSignal): Promise<void> {
    return this.sleep(this.pollWallMs(clusterMs) * this.factor, signal);
  }

  /** Resolve at cluster time `deadlineMs`. Rejects when aborted. */
  sleepUntil(deadlineMs: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(new AbortedError());
      const end = this.startTimer(deadlineMs, () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      });
      const onAbort = (): void => {
        end();
        reject(new AbortedError());
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /**
   * Wait until `wake` is called, cluster time reaches `deadlineMs` (none: no deadline) or `signal` aborts, whichever
   * comes first; never rejects. The controllers' loops sleep between syncs with it.
   */
  waitUntil(deadlineMs: number | undefined, signal: AbortSignal, register: (wake: () => void) => void): Promise<void> {
    return new Promise((resolve) => {
      let end = (): void => undefined;
      const done = (): void => {
        end();
        signal.removeEventListener('abort', done);
        register(() => undefined);
        resolve();
      };
      if (deadlineMs !== undefined) end = this.startTimer(deadlineMs, done);
      signal.addEventListener('abort', done, { once: true });
      register(done);
    });
  }

  /**
   * Runs `body` as work: the clock does not jump while it runs, except while it sleeps on this clock. What `body`
   * starts asynchronously belongs to it too (the context follows promises and callbacks).
   */
  async busyDuring<T>(body: () => Promise<T>): Promise<T> {
    const work: Work = { sleeping: 0, finished: false };
    this.addBusy(1);
    try {
      return await this.work.run(work, body);
    } finally {
      work.finished = true;
      if (work.sleeping === 0) this.addBusy(-1);
    }
  }

  /**
   * Runs `body` as belonging to no work: what it starts that lives on (a process's loops, started during a restart
   * that is work) must not count its sleeps against the work that happened to start it.
   */
  outsideWork<T>(body: () => T): T {
    return this.work.exit(body);
  }

  /**
   * Marks one unit of work (an API request in flight); call the returned function, once, when it ends. Its end is
   * activity (a quiet window follows) unless `quiet`: a client outside the process may act on an answer a little
   * later, while the cluster's own components go on at once, as work the clock already counts.
   */
  busy(options: { quiet?: boolean } = {}): () => void {
    this.addBusy(1);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      if (!options.quiet) this.touch();
      this.addBusy(-1);
    };
  }

  /** Something happened that may lead to work soon (a watch event sent): no jump for the quiet window. */
  touch(): void {
    this.lastActivityWall = this.wallNow();
    this.queueCheck();
  }

  /**
   * The cluster's own components made an API request, and (`noteChange`) the store changed. Between two jumps, work
   * that made requests and changed nothing is a resync that found everything as it was: the clock then waits the
   * quiet window after the last jump before the next one. Without that brake an idle cluster whose suite is busy
   * elsewhere (building an image, reading nodes) races from resync to resync at full speed: about 2,000 jumps and
   * 2.5 s of CPU in one spec-1 run, taken from the suite on the same cores. Work that changed something (a rollout's
   * next node) and work without requests (a poll of a cache) jump at once.
   */
  noteOwnRequest(): void {
    this.requestsSinceJump++;
  }

  noteChange(): void {
    this.changesSinceJump++;
  }

  /** Stops the clock's own wall timers (pending sleeps end with their signals). */
  stop(): void {
    this.stopped = true;
    if (this.wallTimer) clearTimeout(this.wallTimer);
    if (this.quietTimer) clearTimeout(this.quietTimer);
    this.wallTimer = this.quietTimer = this.wallTimerFor = undefined;
  }

  /** Sets a timer at `deadlineMs`; the sleeping work is not busy until it fires. Returns a cancel function. */
  private startTimer(deadlineMs: number, fire: () => void): () => void {
    const work = this.work.getStore();
    let pending = true;
    const settle = (): void => {
      if (!pending) return;
      pending = false;
      if (work && --work.sleeping === 0 && !work.finished) this.addBusy(1);
    };
    if (work && work.sleeping++ === 0 && !work.finished) this.addBusy(-1);
    const timer = this.timers.add(deadlineMs, () => {
      settle();
      fire();
    });
    this.armWallTimer();
    this.queueCheck();
    return () => {
      if (!pending) return;
      timer.cancelled = true;
      settle();
      this.armWallTimer();
    };
  }

  private addBusy(delta: number): void {
    this.busyCount += delta;
    if (this.busyCount === 0) this.queueCheck();
  }

  /** Fires every timer that is due, earliest first, then arms the wall timer for the next one. */
  private fireDue(): void {
    for (let t = this.timers.takeDue(this.nowMs()); t; t = this.timers.takeDue(this.nowMs())) t.fire();
    this.armWallTimer();
    this.queueCheck(); // a woken sleeper that starts no work and sets no timer would otherwise leave the clock waiting
  }

  /** At the factor, the earliest timer fires after its wall equivalent. */
  private armWallTimer(): void {
    if (this.stopped) return;
    const next = this.timers.peek();
    if (next === this.wallTimerFor && (next === undefined || this.wallTimer)) return;
    if (this.wallTimer) clearTimeout(this.wallTimer);
    this.wallTimer = this.wallTimerFor = undefined;
    if (!next) return;
    this.wallTimerFor = next;
    this.wallTimer = setTimeout(() => {
      this.wallTimer = this.wallTimerFor = undefined;
      this.fireDue();
    }, Math.max(0, Math.ceil((next.deadline - this.nowMs()) / this.factor)));
  }

  /** In `skip` mode, looks (once the current turn of the event loop is over) whether the clock may jump. */
  private queueCheck(): void {
    if (this.mode !== 'skip' || this.checkQueued || this.stopped) return;
    this.checkQueued = true;
    setImmediate(() => {
      this.checkQueued = false;
      this.jumpIfIdle();
    });
  }

  private jumpIfIdle(): void {
    if (this.stopped || this.busyCount > 0) return; // looked at again when the last work ends
    const quietLeft = this.lastActivityWall + this.quietWallMs - this.wallNow();
    if (quietLeft > 0) return this.checkAgainIn(quietLeft);
    const next = this.timers.peek();
    if (!next) return;
    const gap = next.deadline - this.nowMs();
    if (gap > 0) {
      const brakeLeft = this.requestsSinceJump > 0 && this.changesSinceJump === 0 ? this.lastJumpWall + this.quietWallMs - this.wallNow() : 0;
      if (brakeLeft > 0) return this.checkAgainIn(brakeLeft);
      this.skipped += gap;
      this.jumps++;
      this.requestsSinceJump = this.changesSinceJump = 0;
      this.lastJumpWall = this.wallNow();
    }
    this.fireDue();
  }

  private checkAgainIn(wallMs: number): void {
    if (this.quietTimer) return;
    this.quietTimer = setTimeout(() => {
      this.quietTimer = undefined;
      this.queueCheck();
    }, Math.ceil(wallMs));
  }
}

export function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

export class AbortedError extends Error {
  constructor() {
    super('stopped');
    this.name = 'AbortedError';
  }
}

export function wallSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new AbortedError());
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, Math.max(0, ms));
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new AbortedError());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
