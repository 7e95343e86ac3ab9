/**
 * A live copy of the objects an upgrade test cares about (ClusterVersion, ClusterOperators, pools, nodes, configs):
 * one lib/kube informer per kind, read as a snapshot. Waits and the upgrade monitor both read from it, so a long wait
 * costs one watch per kind instead of a poll loop. The informers ride out cut watches and, when watching keeps failing
 * (proxies that cut streams, flaky API servers), poll the lists instead; `modes` and `lastError` say so.
 */
import { EventEmitter } from 'node:events';
import { isForbidden, isNotFound } from '../lib/kube/errors.js';
import { InformerFactory, type ChangeType, type Informer, type InformerMode } from '../lib/kube/informer.js';
import type { Cluster, WatchedKind } from './cluster.js';
import type { ApiObject, ClusterOperator, ClusterVersion, MachineConfig, MachineConfigPool, Node } from './types.js';

export interface ClusterSnapshot {
  clusterVersion?: ClusterVersion;
  operators: Map<string, ClusterOperator>;
  pools: Map<string, MachineConfigPool>;
  nodes: Map<string, Node>;
  machineConfigs: Map<string, MachineConfig>;
  /** Image mode's objects, by name: empty unless the watcher was asked to follow them (ClusterWatcherOptions.kinds). */
  machineOSConfigs?: Map<string, ApiObject>;
  machineOSBuilds?: Map<string, ApiObject>;
}

export interface ObjectChange {
  kind: WatchedKind;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  object: ApiObject;
  /** Wall time the change was seen. */
  at: Date;
}

export interface ClusterWatcherOptions {
  kinds?: WatchedKind[];
  /** Consecutive watch failures before switching that kind to polling. */
  maxWatchFailures?: number;
  pollIntervalMs?: number;
}

const DEFAULT_KINDS: WatchedKind[] = ['ClusterVersion', 'ClusterOperator', 'MachineConfigPool', 'Node', 'MachineConfig'];
const CHANGE_TYPES: Record<ChangeType, ObjectChange['type']> = { add: 'ADDED', update: 'MODIFIED', delete: 'DELETED' };

/**
 * What a session follows on this cluster: the default kinds, and MachineOSBuild where the cluster serves it (4.18.z
 * with the Default gate, 4.19+), so that an upgrade's recording holds the builds of image-mode pools (the judges of
 * image-mode/recorded-builds.ts read them). A release without image mode answers 404; a role that may not list them
 * leaves them out too, and those judges then say the recording has no builds.
 */
export async function sessionKinds(cluster: Pick<Cluster, 'client'>): Promise<WatchedKind[]> {
  try {
    await cluster.client.list('MachineOSBuild');
    return [...DEFAULT_KINDS, 'MachineOSBuild'];
  } catch (error) {
    if (isNotFound(error) || isForbidden(error)) return DEFAULT_KINDS;
    throw error;
  }
}

export class ClusterWatcher {
  private readonly events = new EventEmitter();
  private readonly factory: InformerFactory;
  private readonly informers = new Map<WatchedKind, Informer<ApiObject>>();

  constructor(cluster: Cluster, options: ClusterWatcherOptions = {}) {
    this.events.setMaxListeners(50);
    this.factory = new InformerFactory(cluster.client, { maxWatchFailures: options.maxWatchFailures, pollIntervalMs: options.pollIntervalMs });
    for (const kind of options.kinds ?? DEFAULT_KINDS) {
      const informer = this.factory.for<ApiObject>(kind);
      informer.onChange((type, object) => this.events.emit('change', { kind, type: CHANGE_TYPES[type], object, at: new Date() }));
      this.informers.set(kind, informer);
    }
  }

  /** Called for every change seen (watch events, and differences found by a re-list). */
  onChange(listener: (change: ObjectChange) => void): void {
    this.events.on('change', listener);
  }

  offChange(listener: (change: ObjectChange) => void): void {
    this.events.off('change', listener);
  }

  /** Lists every kind once (so the snapshot is complete when this resolves), then keeps watching. */
  start(): Promise<void> {
    return this.factory.startAll();
  }

  stop(): void {
    void this.factory.stopAll();
  }

  /** How each kind is followed now: by a watch, or by polling its list. */
  get modes(): Map<WatchedKind, InformerMode> {
    return new Map([...this.informers].map(([kind, informer]) => [kind, informer.mode]));
  }

  /** The last error any watch or list hit, for timeout messages. */
  get lastError(): string | undefined {
    return [...this.informers.values()].map((i) => i.lastError).filter((e) => e !== undefined).at(-1);
  }

  snapshot(): ClusterSnapshot {
    const byName = <T>(kind: WatchedKind) =>
      new Map((this.informers.get(kind)?.list() ?? []).map((o) => [o.metadata.name!, o])) as unknown as Map<string, T>;
    return {
      clusterVersion: this.informers.get('ClusterVersion')?.get('version') as ClusterVersion | undefined,
      operators: byName<ClusterOperator>('ClusterOperator'),
      pools: byName<MachineConfigPool>('MachineConfigPool'),
      nodes: byName<Node>('Node'),
      machineConfigs: byName<MachineConfig>('MachineConfig'),
      machineOSConfigs: byName<ApiObject>('MachineOSConfig'),
      machineOSBuilds: byName<ApiObject>('MachineOSBuild'),
    };
  }
}
