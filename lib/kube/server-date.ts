/**
 * What time the API server says it is: the `Date` header of its answer to `GET /version`. A real server stamps its
 * wall clock there; the reference stamps its cluster time (mock/activity.ts), which is how a client that budgets in
 * cluster time reads the reference's clock without knowing it is one. `/version` is the cheapest authenticated read
 * every server answers, and the reference does not count it as activity, so asking the time never holds its clock.
 */
import { Agent, request, type RequestOptions } from 'node:https';
import { Agent as HttpAgent, request as plainRequest } from 'node:http';
import type { KubeConfig } from '@kubernetes/client-node';

export interface ServerDate {
  /** The server's clock, epoch ms (the header has whole seconds: the true time is up to 1 s later). */
  serverMs: number;
  /** Our wall clock halfway through the round trip, epoch ms. */
  wallMs: number;
}

/**
 * A reader of the server's `Date` over one keep-alive connection (the credentials and CA are read from the kubeconfig
 * once). Each call rejects on a network error, a non-2xx answer or an answer without a readable `Date`.
 */
export async function serverDateReader(kubeConfig: KubeConfig, timeoutMs = 5_000): Promise<{ read(): Promise<ServerDate>; close(): void }> {
  const cluster = kubeConfig.getCurrentCluster();
  if (!cluster) throw new Error('the kubeconfig has no current cluster: set current-context');
  const url = new URL('/version', cluster.server);
  const options: RequestOptions = { method: 'GET', timeout: timeoutMs };
  await kubeConfig.applyToHTTPSOptions(options);
  const plain = url.protocol === 'http:';
  const agent = plain ? new HttpAgent({ keepAlive: true, maxSockets: 1 }) : new Agent({ ca: options.ca, cert: options.cert, key: options.key, pfx: options.pfx, passphrase: options.passphrase, rejectUnauthorized: options.rejectUnauthorized, servername: options.servername, keepAlive: true, maxSockets: 1 });
  const headers = { ...(options.headers as Record<string, string> | undefined), Accept: 'application/json' };
  const read = () =>
    new Promise<ServerDate>((resolve, reject) => {
      const sentAt = Date.now();
      const send = plain ? plainRequest : request;
      const req = send(url, { ...options, headers, agent }, (res) => {
        res.resume(); // the body (the version) is not needed
        const receivedAt = Date.now();
        const header = res.headers.date;
        const serverMs = header ? Date.parse(header) : Number.NaN;
        if ((res.statusCode ?? 0) < 200 || (res.statusCode ?? 0) >= 300) reject(new Error(`GET ${url.href} answered ${res.statusCode}`));
        else if (!Number.isFinite(serverMs)) reject(new Error(`GET ${url.href} answered without a readable Date header (${header ?? 'none'})`));
        else resolve({ serverMs, wallMs: Math.round((sentAt + receivedAt) / 2) });
      });
      req.on('timeout', () => req.destroy(new Error(`GET ${url.href} did not answer within ${timeoutMs} ms`)));
      req.on('error', reject);
      req.end();
    });
  return { read, close: () => agent.destroy() };
}
