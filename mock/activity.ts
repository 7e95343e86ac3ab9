/**
 * What the server tells whoever keeps its pace (the reference's `skip` clock, which jumps over idle time): each
 * request from its start to its answer, and each long-lived stream (watches, `logs -f`, exec and attach) from its
 * opening, through every write, to its end. The server only reports; what a request or a write means for the clock
 * (work, activity a client may act on, an event a component must still handle) is the listener's to decide, since
 * only it knows which clients are its own. Health and version probes are not reported: a client that asks the time
 * (see `Date` below) must not hold the clock back.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface RequestActivity {
  /** A request other than a stream begins; the returned function is called once, when it is answered or cut. */
  request(req: IncomingMessage): () => void;
  /** A stream opens; `wrote` is called for every write on it, `closed` once when it ends. */
  stream(req: IncomingMessage, url: URL): { wrote(): void; closed(): void };
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const PROBE_PATHS = new Set(['/version', '/healthz', '/readyz', '/livez']);

function isStreamingRequest(url: URL): boolean {
  const q = url.searchParams;
  if (['true', '1'].includes(q.get('watch') ?? '') || ['true', '1'].includes(q.get('follow') ?? '')) return true;
  return url.pathname.includes('/watch/') || /\/(exec|attach|portforward)$/.test(url.pathname);
}

/** Calls `fn` once, however many of the response's end events fire. */
function once(fn: () => void): () => void {
  let called = false;
  return () => {
    if (called) return;
    called = true;
    fn();
  };
}

/**
 * Wraps the API handler: reports activity, and stamps every answer's `Date` header with the server's clock (cluster
 * time on the reference; a client budgeting in cluster time reads it there, as it reads a real server's wall clock).
 */
export function withActivity(handler: Handler, now: () => Date, activity?: RequestActivity): Handler {
  return (req, res) => {
    res.setHeader('Date', now().toUTCString());
    if (!activity) return handler(req, res);
    const url = new URL(req.url ?? '/', 'http://server');
    if (PROBE_PATHS.has(url.pathname)) return handler(req, res);
    if (isStreamingRequest(url)) {
      const stream = activity.stream(req, url);
      const write = res.write.bind(res) as (...args: unknown[]) => boolean;
      res.write = ((...args: unknown[]) => {
        stream.wrote();
        return write(...args);
      }) as typeof res.write;
      const closed = once(() => stream.closed());
      res.once('finish', closed);
      res.once('close', closed);
      return handler(req, res);
    }
    const done = once(activity.request(req));
    res.once('finish', done);
    res.once('close', done);
    handler(req, res);
  };
}
