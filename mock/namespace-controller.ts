/**
 * The namespace controller of kube-controller-manager: a namespace with a deletionTimestamp is Terminating; its
 * contents are deleted, and once they are gone its spec.finalizers are emptied and then the namespace itself goes.
 * It looks again every 20 ms while a namespace terminates, as dependents with finalizers may take a while.
 */
import type { Deleter } from './deleter.js';
import type { ResourceRegistry } from './resources.js';
import type { Store } from './store.js';

export const NAMESPACE_STORAGE_KEY = '/namespaces';

const LOOK_AGAIN_MS = 20;

export class NamespaceController {
  private readonly terminating = new Set<string>();
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly store: Store,
    private readonly registry: ResourceRegistry,
    private readonly deleter: Deleter,
  ) {}

  /** A namespace got its deletionTimestamp, or changed while terminating: finish its deletion when it can be. */
  terminate(name: string): void {
    this.terminating.add(name);
    this.schedule();
  }

  /** After a restart from the persistence log: carry on deleting namespaces that were terminating. */
  resume(): void {
    for (const s of this.store.list(NAMESPACE_STORAGE_KEY)) if (s.obj.metadata.deletionTimestamp) this.terminating.add(s.obj.metadata.name!);
    if (this.terminating.size) this.schedule();
  }

  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.clean();
      if (this.terminating.size) this.schedule();
    }, LOOK_AGAIN_MS);
    this.timer.unref();
  }

  /** Deletes the contents of each terminating namespace; once they are gone, drops its finalizers and then it. */
  private clean(): void {
    const nsType = this.registry.get('', 'v1', 'namespaces')!;
    for (const ns of [...this.terminating]) {
      let remaining = 0;
      for (const storageKey of this.store.storageKeys()) {
        const rt = this.registry.byStorageKey(storageKey);
        if (!rt?.namespaced) continue;
        for (const s of this.store.list(storageKey, ns)) {
          remaining++;
          if (!s.obj.metadata.deletionTimestamp) {
            try { this.deleter.delete(rt, ns, s.obj.metadata.name!, 'Background'); } catch { /* already gone */ }
          }
        }
      }
      if (remaining) continue;
      const current = this.store.get(NAMESPACE_STORAGE_KEY, undefined, ns);
      this.terminating.delete(ns);
      if (!current) continue;
      if (current.obj.metadata.finalizers?.length) {
        const next = { ...current.obj, spec: { ...(current.obj.spec ?? {}), finalizers: [] } };
        this.store.put(NAMESPACE_STORAGE_KEY, next);
      } else {
        this.deleter.remove(nsType, current.obj);
      }
    }
  }
}
