/**
 * Object storage with one monotonic resourceVersion, a bounded event history for watches that resume from a
 * resourceVersion, and subscriptions for live watches. Stored objects are never mutated after they are stored, so
 * reads share them (and their cached JSON) without copying.
 */
import type { KubeObject } from './resources.js';

export interface StoredObject {
  readonly obj: KubeObject;
  readonly rv: number;
  /** Serialised form, made on first read and reused by every later GET, LIST and watch event. */
  json?: string;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StoreEvent {
  type: WatchEventType;
  storageKey: string;
  rv: number;
  stored: StoredObject;
  /** The version before this change (MODIFIED only): selectors need it to turn edits into ADDED or DELETED. */
  prev?: StoredObject;
}

/** A write about to be applied, as given to the persistence log before the store changes. */
export interface WriteRecord { op: 'put' | 'del'; storageKey: string; obj: KubeObject; rv: number }

export function objectKey(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

export class Store {
  private rvCounter = 0;
  private buckets = new Map<string, Map<string, StoredObject>>();
  private sortedKeys = new Map<string, string[]>();
  private history: StoreEvent[] = [];
  private historyStart = 0;
  private subscribers = new Map<string, Set<(ev: StoreEvent) => void>>();
  private enders = new Map<string, Set<() => void>>();
  /** Called before each write is applied; the persistence log uses it to fsync before the client hears back. */
  beforeWrite?: (w: WriteRecord) => void;

  constructor(private readonly historyLimit = 20_000) {}

  get resourceVersion(): number {
    return this.rvCounter;
  }

  /** The oldest resourceVersion a watch can still resume from; older ones get 410 Expired. */
  get oldestResumableVersion(): number {
    return this.history.length > this.historyStart ? this.history[this.historyStart]!.rv - 1 : this.rvCounter;
  }

  private bucket(storageKey: string): Map<string, StoredObject> {
    let b = this.buckets.get(storageKey);
    if (!b) { b = new Map(); this.buckets.set(storageKey, b); }
    return b;
  }

  get(storageKey: string, namespace: string | undefined, name: string): StoredObject | undefined {
    return this.buckets.get(storageKey)?.get(objectKey(namespace, name));
  }

  /** Objects of one group/resource in key order (namespace/name), optionally only in one namespace. */
  list(storageKey: string, namespace?: string): StoredObject[] {
    const b = this.buckets.get(storageKey);
    if (!b) return [];
    let keys = this.sortedKeys.get(storageKey);
    if (!keys) {
      keys = [...b.keys()].sort();
      this.sortedKeys.set(storageKey, keys);
    }
    const out: StoredObject[] = [];
    for (const k of keys) {
      const s = b.get(k)!;
      if (namespace === undefined || s.obj.metadata.namespace === namespace) out.push(s);
    }
    return out;
  }

  storageKeys(): string[] {
    return [...this.buckets.keys()];
  }

  /** Stores a new version of an object, giving it the next resourceVersion. The object must not be changed later. */
  put(storageKey: string, obj: KubeObject): StoredObject {
    const rv = this.rvCounter + 1;
    obj.metadata.resourceVersion = String(rv);
    this.beforeWrite?.({ op: 'put', storageKey, obj, rv });
    this.rvCounter = rv;
    const key = objectKey(obj.metadata.namespace, obj.metadata.name!);
    const b = this.bucket(storageKey);
    const prev = b.get(key);
    const stored: StoredObject = { obj, rv };
    b.set(key, stored);
    if (!prev) this.sortedKeys.delete(storageKey);
    this.emit(prev ? { type: 'MODIFIED', storageKey, rv, stored, prev } : { type: 'ADDED', storageKey, rv, stored });
    return stored;
  }

  /** Removes an object; the DELETED event carries its last state with a fresh resourceVersion, as a real server does. */
  remove(storageKey: string, namespace: string | undefined, name: string): StoredObject | undefined {
    const b = this.buckets.get(storageKey);
    const key = objectKey(namespace, name);
    const current = b?.get(key);
    if (!b || !current) return undefined;
    const rv = this.rvCounter + 1;
    const obj: KubeObject = { ...current.obj, metadata: { ...current.obj.metadata, resourceVersion: String(rv) } };
    this.beforeWrite?.({ op: 'del', storageKey, obj, rv });
    this.rvCounter = rv;
    b.delete(key);
    this.sortedKeys.delete(storageKey);
    const stored: StoredObject = { obj, rv };
    this.emit({ type: 'DELETED', storageKey, rv, stored });
    return stored;
  }

  /** Loads an object from the persistence log at start, without events. */
  restore(w: WriteRecord): void {
    this.rvCounter = Math.max(this.rvCounter, w.rv);
    const key = objectKey(w.obj.metadata.namespace, w.obj.metadata.name!);
    if (w.op === 'put') this.bucket(w.storageKey).set(key, { obj: w.obj, rv: w.rv });
    else this.buckets.get(w.storageKey)?.delete(key);
    this.sortedKeys.delete(w.storageKey);
  }

  /** Events of one group/resource after a resourceVersion, or undefined when history no longer reaches back that far. */
  eventsSince(storageKey: string, rv: number): StoreEvent[] | undefined {
    if (rv < this.oldestResumableVersion) return undefined;
    const out: StoreEvent[] = [];
    for (let i = this.historyStart; i < this.history.length; i++) {
      const ev = this.history[i]!;
      if (ev.rv > rv && ev.storageKey === storageKey) out.push(ev);
    }
    return out;
  }

  /** Live events of one group/resource; `onEnd` runs if the resource stops being served (its CRD deleted). */
  subscribe(storageKey: string, fn: (ev: StoreEvent) => void, onEnd?: () => void): () => void {
    let set = this.subscribers.get(storageKey);
    if (!set) { set = new Set(); this.subscribers.set(storageKey, set); }
    set.add(fn);
    let ends = this.enders.get(storageKey);
    if (!ends) { ends = new Set(); this.enders.set(storageKey, ends); }
    if (onEnd) ends.add(onEnd);
    return () => { set!.delete(fn); if (onEnd) ends!.delete(onEnd); };
  }

  /** Ends every subscription of one group/resource (a real server closes watches of a deleted CRD's kind). */
  endSubscriptions(storageKey: string): void {
    for (const end of [...(this.enders.get(storageKey) ?? [])]) end();
  }

  /**
   * Drops history so that a watch from any version handed out so far gets 410 Expired (for tests of client
   * relisting). The resourceVersion skips one, so that a client holding the very latest version is expired too,
   * while a fresh list afterwards gives a version that can be watched.
   */
  compact(): void {
    const rv = this.rvCounter + 1;
    // Logged (as a marker without object) so that a restart never hands out this version again.
    this.beforeWrite?.({ op: 'del', storageKey: '', obj: { metadata: { name: '' } }, rv });
    this.history = [];
    this.historyStart = 0;
    this.rvCounter = rv;
  }

  private emit(ev: StoreEvent): void {
    this.history.push(ev);
    if (this.history.length - this.historyStart > this.historyLimit) {
      this.historyStart++;
      // Trim the array now and then rather than shifting on every write.
      if (this.historyStart > this.historyLimit) { this.history = this.history.slice(this.historyStart); this.historyStart = 0; }
    }
    const subs = this.subscribers.get(ev.storageKey);
    if (subs) for (const fn of [...subs]) fn(ev);
  }
}
