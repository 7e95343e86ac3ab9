/**
 * What the API server's traffic means for the skipping clock (the server reports it: mock/activity.ts).
 *
 * The cluster's own components (the controllers, daemons and kubelets of this process) name themselves in a header on
 * every request. Their requests are work while in flight and nothing after: the component goes on at once, inside
 * work the clock already counts. Each event line sent on one of their watches is work until their informer says it
 * has handled it (the watch carries a stream id for that, `receipts`): handling an event queues the work it leads to
 * in the same turn of the event loop, so from the server's write to the queued sync the clock cannot jump, however
 * long the event takes to cross the socket on a loaded machine. A stream that ends drops what it still held; from its
 * end until the informer's next stream opens (a backoff, a re-list) the informer is blind, and that is work too.
 *
 * Requests of clients outside the process (the suite, `oc`, `kubectl`) are work while in flight and activity after:
 * the clock's quiet window keeps it from jumping between two requests of one client's sequence. Their exec, attach and
 * log streams are activity at every write; their watches only when they open (see `stream`).
 */
import type { IncomingMessage } from 'node:http';
import type { RequestActivity } from '../mock/index.js';
import type { WatchReceipts } from '../lib/kube/paced-watch.js';
import type { ClusterClock } from './clock.js';

/** The header the cluster's own clients send, naming the component. */
export const COMPONENT_HEADER = 'x-ocp-e2e-component';
/** The query parameter of a component's watch: the stream id its receipts name. */
const STREAM_PARAM = 'ocpE2eStream';

const nothing = (): void => undefined;

export class ClusterTraffic implements RequestActivity {
  /** Unhandled events per stream of a component, and the clock's hold while there are any. */
  private readonly unhandled = new Map<string, { count: number; release?: () => void }>();
  private streams = 0;

  /** What the cluster's own informers report handled events to. */
  readonly receipts: WatchReceipts = {
    param: STREAM_PARAM,
    open: () => String(++this.streams),
    handled: (stream) => this.handled(stream),
    // A component's informer between two streams (a backoff, a re-list) sees nothing: it is not waiting on the
    // cluster, so the clock must not jump then. After an API server restart every informer backed off at once and
    // the clock skipped hours of cluster time meanwhile (issue 46).
    unwatched: () => this.clock.busy({ quiet: true }),
  };

  constructor(private readonly clock: ClusterClock) {}

  /** The headers a component's client sends with every request. */
  clientHeaders(component: string): Record<string, string> {
    return { [COMPONENT_HEADER]: component };
  }

  /** Events sent on components' watches that their informers have not handled yet (what the tests look at). */
  get unhandledEvents(): number {
    let n = 0;
    for (const s of this.unhandled.values()) n += s.count;
    return n;
  }

  request(req: IncomingMessage): () => void {
    const own = isComponent(req);
    if (own) this.clock.noteOwnRequest();
    return this.clock.busy({ quiet: own });
  }

  stream(req: IncomingMessage, url: URL): { wrote(): void; closed(): void } {
    const id = isComponent(req) ? url.searchParams.get(STREAM_PARAM) : null;
    if (!id) {
      this.clock.touch();
      // An outside client's watch is a client waiting: what it does about an event is a request of its own, with its
      // window after. (A window after every event sent to the suite's watches put 25 ms on each step of a rollout:
      // 3.6 of 5.9 s of spec 1's prepare at 30 nodes.) Exec, attach and log streams carry a conversation (a command's
      // output, an interactive shell): each write may lead the client to answer.
      if (isWatch(url)) return { wrote: nothing, closed: nothing };
      return { wrote: () => this.clock.touch(), closed: nothing };
    }
    this.unhandled.set(id, { count: 0 });
    return { wrote: () => this.sent(id), closed: () => this.closed(id) };
  }

  private sent(id: string): void {
    const s = this.unhandled.get(id);
    if (!s) return;
    this.clock.noteChange(); // a watch event: the store changed (or a bookmark, rare enough not to matter)
    if (s.count++ === 0) s.release = this.clock.busy({ quiet: true });
  }

  private handled(id: string): void {
    const s = this.unhandled.get(id);
    if (!s || s.count === 0) return; // the stream ended before its client read this event
    if (--s.count === 0) {
      s.release?.();
      s.release = undefined;
    }
  }

  private closed(id: string): void {
    const s = this.unhandled.get(id);
    this.unhandled.delete(id);
    s?.release?.();
  }
}

function isWatch(url: URL): boolean {
  return ['true', '1'].includes(url.searchParams.get('watch') ?? '') || url.pathname.includes('/watch/');
}

function isComponent(req: IncomingMessage): boolean {
  return req.headers[COMPONENT_HEADER] !== undefined;
}
