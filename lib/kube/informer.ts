/**
 * Shared informers: one list+watch per kind (and namespace) on client-node's ListWatch, a local cache, and change
 * handlers. A 410 Gone re-lists (ListWatch does that). Any other failure restarts the informer after a backoff instead
 * of leaving its readers blind; streams cut at once are paced (`paced-watch.ts`); and when watching keeps failing the
 * informer polls the list instead, and says so (`mode`, `lastError`).
 */
import { ListWatch, type KubernetesObject } from '@kubernetes/client-node';
import type { KubeClient, KubeObject } from './client.js';
import { classifyApiError } from './errors.js';
import { collectionPath, KINDS, type Kind } from './kinds.js';
import { PacedWatch, type WatchReceipts } from './paced-watch.js';

export type ChangeType = 'add' | 'update' | 'delete';
export type ChangeHandler<T> = (type: ChangeType, object: T) => void;
export type InformerMode = 'watch' | 'poll';

export interface InformerOptions {
  namespace?: string;
  log?: (line: string) => void;
  /** Consecutive failed (or at once cut) watches before the informer polls the list instead. */
  maxWatchFailures?: number;
  /** How often a polling informer re-lists. */
  pollIntervalMs?: number;
  /** Where a server in this process is told that a watch event was handled (see paced-watch.ts). */
  receipts?: WatchReceipts;
}

const MAX_BACKOFF_MS = 5000;

export class Informer<T extends KubeObject> {
  private readonly listWatch: ListWatch<KubernetesObject>;
  private readonly watch: PacedWatch;
  private readonly handlers: ChangeHandler<T>[] = [];
  private readonly namespace?: string;
  private readonly log: (line: string) => void;
  private readonly maxWatchFailures: number;
  private stopped = false;
  private failures = 0;
  private restartTimer?: NodeJS.Timeout;
  private listed = false;
  private firstListError?: unknown;
  /** 'poll' once watching failed too often; it stays so (a server that cuts every watch will keep doing it). */
  mode: InformerMode = 'watch';
  /** The last failure of a list or watch, for messages that say what was last seen. */
  lastError?: string;

  constructor(
    client: KubeClient,
    readonly kind: Kind,
    options: InformerOptions = {},
  ) {
    this.namespace = options.namespace;
    this.log = options.log ?? (() => {});
    this.maxWatchFailures = options.maxWatchFailures ?? 5;
    this.watch = new PacedWatch(client.kubeConfig, {
      polling: () => this.mode === 'poll',
      pollIntervalMs: options.pollIntervalMs ?? 1000,
      failed: (error) => this.noteFailure(error),
      healthy: () => {
        this.failures = 0;
      },
    }, options.receipts);
    const list = async () => {
      const result = await client.list<KubeObject>(kind, { namespace: this.namespace });
      this.listed = true;
      return result as never;
    };
    this.listWatch = new ListWatch<KubernetesObject>(collectionPath(KINDS[kind], this.namespace), this.watch, list, false);
    this.listWatch.on('add', (o) => this.emit('add', o as unknown as T));
    this.listWatch.on('update', (o) => this.emit('update', o as unknown as T));
    this.listWatch.on('delete', (o) => this.emit('delete', o as unknown as T));
    this.listWatch.on('error', (error) => {
      if (!this.listed) this.firstListError = error;
      else this.scheduleRestart(error);
    });
  }

  private emit(type: ChangeType, object: T): void {
    for (const handler of [...this.handlers]) {
      try {
        handler(type, object);
      } catch (error) {
        this.log(`${this.kind} informer handler failed: ${(error as Error).message}`);
      }
    }
  }

  /** Counts a failure, switches to polling past the bound, and returns the backoff before the next try. */
  private noteFailure(error: unknown): number {
    this.failures++;
    this.lastError = `watch/list ${this.kind}: ${classifyApiError(error).message}`;
    if (this.mode === 'watch' && this.failures >= this.maxWatchFailures) {
      this.mode = 'poll';
      this.log(`${this.kind}: watching failed ${this.failures} times in a row (${this.lastError}); polling the list instead`);
    }
    return Math.min(MAX_BACKOFF_MS, 100 * 2 ** Math.min(this.failures, 6));
  }

  private scheduleRestart(error: unknown): void {
    if (this.stopped) return;
    const delay = this.noteFailure(error);
    this.log(`${this.lastError}; restarting in ${delay} ms`);
    clearTimeout(this.restartTimer);
    this.restartTimer = setTimeout(() => {
      if (!this.stopped) void this.listWatch.start();
    }, delay);
  }

  onChange(handler: ChangeHandler<T>): void {
    this.handlers.push(handler);
  }

  offChange(handler: ChangeHandler<T>): void {
    const i = this.handlers.indexOf(handler);
    if (i >= 0) this.handlers.splice(i, 1);
  }

  /**
   * Lists once (the cache is complete when this resolves) and starts watching. A first list that fails (after the
   * client's retries) rejects: a kind the server does not serve, or refused credentials, will not heal by waiting.
   */
  async start(): Promise<void> {
    this.stopped = false;
    this.watch.resume();
    this.firstListError = undefined;
    await this.listWatch.start();
    if (!this.listed) {
      const error = this.firstListError ?? new Error(`${this.kind}: the first list did not complete`);
      await this.stop();
      throw error;
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.restartTimer);
    this.watch.cancel();
    await this.listWatch.stop();
  }

  get(name: string, namespace?: string): T | undefined {
    return this.listWatch.get(name, namespace ?? this.namespace) as unknown as T | undefined;
  }

  list(): T[] {
    return this.listWatch.list(this.namespace) as unknown as T[];
  }
}

/** One informer per kind (and namespace), started once and shared by every reader. */
export class InformerFactory {
  private readonly informers = new Map<string, Informer<KubeObject>>();

  constructor(
    private readonly client: KubeClient,
    private readonly options: Omit<InformerOptions, 'namespace'> = {},
  ) {}

  for<T extends KubeObject>(kind: Kind, namespace?: string): Informer<T> {
    const key = `${kind}/${namespace ?? ''}`;
    let informer = this.informers.get(key);
    if (!informer) {
      informer = new Informer<KubeObject>(this.client, kind, { ...this.options, namespace });
      this.informers.set(key, informer);
    }
    return informer as unknown as Informer<T>;
  }

  /** Starts every informer asked for so far; resolves when all caches are filled. */
  async startAll(): Promise<void> {
    const started = await Promise.allSettled([...this.informers.values()].map((i) => i.start()));
    const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) {
      await this.stopAll();
      throw failed.reason;
    }
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.informers.values()].map((i) => i.stop()));
  }
}
