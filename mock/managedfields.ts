/**
 * Field ownership for managedFields, in the FieldsV1 shape, as structured-merge-diff (kubernetes-sigs) records it: a
 * field set holds paths of path elements, `f:<name>` for a field, `k:{"name":"x"}` for an item of a map list (its key
 * fields), `v:"x"` for an item of a set; a path that is owned and has owned paths below it carries `".": {}`. Whether
 * a node is owned whole or part by part follows its shape (merge-shape.ts): atomic lists and maps are one field,
 * items of map and set lists and fields of maps are owned one by one.
 *
 * An Update manager takes every field its write changed, away from the other managers. An Apply manager owns exactly
 * what it applied; changing a field another manager owns to another value is a conflict (409) unless forced, in which
 * case the field changes hands. Fields a write removes leave every manager.
 */
import { ApiError } from './errors.js';
import { resolve, type ListShape, type MapShape, type Shape } from './merge-shape.js';
import type { KubeObject } from './resources.js';
import { deepEqualJson } from './schema.js';

/** A field path: serialized path elements (`f:spec`, `k:{"name":"a"}`, `v:"x"`). */
export type Path = string[];
const SEP = '\u0000';
export const pathKey = (p: Path): string => p.join(SEP);
const keyPath = (k: string): Path => k.split(SEP);

/** Metadata fields that take part in ownership; the rest is the server's own. */
const OWNED_METADATA = ['labels', 'annotations', 'finalizers', 'ownerReferences'];

const isMap = (v: unknown): v is Record<string, any> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The part of an object whose fields managers can own. */
export function ownable(obj: Record<string, any> | undefined): Record<string, unknown> {
  if (!obj) return {};
  const { apiVersion: _a, kind: _k, metadata, ...rest } = obj;
  const meta: Record<string, unknown> = {};
  for (const key of OWNED_METADATA) if (metadata?.[key] !== undefined && metadata?.[key] !== null) meta[key] = metadata[key];
  return Object.keys(meta).length ? { ...rest, metadata: meta } : rest;
}

/** A value as structured-merge-diff prints one in a path: strings quoted, the rest as is. */
function printValue(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(printValue).join(',')}]`;
  if (isMap(v)) return Object.entries(v).map(([k, x]) => `${k}=${printValue(x)}`).join('');
  return String(v);
}

/**
 * The path element of a list item: `k:` and the item's key fields (sorted, a missing one taken from its schema
 * default) for a map list, `v:` and the value for a set. Undefined when a key field is missing.
 */
export function itemElement(list: ListShape, item: unknown): string | undefined {
  if (list.type === 'set') return `v:${JSON.stringify(item)}`;
  if (list.type !== 'map' || !isMap(item)) return undefined;
  const key: Record<string, unknown> = {};
  for (const name of [...list.keys].sort()) {
    const v = item[name] ?? list.keyDefault(name);
    if (v === undefined || v === null) return undefined;
    key[name] = v;
  }
  return `k:${JSON.stringify(key)}`;
}

/** A path as structured-merge-diff prints it in conflicts: `.spec.items[name="a"].value`, `.spec.tags[="x"]`. */
export function printPath(path: Path): string {
  return path.map((pe) => {
    if (pe.startsWith('f:')) return `.${pe.slice(2)}`;
    const v = JSON.parse(pe.slice(2));
    if (pe.startsWith('k:')) return `[${Object.entries(v).map(([k, x]) => `${k}=${printValue(x)}`).join(',')}]`;
    return pe.startsWith('v:') ? `[=${printValue(v)}]` : `[${v}]`;
  }).join('');
}

/** Refusal of an applied object whose lists cannot be merged (missing keys, duplicate items), as a typed-conversion error. */
export class UntypableError extends Error {}

// ------------------------------------------------------------------------------------------------ field sets

/**
 * The paths an applied object sets: scalars, atomic lists and maps, and the items of map and set lists; a map's
 * field is a path of its own when it is empty or null, or when it is not a declared field (a label, say).
 */
export function fieldSet(obj: Record<string, any>, shape: MapShape): Set<string> {
  const out = new Set<string>();
  collect(ownable(obj), shape, [], out);
  return out;
}

function collect(value: unknown, shape: Shape, path: Path, out: Set<string>): void {
  const s = resolve(shape, value);
  if (value === null || value === undefined || s.kind === 'scalar' || (s.kind === 'list' && s.type === 'atomic') || (s.kind === 'map' && s.atomic)) {
    if (path.length) out.add(pathKey(path));
    return;
  }
  if (s.kind === 'list') {
    const seen = new Set<string>();
    (value as unknown[]).forEach((item, i) => {
      const pe = itemElement(s, item) ?? (s.lenient ? `i:${i}` : undefined);
      if (pe === undefined) {
        const missing = s.keys.find((k) => !isMap(item) || (item[k] ?? s.keyDefault(k)) == null);
        throw new UntypableError(`${printPath(path)}: element ${i}: associative list with keys has an element that omits key field ${JSON.stringify(missing)} (and doesn't have default value)`);
      }
      if (seen.has(pe)) throw new UntypableError(`${printPath(path)}: duplicate entries for key ${printPath([pe])}`);
      seen.add(pe);
      collect(item, s.item, [...path, pe], out);
      out.add(pathKey([...path, pe]));
    });
    return;
  }
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const child = [...path, `f:${k}`];
    collect(v, s.field(k), child, out);
    if (v === null || (isMap(v) && Object.keys(v).length === 0) || !s.named(k)) out.add(pathKey(child));
  }
}

// ------------------------------------------------------------------------------------------------ comparison

export interface Comparison { added: Set<string>; removed: Set<string>; modified: Set<string> }

/** Items of a list by path element (an item without one, a stored oddity, by index). */
function itemsByElement(list: ListShape, items: unknown): Map<string, unknown> {
  const out = new Map<string, unknown>();
  if (Array.isArray(items)) items.forEach((item, i) => { const pe = itemElement(list, item) ?? `i:${i}`; if (!out.has(pe)) out.set(pe, item); });
  return out;
}

const emptyContainer = (v: unknown) => v === undefined || (Array.isArray(v) && v.length === 0) || (isMap(v) && Object.keys(v).length === 0);

/** What changed between two versions of an object, path by path: structured-merge-diff's comparison. */
export function compareObjects(before: Record<string, any> | undefined, after: Record<string, any>, shape: MapShape): Comparison {
  const c: Comparison = { added: new Set(), removed: new Set(), modified: new Set() };
  compare(ownable(before), ownable(after), shape, [], c);
  return c;
}

function compare(l: unknown, r: unknown, shape: Shape, path: Path, c: Comparison): void {
  const sl = resolve(shape, l);
  const s = resolve(shape, r === undefined ? l : r);
  const leaf = l === null || r === null || s.kind === 'scalar' || (l !== undefined && sl.kind !== s.kind)
    || (s.kind === 'list' && s.type === 'atomic') || (s.kind === 'map' && s.atomic) || (emptyContainer(l) && emptyContainer(r));
  const key = pathKey(path);
  if (leaf) {
    if (l === undefined) c.added.add(key);
    else if (r === undefined) c.removed.add(key);
    else if (!deepEqualJson(l, r)) c.modified.add(key);
    return;
  }
  if (s.kind === 'map') {
    const lm = isMap(l) ? l : {}, rm = isMap(r) ? r : {};
    for (const k of new Set([...Object.keys(lm), ...Object.keys(rm)])) compare(lm[k], rm[k], s.field(k), [...path, `f:${k}`], c);
  } else if (s.kind === 'list') {
    const li = itemsByElement(s, l), ri = itemsByElement(s, r);
    for (const pe of new Set([...li.keys(), ...ri.keys()])) compare(li.get(pe), ri.get(pe), s.item, [...path, pe], c);
  }
  if (path.length && l === undefined) c.added.add(key);
  else if (path.length && r === undefined) c.removed.add(key);
}

// ------------------------------------------------------------------------------------------------ FieldsV1

interface Node { member: boolean; children: Map<string, Node> }

const ELEMENT_ORDER = ['f', 'k', 'v', 'i'];
const byElement = (a: string, b: string) => (ELEMENT_ORDER.indexOf(a[0]!) - ELEMENT_ORDER.indexOf(b[0]!)) || (a < b ? -1 : a > b ? 1 : 0);

export function toFieldsV1(paths: Iterable<string>): Record<string, unknown> {
  const root: Node = { member: false, children: new Map() };
  for (const k of paths) {
    let cur = root;
    for (const pe of keyPath(k)) {
      let next = cur.children.get(pe);
      if (!next) { next = { member: false, children: new Map() }; cur.children.set(pe, next); }
      cur = next;
    }
    cur.member = true;
  }
  const render = (node: Node): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    if (node.member && node.children.size) out['.'] = {};
    for (const pe of [...node.children.keys()].sort(byElement)) out[pe] = render(node.children.get(pe)!);
    return out;
  };
  return render(root);
}

export function fromFieldsV1(fields: unknown): Set<string> {
  const out = new Set<string>();
  const walk = (node: unknown, prefix: Path) => {
    const keys = isMap(node) ? Object.keys(node).filter((k) => k !== '.' && /^[fkvi]:/.test(k)) : [];
    if (prefix.length && (!keys.length || (isMap(node) && '.' in node))) out.add(pathKey(prefix));
    for (const k of keys) walk((node as Record<string, unknown>)[k], [...prefix, k]);
  };
  walk(fields, []);
  return out;
}

// ------------------------------------------------------------------------------------------------ managers

interface Entry { manager?: string; operation?: string; apiVersion?: string; subresource?: string; fieldsV1?: unknown; [k: string]: unknown }

const minus = (a: Set<string>, ...bs: Set<string>[]) => new Set([...a].filter((k) => !bs.some((b) => b.has(k))));

/** A manager as kube-apiserver names it in a conflict: `"name"` for an applier, `"name" using <apiVersion>` for an updater. */
function managerName(e: Entry): string {
  let name = JSON.stringify(e.manager ?? '');
  if (e.subresource) name += ` with subresource ${JSON.stringify(e.subresource)}`;
  return e.operation === 'Update' ? `${name} using ${e.apiVersion}` : name;
}

/** The 409 of an apply that would change fields other managers own (k8s.io/apimachinery managedfields, conflict.go). */
function conflictError(conflicts: Array<{ entry: Entry; paths: string[] }>): ApiError {
  const all = conflicts.flatMap(({ entry, paths }) => paths.map((p) => ({ manager: managerName(entry), path: printPath(keyPath(p)) })));
  let message: string;
  if (all.length === 1) message = `Apply failed with 1 conflict: conflict with ${all[0]!.manager}: ${all[0]!.path}`;
  else {
    const lines: string[] = [];
    for (const manager of [...new Set(all.map((c) => c.manager))].sort()) {
      lines.push(`conflicts with ${manager}:`, ...all.filter((c) => c.manager === manager).map((c) => `- ${c.path}`));
    }
    message = `Apply failed with ${all.length} conflicts: ${lines.join('\n')}`;
  }
  return new ApiError(409, 'Conflict', message, { causes: all.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with ${c.manager}`, field: c.path })) });
}

/**
 * Records a write in `next.metadata.managedFields`. Update: the manager takes the fields `change` added or modified
 * from everyone else. Apply: it owns `applied`; another manager's fields the write changes are a conflict, thrown
 * unless `force`, when they change hands. Removed fields leave every manager; managers left with nothing go.
 */
export function recordOwnership(next: KubeObject, change: Comparison, write: { manager: string; operation: 'Apply' | 'Update'; time: string; applied?: Set<string>; force?: boolean }): void {
  const entries = ((next.metadata.managedFields ?? []) as Entry[]).map((e) => ({ ...e }));
  const isMine = (e: Entry) => e.manager === write.manager && e.operation === write.operation && !e.subresource;
  const changed = new Set([...change.added, ...change.modified]);
  const sets = new Map(entries.map((e) => [e, fromFieldsV1(e.fieldsV1)]));
  if (write.operation === 'Apply') {
    const conflicts = entries.filter((e) => !isMine(e))
      .map((entry) => ({ entry, paths: [...sets.get(entry)!].filter((p) => changed.has(p)).sort() }))
      .filter((c) => c.paths.length);
    if (conflicts.length && !write.force) throw conflictError(conflicts);
  }
  let mine = entries.find(isMine);
  const own = write.operation === 'Apply' ? write.applied ?? new Set<string>() : new Set([...minus(mine ? sets.get(mine)! : new Set(), change.removed), ...changed]);
  for (const e of entries) if (e !== mine) e.fieldsV1 = toFieldsV1(minus(sets.get(e)!, changed, change.removed));
  if (!mine) { mine = { manager: write.manager, operation: write.operation }; entries.push(mine); }
  Object.assign(mine, { apiVersion: next.apiVersion, time: write.time, fieldsType: 'FieldsV1', fieldsV1: toFieldsV1(own) });
  next.metadata.managedFields = entries.filter((e) => fromFieldsV1(e.fieldsV1).size > 0);
  if (!next.metadata.managedFields.length) delete next.metadata.managedFields;
}
