/**
 * The garbage collector of kube-controller-manager, as far as clients can see it: when an owner goes, dependents
 * whose owners are all gone are deleted (or, with orphaning, lose their reference), and an owner deleted in the
 * foreground keeps the foregroundDeletion finalizer until no object names it as owner any more.
 */
import type { Deleter } from './deleter.js';
import type { KubeObject, ResourceRegistry, ResourceType } from './resources.js';
import type { Store } from './store.js';

export const FOREGROUND_FINALIZER = 'foregroundDeletion';

export interface Dependent { rt: ResourceType; obj: KubeObject }

interface ForegroundOwner { rt: ResourceType; namespace?: string; name: string }

export class GarbageCollector {
  /** Owners being deleted in the foreground, by uid: they go once no object names them as owner. */
  private readonly foregroundOwners = new Map<string, ForegroundOwner>();

  constructor(
    private readonly store: Store,
    private readonly registry: ResourceRegistry,
    private readonly deleter: Deleter,
  ) {}

  /** Objects that name `ownerUid` in their ownerReferences. */
  dependentsOf(ownerUid: string): Dependent[] {
    const out: Dependent[] = [];
    for (const storageKey of this.store.storageKeys()) {
      const rt = this.registry.byStorageKey(storageKey);
      if (!rt) continue;
      for (const s of this.store.list(storageKey)) if (s.obj.metadata.ownerReferences?.some((r) => r.uid === ownerUid)) out.push({ rt, obj: s.obj });
    }
    return out;
  }

  /**
   * An owner now carries the foregroundDeletion finalizer: delete its dependents (in the foreground too), and drop
   * the finalizer once they are gone. Runs after the current request, as the real collector runs after the write.
   */
  deleteInForeground(owner: ForegroundOwner & { uid: string }, dependents: Dependent[]): void {
    this.foregroundOwners.set(owner.uid, { rt: owner.rt, namespace: owner.namespace, name: owner.name });
    setImmediate(() => {
      for (const d of dependents) {
        try { this.deleter.delete(d.rt, d.obj.metadata.namespace, d.obj.metadata.name!, 'Foreground'); } catch { /* gone already */ }
      }
      this.finishForegroundDeletions();
    });
  }

  /** An object was removed for good: look at its dependents after the current request. */
  ownerRemoved(ownerUid: string, orphanDependents: boolean): void {
    setImmediate(() => {
      this.collectDependents(ownerUid, orphanDependents);
      if (this.foregroundOwners.size) this.finishForegroundDeletions();
    });
  }

  /** Drops the foregroundDeletion finalizer of owners whose dependents are all gone (and so deletes them). */
  private finishForegroundDeletions(): void {
    for (const [uid, owner] of [...this.foregroundOwners]) {
      if (this.dependentsOf(uid).length) continue;
      this.foregroundOwners.delete(uid);
      const current = this.store.get(owner.rt.storageKey, owner.rt.namespaced ? owner.namespace : undefined, owner.name);
      if (!current || current.obj.metadata.uid !== uid) continue;
      const finalizers = (current.obj.metadata.finalizers ?? []).filter((f) => f !== FOREGROUND_FINALIZER);
      const next: KubeObject = { ...current.obj, metadata: { ...current.obj.metadata, finalizers } };
      if (!finalizers.length) { delete next.metadata.finalizers; this.deleter.remove(owner.rt, next); }
      else this.store.put(owner.rt.storageKey, next);
    }
  }

  /** Dependents whose owners are all gone are deleted; with orphaning their reference is dropped. */
  private collectDependents(ownerUid: string, orphan: boolean): void {
    for (const storageKey of this.store.storageKeys()) {
      const rt = this.registry.byStorageKey(storageKey);
      if (!rt) continue;
      for (const s of this.store.list(storageKey)) {
        const refs = s.obj.metadata.ownerReferences;
        if (!refs?.some((r) => r.uid === ownerUid)) continue;
        const living = refs.filter((r) => r.uid !== ownerUid && this.ownerExists(r, s.obj.metadata.namespace));
        try {
          if (!orphan && living.length === 0) {
            this.deleter.delete(rt, s.obj.metadata.namespace, s.obj.metadata.name!, 'Background');
          } else {
            const remaining = refs.filter((r) => r.uid !== ownerUid);
            const next: KubeObject = { ...s.obj, metadata: { ...s.obj.metadata, ownerReferences: remaining } };
            if (!remaining.length) delete next.metadata.ownerReferences;
            this.store.put(storageKey, next);
          }
        } catch {
          // The dependent changed or vanished in between; nothing left to collect.
        }
      }
    }
  }

  private ownerExists(ref: { apiVersion: string; kind: string; name: string; uid: string }, namespace: string | undefined): boolean {
    const rt = this.registry.byApiVersionKind(ref.apiVersion, ref.kind);
    if (!rt) return false;
    return this.store.get(rt.storageKey, rt.namespaced ? namespace : undefined, ref.name)?.obj.metadata.uid === ref.uid;
  }
}
