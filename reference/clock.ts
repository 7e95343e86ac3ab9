/**
 * The compressed cluster clock. Cluster time = start + wall time elapsed × factor, so a ten-minute poll timeout of the
 * real MCO passes in one wall second at the default factor of 600. Every timestamp the reference writes, and every
 * timer its controllers set, is expressed in cluster time through this one object.
 *
 * A one-cluster-second poll would fire at 600 Hz at factor 600; `pollInterval` therefore never goes below a wall-clock
 * floor so a poll loop costs a bounded amount of CPU whatever the factor.
 */
export interface ClockOptions {
  /** How many cluster milliseconds pass per wall millisecond. 1 is real time. */
  factor: number;
  /** Cluster time at the moment the clock is created. Default: wall now minus 30 days (see `defaultClusterStart`). */
  start?: Date;
  /** Shortest wall delay a poll may use, in ms. Default 25. */
  minPollWallMs?: number;
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

export class ClusterClock {
  readonly factor: number;
  readonly minPollWallMs: number;
  private readonly wallNow: () => number;
  private readonly wallStart: number;
  private readonly clusterStart: number;

  constructor(options: ClockOptions) {
    if (!(options.factor > 0) || !Number.isFinite(options.factor)) {
      throw new Error(`time factor must be a positive number, got ${options.factor}`);
    }
    this.factor = options.factor;
    this.minPollWallMs = options.minPollWallMs ?? 25;
    this.wallNow = options.wallNow ?? (() => performance.timeOrigin + performance.now());
    this.wallStart = this.wallNow();
    this.clusterStart = (options.start ?? defaultClusterStart(this.wallStart)).getTime();
  }

  /** Cluster time in ms since the epoch. */
  nowMs(): number {
    return this.clusterStart + (this.wallNow() - this.wallStart) * this.factor;
  }

  now(): Date {
    return new Date(this.nowMs());
  }

  /** RFC 3339 with second precision, the format Kubernetes uses for metav1.Time. */
  timestamp(): string {
    return rfc3339(this.nowMs());
  }

  /** Wall milliseconds that `clusterMs` of cluster time take. */
  toWallMs(clusterMs: number): number {
    return clusterMs / this.factor;
  }

  /** Wall delay for a poll of `clusterMs`, never below the floor. */
  pollWallMs(clusterMs: number): number {
    return Math.max(this.toWallMs(clusterMs), this.minPollWallMs);
  }

  /** Resolve after `clusterMs` of cluster time (no floor: one-off waits such as a reboot). Rejects when aborted. */
  sleep(clusterMs: number, signal?: AbortSignal): Promise<void> {
    return wallSleep(this.toWallMs(clusterMs), signal);
  }

  /** Resolve after one poll interval of `clusterMs`, with the wall-clock floor applied. */
  pollSleep(clusterMs: number, signal?: AbortSignal): Promise<void> {
    return wallSleep(this.pollWallMs(clusterMs), signal);
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

/**
 * Wait until `wake` is called, `wallMs` pass or `signal` aborts, whichever comes first. Used by the controllers'
 * loops to sleep between syncs without leaking a listener per wait.
 */
export function waitForWake(wallMs: number, signal: AbortSignal, register: (wake: () => void) => void): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      register(() => undefined);
      resolve();
    };
    const timer = setTimeout(done, Math.max(0, wallMs));
    signal.addEventListener('abort', done, { once: true });
    register(done);
  });
}
