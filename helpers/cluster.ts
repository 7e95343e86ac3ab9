/**
 * The suite's connection to a cluster: lib/kube's client, with the suite's hints on every failure, and typed calls for
 * the handful of kinds an upgrade conformance test touches. Throttling and dropped connections are ridden out (the one
 * retry policy of lib/kube/retry.ts); everything else fails with a message that names the call and the cause.
 */
import { KubeConfig, type CoreV1Event, type V1ConfigMap, type V1Secret } from '@kubernetes/client-node';
import { KubeClient, type KubeObject } from '../lib/kube/client.js';
import { loadKubeConfig } from '../lib/kube/kubeconfig.js';
import type { RetryPolicy } from '../lib/kube/retry.js';
import { clusterApiError } from './api-errors.js';
import type { ApiObject, ClusterOperator, ClusterVersion, ControllerConfig, MachineConfig, MachineConfigPool, Node } from './types.js';
import { isNotFound } from '../lib/kube/errors.js';

/**
 * The kinds the suite watches (see cluster-watcher.ts). MachineOSConfig and MachineOSBuild only where a wait on an
 * image-mode pool asks for them: releases before image mode do not serve them.
 */
export type WatchedKind = 'ClusterVersion' | 'ClusterOperator' | 'MachineConfigPool' | 'Node' | 'MachineConfig' | 'MachineOSConfig' | 'MachineOSBuild';

export class Cluster {
  readonly client: KubeClient;
  readonly kubeConfig: KubeConfig;
  readonly apiUrl: string;

  constructor(kubeConfig: KubeConfig, options: { retry?: Partial<RetryPolicy> } = {}) {
    this.client = new KubeClient(kubeConfig, { errorFor: clusterApiError, retry: options.retry });
    this.kubeConfig = kubeConfig;
    this.apiUrl = this.client.server;
  }

  /** Throws a KubeconfigError that says what is wrong with a kubeconfig that cannot be used. */
  static fromKubeconfig(path: string): Cluster {
    return new Cluster(loadKubeConfig(path));
  }

  // ---- ClusterVersion / ClusterOperator ---------------------------------------------------------------------------

  getClusterVersion(): Promise<ClusterVersion> {
    return this.client.read<ClusterVersion>('ClusterVersion', 'version');
  }

  /** JSON merge patch of clusterversion/version, the write `oc adm upgrade` makes. */
  patchClusterVersion(patch: Record<string, unknown>): Promise<ClusterVersion> {
    return this.client.patch<ClusterVersion>('ClusterVersion', 'version', patch);
  }

  getClusterOperator(name: string): Promise<ClusterOperator> {
    return this.client.read<ClusterOperator>('ClusterOperator', name);
  }

  async listClusterOperators(): Promise<ClusterOperator[]> {
    return (await this.client.list<ClusterOperator>('ClusterOperator')).items;
  }

  // ---- MachineConfig / MachineConfigPool --------------------------------------------------------------------------

  getMachineConfigPool(name: string): Promise<MachineConfigPool> {
    return this.client.read<MachineConfigPool>('MachineConfigPool', name);
  }

  async listMachineConfigPools(): Promise<MachineConfigPool[]> {
    return (await this.client.list<MachineConfigPool>('MachineConfigPool')).items;
  }

  /**
   * The objects of a kind only some releases serve (MachineConfigNode from 4.19, MachineOSConfig and MachineOSBuild
   * with image mode, ImageDigestMirrorSet and ImageTagMirrorSet from 4.13, ImageContentSourcePolicy where it is still
   * served): none where the API has no such resource.
   */
  async listIfServed<T extends ApiObject>(kind: 'MachineConfigNode' | 'MachineOSConfig' | 'MachineOSBuild' | 'ImageDigestMirrorSet' | 'ImageTagMirrorSet' | 'ImageContentSourcePolicy'): Promise<T[]> {
    try {
      return (await this.client.list<T & KubeObject>(kind)).items;
    } catch (error) {
      if (isNotFound(error)) return [];
      throw error;
    }
  }

  getMachineConfig(name: string): Promise<MachineConfig> {
    return this.client.read<MachineConfig>('MachineConfig', name);
  }

  /** The MCO's ControllerConfig (`machine-config-controller`): the release's images as the operator handed them on. */
  getControllerConfig(name = 'machine-config-controller'): Promise<ControllerConfig> {
    return this.client.read<ControllerConfig>('ControllerConfig', name);
  }

  async listMachineConfigs(labelSelector?: string): Promise<MachineConfig[]> {
    return (await this.client.list<MachineConfig>('MachineConfig', { labelSelector })).items;
  }

  createMachineConfig(mc: MachineConfig): Promise<MachineConfig> {
    return this.client.create<MachineConfig>('MachineConfig', mc);
  }

  /** Deletes a MachineConfig; true if it existed. Deleting twice is fine (cleanup relies on that). */
  deleteMachineConfig(name: string): Promise<boolean> {
    return this.client.delete('MachineConfig', name);
  }

  // ---- core kinds ---------------------------------------------------------------------------------------------------

  async listNodes(labelSelector?: string): Promise<Node[]> {
    return (await this.client.list<Node & KubeObject>('Node', { labelSelector })).items;
  }

  /** Merge-patches node annotations (a null value removes one). */
  patchNodeAnnotations(name: string, annotations: Record<string, string | null>): Promise<Node> {
    return this.client.patch<Node & KubeObject>('Node', name, { metadata: { annotations } });
  }

  getNode(name: string): Promise<Node> {
    return this.client.read<Node & KubeObject>('Node', name);
  }

  /** A ConfigMap, or undefined when it does not exist (how the suite tells a real cluster from the reference). */
  getConfigMap(namespace: string, name: string): Promise<V1ConfigMap | undefined> {
    return this.client.get<V1ConfigMap & KubeObject>('ConfigMap', name, namespace);
  }

  async listConfigMaps(namespace: string, labelSelector?: string): Promise<V1ConfigMap[]> {
    return (await this.client.list<V1ConfigMap & KubeObject>('ConfigMap', { namespace, labelSelector })).items;
  }

  /** Creates the ConfigMap, or replaces the data of the one of that name. */
  async writeConfigMap(configMap: V1ConfigMap & KubeObject): Promise<V1ConfigMap> {
    const { name, namespace } = configMap.metadata;
    const existing = await this.getConfigMap(namespace!, name!);
    if (!existing) return this.client.create<V1ConfigMap & KubeObject>('ConfigMap', configMap);
    return this.client.replace<V1ConfigMap & KubeObject>('ConfigMap', { ...configMap, metadata: { ...configMap.metadata, resourceVersion: existing.metadata?.resourceVersion } });
  }

  /** Namespaces with these labels that are not being deleted. */
  async listLiveNamespaces(labelSelector: string): Promise<KubeObject[]> {
    return (await this.client.list<KubeObject>('Namespace', { labelSelector })).items.filter((ns) => !ns.metadata.deletionTimestamp);
  }

  /** Deletes a namespace (and so everything in it); true if it existed. */
  deleteNamespace(name: string): Promise<boolean> {
    return this.client.delete('Namespace', name);
  }

  /** Deletes a ConfigMap; true if it existed. */
  deleteConfigMap(namespace: string, name: string): Promise<boolean> {
    return this.client.delete('ConfigMap', name, namespace);
  }

  /**
   * Creates the namespace unless it exists. One being deleted (its last checkpoint just removed) refuses new objects
   * until it is gone, so that is waited for first.
   */
  async ensureNamespace(name: string, labels: Record<string, string> = {}, terminatingWaitMs = 120_000): Promise<void> {
    const deadline = Date.now() + terminatingWaitMs;
    let existing = await this.client.get<KubeObject>('Namespace', name);
    while (existing?.metadata.deletionTimestamp) {
      if (Date.now() > deadline) throw new Error(`namespace ${name} has been terminating since ${existing.metadata.deletionTimestamp}: cannot write into it until it is gone`);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      existing = await this.client.get<KubeObject>('Namespace', name);
    }
    if (existing) return;
    await this.client.create('Namespace', { metadata: { name, labels } }).catch((error: Error) => {
      if (!/AlreadyExists|HTTP 409/.test(error.message)) throw error;
    });
  }

  /** A Secret's data decoded to text, or undefined when it does not exist. Callers register values for masking. */
  async getSecretData(namespace: string, name: string): Promise<Record<string, string> | undefined> {
    const secret = await this.client.get<V1Secret & KubeObject>('Secret', name, namespace);
    if (!secret) return undefined;
    return Object.fromEntries(Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
  }

  async listEvents(): Promise<CoreV1Event[]> {
    return (await this.client.list<CoreV1Event & KubeObject>('Event')).items;
  }

  /**
   * The events about one object with one reason, asked of the server by field selector (a cluster's events are many).
   * A cluster-scoped object's events are in namespace default, where client-go's recorder puts them.
   */
  async eventsAbout(involved: { kind: string; name: string; namespace?: string }, reason: string): Promise<CoreV1Event[]> {
    const fieldSelector = `involvedObject.kind=${involved.kind},involvedObject.name=${involved.name},reason=${reason}`;
    return (await this.client.list<CoreV1Event & KubeObject>('Event', { namespace: involved.namespace ?? 'default', fieldSelector })).items;
  }
}
