/**
 * A Kubernetes-compatible API server for tests: HTTPS with a generated CA, bearer-token auth, discovery, CRDs as
 * data, watch, patch, Table printing, fault injection and optional persistence. Real clients (kubectl, oc,
 * client-node) talk to it over loopback as they would to kube-apiserver. Generic: it knows no particular product.
 *
 *   const server = await startApiServer({ crds });
 *   await server.writeKubeconfig('/tmp/kubeconfig');
 *   ...
 *   await server.close();
 */
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { createServer as createHttpServer, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { Api } from './api.js';
import { builtinResourceTypes } from './builtins.js';
import { resourceTypesOf } from './crds.js';
import { Discovery } from './discovery.js';
import { ApiError } from './errors.js';
import { Faults, type FaultConfig } from './faults.js';
import { createRequestHandler } from './http.js';
import { renderKubeconfig } from './kubeconfig.js';
import { OpenApi } from './openapi.js';
import { WriteLog } from './persistence.js';
import { ResourceRegistry, type ExtraPrinterColumns, type KubeObject } from './resources.js';
import { Store } from './store.js';
import { makeServingCertificates } from './tls.js';

export type { FaultConfig } from './faults.js';
export type { ExtraPrinterColumns } from './resources.js';

export interface ApiServerOptions {
  /** Address to listen on; loopback unless told otherwise. */
  host?: string;
  /** Port; 0 (default) picks a free one. */
  port?: number;
  /** HTTPS with a CA generated at start (default). false serves plain HTTP. */
  tls?: boolean;
  /** Bearer token every request must carry; random when absent. */
  token?: string;
  /** Directory for the write log; writes survive kill -9 and restart. */
  dataDir?: string;
  /** CustomResourceDefinitions installed (created or updated) before the server reports ready. */
  crds?: object[];
  /** Clock for creationTimestamp, deletionTimestamp and printed ages. */
  now?: () => Date;
  faults?: FaultConfig;
  /** Largest accepted request body in bytes (default 3 MiB, as kube-apiserver). */
  maxBodyBytes?: number;
  /** Interval of BOOKMARK events on watches that allow them (default 5000 ms). */
  bookmarkIntervalMs?: number;
  /** Printer columns added to kinds whatever their CRD declares, keyed by "group/plural". */
  extraPrinterColumns?: ExtraPrinterColumns;
  /** How many past events a watch can resume from before it gets 410 Expired (default 20000). */
  watchHistory?: number;
}

export interface RunningApiServer {
  url: string;
  token: string;
  /** PEM of the CA that signed the serving certificate (empty string for plain HTTP). */
  caPem: string;
  kubeconfigYaml(): string;
  writeKubeconfig(path: string): Promise<void>;
  setFaults(f: FaultConfig): void;
  /** Forgets watch history, so watches from any earlier resourceVersion get 410 Expired (for client relist tests). */
  compactHistory(): void;
  /** Ends every open watch stream, as an API server restart would; clients must re-watch. */
  dropWatches(): void;
  close(): Promise<void>;
}

const DEFAULT_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

function hostForUrl(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

export async function startApiServer(opts: ApiServerOptions = {}): Promise<RunningApiServer> {
  const host = opts.host ?? '127.0.0.1';
  const token = opts.token ?? randomBytes(24).toString('base64url');
  const now = opts.now ?? (() => new Date());
  const useTls = opts.tls ?? true;
  // Key generation runs in the thread pool while storage and CRDs are set up.
  const certsPromise = useTls ? makeServingCertificates([...new Set([host, 'localhost', '127.0.0.1', '::1'])]) : undefined;

  const registry = new ResourceRegistry(opts.extraPrinterColumns);
  for (const rt of builtinResourceTypes()) registry.add(rt);
  const store = new Store(opts.watchHistory);
  const api = new Api(store, registry, now);

  let log: WriteLog | undefined;
  if (opts.dataDir) {
    const opened = WriteLog.open(opts.dataDir);
    log = opened.log;
    for (const rec of opened.records) {
      if (!rec.storageKey) { store.restore(rec); continue; }
      store.restore(rec);
      if (rec.storageKey === 'apiextensions.k8s.io/customresourcedefinitions' && !rec.obj.metadata.deletionTimestamp) {
        registry.replaceCrd(rec.obj.metadata.name!, resourceTypesOf(rec.obj));
      }
    }
    store.beforeWrite = (w) => log!.append(w);
    api.resumeNamespaceCleanup();
  }

  const nsType = registry.get('', 'v1', 'namespaces')!;
  for (const ns of DEFAULT_NAMESPACES) {
    if (!store.get(nsType.storageKey, undefined, ns)) api.create(nsType, undefined, { metadata: { name: ns } });
  }
  const crdType = registry.get('apiextensions.k8s.io', 'v1', 'customresourcedefinitions')!;
  for (const crd of opts.crds ?? []) {
    const name = (crd as KubeObject).metadata?.name;
    if (!name) throw new Error('startApiServer: every CRD passed in `crds` needs metadata.name');
    try {
      const existing = store.get(crdType.storageKey, undefined, name);
      if (existing) api.update(crdType, undefined, name, { ...crd, metadata: { ...(crd as KubeObject).metadata, resourceVersion: undefined } });
      else api.create(crdType, undefined, crd);
    } catch (e) {
      if (e instanceof ApiError) throw new Error(`startApiServer: CRD ${name} was rejected: ${e.message}`);
      throw e;
    }
  }

  const faults = new Faults(opts.faults);
  const discovery = new Discovery(registry);
  const openapi = new OpenApi(registry, (rt) => {
    if (!rt.crdName) return undefined;
    const crd = store.get(crdType.storageKey, undefined, rt.crdName)?.obj;
    return crd?.spec.versions.find((v: { name: string }) => v.name === rt.version)?.schema?.openAPIV3Schema;
  });
  const watches = new Set<ServerResponse>();
  let address = '';
  const handler = createRequestHandler({
    api, registry, discovery, openapi, faults, token, now,
    bodyLimit: opts.maxBodyBytes,
    bookmarkIntervalMs: opts.bookmarkIntervalMs ?? 5000,
    watches,
    serverAddress: () => address,
  });

  const certs = await certsPromise;
  const server: Server = certs
    ? createHttpsServer({ cert: certs.certPem, key: certs.keyPem }, handler)
    : createHttpServer(handler);
  // Clients keep connections alive; without tracking them close() would wait for their idle timeout.
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => { sockets.add(s); s.on('close', () => sockets.delete(s)); });
  server.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    else socket.destroy();
  });
  server.keepAliveTimeout = 30_000;
  server.requestTimeout = 0; // watches are long-lived

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => { server.off('error', reject); resolve(); });
  });
  const port = (server.address() as AddressInfo).port;
  address = `${hostForUrl(host)}:${port}`;
  const url = `${useTls ? 'https' : 'http'}://${address}`;
  const caPem = certs?.caPem ?? '';

  let closed: Promise<void> | undefined;
  return {
    url,
    token,
    caPem,
    kubeconfigYaml: () => renderKubeconfig({ url, token, caPem: caPem || undefined }),
    writeKubeconfig: (path: string) => writeFile(path, renderKubeconfig({ url, token, caPem: caPem || undefined }), { mode: 0o600 }),
    setFaults: (f: FaultConfig) => faults.set(f),
    compactHistory: () => store.compact(),
    dropWatches: () => { for (const w of [...watches]) w.end(); },
    close: () => {
      closed ??= (async () => {
        api.close();
        for (const w of watches) w.end();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          for (const s of sockets) s.destroy();
        });
        log?.close();
      })();
      return closed;
    },
  };
}
