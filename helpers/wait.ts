/**
 * Waiting for the cluster to reach a state. A wait re-judges its condition on every watched change (no poll loop),
 * shows a live progress line while it runs, and when the budget runs out it says what it last saw, what it wanted and
 * the last error, because "timed out" alone helps nobody.
 */
import type { ClusterSnapshot, ClusterWatcher } from './cluster-watcher.js';
import { clockOf, formatBudget, stopwatch, whileWaiting, type Stopwatch, type TargetCapabilities } from './capabilities.js';
import { maskSecrets } from './secrets.js';

export interface Judgement {
  done: boolean;
  /** One line for the live progress display. */
  progress: string;
  /** When set, the wait stops at once with this as the failure (the state will not come right by waiting). */
  failure?: string;
}

export interface WaitSpec {
  /** What is awaited, for messages: "pools master, worker updated". */
  what: string;
  /** The expected state, said the way a person checks it. */
  expected: string;
  judge: (snapshot: ClusterSnapshot) => Judgement;
  /** Longer description of the observed state for timeout messages (defaults to the progress line). */
  describe?: (snapshot: ClusterSnapshot) => string;
  /**
   * Wall ms at the target's factor; the wait ends when that much target time (budgetMs × factor) has passed on the
   * target's clock, which on a skipping reference clock is sooner in wall time.
   */
  budgetMs: number;
  caps: Pick<TargetCapabilities, 'timeFactor' | 'clock'>;
  /** Longest wall time without a line while nothing changes (default 10 s): a stuck wait must not look hung. */
  heartbeatMs?: number;
}

export const DEFAULT_HEARTBEAT_MS = 10_000;

/**
 * A wait that ends without the expected state is the cluster's verdict, not a broken test: `expected`/`actual` make
 * Allure file it as failed (not broken); `showDiff: false` keeps mocha from diffing two prose descriptions.
 */
export class WaitTimeoutError extends Error {
  readonly expected: string;
  readonly actual: string;
  readonly showDiff = false;
  constructor(spec: WaitSpec, observed: string, lastError: string | undefined, elapsed: Stopwatch) {
    super(
      maskSecrets(
        [
          `timed out after ${elapsed.format()} waiting for ${spec.what}`,
          `  expected: ${spec.expected}`,
          `  last observed: ${observed}`,
          `  last error: ${lastError ?? 'none'}`,
        ].join('\n'),
      ),
    );
    this.name = 'WaitTimeoutError';
    this.expected = spec.expected;
    this.actual = maskSecrets(observed);
  }
}

export class WaitFailedError extends Error {
  readonly expected: string;
  readonly actual: string;
  readonly showDiff = false;
  /** Why the state cannot come, in the judge's words. */
  readonly failure: string;
  constructor(spec: WaitSpec, failure: string, observed: string) {
    super(maskSecrets(`${spec.what} cannot happen: ${failure}\n  expected: ${spec.expected}\n  last observed: ${observed}`));
    this.name = 'WaitFailedError';
    this.failure = maskSecrets(failure);
    this.expected = spec.expected;
    this.actual = maskSecrets(observed);
  }
}

/**
 * Where a wait reports: the progress line (shown when it changes) and `note` for lines that must be shown whole,
 * whatever changed: what the wait waits for and its budget, and the heartbeat of a wait that sees no change.
 */
export type ProgressSink = ((line: string) => void) & { note?(line: string): void; end?(): void };

/**
 * The default progress sink: rewrites one line on a terminal; in a log (CI, a child process) prints a line only when
 * the text changes, at most once a second, so logs stay readable. `end()` settles the last line and forgets it, so
 * nothing stale is printed later (after the test's verdict).
 */
export function consoleProgress(stream: NodeJS.WriteStream = process.stderr): ProgressSink & { note(line: string): void; end(): void } {
  let last = '';
  let lastAt = 0;
  let pending: string | undefined;
  const tty = Boolean(stream.isTTY);
  const sink = ((line: string) => {
    if (line === last) return;
    const now = Date.now();
    if (tty) {
      stream.write(`\r\x1b[2K    … ${line}`);
      last = line;
      return;
    }
    if (now - lastAt < 1000) {
      pending = line;
      return;
    }
    stream.write(`    … ${line}\n`);
    last = line;
    lastAt = now;
    pending = undefined;
  }) as ProgressSink & { note(line: string): void; end(): void };
  sink.note = (line: string) => {
    stream.write(tty ? `\r\x1b[2K    ${line}\n` : `    ${line}\n`);
    if (tty) last = '';
  };
  sink.end = () => {
    if (tty && last) stream.write('\r\x1b[2K');
    else if (pending && pending !== last) stream.write(`    … ${pending}\n`);
    pending = undefined;
    last = '';
  };
  return sink;
}

/**
 * Resolves with the snapshot that satisfied the wait; rejects with WaitTimeoutError or WaitFailedError. The suite is
 * waiting on the target meanwhile: a reference cluster's skipping clock may jump over its idle time (whileWaiting).
 */
export function waitFor(watcher: ClusterWatcher, spec: WaitSpec, progress: ProgressSink = consoleProgress()): Promise<ClusterSnapshot> {
  return whileWaiting(spec.caps, () => waitUntilJudged(watcher, spec, progress));
}

function waitUntilJudged(watcher: ClusterWatcher, spec: WaitSpec, progress: ProgressSink): Promise<ClusterSnapshot> {
  // The budget starts at the target's time as read from the server (where it has one): the estimate lags a jump by
  // up to one read, and a reference cluster may have run far ahead while the suite was busy elsewhere (building,
  // between specs), which must not count against this wait. Until that read is back the budget is not judged.
  let elapsed = stopwatch(spec.caps);
  let started = !spec.caps.clock;
  const heartbeatMs = spec.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
  const budget = formatBudget(spec.budgetMs, spec.caps);
  const budgetTargetMs = spec.budgetMs * spec.caps.timeFactor;
  const say = (line: string) => (progress.note ? progress.note(line) : progress(line));
  say(`waiting for ${spec.what} (budget ${budget})`);
  let lastSaidAt = Date.now();
  return new Promise<ClusterSnapshot>((resolve, reject) => {
    let finished = false;
    let lastProgress = 'nothing observed yet';
    const finish = (error?: Error, snapshot?: ClusterSnapshot) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      clearInterval(ticker);
      watcher.offChange(onChange);
      progress.end?.();
      if (error) reject(error);
      else resolve(snapshot!);
    };
    const evaluate = () => {
      if (finished) return;
      const snapshot = watcher.snapshot();
      let judgement: Judgement;
      try {
        judgement = spec.judge(snapshot);
      } catch (error) {
        finish(error as Error);
        return;
      }
      const changed = judgement.progress !== lastProgress;
      lastProgress = judgement.progress;
      if (judgement.done) return finish(undefined, snapshot);
      if (judgement.failure) return finish(new WaitFailedError(spec, judgement.failure, spec.describe?.(snapshot) ?? judgement.progress));
      if (started && elapsed.targetMs() >= budgetTargetMs) return timeOut();
      progress(judgement.progress);
      const now = Date.now();
      if (changed) lastSaidAt = now;
      else if (now - lastSaidAt >= heartbeatMs) {
        say(`still waiting for ${spec.what}: ${judgement.progress} (${elapsed.format()} of ${budget})`);
        lastSaidAt = now;
      }
    };
    const onChange = () => evaluate();
    watcher.onChange(onChange);
    const timeOut = () => finish(new WaitTimeoutError(spec, spec.describe?.(watcher.snapshot()) ?? lastProgress, watcher.lastError, elapsed));
    // Waits are judged on changes; the ticker keeps the display honest, and the heartbeat going, when nothing changes,
    // and on a compressed clock looks often at the target's time, which may jump while nothing changes.
    const tickMs = Math.min(spec.caps.timeFactor > 1 ? 250 : 2000, Math.max(50, heartbeatMs / 2));
    const ticker = setInterval(evaluate, tickMs);
    // The wall budget: the target's time never runs slower than its factor, so this only fires if its clock stalls.
    const timer = setTimeout(timeOut, spec.budgetMs);
    if (!started) {
      void clockOf(spec.caps).readNow().then((reading) => {
        elapsed = stopwatch(spec.caps, reading);
        started = true;
        evaluate();
      });
    }
    evaluate();
  });
}
