/**
 * Field ownership for managedFields, in the FieldsV1 shape (`{"f:spec": {"f:replicas": {}}}`). Maps are owned key
 * by key; lists and scalars are owned whole. Enough for what clients rely on: every entry has fieldsV1, an Update
 * manager owns the fields it changed, and server-side apply removes fields its manager stopped applying unless
 * another manager still owns them.
 */
import type { KubeObject } from './resources.js';

type Path = string[];
const SEP = '\u0000';

/** Metadata fields that take part in ownership; the rest is the server's own. */
const OWNED_METADATA = ['labels', 'annotations', 'finalizers', 'ownerReferences'];

function isMap(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The part of an object whose fields managers can own. */
function ownable(obj: Record<string, any>): Record<string, unknown> {
  const { apiVersion: _a, kind: _k, metadata, ...rest } = obj;
  const meta: Record<string, unknown> = {};
  for (const key of OWNED_METADATA) if (metadata?.[key] !== undefined && metadata?.[key] !== null) meta[key] = metadata[key];
  return Object.keys(meta).length ? { ...rest, metadata: meta } : rest;
}

function leaves(value: unknown, prefix: Path, out: Path[]): void {
  if (isMap(value) && Object.keys(value).length) {
    for (const [k, v] of Object.entries(value)) leaves(v, [...prefix, k], out);
  } else if (prefix.length) out.push(prefix);
}

/** Leaf paths an object sets. */
export function fieldPaths(obj: Record<string, any>): Path[] {
  const out: Path[] = [];
  leaves(ownable(obj), [], out);
  return out;
}

function valueAt(obj: unknown, path: Path): unknown {
  let cur: any = obj;
  for (const k of path) cur = isMap(cur) ? cur[k] : undefined;
  return cur;
}

/** Leaf paths whose value differs between two versions (present in the new one). */
export function changedPaths(before: Record<string, any> | undefined, after: Record<string, any>): Path[] {
  const b = before ? ownable(before) : {};
  return fieldPaths(after).filter((p) => JSON.stringify(valueAt(b, p)) !== JSON.stringify(valueAt(ownable(after), p)));
}

export function toFieldsV1(paths: Path[]): Record<string, unknown> {
  const root: Record<string, any> = {};
  for (const p of paths) {
    let cur = root;
    for (const k of p) cur = (cur[`f:${k}`] ??= {});
  }
  return root;
}

export function fromFieldsV1(fields: unknown): Path[] {
  const out: Path[] = [];
  const walk = (node: unknown, prefix: Path) => {
    const keys = isMap(node) ? Object.keys(node).filter((k) => k.startsWith('f:')) : [];
    if (!keys.length) { if (prefix.length) out.push(prefix); return; }
    for (const k of keys) walk((node as Record<string, unknown>)[k], [...prefix, k.slice(2)]);
  };
  walk(fields, []);
  return out;
}

interface Entry { manager?: string; operation?: string; fieldsV1?: unknown; [k: string]: unknown }

const key = (p: Path) => p.join(SEP);
/** Whether `owned` covers `p`: the same path, or a whole list/scalar above it. */
function covers(owned: Set<string>, p: Path): boolean {
  for (let i = p.length; i > 0; i--) if (owned.has(key(p.slice(0, i)))) return true;
  return false;
}

function deleteAt(obj: Record<string, any>, path: Path): void {
  const parents: Array<Record<string, any>> = [];
  let cur: any = obj;
  for (const k of path.slice(0, -1)) {
    if (!isMap(cur[k])) return;
    parents.push(cur);
    cur = cur[k];
  }
  delete cur[path[path.length - 1]!];
  // Drop maps the removal emptied, up to (not including) the top level.
  for (let i = path.length - 2; i >= 1; i--) {
    const parent = valueAt(obj, path.slice(0, i)) as Record<string, any>;
    const child = path[i]!;
    if (isMap(parent?.[child]) && Object.keys(parent[child]).length === 0) delete parent[child];
  }
}

/**
 * Records a write in `next.metadata.managedFields`: `paths` become the manager's (for Apply: exactly the applied
 * ones; for Update: added to what it had) and leave every other manager.
 */
export function recordOwnership(next: KubeObject, manager: string, operation: 'Apply' | 'Update', paths: Path[], time: string): void {
  const taken = new Set(paths.map(key));
  const entries = ((next.metadata.managedFields ?? []) as Entry[]).map((e) => ({ ...e }));
  let mine = entries.find((e) => e.manager === manager && e.operation === operation);
  for (const e of entries) {
    if (e === mine) continue;
    const kept = fromFieldsV1(e.fieldsV1).filter((p) => !taken.has(key(p)));
    e.fieldsV1 = toFieldsV1(kept);
  }
  const own = operation === 'Apply' ? paths : [...fromFieldsV1(mine?.fieldsV1), ...paths.filter((p) => !new Set(fromFieldsV1(mine?.fieldsV1).map(key)).has(key(p)))];
  if (!mine) { mine = { manager, operation }; entries.push(mine); }
  Object.assign(mine, { apiVersion: next.apiVersion, time, fieldsType: 'FieldsV1', fieldsV1: toFieldsV1(own) });
  // Managers left owning nothing disappear, as on a real server.
  next.metadata.managedFields = entries.filter((e) => e === mine || fromFieldsV1(e.fieldsV1).length > 0);
}

/**
 * Server-side apply's removal rule: fields the manager applied last time but not now are removed from the object,
 * unless another manager owns them too.
 */
export function removeUnapplied(next: KubeObject, current: KubeObject, manager: string, applied: Path[]): void {
  const entries = (current.metadata.managedFields ?? []) as Entry[];
  const previous = entries.find((e) => e.manager === manager && e.operation === 'Apply');
  if (!previous) return;
  const now = new Set(applied.map(key));
  const others = new Set(entries.filter((e) => e !== previous).flatMap((e) => fromFieldsV1(e.fieldsV1).map(key)));
  for (const p of fromFieldsV1(previous.fieldsV1)) {
    if (covers(now, p) || applied.some((a) => key(a).startsWith(key(p) + SEP)) || covers(others, p)) continue;
    if (p[0] === 'metadata') deleteAt(next.metadata as Record<string, any>, p.slice(1));
    else deleteAt(next, p);
  }
}
