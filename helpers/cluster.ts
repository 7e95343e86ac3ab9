/**
 * The suite's connection to a cluster: a client-node KubeConfig read from the target's kubeconfig, and typed calls for
 * the handful of kinds an upgrade conformance test touches. Every call goes through withRetry, so throttling and
 * dropped connections are ridden out and everything else fails with a message that names the call and the cause.
 */
import {
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  PatchStrategy,
  Watch,
  setHeaderOptions,
  type CoreV1Event,
  type V1ConfigMap,
} from '@kubernetes/client-node';
import { isNotFound, withRetry } from './api-errors.js';
import type { ApiObject, ClusterOperator, ClusterVersion, MachineConfig, MachineConfigPool, Node } from './types.js';

export interface KindRef {
  kind: string;
  group: string;
  version: string;
  plural: string;
}

export const Kinds = {
  ClusterVersion: { kind: 'ClusterVersion', group: 'config.openshift.io', version: 'v1', plural: 'clusterversions' },
  ClusterOperator: { kind: 'ClusterOperator', group: 'config.openshift.io', version: 'v1', plural: 'clusteroperators' },
  MachineConfig: { kind: 'MachineConfig', group: 'machineconfiguration.openshift.io', version: 'v1', plural: 'machineconfigs' },
  MachineConfigPool: {
    kind: 'MachineConfigPool',
    group: 'machineconfiguration.openshift.io',
    version: 'v1',
    plural: 'machineconfigpools',
  },
  Node: { kind: 'Node', group: '', version: 'v1', plural: 'nodes' },
} as const satisfies Record<string, KindRef>;

export type WatchedKind = keyof typeof Kinds;

export function collectionPath(ref: KindRef): string {
  return ref.group ? `/apis/${ref.group}/${ref.version}/${ref.plural}` : `/api/${ref.version}/${ref.plural}`;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface ListResult<T> {
  items: T[];
  resourceVersion?: string;
}

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

export class Cluster {
  readonly kubeConfig: KubeConfig;
  readonly apiUrl: string;
  private readonly core: CoreV1Api;
  private readonly custom: CustomObjectsApi;

  constructor(kubeConfig: KubeConfig) {
    this.kubeConfig = kubeConfig;
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error('the kubeconfig has no current cluster: set current-context');
    this.apiUrl = cluster.server;
    this.core = kubeConfig.makeApiClient(CoreV1Api);
    this.custom = kubeConfig.makeApiClient(CustomObjectsApi);
  }

  static fromKubeconfig(path: string): Cluster {
    const kc = new KubeConfig();
    try {
      kc.loadFromFile(path);
    } catch (error) {
      throw new Error(`cannot load the kubeconfig ${path}: ${(error as Error).message}`);
    }
    return new Cluster(kc);
  }

  // ---- generic custom-object calls ------------------------------------------------------------------------------

  private async getCustom<T extends ApiObject>(ref: KindRef, name: string): Promise<T> {
    return withRetry(`get ${ref.kind} ${name}`, async () =>
      (await this.custom.getClusterCustomObject({ group: ref.group, version: ref.version, plural: ref.plural, name })) as T,
    );
  }

  private async listCustom<T extends ApiObject>(ref: KindRef, labelSelector?: string): Promise<ListResult<T>> {
    const list = await withRetry(`list ${ref.kind}${labelSelector ? ` -l ${labelSelector}` : ''}`, async () =>
      (await this.custom.listClusterCustomObject({ group: ref.group, version: ref.version, plural: ref.plural, labelSelector })) as {
        items: T[];
        metadata?: { resourceVersion?: string };
      },
    );
    return { items: list.items ?? [], resourceVersion: list.metadata?.resourceVersion };
  }

  // ---- ClusterVersion / ClusterOperator ---------------------------------------------------------------------------

  getClusterVersion(): Promise<ClusterVersion> {
    return this.getCustom<ClusterVersion>(Kinds.ClusterVersion, 'version');
  }

  /** JSON merge patch of clusterversion/version, the write `oc adm upgrade` makes. */
  async patchClusterVersion(patch: Record<string, unknown>): Promise<ClusterVersion> {
    const ref = Kinds.ClusterVersion;
    return withRetry(`merge-patch ClusterVersion version`, async () =>
      (await this.custom.patchClusterCustomObject(
        { group: ref.group, version: ref.version, plural: ref.plural, name: 'version', body: patch },
        mergePatch,
      )) as ClusterVersion,
    );
  }

  getClusterOperator(name: string): Promise<ClusterOperator> {
    return this.getCustom<ClusterOperator>(Kinds.ClusterOperator, name);
  }

  async listClusterOperators(): Promise<ClusterOperator[]> {
    return (await this.listCustom<ClusterOperator>(Kinds.ClusterOperator)).items;
  }

  // ---- MachineConfig / MachineConfigPool --------------------------------------------------------------------------

  getMachineConfigPool(name: string): Promise<MachineConfigPool> {
    return this.getCustom<MachineConfigPool>(Kinds.MachineConfigPool, name);
  }

  async listMachineConfigPools(): Promise<MachineConfigPool[]> {
    return (await this.listCustom<MachineConfigPool>(Kinds.MachineConfigPool)).items;
  }

  getMachineConfig(name: string): Promise<MachineConfig> {
    return this.getCustom<MachineConfig>(Kinds.MachineConfig, name);
  }

  async listMachineConfigs(labelSelector?: string): Promise<MachineConfig[]> {
    return (await this.listCustom<MachineConfig>(Kinds.MachineConfig, labelSelector)).items;
  }

  async createMachineConfig(mc: MachineConfig): Promise<MachineConfig> {
    const ref = Kinds.MachineConfig;
    const body = { apiVersion: `${ref.group}/${ref.version}`, kind: ref.kind, ...mc };
    return withRetry(`create MachineConfig ${mc.metadata.name}`, async () =>
      (await this.custom.createClusterCustomObject({ group: ref.group, version: ref.version, plural: ref.plural, body })) as MachineConfig,
    );
  }

  /** Deletes a MachineConfig; true if it existed. Deleting twice is fine (cleanup relies on that). */
  async deleteMachineConfig(name: string): Promise<boolean> {
    const ref = Kinds.MachineConfig;
    try {
      await withRetry(`delete MachineConfig ${name}`, () =>
        this.custom.deleteClusterCustomObject({ group: ref.group, version: ref.version, plural: ref.plural, name }),
      );
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
  }

  // ---- core kinds ---------------------------------------------------------------------------------------------------

  async listNodes(labelSelector?: string): Promise<Node[]> {
    const list = await withRetry(`list Node${labelSelector ? ` -l ${labelSelector}` : ''}`, () => this.core.listNode({ labelSelector }));
    return list.items;
  }

  /** Merge-patches node annotations (a null value removes one). */
  async patchNodeAnnotations(name: string, annotations: Record<string, string | null>): Promise<Node> {
    return withRetry(`merge-patch Node ${name} annotations`, () => this.core.patchNode({ name, body: { metadata: { annotations } } }, mergePatch));
  }

  getNode(name: string): Promise<Node> {
    return withRetry(`get Node ${name}`, () => this.core.readNode({ name }));
  }

  /** A ConfigMap, or undefined when it does not exist (how the suite tells a real cluster from the reference). */
  async getConfigMap(namespace: string, name: string): Promise<V1ConfigMap | undefined> {
    try {
      return await withRetry(`get ConfigMap ${namespace}/${name}`, () => this.core.readNamespacedConfigMap({ namespace, name }));
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  /** A Secret's data decoded to text, or undefined when it does not exist. Callers register values for masking. */
  async getSecretData(namespace: string, name: string): Promise<Record<string, string> | undefined> {
    try {
      const secret = await withRetry(`get Secret ${namespace}/${name}`, () => this.core.readNamespacedSecret({ namespace, name }));
      return Object.fromEntries(Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async listEvents(): Promise<CoreV1Event[]> {
    const list = await withRetry('list Event (all namespaces)', () => this.core.listEventForAllNamespaces({}));
    return list.items;
  }

  /**
   * Starts a watch on a collection from `resourceVersion`. Returns the abort controller; `onDone` gets the error
   * (or undefined on a clean close): the caller decides whether to re-list and re-watch.
   */
  async watch(
    kind: WatchedKind,
    resourceVersion: string | undefined,
    onEvent: (type: WatchEventType, object: ApiObject) => void,
    onDone: (error?: unknown) => void,
  ): Promise<AbortController> {
    const watcher = new Watch(this.kubeConfig);
    return watcher.watch(
      collectionPath(Kinds[kind]),
      { allowWatchBookmarks: true, ...(resourceVersion ? { resourceVersion } : {}) },
      (type, object) => onEvent(type as WatchEventType, object as ApiObject),
      (error) => onDone(error ?? undefined),
    );
  }

  /** List of any watched kind with the list's resourceVersion, for list-then-watch. */
  async list(kind: WatchedKind): Promise<ListResult<ApiObject>> {
    if (kind === 'Node') {
      const list = await withRetry('list Node', () => this.core.listNode({}));
      return { items: list.items as unknown as ApiObject[], resourceVersion: list.metadata?.resourceVersion };
    }
    return this.listCustom<ApiObject>(Kinds[kind]);
  }
}
