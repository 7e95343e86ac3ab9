/**
 * `GET|POST .../pods/NAME/exec` and `.../attach`: what kube-apiserver does for `kubectl exec`, `oc rsh`, client-node's
 * `Exec`, and `kubectl attach` / `oc debug`'s session. It
 * checks the request as the real server does (the pod exists, the container is one of it, the pod has a node, the
 * client asked for an upgrade) and answers those with Status errors; then it forwards the upgrade request to the
 * kubelet of the pod's node (`/exec/NS/POD/CONTAINER?command=…`, at the node's kubeletEndpoint port, reached as
 * pods/log reaches it) and, like the real server's upgrade-aware proxy, splices the two connections together: the
 * stream protocol (WebSocket with v5/v4.channel.k8s.io, or whatever else the kubelet speaks) is the kubelet's
 * business, and a kubelet's refusal (`container not found ("x")`) reaches the client as the kubelet wrote it.
 * Either side closing ends both.
 */
import { chooseContainer } from './pod-container.js';
import { request, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { errors } from '../../errors.js';
import type { KubeObject } from '../../resources.js';
import { takeUpgrade } from '../../upgrade.js';
import type { Call, HttpContext } from '../context.js';
import { resolveResourcePath } from '../resource-path.js';

/** The stream parameters the kubelet reads; `container` travels in its path. */
const PASSED = ['command', 'stdin', 'stdout', 'stderr', 'tty'];
/** Headers that belong to the client's hop to us, not to ours to the kubelet. */
const NOT_FORWARDED = new Set(['authorization', 'host', 'content-length', 'transfer-encoding']);

export function isPodExecPath({ segs }: Call): boolean {
  return isPodSubresource(segs, 'exec');
}

/** `pods/NAME/attach` (kubectl attach, oc debug's interactive session): the same forwarding, to the kubelet's /attach/. */
export function isPodAttachPath({ segs }: Call): boolean {
  return isPodSubresource(segs, 'attach');
}

function isPodSubresource(segs: string[], sub: string): boolean {
  return segs.length === 7 && segs[0] === 'api' && segs[1] === 'v1' && segs[2] === 'namespaces' && segs[4] === 'pods' && segs[6] === sub;
}

export async function servePodExec(ctx: HttpContext, call: Call): Promise<void> {
  return forwardToKubelet(ctx, call, 'exec');
}

export async function servePodAttach(ctx: HttpContext, call: Call): Promise<void> {
  return forwardToKubelet(ctx, call, 'attach');
}

async function forwardToKubelet(ctx: HttpContext, call: Call, sub: 'exec' | 'attach'): Promise<void> {
  if (call.method !== 'GET' && call.method !== 'POST') throw errors.methodNotAllowed(call.method, call.path);
  const at = resolveResourcePath(ctx, call.segs);
  if (!at || at.name === undefined || at.namespace === undefined) throw errors.pathNotFound(call.path);
  const pod = ctx.api.get(at.rt, at.namespace, at.name).obj;
  const container = chooseContainer(pod, call.query.get('container') ?? '');
  const nodeName: string | undefined = pod.spec?.nodeName;
  if (!nodeName) throw errors.badRequest(`pod ${at.name} does not have a host assigned`);
  if (!call.req.headers.upgrade) throw errors.badRequest('Upgrade request required');
  const { host, port } = kubeletOf(ctx, nodeName);
  const query = new URLSearchParams();
  for (const key of PASSED) if (sub === 'exec' || key !== 'command') for (const v of call.query.getAll(key)) query.append(key, v);
  const path = `/${sub}/${encodeURIComponent(at.namespace)}/${encodeURIComponent(at.name)}/${encodeURIComponent(container)}?${query}`;
  const conn = takeUpgrade(call.req);
  if (!conn) throw errors.internal('upgrade request arrived without its connection');
  splice(call.req, conn.socket, conn.head, host, port, path);
}

/** Where the node's kubelet listens: loopback only, as for pods/log. */
function kubeletOf(ctx: HttpContext, nodeName: string): { host: string; port: number } {
  let node: KubeObject;
  try {
    node = ctx.api.get(ctx.registry.get('', 'v1', 'nodes')!, undefined, nodeName).obj;
  } catch {
    throw errors.internal(`nodes "${nodeName}" not found`);
  }
  const port = Number(node.status?.daemonEndpoints?.kubeletEndpoint?.Port ?? 0);
  const nodeIp: string | undefined = (node.status?.addresses ?? []).find((a: { type: string }) => a.type === 'InternalIP')?.address;
  const loopback = !!nodeIp && (/^127\./.test(nodeIp) || nodeIp === '::1');
  const host = ctx.kubeletHost ?? (loopback ? nodeIp : undefined);
  if (!host || !port) {
    throw errors.internal(`error dialing backend: this API server reaches kubelets on loopback only, and node ${nodeName} has no loopback kubelet endpoint`);
  }
  return { host, port };
}

/** Sends the client's upgrade request on to the kubelet and joins the two connections, whatever the kubelet answers. */
function splice(req: IncomingMessage, client: Duplex, clientHead: Buffer, host: string, port: number, path: string): void {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(req.headers)) if (value !== undefined && !NOT_FORWARDED.has(name)) headers[name] = value;
  const upstream = request({ host, port, path, method: req.method, headers });
  const abandon = (): void => { upstream.destroy(); };
  client.once('close', abandon);
  upstream.on('upgrade', (res: IncomingMessage, kubelet: Duplex, kubeletHead: Buffer) => {
    client.off('close', abandon);
    kubelet.on('error', () => kubelet.destroy());
    client.write(`HTTP/1.1 ${res.statusCode} ${res.statusMessage}\r\n${rawHeaderLines(res.rawHeaders)}\r\n`);
    if (kubeletHead.length) client.write(kubeletHead);
    if (clientHead.length) kubelet.write(clientHead);
    kubelet.pipe(client);
    client.pipe(kubelet);
    // a client that goes away takes its session on the kubelet with it, and the other way round
    kubelet.once('close', () => client.destroy());
    client.once('close', () => kubelet.destroy());
  });
  upstream.on('response', (res: IncomingMessage) => {
    // the kubelet refused the upgrade: its answer, status and body, goes to the client as it is
    client.off('close', abandon);
    let body = '';
    res.setEncoding('utf8');
    res.on('data', (c: string) => { body += c; });
    res.on('end', () => {
      const type = res.headers['content-type'] ?? 'text/plain; charset=utf-8';
      client.end(`HTTP/1.1 ${res.statusCode} ${res.statusMessage}\r\nContent-Type: ${type}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
    });
    client.once('close', () => res.destroy());
  });
  upstream.on('error', (e) => {
    if (client.destroyed) return;
    const body = JSON.stringify(errors.internal(`error dialing backend: ${e.message}`).toStatus());
    client.end(`HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  });
  upstream.end();
}

function rawHeaderLines(raw: string[]): string {
  let out = '';
  for (let i = 0; i + 1 < raw.length; i += 2) out += `${raw[i]}: ${raw[i + 1]}\r\n`;
  return out;
}
