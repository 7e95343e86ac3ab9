/**
 * The verbs of the Kubernetes API on top of the store, with the semantics clients depend on: resourceVersion
 * preconditions, generation, status subresource, schema pruning and validation, generateName, finalizers and
 * deletionTimestamp. The server's own controllers are wired here and run in their own modules: owner-reference
 * garbage collection (garbage-collector.ts) and namespace deletion (namespace-controller.ts). HTTP is handled
 * elsewhere.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { establishedStatus, resourceTypesOf, validateCrd } from './crds.js';
import type { Deleter } from './deleter.js';
import { ApiError, errors, type StatusCause } from './errors.js';
import { FOREGROUND_FINALIZER, GarbageCollector } from './garbage-collector.js';
import { mergeApplied, removePaths, unappliedPaths } from './apply-merge.js';
import { compareObjects, fieldSet, fromFieldsV1, recordOwnership, UntypableError } from './managedfields.js';
import { BUILTIN_PATCH_TYPES, CUSTOM_RESOURCE_PATCH_TYPES } from './media-types.js';
import { NAMESPACE_STORAGE_KEY, NamespaceController } from './namespace-controller.js';
import { objectShape } from './merge-shape.js';
import { mergePatch, jsonPatch, strategicMerge, PATCH_TYPES } from './patch.js';
import { apiVersionOf, type KubeObject, type ResourceRegistry, type ResourceType } from './resources.js';
import { KIND_FIELDS, parseFieldSelector, parseLabelSelector } from './selectors.js';
import { objectKey, type Store, type StoredObject } from './store.js';

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

export interface WriteOptions {
  dryRun?: boolean;
  fieldValidation?: FieldValidation;
  fieldManager?: string;
  force?: boolean;
  /** Filled with Warning headers for the response (unknown fields under fieldValidation=Warn). */
  warnings?: string[];
}

export interface DeleteOptions {
  dryRun?: boolean;
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  preconditions?: { uid?: string; resourceVersion?: string };
}

export interface ListOptions { labelSelector?: string; fieldSelector?: string; limit?: number; continue?: string }

export interface ListResult { items: StoredObject[]; resourceVersion: string; continue?: string; remainingItemCount?: number }

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const LABEL_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;

/** Kubernetes timestamps: RFC 3339 in UTC with second precision. */
export function timestamp(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

const CRD_STORAGE_KEY = 'apiextensions.k8s.io/customresourcedefinitions';

export class Api {
  private readonly collector: GarbageCollector;
  private readonly namespaces: NamespaceController;

  constructor(
    readonly store: Store,
    readonly registry: ResourceRegistry,
    private readonly now: () => Date,
  ) {
    // The controllers delete through the verbs, so what they delete gets finalizers and propagation like any other.
    const deleter: Deleter = {
      delete: (rt, namespace, name, propagationPolicy) => { this.delete(rt, namespace, name, { propagationPolicy }); },
      remove: (rt, obj) => { this.removeNow(rt, obj, false); },
    };
    this.collector = new GarbageCollector(store, registry, deleter);
    this.namespaces = new NamespaceController(store, registry, deleter);
  }

  // ---------------------------------------------------------------- reads

  get(rt: ResourceType, namespace: string | undefined, name: string): StoredObject {
    const s = this.store.get(rt.storageKey, rt.namespaced ? namespace : undefined, name);
    if (!s) throw errors.notFound(rt.group, rt.plural, name);
    return withDefaults(rt, s);
  }

  /** A filter for watch and list, from label and field selectors. */
  matcher(rt: ResourceType, opts: { labelSelector?: string; fieldSelector?: string }): (o: KubeObject) => boolean {
    const byLabel = parseLabelSelector(opts.labelSelector);
    const byField = parseFieldSelector(opts.fieldSelector, rt.kind, KIND_FIELDS[rt.kind]);
    if (!byLabel && !byField) return () => true;
    return (o) => (!byLabel || byLabel(o)) && (!byField || byField(o));
  }

  list(rt: ResourceType, namespace: string | undefined, opts: ListOptions): ListResult {
    const match = this.matcher(rt, opts);
    let items = this.store.list(rt.storageKey, rt.namespaced ? namespace : undefined).filter((s) => match(s.obj));
    if (rt.schema) items = items.map((s) => withDefaults(rt, s));
    let resourceVersion = String(this.store.resourceVersion);
    if (opts.continue) {
      let token: { rv: string; start: string };
      try {
        token = JSON.parse(Buffer.from(opts.continue, 'base64url').toString('utf8'));
        if (typeof token.start !== 'string' || typeof token.rv !== 'string') throw new Error('bad token');
      } catch {
        throw errors.badRequest('invalid value for continue: the continue token is malformed');
      }
      // Pages after the first report the list's original resourceVersion, as a consistent paginated list does.
      resourceVersion = token.rv;
      items = items.filter((s) => objectKey(s.obj.metadata.namespace, s.obj.metadata.name!) > token.start);
    }
    const limit = opts.limit && opts.limit > 0 ? opts.limit : undefined;
    if (limit && items.length > limit) {
      const page = items.slice(0, limit);
      const last = page[page.length - 1]!.obj.metadata;
      const token = Buffer.from(JSON.stringify({ rv: resourceVersion, start: objectKey(last.namespace, last.name!) })).toString('base64url');
      return { items: page, resourceVersion, continue: token, remainingItemCount: items.length - limit };
    }
    return { items, resourceVersion };
  }

  // ---------------------------------------------------------------- writes

  /** POST. `appliedFields` is set when server-side apply creates the object: the fields its manager owns. */
  create(rt: ResourceType, namespace: string | undefined, body: unknown, opts: WriteOptions = {}, appliedFields?: Set<string>): KubeObject {
    const obj = this.checkBody(rt, body);
    this.checkNamespace(rt, namespace, obj);
    const meta = obj.metadata;
    if (!meta.name) {
      if (!meta.generateName) throw errors.invalid(rt.group, rt.kind, '', [{ reason: 'FieldValueRequired', field: 'metadata.name', message: 'Required value: name or generateName is required' }]);
      meta.name = this.generatedName(rt, namespace, meta.generateName);
    }
    this.checkName(rt, meta.name);
    if (rt.namespaced) this.checkNamespaceOpen(namespace!);
    if (this.store.get(rt.storageKey, rt.namespaced ? namespace : undefined, meta.name)) throw errors.alreadyExists(rt.group, rt.plural, meta.name);
    meta.uid = randomUUID();
    meta.creationTimestamp = timestamp(this.now());
    delete meta.resourceVersion;
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    if (rt.tracksGeneration) meta.generation = 1;
    else delete meta.generation;
    // A custom resource's status can only be written through its status subresource.
    if (rt.statusSubresource && !rt.builtin) delete obj.status;
    rt.onCreate?.(obj);
    this.admit(rt, obj, undefined, opts);
    if (opts.fieldManager) {
      const change = compareObjects(undefined, obj, objectShape(rt.openAPIV3Schema));
      recordOwnership(obj, change, { manager: opts.fieldManager, operation: appliedFields ? 'Apply' : 'Update', applied: appliedFields, time: timestamp(this.now()) });
    }
    if (opts.dryRun) return obj;
    return this.commit(rt, obj).obj;
  }

  /** PUT: the whole object, or its status when `subresource` is "status". */
  update(rt: ResourceType, namespace: string | undefined, name: string, body: unknown, opts: WriteOptions = {}, subresource?: string): KubeObject {
    const current = this.get(rt, namespace, name);
    const incoming = this.checkBody(rt, body);
    if (incoming.metadata.name && incoming.metadata.name !== name) {
      throw errors.badRequest(`the name of the object (${incoming.metadata.name}) does not match the name on the URL (${name})`);
    }
    incoming.metadata.name = name;
    this.checkNamespace(rt, namespace, incoming);
    const rv = incoming.metadata.resourceVersion;
    if (rv !== undefined && rv !== '' && rv !== current.obj.metadata.resourceVersion) {
      throw errors.conflict(rt.group, rt.plural, name, 'the object has been modified; please apply your changes to the latest version and try again');
    }
    return this.replace(rt, current.obj, incoming, opts, subresource);
  }

  patch(rt: ResourceType, namespace: string | undefined, name: string, contentType: string, patch: unknown, opts: WriteOptions = {}, subresource?: string): { obj: KubeObject; created: boolean } {
    const existing = this.store.get(rt.storageKey, rt.namespaced ? namespace : undefined, name);
    if (contentType === PATCH_TYPES.apply) return this.apply(rt, namespace, name, patch, existing, opts, subresource);
    if (!existing) throw errors.notFound(rt.group, rt.plural, name);
    const current = existing.obj;
    let patched: unknown;
    switch (contentType) {
      case PATCH_TYPES.json: patched = jsonPatch(current, patch); break;
      case PATCH_TYPES.merge: patched = mergePatch(current, patch); break;
      case PATCH_TYPES.strategic:
        if (!rt.builtin) throw errors.unsupportedMediaType(CUSTOM_RESOURCE_PATCH_TYPES);
        patched = strategicMerge(current, patch);
        break;
      default: throw errors.unsupportedMediaType(rt.builtin ? BUILTIN_PATCH_TYPES : CUSTOM_RESOURCE_PATCH_TYPES);
    }
    if (patched === null || typeof patched !== 'object' || Array.isArray(patched)) throw errors.badRequest('the patch does not produce an object');
    const obj = patched as KubeObject;
    if (typeof obj.metadata !== 'object' || obj.metadata === null) obj.metadata = {};
    if (obj.metadata.name !== undefined && obj.metadata.name !== name) throw errors.badRequest(`metadata.name: the name of the object (${obj.metadata.name}) does not match the name on the URL (${name})`);
    const rv = obj.metadata.resourceVersion;
    if (rv !== undefined && rv !== current.metadata.resourceVersion) {
      throw errors.conflict(rt.group, rt.plural, name, 'the object has been modified; please apply your changes to the latest version and try again');
    }
    return { obj: this.replace(rt, current, obj, opts, subresource), created: false };
  }

  delete(rt: ResourceType, namespace: string | undefined, name: string, opts: DeleteOptions = {}): { obj: KubeObject; gone: boolean } {
    const current = this.get(rt, namespace, name).obj;
    const pre = opts.preconditions ?? {};
    if (pre.uid && pre.uid !== current.metadata.uid) {
      throw errors.conflict(rt.group, rt.plural, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${current.metadata.uid}`);
    }
    if (pre.resourceVersion && pre.resourceVersion !== current.metadata.resourceVersion) {
      throw errors.conflict(rt.group, rt.plural, name, `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${current.metadata.resourceVersion}`);
    }
    const isNamespace = rt.storageKey === NAMESPACE_STORAGE_KEY;
    // Foreground: the owner stays, with the foregroundDeletion finalizer, until its dependents are gone.
    const dependents = opts.propagationPolicy === 'Foreground' && !isNamespace ? this.collector.dependentsOf(current.metadata.uid!) : [];
    const finalizers = [...(current.metadata.finalizers ?? [])];
    if (dependents.length && !finalizers.includes(FOREGROUND_FINALIZER)) finalizers.push(FOREGROUND_FINALIZER);
    const mustWait = finalizers.length > 0 || isNamespace;
    if (opts.dryRun) return { obj: current, gone: !mustWait };
    if (mustWait) {
      if (current.metadata.deletionTimestamp) return { obj: current, gone: false };
      const next: KubeObject = { ...current, metadata: { ...current.metadata, deletionTimestamp: timestamp(this.now()), deletionGracePeriodSeconds: 0 } };
      if (finalizers.length) next.metadata.finalizers = finalizers;
      if (dependents.length) this.collector.deleteInForeground({ rt, namespace: current.metadata.namespace, name, uid: current.metadata.uid! }, dependents);
      if (rt.tracksGeneration) next.metadata.generation = (current.metadata.generation ?? 0) + 1;
      if (isNamespace) {
        next.status = { ...(current.status ?? {}), phase: 'Terminating' };
        this.namespaces.terminate(name);
      }
      return { obj: this.store.put(rt.storageKey, next).obj, gone: false };
    }
    const removed = this.removeNow(rt, current, (opts.propagationPolicy ?? rt.defaultPropagation) === 'Orphan');
    return { obj: removed, gone: true };
  }

  deleteCollection(rt: ResourceType, namespace: string | undefined, opts: ListOptions & DeleteOptions): KubeObject[] {
    const { items } = this.list(rt, namespace, { labelSelector: opts.labelSelector, fieldSelector: opts.fieldSelector });
    const out: KubeObject[] = [];
    for (const s of items) {
      try {
        out.push(this.delete(rt, s.obj.metadata.namespace, s.obj.metadata.name!, { dryRun: opts.dryRun, propagationPolicy: opts.propagationPolicy }).obj);
      } catch (e) {
        if (!(e instanceof ApiError && e.code === 404)) throw e;
      }
    }
    return out;
  }

  /** After a restart from the persistence log: carry on deleting namespaces that were terminating. */
  resumeNamespaceCleanup(): void {
    this.namespaces.resume();
  }

  close(): void {
    this.namespaces.close();
  }

  // ---------------------------------------------------------------- internals

  /**
   * Server-side apply, after structured-merge-diff: the applied configuration merged into the live object by the
   * kind's schema (merge-shape.ts, apply-merge.ts), what the manager stopped applying removed, ownership recorded and
   * conflicts with other managers refused unless forced (managedfields.ts).
   */
  private apply(rt: ResourceType, namespace: string | undefined, name: string, patch: unknown, existing: StoredObject | undefined, opts: WriteOptions, subresource?: string): { obj: KubeObject; created: boolean } {
    if (!opts.fieldManager) throw errors.badRequest('PATCH, application/apply-patch+yaml requires fieldManager');
    if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) throw errors.badRequest('apply patch must be an object');
    const applied = patch as KubeObject;
    if (!applied.apiVersion || !applied.kind) throw errors.badRequest('apply patch needs apiVersion and kind');
    if (applied.metadata != null && (typeof applied.metadata !== 'object' || Array.isArray(applied.metadata))) {
      throw errors.badRequest(`failed to create typed patch object: .metadata: expected map, got ${Array.isArray(applied.metadata) ? 'list' : typeof applied.metadata}`);
    }
    applied.metadata ??= {};
    if (applied.metadata.name !== undefined && applied.metadata.name !== name) throw errors.badRequest(`the name of the object (${applied.metadata.name}) does not match the name on the URL (${name})`);
    if (applied.metadata.managedFields != null) throw errors.badRequest('metadata.managedFields must be nil');
    const shape = objectShape(rt.openAPIV3Schema);
    const appliedFields = this.appliedFieldSet(rt, applied, shape, subresource);
    if (!existing) {
      if (subresource) throw errors.notFound(rt.group, rt.plural, name);
      const body = structuredClone(applied);
      body.metadata.name = name;
      return { obj: this.create(rt, namespace, body, opts, appliedFields), created: true };
    }
    const live = existing.obj;
    if (applied.metadata.resourceVersion && applied.metadata.resourceVersion !== live.metadata.resourceVersion) {
      throw errors.conflict(rt.group, rt.plural, name, 'the object has been modified; please apply your changes to the latest version and try again');
    }
    let merged = mergeApplied(live, applied, shape) as KubeObject;
    merged.metadata.resourceVersion = live.metadata.resourceVersion;
    // What this manager applied last time and no longer applies goes, unless another manager owns it.
    const entries = (live.metadata.managedFields ?? []) as Array<{ manager?: string; operation?: string; subresource?: string; fieldsV1?: unknown }>;
    const previous = entries.find((e) => e.manager === opts.fieldManager && e.operation === 'Apply' && !e.subresource);
    if (previous) {
      const others = new Set(entries.filter((e) => e !== previous).flatMap((e) => [...fromFieldsV1(e.fieldsV1)]));
      removePaths(merged, unappliedPaths(fromFieldsV1(previous.fieldsV1), appliedFields, others), shape);
    }
    // The part of the object the endpoint does not write stays as it is (status, or all but status).
    if (subresource === 'status') {
      merged = { ...structuredClone(live), status: merged.status };
      if (merged.status === undefined) delete merged.status;
    } else if (rt.statusSubresource) {
      if (live.status === undefined) delete merged.status; else merged.status = structuredClone(live.status);
    }
    recordOwnership(merged, compareObjects(live, merged, shape), { manager: opts.fieldManager, operation: 'Apply', applied: appliedFields, force: opts.force, time: timestamp(this.now()) });
    return { obj: this.replace(rt, live, merged, { ...opts, fieldManager: undefined }, subresource, merged.metadata.managedFields ?? []), created: false };
  }

  /** The fields an apply sets, the part of the object its endpoint does not write left out; 400 when its lists cannot merge. */
  private appliedFieldSet(rt: ResourceType, applied: KubeObject, shape: ReturnType<typeof objectShape>, subresource?: string): Set<string> {
    let fields: Set<string>;
    try {
      fields = fieldSet(applied, shape);
    } catch (e) {
      if (e instanceof UntypableError) throw errors.badRequest(`failed to create typed patch object (${apiVersionOf(rt)}, Kind=${rt.kind}): ${e.message}`);
      throw e;
    }
    const inStatus = (k: string) => k === 'f:status' || k.startsWith('f:status\u0000');
    if (subresource === 'status') return new Set([...fields].filter(inStatus));
    if (rt.statusSubresource) return new Set([...fields].filter((k) => !inStatus(k)));
    return fields;
  }

  /**
   * Common path of PUT and PATCH: keeps what clients may not change, then admits and stores. `managedFields`, from
   * server-side apply, is the ownership it recorded (a status write keeps the rest of the old metadata).
   */
  private replace(rt: ResourceType, current: KubeObject, incoming: KubeObject, opts: WriteOptions, subresource?: string, managedFields?: unknown[]): KubeObject {
    let next: KubeObject;
    if (subresource === 'status') {
      next = { ...structuredClone(current), status: structuredClone(incoming.status) };
      if (incoming.status === undefined) delete next.status;
    } else if (subresource) {
      throw errors.pathNotFound(`${rt.plural}/${subresource}`);
    } else {
      next = structuredClone(incoming);
      if (rt.statusSubresource) {
        if (current.status === undefined) delete next.status;
        else next.status = structuredClone(current.status);
      }
    }
    const meta = next.metadata;
    checkMetadataShape(meta); // before the finalizer rules below read it
    if (managedFields) {
      if (managedFields.length) meta.managedFields = managedFields; else delete meta.managedFields;
    }
    const old = current.metadata;
    meta.name = old.name;
    if (old.namespace) meta.namespace = old.namespace; else delete meta.namespace;
    meta.uid = old.uid;
    meta.creationTimestamp = old.creationTimestamp;
    delete meta.generateName;
    if (old.generateName) meta.generateName = old.generateName;
    if (old.deletionTimestamp) { meta.deletionTimestamp = old.deletionTimestamp; meta.deletionGracePeriodSeconds = old.deletionGracePeriodSeconds; }
    else { delete meta.deletionTimestamp; delete meta.deletionGracePeriodSeconds; }
    if (old.deletionTimestamp) {
      const added = (meta.finalizers ?? []).filter((f) => !(old.finalizers ?? []).includes(f));
      if (added.length) throw errors.invalid(rt.group, rt.kind, old.name!, [{ reason: 'FieldValueForbidden', field: 'metadata.finalizers', message: `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers ${JSON.stringify(added)}` }]);
    }
    if (rt.tracksGeneration) {
      meta.generation = old.generation ?? 1;
      if (!subresource && specChanged(current, next)) meta.generation += 1;
    } else delete meta.generation;
    if (meta.finalizers && meta.finalizers.length === 0) delete meta.finalizers;
    if (opts.fieldManager) {
      const change = compareObjects(current, next, objectShape(rt.openAPIV3Schema));
      recordOwnership(next, change, { manager: opts.fieldManager, operation: 'Update', time: timestamp(this.now()) });
    }
    this.admit(rt, next, current, opts, subresource);
    if (opts.dryRun) return next;
    if (meta.deletionTimestamp && rt.storageKey === NAMESPACE_STORAGE_KEY) {
      // A terminating namespace goes once its contents and its finalizers are gone; look again after this change.
      this.namespaces.terminate(meta.name!);
    } else if (meta.deletionTimestamp && !(meta.finalizers?.length)) {
      // The last finalizer is gone: the object goes away now.
      return this.removeNow(rt, next, false);
    }
    return this.commit(rt, next).obj;
  }

  /** Validation every write goes through: names, labels, schema (pruning, strictness), CRD rules. */
  private admit(rt: ResourceType, obj: KubeObject, old: KubeObject | undefined, opts: WriteOptions, subresource?: string): void {
    checkMetadataShape(obj.metadata);
    const causes: StatusCause[] = [];
    for (const [k, v] of Object.entries(obj.metadata.labels ?? {})) {
      const name = k.includes('/') ? k.slice(k.indexOf('/') + 1) : k;
      const prefix = k.includes('/') ? k.slice(0, k.indexOf('/')) : '';
      if (!LABEL_NAME.test(name) || name.length > 63 || (prefix && !DNS_SUBDOMAIN.test(prefix))) {
        causes.push({ reason: 'FieldValueInvalid', field: 'metadata.labels', message: `Invalid value: ${JSON.stringify(k)}: name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character` });
      }
      if (typeof v !== 'string' || v.length > 63 || !LABEL_VALUE.test(v)) {
        causes.push({ reason: 'FieldValueInvalid', field: `metadata.labels`, message: `Invalid value: ${JSON.stringify(v)}: a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character` });
      }
    }
    for (const [k, v] of Object.entries(obj.metadata.annotations ?? {})) {
      if (typeof v !== 'string') causes.push({ reason: 'FieldValueInvalid', field: `metadata.annotations.${k}`, message: `Invalid value: ${JSON.stringify(v)}: annotation values must be strings` });
    }
    if (causes.length) throw errors.invalid(rt.group, rt.kind, obj.metadata.name ?? '', causes);
    if (rt.schema) {
      const unknown = rt.schema.prune(obj);
      if (unknown.length) {
        const mode = opts.fieldValidation ?? 'Ignore';
        if (mode === 'Strict') {
          throw errors.badRequest(`${rt.kind} in version "${rt.version}" cannot be handled as a ${rt.kind}: strict decoding error: ${unknown.map((f) => `unknown field "${f}"`).join(', ')}`);
        }
        if (mode === 'Warn') opts.warnings?.push(...unknown.map((f) => `unknown field "${f}"`));
      }
      const invalid = rt.schema.validate(obj, old, subresource);
      if (invalid.length) throw errors.invalid(rt.group, rt.kind, obj.metadata.name ?? '', invalid);
    }
    if (rt.storageKey === CRD_STORAGE_KEY) {
      validateCrd(obj);
      if (old && old.spec?.group !== obj.spec.group) throw errors.invalid(rt.group, rt.kind, obj.metadata.name!, [{ reason: 'FieldValueInvalid', field: 'spec.group', message: 'Invalid value: field is immutable' }]);
      this.checkCrdNames(obj);
      obj.status = establishedStatus(obj, timestamp(this.now()));
    }
  }

  /** Two CRDs must not serve the same group/plural; a clash is what the real server reports as NamesAccepted=False. */
  private checkCrdNames(crd: KubeObject): void {
    for (const rt of this.registry.all()) {
      if (rt.group === crd.spec.group && rt.plural === crd.spec.names.plural && rt.crdName !== crd.metadata.name) {
        throw errors.invalid('apiextensions.k8s.io', 'CustomResourceDefinition', crd.metadata.name!, [{ reason: 'FieldValueDuplicate', field: 'spec.names.plural', message: `Duplicate value: ${JSON.stringify(crd.spec.names.plural)}` }]);
      }
    }
  }

  /** Stores a version of an object, keeping the registry in step with CRDs. */
  private commit(rt: ResourceType, obj: KubeObject): StoredObject {
    const stored = this.store.put(rt.storageKey, obj);
    if (rt.storageKey === CRD_STORAGE_KEY) this.registry.replaceCrd(obj.metadata.name!, obj.metadata.deletionTimestamp ? [] : resourceTypesOf(obj));
    return stored;
  }

  /** Removes an object for good, then lets the garbage collector look at its dependents. */
  private removeNow(rt: ResourceType, obj: KubeObject, orphanDependents: boolean): KubeObject {
    const removed = this.store.remove(rt.storageKey, obj.metadata.namespace, obj.metadata.name!);
    if (!removed) throw errors.notFound(rt.group, rt.plural, obj.metadata.name!);
    if (rt.storageKey === CRD_STORAGE_KEY) this.dropCustomResources(obj);
    this.collector.ownerRemoved(obj.metadata.uid!, orphanDependents);
    return removed.obj;
  }

  /** Deleting a CRD deletes every object of its kind, as the real server does. */
  private dropCustomResources(crd: KubeObject): void {
    this.registry.removeCrd(crd.metadata.name!);
    const storageKey = `${crd.spec.group}/${crd.spec.names.plural}`;
    for (const s of this.store.list(storageKey)) this.store.remove(storageKey, s.obj.metadata.namespace, s.obj.metadata.name!);
    this.store.endSubscriptions(storageKey);
  }

  private checkBody(rt: ResourceType, body: unknown): KubeObject {
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw errors.badRequest('the request body must be a JSON or YAML object');
    const obj = structuredClone(body) as KubeObject;
    if (obj.metadata === undefined || obj.metadata === null) obj.metadata = {};
    if (typeof obj.metadata !== 'object' || Array.isArray(obj.metadata)) throw errors.badRequest('metadata must be an object');
    const apiVersion = apiVersionOf(rt);
    if (obj.kind !== undefined && obj.kind !== rt.kind) {
      throw errors.badRequest(`the API version in the data (${obj.apiVersion}) does not match the expected API version (${apiVersion}) or the kind (${obj.kind}) is not ${rt.kind}`);
    }
    if (obj.apiVersion !== undefined && obj.apiVersion !== apiVersion) {
      throw errors.badRequest(`the API version in the data (${obj.apiVersion}) does not match the expected API version (${apiVersion})`);
    }
    // Stored objects carry the storage version; other served versions differ only in apiVersion (no conversion).
    obj.apiVersion = rt.group ? `${rt.group}/${rt.storageVersion}` : rt.storageVersion;
    obj.kind = rt.kind;
    for (const key of ['name', 'namespace', 'generateName', 'resourceVersion'] as const) {
      if (obj.metadata[key] !== undefined && typeof obj.metadata[key] !== 'string') throw errors.badRequest(`metadata.${key} must be a string`);
    }
    return obj;
  }

  private checkNamespace(rt: ResourceType, namespace: string | undefined, obj: KubeObject): void {
    if (!rt.namespaced) { delete obj.metadata.namespace; return; }
    if (!namespace) throw errors.badRequest(`${rt.plural} is namespaced: the request must name a namespace`);
    if (obj.metadata.namespace && obj.metadata.namespace !== namespace) {
      throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    obj.metadata.namespace = namespace;
  }

  private checkNamespaceOpen(namespace: string): void {
    const ns = this.store.get(NAMESPACE_STORAGE_KEY, undefined, namespace);
    if (!ns) throw errors.notFound('', 'namespaces', namespace);
    if (ns.obj.metadata.deletionTimestamp) {
      throw errors.forbidden(`unable to create new content in namespace ${namespace} because it is being terminated`);
    }
  }

  private checkName(rt: ResourceType, name: string): void {
    if (rt.pathSegmentNames) return checkPathSegmentName(rt, name);
    const isNamespace = rt.storageKey === NAMESPACE_STORAGE_KEY;
    const ok = isNamespace ? DNS_LABEL.test(name) && name.length <= 63 : DNS_SUBDOMAIN.test(name) && name.length <= 253;
    if (!ok) {
      const what = isNamespace
        ? `a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`
        : `a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`;
      throw errors.invalid(rt.group, rt.kind, name, [{ reason: 'FieldValueInvalid', field: 'metadata.name', message: `Invalid value: ${JSON.stringify(name)}: ${what}` }]);
    }
  }

  private generatedName(rt: ResourceType, namespace: string | undefined, prefix: string): string {
    const alphabet = 'bcdfghjklmnpqrstvwxz2456789'; // the real server's alphabet: no vowels, no confusable digits
    for (let attempt = 0; attempt < 8; attempt++) {
      const bytes = randomBytes(5);
      const name = prefix.slice(0, 58) + [...bytes].map((b) => alphabet[b % alphabet.length]).join('');
      if (!this.store.get(rt.storageKey, rt.namespaced ? namespace : undefined, name)) return name;
    }
    throw errors.alreadyExists(rt.group, rt.plural, `${prefix}*`);
  }
}

/**
 * A stored object as a read returns it: with the defaults its CRD gained after it was stored (a copy: stored objects
 * and their cached JSON are never changed), as kube-apiserver fills them in when it decodes an object from storage.
 */
function withDefaults(rt: ResourceType, s: StoredObject): StoredObject {
  const defaulted = rt.schema?.withDefaults(s.obj);
  return defaulted ? { obj: defaulted, rv: s.rv } : s;
}

/** apimachinery's path.IsValidPathSegmentName, with its messages: the one check RBAC object names get. */
function checkPathSegmentName(rt: ResourceType, name: string): void {
  const problem = name === '.' || name === '..' ? `may not be '${name}'` : name.includes('/') ? `may not contain '/'` : name.includes('%') ? `may not contain '%'` : undefined;
  if (problem) throw errors.invalid(rt.group, rt.kind, name, [{ reason: 'FieldValueInvalid', field: 'metadata.name', message: `Invalid value: ${JSON.stringify(name)}: ${problem}` }]);
}

/**
 * The types of the metadata fields the server itself reads (labels, annotations, finalizers, ownerReferences), as
 * the real server's decoder enforces them: a wrong type is a 400, a reference missing its keys a 422. Without this a
 * stored `ownerReferences: 5` would crash the garbage collector later.
 */
function checkMetadataShape(meta: KubeObject['metadata']): void {
  const m = meta as Record<string, unknown>;
  const isMap = (v: unknown) => v !== null && typeof v === 'object' && !Array.isArray(v);
  for (const key of ['labels', 'annotations']) {
    if (m[key] !== undefined && m[key] !== null && !isMap(m[key])) throw errors.badRequest(`metadata.${key}: must be a map of strings, got ${JSON.stringify(m[key]).slice(0, 80)}`);
  }
  if (m.finalizers !== undefined && m.finalizers !== null && !(Array.isArray(m.finalizers) && m.finalizers.every((f) => typeof f === 'string'))) {
    throw errors.badRequest('metadata.finalizers: must be a list of strings');
  }
  const refs = m.ownerReferences;
  if (refs === undefined || refs === null) return;
  if (!Array.isArray(refs) || !refs.every(isMap)) throw errors.badRequest('metadata.ownerReferences: must be a list of objects');
  const causes: StatusCause[] = [];
  refs.forEach((r: Record<string, unknown>, i) => {
    for (const key of ['apiVersion', 'kind', 'name', 'uid']) {
      if (typeof r[key] !== 'string' || !r[key]) causes.push({ reason: 'FieldValueRequired', field: `metadata.ownerReferences[${i}].${key}`, message: 'Required value' });
    }
  });
  if (causes.length) throw errors.invalid('', 'Object', String(m.name ?? ''), causes);
}


/** Whether anything other than metadata and status differs: what bumps metadata.generation. */
function specChanged(a: KubeObject, b: KubeObject): boolean {
  const strip = (o: KubeObject) => {
    const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = o;
    return rest;
  };
  return !deepEqual(strip(a), strip(b));
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((v, i) => deepEqual(v, bb[i]));
  }
  const ka = Object.keys(a as object), kb = Object.keys(b as object);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual((a as any)[k], (b as any)[k]));
}
