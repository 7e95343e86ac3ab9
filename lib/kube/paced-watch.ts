/**
 * The watch an informer hands to client-node's ListWatch. It keeps ListWatch from spinning and from going blind:
 * a stream the server closes right after it opened counts as a failure and is reopened only after a backoff; after too
 * many failures in a row the informer falls back to polling, which this watch does by answering "410 Gone" after the
 * poll interval, so ListWatch re-lists (and reports the differences as changes) instead of watching. A stream that
 * ends on the server's "410 Gone" event (too old a resourceVersion, as after an API server restart) is no failure:
 * ListWatch re-lists at once, as client-go's reflector does.
 */
import { Watch, type KubeConfig } from '@kubernetes/client-node';

/** A stream shorter than this that ends without an error is a failure too (a proxy or server that cuts watches). */
const SHORT_STREAM_MS = 1000;

/** What ListWatch takes as "history compacted, re-list": the cue for one poll. */
const GONE = Object.assign(new Error('poll: re-list'), { statusCode: 410 });

export interface WatchPacing {
  /** True once the informer polls instead of watching. */
  polling(): boolean;
  pollIntervalMs: number;
  /** A stream failed or was cut at once; returns the wait before ListWatch may reopen it. */
  failed(error: unknown): number;
  /** A stream delivered an event or stayed open: the failure count starts again. */
  healthy(): void;
}

/**
 * For a server in this same process that keeps its clock from jumping while a watch's events are unhandled (the
 * reference cluster's skipping clock): each stream carries an id in the query parameter `param`, and every event the
 * informer has handled (its handlers have run) is reported by that id.
 */
export interface WatchReceipts {
  param: string;
  /** A new stream's id. */
  open(): string;
  handled(stream: string): void;
  /**
   * The informer has no open stream from now until the returned function is called (once): between a stream's end
   * and the next one's opening (a backoff, a re-list, a poll interval) it sees no change. A server whose clock skips
   * idle time must not take that for a client waiting on it: after an API server restart every informer of the
   * reference was backing off at once, the skipping clock jumped hours meanwhile, and nodes finished updates that no
   * controller saw (issue 46).
   */
  unwatched?(): () => void;
}

type WatchCallback = (type: string, object: unknown, raw: unknown) => void;
type DoneCallback = (error: unknown) => void;

function abortedController(): AbortController {
  const controller = new AbortController();
  controller.abort();
  return controller;
}

export class PacedWatch extends Watch {
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly streams = new Set<AbortController>();
  private cancelled = false;
  /** Set while no stream is open since one ended (see WatchReceipts.unwatched); undefined while watching. */
  private watchedAgain?: () => void;

  constructor(
    kubeConfig: KubeConfig,
    private readonly pacing: WatchPacing,
    private readonly receipts?: WatchReceipts,
  ) {
    super(kubeConfig);
  }

  override async watch(path: string, queryParams: Record<string, string | number | boolean | undefined>, callback: WatchCallback, done: DoneCallback): Promise<AbortController> {
    // ListWatch checks whether it was stopped before it lists, not after: a list that ends after stop() must not
    // open a stream that nobody will close (it would keep the process alive).
    if (this.cancelled) return abortedController();
    if (this.pacing.polling()) return this.later(this.pacing.pollIntervalMs, () => done(GONE));
    const opened = Date.now();
    let healthy = false;
    const markHealthy = () => {
      if (!healthy) this.pacing.healthy();
      healthy = true;
    };
    const lasted = setTimeout(markHealthy, SHORT_STREAM_MS);
    lasted.unref();
    // The server's answer to too old a resourceVersion: an ERROR event with 410, then the end of the stream.
    let expired = false;
    const receipt = this.receipts?.open();
    const params = receipt === undefined ? queryParams : { ...queryParams, [this.receipts!.param]: receipt };
    const stream = await super.watch(
      path,
      params,
      (type, object, raw) => {
        try {
          if (type !== 'ERROR') markHealthy();
          else if ((object as { code?: number } | null)?.code === 410) expired = true;
          callback(type, object, raw);
        } finally {
          if (receipt !== undefined) this.receipts!.handled(receipt);
        }
      },
      (error: unknown) => {
        clearTimeout(lasted);
        this.unwatched();
        const gone = expired || (error as { statusCode?: number; code?: number } | null)?.statusCode === 410;
        if (error && !gone) return done(error); // ListWatch reports it; the informer restarts after a backoff
        // expired: ListWatch has dropped its resourceVersion on the event and re-lists now; a backoff would only
        // count a normal answer as a failure (three at once after an API server restart, two short of polling)
        if (healthy || gone || Date.now() - opened >= SHORT_STREAM_MS) return done(expired ? null : error);
        const wait = this.pacing.failed(new Error('the server closed the watch right after it opened'));
        this.later(wait, () => done(null));
      },
    );
    if (this.cancelled) stream.abort();
    else if (!stream.signal.aborted) {
      this.streams.add(stream);
      stream.signal.addEventListener('abort', () => this.streams.delete(stream));
      this.watching();
    }
    return stream;
  }

  /** A stream ended (or never opened): the informer is blind until the next one opens. */
  private unwatched(): void {
    if (this.cancelled || this.watchedAgain || !this.receipts?.unwatched) return;
    this.watchedAgain = this.receipts.unwatched();
  }

  private watching(): void {
    const release = this.watchedAgain;
    this.watchedAgain = undefined;
    release?.();
  }

  /** Calls `fn` after `ms`; the returned controller (what ListWatch aborts on stop) cancels it. */
  private later(ms: number, fn: () => void): AbortController {
    const controller = new AbortController();
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (!controller.signal.aborted) fn();
    }, ms);
    timer.unref();
    this.timers.add(timer);
    controller.signal.addEventListener('abort', () => {
      clearTimeout(timer);
      this.timers.delete(timer);
    });
    return controller;
  }

  /** Closes every open stream and drops every pending reopen or poll, for good. */
  cancel(): void {
    this.cancelled = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const s of this.streams) s.abort();
    // a stopped informer is not waiting for anything: it must not hold the server's clock
    this.watching();
  }

  /** Lets an informer that was stopped start again. */
  resume(): void {
    this.cancelled = false;
  }
}
