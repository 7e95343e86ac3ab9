/**
 * A plain-HTTP proxy in front of a mock API server that counts every request and can answer in the server's place
 * with any Status (403, 502, 503, 429 with Retry-After...) or reset the connection, per request. The mock's own
 * fault injection draws at random; this one is scripted, so tests can count attempts and time the waits between.
 */
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';

export type ProxyAction = { status: number; reason: string; retryAfterSeconds?: number } | 'reset' | undefined;

export interface SeenRequest { method: string; path: string; at: number }

export interface FaultProxy {
  url: string;
  seen: SeenRequest[];
  /** Decides each request's fate; undefined forwards it to the server. */
  rule: (req: IncomingMessage, index: number) => ProxyAction;
  /** Requests whose path (without query) matches. */
  count(pathPattern: RegExp): number;
  kubeConfig(token: string): KubeConfig;
  close(): Promise<void>;
}

export async function startFaultProxy(upstream: string): Promise<FaultProxy> {
  const target = new URL(upstream);
  const sockets = new Set<Socket>();
  const proxy: FaultProxy = {
    url: '',
    seen: [],
    rule: () => undefined,
    count: (p) => proxy.seen.filter((s) => p.test(s.path)).length,
    kubeConfig(token: string) {
      const kc = new KubeConfig();
      kc.loadFromOptions({
        clusters: [{ name: 'proxy', server: proxy.url, skipTLSVerify: true }],
        users: [{ name: 'u', token }],
        contexts: [{ name: 'c', cluster: 'proxy', user: 'u' }],
        currentContext: 'c',
      });
      return kc;
    },
    close: () => new Promise<void>((resolve) => { server.close(() => resolve()); for (const s of sockets) s.destroy(); }),
  };
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const index = proxy.seen.push({ method: req.method ?? 'GET', path, at: Date.now() }) - 1;
    const action = proxy.rule(req, index);
    if (action === 'reset') { req.socket.destroy(); return; }
    if (action) {
      const body = JSON.stringify({
        kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: action.status, reason: action.reason,
        message: `${action.reason} (scripted by the test proxy)`,
        ...(action.retryAfterSeconds !== undefined ? { details: { retryAfterSeconds: action.retryAfterSeconds } } : {}),
      });
      const headers: Record<string, string> = { 'Content-Type': 'application/json' };
      if (action.retryAfterSeconds !== undefined) headers['Retry-After'] = String(action.retryAfterSeconds);
      res.writeHead(action.status, headers);
      res.end(body);
      return;
    }
    const up = httpRequest({ hostname: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers }, (upRes) => {
      res.writeHead(upRes.statusCode ?? 502, upRes.headers);
      upRes.pipe(res);
    });
    up.on('error', () => res.destroy());
    res.on('close', () => up.destroy());
    req.pipe(up);
  });
  server.on('connection', (s: Socket) => { sockets.add(s); s.on('close', () => sockets.delete(s)); });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return proxy;
}
