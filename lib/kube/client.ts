/**
 * A small typed client over @kubernetes/client-node's generated APIs for the kinds of `kinds.ts`: read, list, create,
 * merge-patch, replace, status writes with optimistic concurrency, delete, apply, events. Every call goes through the
 * one retry policy (`retry.ts`) and fails with a KubeApiError naming the call. Nothing here knows what the objects mean.
 */
import {
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  PatchStrategy,
  setHeaderOptions,
  type V1ObjectMeta,
} from '@kubernetes/client-node';
import { randomBytes } from 'node:crypto';
import type { Duplex } from 'node:stream';
import { classifyApiError, isConflict, isNotFound, KubeApiError, type ApiFailure } from './errors.js';
import { apiVersionOf, KINDS, type Kind } from './kinds.js';
import { withRetry, type RetryOptions, type RetryPolicy } from './retry.js';
import { PooledKubeConfig } from './pooled-kubeconfig.js';

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: V1ObjectMeta;
  [key: string]: unknown;
}

export interface KubeList<T> {
  items: T[];
  metadata?: { resourceVersion?: string };
}

export interface ListOptions {
  /** For a namespaced kind; omitted means all namespaces. */
  namespace?: string;
  labelSelector?: string;
  /** Events only (the fields kube-apiserver indexes for them, e.g. `involvedObject.name=x,reason=y`). */
  fieldSelector?: string;
}

export interface KubeClientOptions {
  /** Aborting stops retries (in-flight calls fail with their last error). */
  signal?: AbortSignal;
  /** Overrides of the default retry policy (tests shorten it; nothing else should need to). */
  retry?: Partial<RetryPolicy>;
  /** Where retries and swallowed failures are logged. */
  log?: (line: string) => void;
  /** The error thrown when a call gives up (default KubeApiError): lets the suite add its hints. */
  errorFor?: (what: string, failure: ApiFailure, attempts: number) => Error;
  /** Headers sent with every request (fromFile only). */
  headers?: Readonly<Record<string, string>>;
  /** Connections to an API server in this process, instead of TCP and TLS to the kubeconfig's (fromFile only). */
  connect?: () => Duplex;
}

const MERGE_PATCH = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/** `name` or `namespace/name`, as the calls are named in errors. */
/** How many distinct events a client remembers to count repeats of (client-go's event correlator cache). */
const RECORDED_EVENTS_CACHE = 4096;
const objectName = (name: string, namespace?: string) => (namespace ? `${namespace}/${name}` : name);

export class KubeClient {
  readonly core: CoreV1Api;
  readonly custom: CustomObjectsApi;
  /** The API server's URL, from the kubeconfig's current cluster. */
  readonly server: string;
  private readonly retry: RetryOptions;
  private readonly log: (line: string) => void;
  /** Events this client recorded, by what makes two the same, oldest first: a repeat raises the count of the first. */
  private readonly recordedEvents = new Map<string, { name: string; count: number; created: boolean; firstTimestamp: string }>();
  private readonly spamFilter = new EventSpamFilter();

  constructor(
    readonly kubeConfig: KubeConfig,
    options: KubeClientOptions = {},
  ) {
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error('the kubeconfig has no current cluster: set current-context');
    this.server = cluster.server;
    this.core = kubeConfig.makeApiClient(CoreV1Api);
    this.custom = kubeConfig.makeApiClient(CustomObjectsApi);
    this.log = options.log ?? (() => {});
    this.retry = {
      ...options.retry,
      signal: options.signal,
      errorFor: options.errorFor,
      onRetry: (what, failure, attempt, delay) =>
        this.log(`retrying ${what} in ${Math.round(delay)} ms after ${failure.code ?? 'network error'} (${failure.message}), attempt ${attempt}`),
    };
  }

  static fromFile(path: string, options?: KubeClientOptions): KubeClient {
    const kc = new PooledKubeConfig(options?.headers, options?.connect);
    kc.loadFromFile(path);
    return new KubeClient(kc, options);
  }

  /** Runs one API call under the retry policy; failures become the client's error (KubeApiError by default). */
  call<T>(what: string, fn: () => Promise<T>): Promise<T> {
    return withRetry(what, fn, this.retry);
  }

  /** The object; throws (a not-found error included). */
  read<T extends KubeObject>(kind: Kind, name: string, namespace?: string): Promise<T> {
    return this.call(`get ${kind} ${objectName(name, namespace)}`, () => this.rawRead(kind, name, namespace)) as Promise<T>;
  }

  /** The object, or undefined when it does not exist. */
  async get<T extends KubeObject>(kind: Kind, name: string, namespace?: string): Promise<T | undefined> {
    try {
      return await this.read<T>(kind, name, namespace);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  private rawRead(kind: Kind, name: string, namespace?: string): Promise<unknown> {
    switch (kind) {
      case 'Node':
        return this.core.readNode({ name });
      case 'Namespace':
        return this.core.readNamespace({ name });
      case 'ConfigMap':
        return this.core.readNamespacedConfigMap({ name, namespace: namespace! });
      case 'Secret':
        return this.core.readNamespacedSecret({ name, namespace: namespace! });
      case 'Event':
        return this.core.readNamespacedEvent({ name, namespace: namespace! });
      case 'Pod':
        return this.core.readNamespacedPod({ name, namespace: namespace! });
      default: {
        const r = KINDS[kind];
        if (r.namespaced) return this.custom.getNamespacedCustomObject({ group: r.group, version: r.version, plural: r.plural, namespace: namespace!, name });
        return this.custom.getClusterCustomObject({ group: r.group, version: r.version, plural: r.plural, name });
      }
    }
  }

  /** A list with its resourceVersion (for list-then-watch). */
  async list<T extends KubeObject>(kind: Kind, options: ListOptions = {}): Promise<KubeList<T>> {
    const { namespace, labelSelector, fieldSelector } = options;
    const what = `list ${kind}${namespace ? ` -n ${namespace}` : ''}${labelSelector ? ` -l ${labelSelector}` : ''}`;
    const list = (await this.call(what, async () => {
      switch (kind) {
        case 'Node':
          return this.core.listNode({ labelSelector });
        case 'Namespace':
          return this.core.listNamespace({ labelSelector });
        case 'ConfigMap':
          return namespace ? this.core.listNamespacedConfigMap({ namespace, labelSelector }) : this.core.listConfigMapForAllNamespaces({ labelSelector });
        case 'Secret':
          return namespace ? this.core.listNamespacedSecret({ namespace, labelSelector }) : this.core.listSecretForAllNamespaces({ labelSelector });
        case 'Event':
          return namespace ? this.core.listNamespacedEvent({ namespace, labelSelector, fieldSelector }) : this.core.listEventForAllNamespaces({ labelSelector, fieldSelector });
        case 'Pod':
          return namespace ? this.core.listNamespacedPod({ namespace, labelSelector }) : this.core.listPodForAllNamespaces({ labelSelector });
        default: {
          const r = KINDS[kind];
          if (r.namespaced && namespace) return this.custom.listNamespacedCustomObject({ group: r.group, version: r.version, plural: r.plural, namespace, labelSelector });
          // a namespaced custom-object kind across all namespaces has the cluster-scoped URL shape
          return this.custom.listClusterCustomObject({ group: r.group, version: r.version, plural: r.plural, labelSelector });
        }
      }
    })) as KubeList<T>;
    return { items: list.items ?? [], metadata: list.metadata };
  }

  async create<T extends KubeObject>(kind: Kind, body: T): Promise<T> {
    const r = KINDS[kind];
    const object = { apiVersion: apiVersionOf(r), kind, ...body };
    const namespace = body.metadata.namespace!;
    return this.call(`create ${kind} ${objectName(body.metadata.name!, r.namespaced ? namespace : undefined)}`, async () => {
      switch (kind) {
        case 'Node':
          return (await this.core.createNode({ body: object as never })) as never;
        case 'Namespace':
          return (await this.core.createNamespace({ body: object as never })) as never;
        case 'ConfigMap':
          return (await this.core.createNamespacedConfigMap({ namespace, body: object as never })) as never;
        case 'Secret':
          return (await this.core.createNamespacedSecret({ namespace, body: object as never })) as never;
        case 'Event':
          return (await this.core.createNamespacedEvent({ namespace, body: object as never })) as never;
        case 'Pod':
          return (await this.core.createNamespacedPod({ namespace, body: object as never })) as never;
        default:
          if (r.namespaced) return (await this.custom.createNamespacedCustomObject({ group: r.group, version: r.version, plural: r.plural, namespace, body: object })) as never;
          return (await this.custom.createClusterCustomObject({ group: r.group, version: r.version, plural: r.plural, body: object })) as never;
      }
    });
  }

  /** JSON merge patch (RFC 7386) of the main resource. */
  async patch<T extends KubeObject>(kind: Kind, name: string, patch: object, namespace?: string): Promise<T> {
    const r = KINDS[kind];
    return this.call(`merge-patch ${kind} ${objectName(name, namespace)}`, async () => {
      switch (kind) {
        case 'Node':
          return (await this.core.patchNode({ name, body: patch }, MERGE_PATCH)) as never;
        case 'Namespace':
          return (await this.core.patchNamespace({ name, body: patch }, MERGE_PATCH)) as never;
        case 'ConfigMap':
          return (await this.core.patchNamespacedConfigMap({ name, namespace: namespace!, body: patch }, MERGE_PATCH)) as never;
        case 'Secret':
          return (await this.core.patchNamespacedSecret({ name, namespace: namespace!, body: patch }, MERGE_PATCH)) as never;
        case 'Event':
          return (await this.core.patchNamespacedEvent({ name, namespace: namespace!, body: patch }, MERGE_PATCH)) as never;
        case 'Pod':
          return (await this.core.patchNamespacedPod({ name, namespace: namespace!, body: patch }, MERGE_PATCH)) as never;
        default:
          if (r.namespaced) return (await this.custom.patchNamespacedCustomObject({ group: r.group, version: r.version, plural: r.plural, namespace: namespace!, name, body: patch }, MERGE_PATCH)) as never;
          return (await this.custom.patchClusterCustomObject({ group: r.group, version: r.version, plural: r.plural, name, body: patch }, MERGE_PATCH)) as never;
      }
    });
  }

  /**
   * JSON merge patch of the status subresource; `status` is the patch of `.status` (the request wraps it, as the
   * subresource takes a patch of the whole object). Arrays (conditions) are replaced whole, so send them whole.
   */
  async patchStatus<T extends KubeObject>(kind: Kind, name: string, status: object, namespace?: string): Promise<T> {
    const r = KINDS[kind];
    const patch = { status };
    return this.call(`merge-patch ${kind} ${objectName(name, namespace)} status`, async () => {
      if (kind === 'Node') return (await this.core.patchNodeStatus({ name, body: patch }, MERGE_PATCH)) as never;
      if (kind === 'Pod') return (await this.core.patchNamespacedPodStatus({ name, namespace: namespace!, body: patch }, MERGE_PATCH)) as never;
      if (r.namespaced) return (await this.custom.patchNamespacedCustomObjectStatus({ group: r.group, version: r.version, plural: r.plural, namespace: namespace!, name, body: patch }, MERGE_PATCH)) as never;
      if (r.group === '') throw new Error(`status patch of ${kind} is not supported`);
      return (await this.custom.patchClusterCustomObjectStatus({ group: r.group, version: r.version, plural: r.plural, name, body: patch }, MERGE_PATCH)) as never;
    });
  }

  /** PUT of the main resource with the object's resourceVersion: a concurrent writer makes it fail with 409. */
  async replace<T extends KubeObject>(kind: Kind, body: T): Promise<T> {
    const r = KINDS[kind];
    const name = body.metadata.name!;
    return this.call(`replace ${kind} ${name}`, async () => {
      if (kind === 'ConfigMap') return (await this.core.replaceNamespacedConfigMap({ name, namespace: body.metadata.namespace!, body: body as never })) as never;
      if (r.group === '') throw new Error(`replace of ${kind} is not supported`);
      return (await this.custom.replaceClusterCustomObject({ group: r.group, version: r.version, plural: r.plural, name, body })) as never;
    });
  }

  /**
   * Read-modify-write of a custom resource's status with optimistic concurrency: on 409 the object is read again and
   * `mutate` runs again. `mutate` returns undefined when nothing needs writing.
   */
  async updateStatus<T extends KubeObject>(kind: Kind, name: string, mutate: (current: T) => T['status'] | undefined, fresh?: T): Promise<T | undefined> {
    const r = KINDS[kind];
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
    throw new KubeApiError(`update ${kind} ${name} status`, { kind: 'conflict', code: 409, reason: 'Conflict', message: 'still conflicting', retryable: false }, 10);
  }

  /** Deletes an object; true if it existed. Deleting twice is fine. */
  async delete(kind: Kind, name: string, namespace?: string): Promise<boolean> {
    const r = KINDS[kind];
    try {
      await this.call(`delete ${kind} ${objectName(name, namespace)}`, async () => {
        switch (kind) {
          case 'Node':
            return this.core.deleteNode({ name });
          case 'Namespace':
            return this.core.deleteNamespace({ name });
          case 'ConfigMap':
            return this.core.deleteNamespacedConfigMap({ name, namespace: namespace! });
          case 'Secret':
            return this.core.deleteNamespacedSecret({ name, namespace: namespace! });
          case 'Event':
            return this.core.deleteNamespacedEvent({ name, namespace: namespace! });
          case 'Pod':
            return this.core.deleteNamespacedPod({ name, namespace: namespace!, gracePeriodSeconds: 0 });
          case 'Job':
            // batch/v1 orphans a Job's pods unless told otherwise; `oc delete job` and controllers ask for Background
            return this.custom.deleteNamespacedCustomObject({ group: r.group, version: r.version, plural: r.plural, namespace: namespace!, name, propagationPolicy: 'Background' });
          default:
            if (r.namespaced) return this.custom.deleteNamespacedCustomObject({ group: r.group, version: r.version, plural: r.plural, namespace: namespace!, name });
            return this.custom.deleteClusterCustomObject({ group: r.group, version: r.version, plural: r.plural, name });
        }
      });
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
  }

  /** Create unless it exists; an existing object gets `object` merged in (labels, annotations, spec, data). */
  async apply<T extends KubeObject>(kind: Kind, object: T): Promise<T> {
    try {
      return await this.create(kind, object);
    } catch (error) {
      if (!isConflict(error)) throw error;
      const { metadata, ...rest } = object;
      const { status: _status, apiVersion: _a, kind: _k, ...patchable } = rest as Record<string, unknown>;
      const metaPatch = { labels: metadata.labels, annotations: metadata.annotations };
      return this.patch<T>(kind, metadata.name!, { metadata: metaPatch, ...patchable }, metadata.namespace);
    }
  }

  /**
   * Records an event, as controllers do with a recorder. Events of cluster-scoped objects go to `default`. Failures
   * are logged, never thrown: an event is never worth failing the work that reports it.
   */
  async event(
    involved: { kind: string; name: string; namespace?: string; uid?: string; apiVersion?: string },
    type: 'Normal' | 'Warning',
    reason: string,
    message: string,
    component: string,
    now: string,
  ): Promise<void> {
    const namespace = involved.namespace ?? 'default';
    // client-go's event correlator: the same event again (object, type, reason, message, source) is the same Event
    // object with its count raised, not a new one; the cache is bounded as client-go's (4096 keys, oldest dropped)
    const key = JSON.stringify([component, involved.kind, namespace, involved.name, involved.uid ?? '', type, reason, message]);
    const seen = this.recordedEvents.get(key) ?? { name: `${involved.name}.${randomBytes(8).toString('hex')}`, count: 0, created: false, firstTimestamp: now };
    seen.count += 1;
    this.recordedEvents.delete(key);
    this.recordedEvents.set(key, seen);
    if (this.recordedEvents.size > RECORDED_EVENTS_CACHE) this.recordedEvents.delete(this.recordedEvents.keys().next().value!);
    // and its spam filter: per source and object, a bucket of 25 events refilled one per 5 minutes of the clock the
    // events are stamped with; a dropped one still counts, and the next one sent carries the count
    const spamKey = JSON.stringify([component, involved.kind, namespace, involved.name, involved.uid ?? '', involved.apiVersion ?? '', type]);
    if (!this.spamFilter.allows(spamKey, Date.parse(now))) return;
    try {
      if (seen.created) {
        await this.patch('Event', seen.name, { count: seen.count, lastTimestamp: now }, namespace);
        return;
      }
      seen.created = true;
      const { name } = seen;
      await this.core.createNamespacedEvent({
        namespace,
        body: {
          metadata: { name, namespace },
          involvedObject: { kind: involved.kind, name: involved.name, namespace: involved.namespace, uid: involved.uid, apiVersion: involved.apiVersion },
          reason,
          message,
          type,
          source: { component },
          firstTimestamp: new Date(seen.firstTimestamp),
          lastTimestamp: new Date(now),
          count: seen.count,
          reportingComponent: component,
        },
      });
    } catch (error) {
      this.log(`could not record event ${reason} on ${involved.kind}/${involved.name}: ${classifyApiError(error).message}`);
    }
  }
}

/**
 * client-go's EventSourceObjectSpamFilter (tools/record/events_cache.go): a token bucket per event source and object,
 * 25 deep, refilled at one token per 300 s; at most 4096 buckets, the oldest dropped.
 */
class EventSpamFilter {
  private static readonly BURST = 25;
  private static readonly REFILL_MS = 300_000;
  private readonly buckets = new Map<string, { tokens: number; atMs: number }>();

  allows(key: string, nowMs: number): boolean {
    const bucket = this.buckets.get(key) ?? { tokens: EventSpamFilter.BURST, atMs: nowMs };
    this.buckets.delete(key);
    bucket.tokens = Math.min(EventSpamFilter.BURST, bucket.tokens + Math.max(0, nowMs - bucket.atMs) / EventSpamFilter.REFILL_MS);
    bucket.atMs = nowMs;
    this.buckets.set(key, bucket);
    if (this.buckets.size > RECORDED_EVENTS_CACHE) this.buckets.delete(this.buckets.keys().next().value!);
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }
}
