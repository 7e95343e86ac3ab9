/**
 * A registry with per-user rights, which the distribution registry cannot be (htpasswd lets every user push): a
 * loopback HTTP proxy in front of an open test registry that wants Basic credentials, lets read-only users GET and
 * HEAD, and refuses them every write, as a pull-only robot account of quay.io is refused. The Host header is passed
 * on, so the registry's upload locations name the proxy.
 */
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProxyUser {
  name: string;
  password: string;
  mayPush: boolean;
}

export interface AuthProxy {
  /** `127.0.0.1:PORT` */
  address: string;
  /** Method, path and user of each request that was let through or refused, for the test to read. */
  log: { method: string; path: string; user?: string; status: number }[];
  stop(): Promise<void>;
}

function refuse(res: ServerResponse, status: 401 | 403): void {
  const code = status === 401 ? 'UNAUTHORIZED' : 'DENIED';
  const message = status === 401 ? 'authentication required' : 'requested access to the resource is denied';
  res.writeHead(status, { 'Content-Type': 'application/json', ...(status === 401 ? { 'WWW-Authenticate': 'Basic realm="ocp-e2e test registry"' } : {}) });
  res.end(JSON.stringify({ errors: [{ code, message, detail: null }] }));
}

function userOf(req: IncomingMessage, users: ProxyUser[]): ProxyUser | undefined {
  const header = req.headers.authorization ?? '';
  if (!header.startsWith('Basic ')) return undefined;
  const decoded = Buffer.from(header.slice('Basic '.length), 'base64').toString('utf8');
  return users.find((u) => `${u.name}:${u.password}` === decoded);
}

export async function startAuthProxy(upstream: string, users: ProxyUser[]): Promise<AuthProxy> {
  const [host, port] = upstream.split(':');
  const log: AuthProxy['log'] = [];
  const server = createServer((req, res) => {
    const user = userOf(req, users);
    const writes = !['GET', 'HEAD'].includes(req.method ?? 'GET');
    const entry = { method: req.method ?? '', path: req.url ?? '', user: user?.name, status: 0 };
    log.push(entry);
    if (!user) return refuse(res, (entry.status = 401));
    if (writes && !user.mayPush) return refuse(res, (entry.status = 403));
    const headers = { ...req.headers };
    delete headers.authorization;
    const forward = request({ host, port: Number(port), method: req.method, path: req.url, headers }, (answer) => {
      entry.status = answer.statusCode ?? 0;
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', (error) => {
      entry.status = 502;
      res.writeHead(502).end(String(error));
    });
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    address,
    log,
    stop: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
