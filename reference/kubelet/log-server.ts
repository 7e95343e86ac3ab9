/**
 * The kubelets' read-only HTTP endpoint: `GET /containerLogs/{namespace}/{pod}/{container}` with the kubelet's query
 * parameters (follow, tailLines, sinceSeconds, sinceTime, timestamps, limitBytes, previous). The API server's
 * `pods/log` proxies here, to the port every simulated node publishes in `status.daemonEndpoints.kubeletEndpoint`.
 * Loopback only and plain HTTP: one process plays every node's kubelet, so one listener serves them all.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LogLine, LogSink } from '../workloads/logs.js';
import { attachExecServer } from './exec-server.js';
import type { Kubelets } from './kubelet.js';

export interface KubeletServer {
  port: number;
  close(): Promise<void>;
}

function fail(res: ServerResponse, code: number, message: string): void {
  res.writeHead(code, { 'Content-Type': 'text/plain; charset=utf-8' });
  res.end(message);
}

function rfc3339Nano(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000000Z');
}

export async function startKubeletServer(kubelets: Kubelets, now: () => number): Promise<KubeletServer> {
  const open = new Set<ServerResponse>();
  const server: Server = createServer((req, res) => serve(kubelets, now, req, res, open));
  const exec = attachExecServer(server, kubelets); // /exec/… upgrades on the same port
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of open) res.end();
        exec.close();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function serve(kubelets: Kubelets, now: () => number, req: IncomingMessage, res: ServerResponse, open: Set<ServerResponse>): void {
  const url = new URL(req.url ?? '/', 'http://kubelet');
  const m = /^\/containerLogs\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(url.pathname);
  if (req.method !== 'GET' || !m) return fail(res, 404, '404 page not found');
  const [namespace, podName, container] = m.slice(1).map(decodeURIComponent) as [string, string, string];
  const q = url.searchParams;
  const apiPod = kubelets.podFromApi(namespace, podName);
  if (!apiPod) return fail(res, 404, `pod "${podName}" does not exist`);
  const specs = [...(apiPod.spec?.initContainers ?? []), ...(apiPod.spec?.containers ?? [])];
  if (!specs.some((c) => c.name === container)) return fail(res, 404, `container "${container}" not found in pod "${podName}"`);
  if (q.get('previous') === 'true') return fail(res, 400, `previous terminated container "${container}" in pod "${podName}" not found`);
  const { sink } = kubelets.containerLog(namespace, podName, container);
  if (!sink) {
    const statuses = [...(apiPod.status?.initContainerStatuses ?? []), ...(apiPod.status?.containerStatuses ?? [])];
    const state = statuses.find((c) => c.name === container)?.state;
    const reason = state?.waiting?.reason ?? 'ContainerCreating';
    return fail(res, 400, `container "${container}" in pod "${podName}" is waiting to start: ${reason}`);
  }
  const tail = q.get('tailLines');
  const sinceSeconds = q.get('sinceSeconds');
  const sinceTime = q.get('sinceTime');
  const sinceMs = sinceTime ? Date.parse(sinceTime) : sinceSeconds ? now() - Number(sinceSeconds) * 1000 : undefined;
  const timestamps = q.get('timestamps') === 'true';
  const limit = q.get('limitBytes') ? Number(q.get('limitBytes')) : Infinity;
  let sent = 0;
  const format = (l: LogLine): string => `${timestamps ? `${rfc3339Nano(l.atMs)} ` : ''}${l.text}\n`;
  res.writeHead(200, { 'Content-Type': 'text/plain', 'Transfer-Encoding': 'chunked' });
  const write = (l: LogLine): boolean => {
    const text = format(l);
    if (sent + Buffer.byteLength(text) > limit) {
      res.write(Buffer.from(text).subarray(0, Math.max(0, limit - sent)));
      sent = limit;
      return false;
    }
    sent += Buffer.byteLength(text);
    res.write(text);
    return true;
  };
  for (const line of sink.read({ tailLines: tail !== null && tail !== '' ? Number(tail) : undefined, sinceMs })) {
    if (!write(line)) return void res.end();
  }
  if (q.get('follow') !== 'true') return void res.end();
  follow(sink, res, write, open);
}

function follow(sink: LogSink, res: ServerResponse, write: (l: LogLine) => boolean, open: Set<ServerResponse>): void {
  open.add(res);
  let unsubscribe = (): void => undefined;
  const end = (): void => {
    unsubscribe();
    open.delete(res);
    if (!res.writableEnded) res.end();
  };
  unsubscribe = sink.follow((l) => {
    if (!write(l)) end();
  }, end);
  res.on('close', end);
}
