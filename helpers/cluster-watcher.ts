/**
 * A live copy of the objects an upgrade test cares about (ClusterVersion, ClusterOperators, pools, nodes), kept by
 * list-then-watch. Waits and the upgrade monitor both read from it, so a long wait costs one watch per kind instead of
 * a poll loop. When a watch keeps failing (proxies that cut streams, flaky API servers) it falls back to polling the
 * lists, and says so, rather than giving up.
 */
import { EventEmitter } from 'node:events';
import { classifyApiError } from './api-errors.js';
import type { Cluster, WatchEventType, WatchedKind } from './cluster.js';
import type { ApiObject, ClusterOperator, ClusterVersion, MachineConfig, MachineConfigPool, Node } from './types.js';

export interface ClusterSnapshot {
  clusterVersion?: ClusterVersion;
  operators: Map<string, ClusterOperator>;
  pools: Map<string, MachineConfigPool>;
  nodes: Map<string, Node>;
  machineConfigs: Map<string, MachineConfig>;
}

export interface ObjectChange {
  kind: WatchedKind;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  object: ApiObject;
  previous?: ApiObject;
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

export class ClusterWatcher {
  private readonly events = new EventEmitter();
  private readonly cluster: Cluster;
  private readonly kinds: WatchedKind[];
  private readonly maxWatchFailures: number;
  private readonly pollIntervalMs: number;
  private readonly store = new Map<WatchedKind, Map<string, ApiObject>>();
  private readonly aborts = new Map<WatchedKind, AbortController>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly failures = new Map<WatchedKind, number>();
  private stopped = false;
  /** The last error any watch or list hit, for timeout messages. */
  lastError?: string;
  readonly modes = new Map<WatchedKind, 'watch' | 'poll'>();

  constructor(cluster: Cluster, options: ClusterWatcherOptions = {}) {
    this.events.setMaxListeners(50);
    this.cluster = cluster;
    this.kinds = options.kinds ?? DEFAULT_KINDS;
    this.maxWatchFailures = options.maxWatchFailures ?? 5;
    this.pollIntervalMs = options.pollIntervalMs ?? 1000;
    for (const kind of this.kinds) this.store.set(kind, new Map());
  }

  /** Called for every change seen (watch events, and differences found by a re-list). */
  onChange(listener: (change: ObjectChange) => void): void {
    this.events.on('change', listener);
  }

  offChange(listener: (change: ObjectChange) => void): void {
    this.events.off('change', listener);
  }

  /** Called when a kind switches between watching and polling. */
  onMode(listener: (kind: WatchedKind, mode: 'watch' | 'poll') => void): void {
    this.events.on('mode', listener);
  }

  /** Lists every kind once (so the snapshot is complete when this resolves), then keeps watching. */
  async start(): Promise<void> {
    await Promise.all(this.kinds.map((kind) => this.relistAndWatch(kind, true)));
  }

  stop(): void {
    this.stopped = true;
    for (const abort of this.aborts.values()) abort.abort();
    this.aborts.clear();
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  snapshot(): ClusterSnapshot {
    const byName = <T>(kind: WatchedKind) => new Map([...(this.store.get(kind) ?? new Map()).entries()]) as Map<string, T>;
    return {
      clusterVersion: this.store.get('ClusterVersion')?.get('version') as ClusterVersion | undefined,
      operators: byName<ClusterOperator>('ClusterOperator'),
      pools: byName<MachineConfigPool>('MachineConfigPool'),
      nodes: byName<Node>('Node'),
      machineConfigs: byName<MachineConfig>('MachineConfig'),
    };
  }

  private later(ms: number, fn: () => void): void {
    if (this.stopped) return;
    const t = setTimeout(() => {
      this.timers.delete(t);
      if (!this.stopped) fn();
    }, ms);
    this.timers.add(t);
  }

  private apply(kind: WatchedKind, type: WatchEventType, object: ApiObject): void {
    const name = object?.metadata?.name;
    const cache = this.store.get(kind);
    if (!name || !cache) return;
    const previous = cache.get(name);
    if (type === 'DELETED') {
      cache.delete(name);
      this.events.emit('change', { kind, type, object, previous, at: new Date() });
      return;
    }
    if (previous?.metadata.resourceVersion && previous.metadata.resourceVersion === object.metadata.resourceVersion) return;
    cache.set(name, object);
    this.events.emit('change', { kind, type: previous ? 'MODIFIED' : 'ADDED', object, previous, at: new Date() });
  }

  /** Replaces the cache of a kind with a fresh list, emitting the differences as changes. */
  private async relist(kind: WatchedKind): Promise<string | undefined> {
    const list = await this.cluster.list(kind);
    const cache = this.store.get(kind)!;
    const seen = new Set<string>();
    for (const item of list.items) {
      seen.add(item.metadata.name!);
      this.apply(kind, 'MODIFIED', item);
    }
    for (const [name, object] of [...cache.entries()]) if (!seen.has(name)) this.apply(kind, 'DELETED', object);
    return list.resourceVersion;
  }

  private async relistAndWatch(kind: WatchedKind, initial = false): Promise<void> {
    if (this.stopped) return;
    let resourceVersion: string | undefined;
    try {
      resourceVersion = await this.relist(kind);
    } catch (error) {
      if (initial) throw error;
      this.noteFailure(kind, error);
      return;
    }
    if (this.modes.get(kind) === 'poll') {
      this.later(this.pollIntervalMs, () => void this.relistAndWatch(kind));
      return;
    }
    this.setMode(kind, 'watch');
    const startedAt = Date.now();
    try {
      const abort = await this.cluster.watch(
        kind,
        resourceVersion,
        (type, object) => {
          if (type === 'BOOKMARK') {
            this.failures.set(kind, 0);
            return;
          }
          if (type === 'ERROR') {
            // 410 Expired and friends: the stream is useless from here; re-list.
            this.lastError = `watch ${kind}: ${(object as { message?: string }).message ?? 'error event'}`;
            return;
          }
          this.failures.set(kind, 0);
          this.apply(kind, type, object);
        },
        (error) => {
          this.aborts.delete(kind);
          if (this.stopped) return;
          if (error && !/aborted/i.test(String((error as Error).message ?? error))) this.noteFailure(kind, error);
          // A stream the server closes at once is a failure too; otherwise this would reconnect in a tight loop.
          else if (Date.now() - startedAt < 1000) this.noteFailure(kind, new Error('watch closed by the server right after it opened'));
          else this.later(50, () => void this.relistAndWatch(kind));
        },
      );
      if (this.stopped) abort.abort();
      else this.aborts.set(kind, abort);
    } catch (error) {
      this.noteFailure(kind, error);
    }
  }

  private setMode(kind: WatchedKind, mode: 'watch' | 'poll'): void {
    if (this.modes.get(kind) !== mode) {
      this.modes.set(kind, mode);
      this.events.emit('mode', kind, mode);
    }
  }

  private noteFailure(kind: WatchedKind, error: unknown): void {
    const failures = (this.failures.get(kind) ?? 0) + 1;
    this.failures.set(kind, failures);
    this.lastError = `watch/list ${kind}: ${classifyApiError(error).message}`;
    if (failures >= this.maxWatchFailures) this.setMode(kind, 'poll');
    const backoff = Math.min(5000, 100 * 2 ** Math.min(failures, 6));
    this.later(backoff, () => void this.relistAndWatch(kind));
  }
}
