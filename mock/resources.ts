/**
 * The catalogue of resource types the server serves: built-in kinds and those defined by CustomResourceDefinitions.
 * Routing, discovery, printing and storage all read from here; a CRD change swaps entries in and out at runtime.
 */
import type { StatusCause } from './errors.js';

export type KubeObject = Record<string, any> & { metadata: ObjectMeta };
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: Array<{ apiVersion: string; kind: string; name: string; uid: string; controller?: boolean; blockOwnerDeletion?: boolean }>;
  managedFields?: unknown[];
  [key: string]: unknown;
}

/** One column of `kubectl get` output, as in a Table's columnDefinitions. */
export interface PrinterColumn {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  /** Kubernetes JSONPath (CRD additionalPrinterColumns) ... */
  jsonPath?: string;
  /** ... or a function, for built-in kinds whose columns are computed. */
  value?: (obj: KubeObject, now: Date) => unknown;
}

/** Checks and cleans an object against its schema; returns validation causes (empty when valid). */
export interface SchemaCheck {
  /** Removes fields the schema does not know, then fills in defaults; returns the removed paths (for fieldValidation Strict/Warn). */
  prune(obj: KubeObject): string[];
  /** A copy with the defaults a stored object predates filled in, as a read shows it; undefined when it lacks none. */
  withDefaults(obj: KubeObject): KubeObject | undefined;
  /**
   * Validation causes; `old` (on update) ratchets errors of unchanged values and feeds CEL transition rules;
   * `subresource` "status" checks the status schema alone (CEL rules still see the whole object).
   */
  validate(obj: KubeObject, old?: KubeObject, subresource?: string): StatusCause[];
}

export interface ResourceType {
  group: string;
  version: string;
  kind: string;
  listKind: string;
  plural: string;
  singular: string;
  shortNames: string[];
  categories: string[];
  namespaced: boolean;
  /** Has a `status` subresource: the main endpoint ignores status, `/status` changes only status. */
  statusSubresource: boolean;
  /** Built-in kinds accept strategic merge patches; custom resources answer 415. */
  builtin: boolean;
  /** Custom resources carry metadata.generation, bumped when anything but metadata and status changes. */
  tracksGeneration: boolean;
  columns: PrinterColumn[];
  /** Events print their name only with -o wide, as the last column; everything else prints it first. */
  nameColumnLast?: boolean;
  schema?: SchemaCheck;
  /** The CRD version's openAPIV3Schema as written: server-side apply merges by its list and map types (merge-shape.ts). */
  openAPIV3Schema?: Record<string, any>;
  /** Where objects live in storage: shared by every version of one group/resource. */
  storageKey: string;
  /** The version objects are stored at (no conversion: other versions only rewrite apiVersion). */
  storageVersion: string;
  /** Name of the CRD that defines this type, or undefined for built-ins. */
  crdName?: string;
  verbs: string[];
  /**
   * Names are checked as path segments only (not '.' or '..', no '/' or '%'), as kube-apiserver checks RBAC objects'
   * names, so `system:` names pass; every other kind's names are DNS subdomains (namespaces: labels).
   */
  pathSegmentNames?: boolean;
  /** Hooks for kinds with server-side behaviour of their own (namespaces get a phase, for instance). */
  onCreate?: (obj: KubeObject) => void;
  /** What a DELETE naming no propagation policy does to dependents (batch/v1 Jobs orphan their pods); default Background. */
  defaultPropagation?: 'Orphan';
  /** The warning a DELETE that names no propagation policy gets (kinds with defaultPropagation say why). */
  deleteWarning?: string;
}

export const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

export function apiVersionOf(rt: { group: string; version: string }): string {
  return rt.group ? `${rt.group}/${rt.version}` : rt.version;
}

/**
 * Printer columns a server adds to a kind whatever its CRD says, keyed by "group/plural" (OpenShift's API server,
 * for instance, adds MESSAGE to clusteroperators). A column is added only when the CRD has none of that name.
 */
export type ExtraPrinterColumns = Record<string, Array<Pick<PrinterColumn, 'name' | 'type' | 'jsonPath' | 'description' | 'format' | 'priority'>>>;

export class ResourceRegistry {
  private byPath = new Map<string, ResourceType>();
  private listeners: Array<() => void> = [];

  constructor(private readonly extraColumns: ExtraPrinterColumns = {}) {}

  private decorate(rt: ResourceType): ResourceType {
    const extra = this.extraColumns[`${rt.group}/${rt.plural}`];
    if (!extra) return rt;
    const names = new Set(rt.columns.map((c) => c.name.toLowerCase()));
    return { ...rt, columns: [...rt.columns, ...extra.filter((c) => !names.has(c.name.toLowerCase()))] };
  }

  private static key(group: string, version: string, plural: string): string {
    return `${group}/${version}/${plural}`;
  }

  add(rt: ResourceType): void {
    this.byPath.set(ResourceRegistry.key(rt.group, rt.version, rt.plural), this.decorate(rt));
    this.changed();
  }

  /** Removes every version registered by one CRD. */
  removeCrd(crdName: string): void {
    for (const [k, rt] of this.byPath) if (rt.crdName === crdName) this.byPath.delete(k);
    this.changed();
  }

  /** Replaces every version registered by one CRD with a new set, at once. */
  replaceCrd(crdName: string, types: ResourceType[]): void {
    for (const [k, rt] of this.byPath) if (rt.crdName === crdName) this.byPath.delete(k);
    for (const rt of types) this.byPath.set(ResourceRegistry.key(rt.group, rt.version, rt.plural), this.decorate(rt));
    this.changed();
  }

  get(group: string, version: string, plural: string): ResourceType | undefined {
    return this.byPath.get(ResourceRegistry.key(group, version, plural));
  }

  all(): ResourceType[] {
    return [...this.byPath.values()];
  }

  /** Any served version of a group/resource, used for cross-version bookkeeping (garbage collection, CRD deletion). */
  byStorageKey(storageKey: string): ResourceType | undefined {
    for (const rt of this.byPath.values()) if (rt.storageKey === storageKey && rt.version === rt.storageVersion) return rt;
    for (const rt of this.byPath.values()) if (rt.storageKey === storageKey) return rt;
    return undefined;
  }

  byApiVersionKind(apiVersion: string, kind: string): ResourceType | undefined {
    for (const rt of this.byPath.values()) if (rt.kind === kind && apiVersionOf(rt) === apiVersion) return rt;
    return undefined;
  }

  onChange(fn: () => void): void {
    this.listeners.push(fn);
  }

  private changed(): void {
    for (const fn of this.listeners) fn();
  }
}
