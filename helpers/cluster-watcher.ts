/**
 * A live copy of the objects an upgrade test cares about (ClusterVersion, ClusterOperators, pools, nodes, configs):
 * one lib/kube informer per kind, read as a snapshot. Waits and the upgrade monitor both read from it, so a long wait
 * costs one watch per kind instead of a poll loop. The informers ride out cut watches and, when watching keeps failing
 * (proxies that cut streams, flaky API servers), poll the lists instead; `modes` and `lastError` say so.
 */
import { EventEmitter } from 'node:events';
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
