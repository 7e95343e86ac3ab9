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
import type { ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { Discovery } from './discovery.js';
import { celLoading } from './cel/loader.js';
import { Faults, type FaultConfig } from './faults.js';
import { createApiHandler } from './http/index.js';
import { renderKubeconfig } from './kubeconfig.js';
import { listen } from './listen.js';
import { OpenApi } from './openapi.js';
import { AccessControl, type AuthorizationHook } from './rbac/index.js';
import type { ExtraPrinterColumns } from './resources.js';
import { crdSchemaLookup, installDefaults, openState } from './state.js';
import { makeServingCertificates, type ServingCertificates } from './tls.js';
import { withActivity, type RequestActivity } from './activity.js';

export type { FaultConfig } from './faults.js';
export type { RequestActivity } from './activity.js';
export { CLIENT_WORK_PATH } from './http/handlers/client-work.js';
export { issueServingCertificate, makeCertificateAuthority, type CertificateAuthority, type ServingCertificates } from './tls.js';
export type { ExtraPrinterColumns } from './resources.js';
export type { AuthorizationHook, AuthorizationRecord } from './rbac/index.js';

export interface ApiServerOptions {
  /** Address to listen on; loopback unless told otherwise. */
  host?: string;
  /** Port; 0 (default) picks a free one. */
  port?: number;
  /** HTTPS with a CA generated at start (default). false serves plain HTTP. */
  tls?: boolean;
  /** Serving certificate to use instead of generating one (the reference cluster's CA signs it). */
  certificates?: ServingCertificates;
  /** Bearer token every request must carry; random when absent. */
  token?: string;
  /** Directory for the write log; writes survive kill -9 and restart. */
  dataDir?: string;
  /** CustomResourceDefinitions installed (created or updated) before the server reports ready. */
  crds?: object[];
  /** Clock for creationTimestamp, deletionTimestamp and printed ages. */
  now?: () => Date;
  faults?: FaultConfig;
  /**
   * Where the faults' draws come from (uniform in [0, 1); Math.random by default). A test gives a scripted sequence
   * so that which requests fail is the same on every run: a share of 30% 500s failed one list six times in a row
   * once in a few hundred CI runs.
   */
  faultDraws?: () => number;
  /** Largest accepted request body in bytes (default 3 MiB, as kube-apiserver). */
  maxBodyBytes?: number;
  /** Interval of BOOKMARK events on watches that allow them (default 5000 ms). */
  bookmarkIntervalMs?: number;
  /** Printer columns added to kinds whatever their CRD declares, keyed by "group/plural". */
  extraPrinterColumns?: ExtraPrinterColumns;
  /** How many past events a watch can resume from before it gets 410 Expired (default 20000). */
  watchHistory?: number;
  /**
   * Loopback host where `pods/log` finds the kubelets (at each node's `status.daemonEndpoints.kubeletEndpoint.Port`),
   * for simulated nodes whose InternalIP is not this machine. Without it only loopback node addresses are proxied to.
   */
  kubeletHost?: string;
  /**
   * Enforce Kubernetes RBAC (Role, ClusterRole, RoleBinding, ClusterRoleBinding) on every request but the admin's
   * (`token`, a `system:masters` member). Off by default: every authenticated request may do everything.
   */
  rbac?: boolean;
  /**
   * Called for every request of a user other than the admin, RBAC on or off, with its authorization attributes and
   * the decision: an audit of what a client needs (see rbac/audit.ts).
   */
  onAuthorize?: AuthorizationHook;
  /** Told of requests in flight and of activity (see activity.ts); the reference's clock skips idle time with it. */
  activity?: RequestActivity;
}

export interface RunningApiServer {
  url: string;
  token: string;
  /** PEM of the CA that signed the serving certificate (empty string for plain HTTP). */
  caPem: string;
  /** What it serves TLS with (undefined for plain HTTP), to restart it as the same server. */
  certificates?: ServingCertificates;
  kubeconfigYaml(): string;
  writeKubeconfig(path: string): Promise<void>;
  /**
   * A connection for a client in this process: HTTP to the same handlers, without TCP or TLS (the URL's scheme and
   * the CA do not matter to it). Refused after close().
   */
  connect(): Duplex;
  setFaults(f: FaultConfig): void;
  /** Forgets watch history, so watches from any earlier resourceVersion get 410 Expired (for client relist tests). */
  compactHistory(): void;
  /** Ends every open watch stream, as an API server restart would; clients must re-watch. */
  dropWatches(): void;
  /**
   * A bearer token of the ServiceAccount NAMESPACE/NAME (created when absent; the namespace must exist), valid
   * until that account is deleted. Its user is `system:serviceaccount:NAMESPACE:NAME`.
   */
  issueServiceAccountToken(namespace: string, name: string): string;
  close(): Promise<void>;
}

export async function startApiServer(opts: ApiServerOptions = {}): Promise<RunningApiServer> {
  const host = opts.host ?? '127.0.0.1';
  const token = opts.token ?? randomBytes(24).toString('base64url');
  const now = opts.now ?? (() => new Date());
  const useTls = opts.tls ?? true;
  // Key generation runs in the thread pool while storage and CRDs are set up.
  const certsPromise = !useTls ? undefined : opts.certificates ? Promise.resolve(opts.certificates) : makeServingCertificates([...new Set([host, 'localhost', '127.0.0.1', '::1'])]);

  const state = openState({ extraPrinterColumns: opts.extraPrinterColumns, watchHistory: opts.watchHistory, dataDir: opts.dataDir, now });
  installDefaults(state, opts.crds ?? []);
  await celLoading(); // the CRDs installed or restored carry rules: their engine is there before the server is
  const { api, registry, store, log } = state;
  const access = new AccessControl(api, token, opts.rbac ?? false, opts.onAuthorize);
  access.installDefaults(now);

  const faults = new Faults(opts.faults, opts.faultDraws);
  const watches = new Set<ServerResponse>();
  let address = '';
  const handler = createApiHandler({
    api, registry, faults, token, now, watches,
    discovery: new Discovery(registry),
    openapi: new OpenApi(registry, crdSchemaLookup(state)),
    bodyLimit: opts.maxBodyBytes,
    bookmarkIntervalMs: opts.bookmarkIntervalMs ?? 5000,
    serverAddress: () => address,
    kubeletHost: opts.kubeletHost,
    access,
  });

  const certs = await certsPromise;
  const listening = await listen(withActivity(handler, now, opts.activity), { host, port: opts.port ?? 0, certs });
  address = listening.address;
  const url = `${useTls ? 'https' : 'http'}://${address}`;
  const caPem = certs?.caPem ?? '';
  const kubeconfig = () => renderKubeconfig({ url, token, caPem: caPem || undefined });

  let closed: Promise<void> | undefined;
  return {
    url,
    token,
    caPem,
    certificates: certs,
    kubeconfigYaml: kubeconfig,
    writeKubeconfig: (path: string) => writeFile(path, kubeconfig(), { mode: 0o600 }),
    connect: () => listening.connect(),
    setFaults: (f: FaultConfig) => faults.set(f),
    compactHistory: () => store.compact(),
    dropWatches: () => { for (const w of [...watches]) w.end(); },
    issueServiceAccountToken: (namespace: string, name: string) => access.issueServiceAccountToken(namespace, name),
    close: () => {
      closed ??= (async () => {
        api.close();
        for (const w of watches) w.end();
        await listening.close();
        log?.close();
      })();
      return closed;
    },
  };
}
