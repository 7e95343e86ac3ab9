/**
 * What the reliability tests share: a seeded random generator (so a failing run can be replayed), one raw HTTP(S)
 * request with a bounded wait, and the check that an error answer is a proper Kubernetes `Status`.
 */
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

/** mulberry32: small, fast and good enough to drive fuzzing; the same seed gives the same sequence. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Target {
  url: string;
  token: string;
  caPem: string;
}

export interface RawRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: Buffer | string;
  /** Send no Authorization header (true) or this token instead of the server's. */
  anonymous?: boolean;
  token?: string;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** A keep-alive agent for the target's scheme, so thousands of requests do not each pay a TLS handshake. */
export function agentFor(target: Target, maxSockets = 16): HttpAgent {
  return target.url.startsWith('https')
    ? new HttpsAgent({ keepAlive: true, maxSockets, ca: target.caPem || undefined })
    : new HttpAgent({ keepAlive: true, maxSockets });
}

/**
 * One request; resolves with status, headers and body text. A watch that answers 200 is read until `streamMs`
 * and then closed by us (the body so far is returned). Rejects on a network error or after `timeoutMs`.
 */
export function send(target: Target, agent: HttpAgent, req: RawRequest, opts: { timeoutMs?: number; streamMs?: number } = {}): Promise<RawResponse> {
  const doRequest = target.url.startsWith('https') ? httpsRequest : httpRequest;
  const headers: Record<string, string> = { Accept: 'application/json', ...(req.headers ?? {}) };
  if (!req.anonymous) headers.Authorization = `Bearer ${req.token ?? target.token}`;
  if (req.body !== undefined) headers['Content-Length'] = String(typeof req.body === 'string' ? Buffer.byteLength(req.body) : req.body.length);
  const base = new URL(target.url);
  return new Promise((resolve, reject) => {
    // The path goes out as given (new URL() would read "//api" as a host name).
    const r = doRequest({ hostname: base.hostname.replace(/^\[|\]$/g, ''), port: base.port, path: req.path, method: req.method, headers, agent, ca: target.caPem || undefined }, (res) => {
      const chunks: Buffer[] = [];
      let streamTimer: NodeJS.Timeout | undefined;
      const done = () => {
        if (streamTimer) clearTimeout(streamTimer);
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks as unknown as Uint8Array[]).toString('utf8') });
      };
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', done);
      res.on('error', () => done());
      if (res.statusCode === 200 && /[?&]watch=(1|true)/.test(req.path)) {
        streamTimer = setTimeout(() => { res.destroy(); done(); }, opts.streamMs ?? 50);
      }
    });
    const timer = setTimeout(() => { r.destroy(new Error(`no answer to ${req.method} ${req.path.slice(0, 120)} within ${opts.timeoutMs ?? 10_000} ms`)); }, opts.timeoutMs ?? 10_000);
    r.on('error', (e) => { clearTimeout(timer); reject(e); });
    if (req.body !== undefined) r.write(req.body);
    r.end();
  });
}

/** Why an error answer is not a proper Status (undefined when it is one). */
export function statusProblem(res: RawResponse): string | undefined {
  let body: any;
  try {
    body = JSON.parse(res.text);
  } catch {
    return `body is not JSON: ${JSON.stringify(res.text.slice(0, 200))}`;
  }
  if (body?.kind !== 'Status') return `kind is ${JSON.stringify(body?.kind)}, not "Status"`;
  if (body.apiVersion !== 'v1') return `apiVersion is ${JSON.stringify(body.apiVersion)}, not "v1"`;
  if (body.status !== 'Failure') return `status is ${JSON.stringify(body.status)}, not "Failure"`;
  if (typeof body.reason !== 'string' || !body.reason) return 'reason is missing';
  if (body.code !== res.status) return `code ${body.code} differs from the HTTP status ${res.status}`;
  if (typeof body.message !== 'string') return 'message is missing';
  return undefined;
}

/** The reason of a Status body, or "-" when there is none. */
export function reasonOf(res: RawResponse): string {
  try {
    return (JSON.parse(res.text) as { reason?: string }).reason ?? '-';
  } catch {
    return '-';
  }
}

export interface WatchStream {
  events: Array<{ type: string; object: any }>;
  /** Resolves when the server ends the stream (or it breaks). */
  ended: Promise<void>;
  close(): void;
}

/** Opens a watch and collects its events as they arrive, one JSON object per line. */
export function openWatchStream(target: Target, path: string): Promise<WatchStream> {
  const doRequest = target.url.startsWith('https') ? httpsRequest : httpRequest;
  const base = new URL(target.url);
  return new Promise((resolve, reject) => {
    const events: WatchStream['events'] = [];
    let endResolve!: () => void;
    const ended = new Promise<void>((r) => { endResolve = r; });
    const req = doRequest({ hostname: base.hostname, port: base.port, path, headers: { Authorization: `Bearer ${target.token}` }, ca: target.caPem || undefined }, (res) => {
      if (res.statusCode !== 200) { res.resume(); reject(new Error(`watch ${path} answered ${res.statusCode}`)); return; }
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          if (line.trim()) events.push(JSON.parse(line));
        }
      });
      res.on('end', () => endResolve());
      res.on('close', () => endResolve());
      resolve({ events, ended, close: () => req.destroy() });
    });
    req.on('error', (e) => { endResolve(); reject(e); });
    req.end();
  });
}
