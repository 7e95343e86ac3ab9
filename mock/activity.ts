/**
 * What the server tells a clock that jumps over idle time (the reference's `skip` clock): a request in flight is work,
 * and a request answered or a watch event sent is activity after which a client may act. Long-lived streams (watches,
 * `logs -f`, exec and attach) are activity each time they send, never work: a client that only watches is waiting.
 * Health and version probes are neither: a client that asks the time (see `Date` below) must not hold the clock back.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface RequestActivity {
  /** One unit of work begins; the returned function ends it. */
  busy(): () => void;
  touch(): void;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const PROBE_PATHS = new Set(['/version', '/healthz', '/readyz', '/livez']);

function isStreamingRequest(url: URL): boolean {
  const q = url.searchParams;
  if (['true', '1'].includes(q.get('watch') ?? '') || ['true', '1'].includes(q.get('follow') ?? '')) return true;
  return url.pathname.includes('/watch/') || /\/(exec|attach|portforward)$/.test(url.pathname);
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
      activity.touch();
      const write = res.write.bind(res) as (...args: unknown[]) => boolean;
      res.write = ((...args: unknown[]) => {
        activity.touch();
        return write(...args);
      }) as typeof res.write;
      return handler(req, res);
    }
    const done = activity.busy();
    res.once('finish', done);
    res.once('close', done);
    handler(req, res);
  };
}
