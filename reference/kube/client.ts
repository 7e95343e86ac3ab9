/**
 * The reference controllers' only way to the cluster: @kubernetes/client-node's generated API clients, with the
 * retries an operator needs. 429, 5xx and dropped connections are retried with backoff; a 409 on a status update
 * re-reads the object and applies the change again. Nothing here knows the server is the project's mock.
 */
import {
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  PatchStrategy,
  setHeaderOptions,
  type V1Node,
  type V1ObjectMeta,
} from '@kubernetes/client-node';
import { randomBytes } from 'node:crypto';
import { wallSleep } from '../clock.js';
import { RESOURCES, type Kind } from './resources.js';

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: V1ObjectMeta;
  [key: string]: unknown;
}

export class ApiCallError extends Error {
  constructor(
    message: string,
    readonly status: number | undefined,
    readonly reason: string | undefined,
  ) {
    super(message);
    this.name = 'ApiCallError';
  }
}

const RETRYABLE_CODES = new Set([429, 500, 502, 503, 504]);
const RETRYABLE_NET = /ECONNRESET|ECONNREFUSED|EPIPE|socket hang up|ETIMEDOUT|other side closed|UND_ERR/;

/** Status code and message of whatever client-node threw. */
export function describeError(error: unknown): { status?: number; reason?: string; message: string } {
  const e = error as { code?: unknown; body?: unknown; message?: string };
  const status = typeof e.code === 'number' ? e.code : undefined;
  let reason: string | undefined;
  let message = e.message ?? String(error);
  if (e.body) {
    try {
      const body = typeof e.body === 'string' ? JSON.parse(e.body) : e.body;
      if (body && typeof body === 'object') {
        reason = (body as { reason?: string }).reason;
        message = (body as { message?: string }).message ?? message;
      }
    } catch {
      // not a Status object; keep the client's message
    }
  }
  return { status, reason, message };
}

export function isNotFound(error: unknown): boolean {
  return (error as ApiCallError).status === 404;
}

export function isConflict(error: unknown): boolean {
  return (error as ApiCallError).status === 409;
}

const MERGE_PATCH = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

export interface KubeClientOptions {
  signal?: AbortSignal;
  /** Attempts for retryable failures before giving up. */
  maxAttempts?: number;
  log?: (line: string) => void;
}

export class KubeClient {
  readonly core: CoreV1Api;
  readonly custom: CustomObjectsApi;
  private readonly signal?: AbortSignal;
  private readonly maxAttempts: number;
  private readonly log: (line: string) => void;

  constructor(
    readonly kubeConfig: KubeConfig,
    options: KubeClientOptions = {},
  ) {
    this.core = kubeConfig.makeApiClient(CoreV1Api);
    this.custom = kubeConfig.makeApiClient(CustomObjectsApi);
    this.signal = options.signal;
    this.maxAttempts = options.maxAttempts ?? 8;
    this.log = options.log ?? (() => {});
  }

  static fromFile(path: string, options?: KubeClientOptions): KubeClient {
    const kc = new KubeConfig();
    kc.loadFromFile(path);
    return new KubeClient(kc, options);
  }

  /** Run one API call, retrying what a real client retries, and turn failures into ApiCallError. */
  async call<T>(what: string, fn: () => Promise<T>): Promise<T> {
    let delay = 50;
    for (let attempt = 1; ; attempt++) {
      try {
        return await fn();
      } catch (error) {
        const { status, reason, message } = describeError(error);
        const retryable = (status !== undefined && RETRYABLE_CODES.has(status)) || (status === undefined && RETRYABLE_NET.test(message + String((error as { cause?: unknown }).cause ?? '')));
        if (!retryable || attempt >= this.maxAttempts || this.signal?.aborted) {
          throw new ApiCallError(`${what}: ${message}`, status, reason);
        }
        this.log(`retrying ${what} after ${status ?? 'network error'} (${message}), attempt ${attempt}`);
        await wallSleep(delay + Math.random() * delay, this.signal);
        delay = Math.min(delay * 2, 2000);
      }
    }
  }

  async get<T extends KubeObject>(kind: Kind, name: string, namespace?: string): Promise<T | undefined> {
    try {
      return await this.call(`get ${kind} ${name}`, () => this.rawGet(kind, name, namespace)) as T;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  private rawGet(kind: Kind, name: string, namespace?: string): Promise<unknown> {
    switch (kind) {
      case 'Node':
        return this.core.readNode({ name });
      case 'Namespace':
        return this.core.readNamespace({ name });
      case 'ConfigMap':
        return this.core.readNamespacedConfigMap({ name, namespace: namespace! });
      default: {
        const r = RESOURCES[kind];
        return this.custom.getClusterCustomObject({ group: r.group, version: r.version, plural: r.plural, name });
      }
    }
  }

  async list<T extends KubeObject>(kind: Kind, namespace?: string): Promise<{ items: T[]; metadata?: { resourceVersion?: string } }> {
    return this.call(`list ${kind}`, async () => {
      switch (kind) {
        case 'Node':
          return (await this.core.listNode()) as never;
        case 'Namespace':
          return (await this.core.listNamespace()) as never;
        case 'ConfigMap':
          return (namespace ? await this.core.listNamespacedConfigMap({ namespace }) : await this.core.listConfigMapForAllNamespaces()) as never;
        default: {
          const r = RESOURCES[kind];
          return (await this.custom.listClusterCustomObject({ group: r.group, version: r.version, plural: r.plural })) as never;
        }
      }
    });
  }

  async create<T extends KubeObject>(kind: Kind, body: T): Promise<T> {
    const r = RESOURCES[kind];
    const object = { apiVersion: r.apiVersion, kind, ...body };
    return this.call(`create ${kind} ${body.metadata.name}`, async () => {
      switch (kind) {
        case 'Node':
          return (await this.core.createNode({ body: object as V1Node })) as never;
        case 'Namespace':
          return (await this.core.createNamespace({ body: object as never })) as never;
        case 'ConfigMap':
          return (await this.core.createNamespacedConfigMap({ namespace: body.metadata.namespace!, body: object as never })) as never;
        default:
          return (await this.custom.createClusterCustomObject({ group: r.group, version: r.version, plural: r.plural, body: object })) as never;
      }
    });
  }

  /** JSON merge patch (RFC 7386) of the main resource. */
  async patch<T extends KubeObject>(kind: Kind, name: string, patch: object, namespace?: string): Promise<T> {
    const r = RESOURCES[kind];
    return this.call(`patch ${kind} ${name}`, async () => {
      switch (kind) {
        case 'Node':
          return (await this.core.patchNode({ name, body: patch }, MERGE_PATCH)) as never;
        case 'Namespace':
          return (await this.core.patchNamespace({ name, body: patch }, MERGE_PATCH)) as never;
        case 'ConfigMap':
          return (await this.core.patchNamespacedConfigMap({ name, namespace: namespace!, body: patch }, MERGE_PATCH)) as never;
        default:
          return (await this.custom.patchClusterCustomObject({ group: r.group, version: r.version, plural: r.plural, name, body: patch }, MERGE_PATCH)) as never;
      }
    });
  }

  /**
   * JSON merge patch of the status subresource; `status` is the patch of `.status` (the request wraps it, as the
   * subresource takes a patch of the whole object). Arrays (conditions) are replaced whole, so send them whole.
   */
  async patchStatus<T extends KubeObject>(kind: Kind, name: string, status: object): Promise<T> {
    const r = RESOURCES[kind];
    const patch = { status };
    return this.call(`patch ${kind} ${name} status`, async () => {
      if (kind === 'Node') return (await this.core.patchNodeStatus({ name, body: patch }, MERGE_PATCH)) as never;
      return (await this.custom.patchClusterCustomObjectStatus({ group: r.group, version: r.version, plural: r.plural, name, body: patch }, MERGE_PATCH)) as never;
    });
  }

  /** PUT of the main resource with the object's resourceVersion: a concurrent writer makes it fail with 409. */
  async replace<T extends KubeObject>(kind: Kind, body: T): Promise<T> {
    const r = RESOURCES[kind];
    const name = body.metadata.name!;
    return this.call(`replace ${kind} ${name}`, async () => {
      if (kind === 'ConfigMap') return (await this.core.replaceNamespacedConfigMap({ name, namespace: body.metadata.namespace!, body: body as never })) as never;
      if (r.group === '') throw new Error(`replace of ${kind} is not used by the reference`);
      return (await this.custom.replaceClusterCustomObject({ group: r.group, version: r.version, plural: r.plural, name, body })) as never;
    });
  }

  /**
   * Read-modify-write of a custom resource's status with optimistic concurrency: on 409 the object is read again and
   * `mutate` runs again. `mutate` returns undefined when nothing needs writing.
   */
  async updateStatus<T extends KubeObject>(kind: Kind, name: string, mutate: (current: T) => T['status'] | undefined, fresh?: T): Promise<T | undefined> {
    const r = RESOURCES[kind];
    let current = fresh;
    for (let attempt = 1; attempt <= 10; attempt++) {
      current ??= await this.get<T>(kind, name);
      if (!current) return undefined;
      const status = mutate(current);
      if (status === undefined) return current;
      const body = { ...current, status };
      try {
        return await this.call(`update ${kind} ${name} status`, async () =>
          (await this.custom.replaceClusterCustomObjectStatus({ group: r.group, version: r.version, plural: r.plural, name, body })) as never,
        );
      } catch (error) {
        if (!isConflict(error)) throw error;
        current = undefined; // someone else wrote: read again and redo the change
      }
    }
    throw new ApiCallError(`update ${kind} ${name} status: still conflicting after 10 attempts`, 409, 'Conflict');
  }

  async delete(kind: Kind, name: string, namespace?: string): Promise<void> {
    const r = RESOURCES[kind];
    try {
      await this.call(`delete ${kind} ${name}`, async () => {
        switch (kind) {
          case 'Node':
            return this.core.deleteNode({ name });
          case 'ConfigMap':
            return this.core.deleteNamespacedConfigMap({ name, namespace: namespace! });
          case 'Namespace':
            return this.core.deleteNamespace({ name });
          default:
            return this.custom.deleteClusterCustomObject({ group: r.group, version: r.version, plural: r.plural, name });
        }
      });
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }

  /** Create unless it exists; an existing object gets `object` merged in (labels, annotations, spec, data). */
  async apply<T extends KubeObject>(kind: Kind, object: T): Promise<T> {
    try {
      return await this.create(kind, object);
    } catch (error) {
      if ((error as ApiCallError).status !== 409) throw error;
      const { metadata, ...rest } = object;
      const { status: _status, apiVersion: _a, kind: _k, ...patchable } = rest as Record<string, unknown>;
      const metaPatch = { labels: metadata.labels, annotations: metadata.annotations };
      return this.patch<T>(kind, metadata.name!, { metadata: metaPatch, ...patchable }, metadata.namespace);
    }
  }

  /**
   * Record an event, as controllers do with a recorder. Events of cluster-scoped objects go to `default`. Failures
   * are logged, never thrown: an event is never worth failing a sync.
   */
  async event(involved: { kind: string; name: string; namespace?: string; uid?: string; apiVersion?: string }, type: 'Normal' | 'Warning', reason: string, message: string, component: string, now: string): Promise<void> {
    const namespace = involved.namespace ?? 'default';
    const name = `${involved.name}.${randomBytes(8).toString('hex')}`;
    try {
      await this.core.createNamespacedEvent({
        namespace,
        body: {
          metadata: { name, namespace },
          involvedObject: { kind: involved.kind, name: involved.name, namespace: involved.namespace, uid: involved.uid, apiVersion: involved.apiVersion },
          reason,
          message,
          type,
          source: { component },
          firstTimestamp: new Date(now),
          lastTimestamp: new Date(now),
          count: 1,
          reportingComponent: component,
        },
      });
    } catch (error) {
      this.log(`could not record event ${reason} on ${involved.kind}/${involved.name}: ${describeError(error).message}`);
    }
  }
}
