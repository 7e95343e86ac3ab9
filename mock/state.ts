/**
 * The server's state before it listens: the registry of kinds, the store (restored from the write log when there
 * is one), the Api over them, and what every cluster has at start (default namespaces, the CRDs it was given).
 */
import { Api } from './api.js';
import { builtinResourceTypes } from './builtins.js';
import { resourceTypesOf } from './crds.js';
import { ApiError } from './errors.js';
import { WriteLog } from './persistence.js';
import { ResourceRegistry, type ExtraPrinterColumns, type KubeObject, type ResourceType } from './resources.js';
import { Store } from './store.js';

export interface ServerState {
  registry: ResourceRegistry;
  store: Store;
  api: Api;
  /** Present when writes are logged to a data directory. */
  log?: WriteLog;
}

const DEFAULT_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];
const CRD_STORAGE_KEY = 'apiextensions.k8s.io/customresourcedefinitions';

export function openState(opts: { extraPrinterColumns?: ExtraPrinterColumns; watchHistory?: number; dataDir?: string; now: () => Date }): ServerState {
  const registry = new ResourceRegistry(opts.extraPrinterColumns);
  for (const rt of builtinResourceTypes()) registry.add(rt);
  const store = new Store(opts.watchHistory);
  const api = new Api(store, registry, opts.now);
  if (!opts.dataDir) return { registry, store, api };
  const log = restore(opts.dataDir, { registry, store, api });
  return { registry, store, api, log };
}

/** Replays the write log into the store (CRDs re-register their kinds), then logs every later write. */
function restore(dataDir: string, { registry, store, api }: ServerState): WriteLog {
  const { log, records } = WriteLog.open(dataDir);
  for (const rec of records) {
    store.restore(rec);
    if (rec.storageKey === CRD_STORAGE_KEY && !rec.obj.metadata.deletionTimestamp) {
      registry.replaceCrd(rec.obj.metadata.name!, resourceTypesOf(rec.obj));
    }
  }
  store.beforeWrite = (w) => log.append(w);
  api.resumeNamespaceCleanup();
  return log;
}

/** The default namespaces, and each given CRD created or (after a restart) updated to the given spec. */
export function installDefaults({ registry, store, api }: ServerState, crds: object[]): void {
  const nsType = registry.get('', 'v1', 'namespaces')!;
  for (const ns of DEFAULT_NAMESPACES) {
    if (!store.get(nsType.storageKey, undefined, ns)) api.create(nsType, undefined, { metadata: { name: ns } });
  }
  const crdType = registry.get('apiextensions.k8s.io', 'v1', 'customresourcedefinitions')!;
  for (const crd of crds) {
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
}

/** The openAPIV3Schema a CRD declares for a kind's served version (for /openapi/v3). */
export function crdSchemaLookup({ registry, store }: ServerState) {
  const crdType = registry.get('apiextensions.k8s.io', 'v1', 'customresourcedefinitions')!;
  return (rt: ResourceType): Record<string, unknown> | undefined => {
    if (!rt.crdName) return undefined;
    const crd = store.get(crdType.storageKey, undefined, rt.crdName)?.obj;
    return crd?.spec.versions.find((v: { name: string }) => v.name === rt.version)?.schema?.openAPIV3Schema;
  };
}
