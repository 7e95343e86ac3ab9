/**
 * Shared informers: one list+watch per kind (client-node's ListWatch), a local cache, and change handlers. A 410
 * Gone relists (ListWatch does that); any other watch failure restarts the informer after a backoff instead of
 * leaving a controller blind.
 */
import { ListWatch, Watch, type KubernetesObject } from '@kubernetes/client-node';
import { wallSleep } from '../clock.js';
import type { KubeClient, KubeObject } from './client.js';
import { collectionPath, RESOURCES, type Kind } from './resources.js';

export type ChangeType = 'add' | 'update' | 'delete';
export type ChangeHandler<T> = (type: ChangeType, object: T) => void;

export class Informer<T extends KubeObject> {
  private readonly listWatch: ListWatch<KubernetesObject>;
  private readonly handlers: ChangeHandler<T>[] = [];
  private stopped = false;
  private failures = 0;

  constructor(
    client: KubeClient,
    readonly kind: Kind,
    private readonly namespace: string | undefined,
    private readonly log: (line: string) => void,
  ) {
    const path = collectionPath(RESOURCES[kind], namespace);
    this.listWatch = new ListWatch<KubernetesObject>(
      path,
      new Watch(client.kubeConfig),
      async () => (await client.list<KubeObject>(kind, namespace)) as never,
      false,
    );
    this.listWatch.on('add', (o) => this.emit('add', o as unknown as T));
    this.listWatch.on('update', (o) => this.emit('update', o as unknown as T));
    this.listWatch.on('delete', (o) => this.emit('delete', o as unknown as T));
    this.listWatch.on('connect', () => {
      this.failures = 0;
    });
    this.listWatch.on('error', (err) => void this.restart(err));
  }

  private emit(type: ChangeType, object: T): void {
    for (const handler of this.handlers) {
      try {
        handler(type, object);
      } catch (error) {
        this.log(`${this.kind} informer handler failed: ${(error as Error).message}`);
      }
    }
  }

  private async restart(err: unknown): Promise<void> {
    if (this.stopped) return;
    this.failures++;
    const delay = Math.min(50 * 2 ** this.failures, 2000);
    this.log(`${this.kind} watch failed (${(err as Error)?.message ?? err}); restarting in ${delay} ms`);
    try {
      await wallSleep(delay);
    } catch {
      return;
    }
    if (!this.stopped) await this.listWatch.start().catch((e) => this.restart(e));
  }

  onChange(handler: ChangeHandler<T>): void {
    this.handlers.push(handler);
  }

  async start(): Promise<void> {
    this.stopped = false;
    await this.listWatch.start();
  }

  /** Resolves once the first list is in the cache (ListWatch records its resourceVersion after adding the items). */
  async waitForSync(): Promise<void> {
    while (this.listWatch.latestResourceVersion() === '') {
      if (this.stopped) return;
      await wallSleep(5);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.listWatch.stop();
  }

  get(name: string, namespace?: string): T | undefined {
    return this.listWatch.get(name, namespace ?? this.namespace) as unknown as T | undefined;
  }

  list(): T[] {
    return this.listWatch.list(this.namespace) as unknown as T[];
  }
}

/** One informer per kind (and namespace), started once and shared by every controller. */
export class InformerFactory {
  private readonly informers = new Map<string, Informer<KubeObject>>();
  constructor(
    private readonly client: KubeClient,
    private readonly log: (line: string) => void,
  ) {}

  for<T extends KubeObject>(kind: Kind, namespace?: string): Informer<T> {
    const key = `${kind}/${namespace ?? ''}`;
    let informer = this.informers.get(key);
    if (!informer) {
      informer = new Informer<KubeObject>(this.client, kind, namespace, this.log);
      this.informers.set(key, informer);
    }
    return informer as unknown as Informer<T>;
  }

  async startAll(): Promise<void> {
    await Promise.all([...this.informers.values()].map((i) => i.start()));
    await Promise.all([...this.informers.values()].map((i) => i.waitForSync()));
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.informers.values()].map((i) => i.stop()));
  }
}
