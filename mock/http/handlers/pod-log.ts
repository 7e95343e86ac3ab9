/**
 * `GET .../pods/NAME/log`: what kube-apiserver does for `kubectl logs` / `oc logs`. It checks the pod and the
 * container itself (the real messages: `container X is not valid for pod Y`, `a container name must be specified
 * ...`), answers an unscheduled pod with an empty log, and otherwise proxies to the kubelet of the pod's node at
 * `status.daemonEndpoints.kubeletEndpoint.Port`, streaming its answer (`follow=true` stays open until the
 * container ends or the client leaves). Kubelets are reached on loopback only: at `kubeletHost` when the server was
 * given one (one process playing many nodes), else at the node's InternalIP when that is a loopback address.
 */
import { chooseContainer } from './pod-container.js';
import { request, type IncomingMessage } from 'node:http';
import { ApiError, errors } from '../../errors.js';
import type { KubeObject } from '../../resources.js';
import type { Call, HttpContext } from '../context.js';
import type { ResourcePath } from '../resource-path.js';

/** The kubelet's query parameters, passed through as the real server passes them. */
const PASSED = ['follow', 'previous', 'sinceSeconds', 'sinceTime', 'timestamps', 'tailLines', 'limitBytes'];

export async function servePodLog(ctx: HttpContext, call: Call, { rt, namespace, name }: ResourcePath): Promise<void> {
  if (name === undefined || namespace === undefined) throw errors.pathNotFound(call.path);
  const pod = ctx.api.get(rt, namespace, name).obj;
  const container = chooseContainer(pod, call.query.get('container') ?? '');
  const nodeName: string | undefined = pod.spec?.nodeName;
  if (!nodeName) {
    // not scheduled yet: the real server has no kubelet to ask and answers an empty log
    call.res.writeHead(200, { 'Content-Type': 'text/plain' });
    call.res.end();
    return;
  }
  const nodeType = ctx.registry.get('', 'v1', 'nodes')!;
  let node: KubeObject;
  try {
    node = ctx.api.get(nodeType, undefined, nodeName).obj;
  } catch {
    throw errors.internal(`nodes "${nodeName}" not found`);
  }
  const port = Number(node.status?.daemonEndpoints?.kubeletEndpoint?.Port ?? 0);
  const nodeIp: string | undefined = (node.status?.addresses ?? []).find((a: { type: string }) => a.type === 'InternalIP')?.address;
  const host = ctx.kubeletHost ?? (isLoopback(nodeIp) ? nodeIp : undefined);
  const query = new URLSearchParams();
  for (const key of PASSED) {
    const v = call.query.get(key);
    if (v !== null) query.set(key, v);
  }
  const path = `/containerLogs/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}/${encodeURIComponent(container)}${query.size ? `?${query}` : ''}`;
  if (!host || !port) {
    throw errors.internal(`Get "https://${nodeIp ?? nodeName}:${port || 10250}${path}": this API server reaches kubelets on loopback only, and node ${nodeName} has no loopback kubelet endpoint`);
  }
  await proxy(call, host, port, path);
}

function isLoopback(ip: string | undefined): ip is string {
  return !!ip && (/^127\./.test(ip) || ip === '::1');
}

function proxy(call: Call, host: string, port: number, path: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const upstream = request({ host, port, path, method: 'GET' }, (res: IncomingMessage) => {
      const status = res.statusCode ?? 500;
      if (status < 200 || status > 299) {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => { if (body.length < 4096) body += c; });
        res.on('end', () => {
          const message = body.trim() || `the kubelet answered ${status}`;
          reject(status === 400 ? errors.badRequest(message) : status === 404 ? new ApiError(404, 'NotFound', message) : errors.internal(message));
        });
        return;
      }
      call.res.writeHead(200, { 'Content-Type': 'text/plain', 'Transfer-Encoding': 'chunked', 'Cache-Control': 'no-cache, private' });
      call.res.flushHeaders();
      res.pipe(call.res);
      res.on('end', () => resolve());
      res.on('error', () => { call.res.end(); resolve(); });
    });
    upstream.on('error', (e) => reject(errors.internal(`Get "http://${host}:${port}${path}": ${e.message}`)));
    call.res.on('close', () => upstream.destroy());
    upstream.end();
  });
}
