/**
 * How server-side apply sees a value: the merge semantics of each node of an object, as kube-apiserver's
 * structured-merge-diff derives them from a type. For a custom resource they come from its CRD version's structural
 * schema: `x-kubernetes-list-type` (`map` lists keyed by `x-kubernetes-list-map-keys`, `set` lists, `atomic` lists,
 * the default), `x-kubernetes-map-type: atomic` for objects replaced whole, and untyped values (under
 * `x-kubernetes-preserve-unknown-fields`) deduced from the value: objects field by field, lists atomic. Built-in kinds,
 * which this server holds without schemas, use the merge keys the strategic merge patch knows (patch.ts).
 * `metadata` is ObjectMeta's everywhere: labels and annotations key by key, finalizers a set, ownerReferences by uid.
 */
import { MERGE_KEYS, MERGED_SCALAR_LISTS } from './patch.js';

/** A map: its fields merge one by one unless atomic. `named` fields are declared ones (see fieldSet). */
export interface MapShape { kind: 'map'; atomic: boolean; field(name: string): Shape; named(name: string): boolean }
/** A list: atomic (replaced whole), a set of scalars, or a map list whose items are told apart by `keys`. */
export interface ListShape {
  kind: 'list'; type: 'atomic' | 'set' | 'map'; keys: string[]; item: Shape; keyDefault(key: string): unknown;
  /** A built-in kind's list, keyed by a name-only guess: an item without the key is told apart by its index, not refused. */
  lenient?: boolean;
}
export interface ScalarShape { kind: 'scalar' }
/** Decided by the value: an object is `map`, an array `list`, anything else a scalar. */
export interface AnyShape { kind: 'any'; map: MapShape; list: ListShape }
export type Shape = MapShape | ListShape | ScalarShape | AnyShape;
/** A shape resolved against a value: never `any`. */
export type ConcreteShape = MapShape | ListShape | ScalarShape;

type Schema = Record<string, any>;

export const SCALAR: ScalarShape = { kind: 'scalar' };
const ATOMIC_LIST: ListShape = { kind: 'list', type: 'atomic', keys: [], item: SCALAR, keyDefault: () => undefined };

function mapShape(field: (name: string) => Shape, named: (name: string) => boolean, atomic = false): MapShape {
  return { kind: 'map', atomic, field, named };
}

/** An untyped value, as structured-merge-diff deduces one: maps granular (their keys not declared fields), lists atomic. */
const DEDUCED_MAP: MapShape = mapShape(() => DEDUCED, () => false);
const DEDUCED: AnyShape = { kind: 'any', map: DEDUCED_MAP, list: ATOMIC_LIST };

const isMap = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The concrete shape of a value; a value that does not fit its shape (a string where a map is declared) is a leaf. */
export function resolve(shape: Shape, value: unknown): ConcreteShape {
  if (shape.kind === 'any') return isMap(value) ? shape.map : Array.isArray(value) ? shape.list : SCALAR;
  if (value === undefined || value === null) return shape;
  if (shape.kind === 'map' && !isMap(value)) return SCALAR;
  if (shape.kind === 'list' && !Array.isArray(value)) return SCALAR;
  return shape;
}

// ------------------------------------------------------------------------------------------------ ObjectMeta

const LABEL_MAP = mapShape(() => SCALAR, () => false);
const OWNER_REFERENCES: ListShape = { kind: 'list', type: 'map', keys: ['uid'], item: mapShape(() => SCALAR, () => true), keyDefault: () => undefined };
const FINALIZERS: ListShape = { kind: 'list', type: 'set', keys: [], item: SCALAR, keyDefault: () => undefined };
const OBJECT_META: MapShape = mapShape((name) => {
  if (name === 'labels' || name === 'annotations') return LABEL_MAP;
  if (name === 'finalizers') return FINALIZERS;
  if (name === 'ownerReferences') return OWNER_REFERENCES;
  if (name === 'managedFields') return ATOMIC_LIST;
  return SCALAR;
}, () => true);

// ------------------------------------------------------------------------------------------------ CRD schemas

const fromSchemaMemo = new WeakMap<Schema, Shape>();

/** The shape of a structural-schema node. */
export function fromSchema(s: Schema | undefined): Shape {
  if (!isMap(s)) return DEDUCED;
  let shape = fromSchemaMemo.get(s);
  if (!shape) {
    shape = schemaShape(s);
    fromSchemaMemo.set(s, shape);
  }
  return shape;
}

function schemaShape(s: Schema): Shape {
  if (s['x-kubernetes-int-or-string'] === true) return SCALAR;
  if (s.type === 'array' || (s.type === undefined && s.items !== undefined)) {
    const listType = s['x-kubernetes-list-type'];
    const keys: string[] = Array.isArray(s['x-kubernetes-list-map-keys']) ? s['x-kubernetes-list-map-keys'] : [];
    const item = fromSchema(s.items);
    const keyDefault = (key: string) => s.items?.properties?.[key]?.default;
    if (listType === 'map' && keys.length) return { kind: 'list', type: 'map', keys, item, keyDefault };
    if (listType === 'set') return { kind: 'list', type: 'set', keys: [], item, keyDefault };
    return { kind: 'list', type: 'atomic', keys: [], item, keyDefault };
  }
  const props: Schema = isMap(s.properties) ? s.properties : {};
  const additional = s.additionalProperties;
  if (s.type === 'object' || s.properties || additional !== undefined || s['x-kubernetes-embedded-resource'] === true) {
    const embedded = s['x-kubernetes-embedded-resource'] === true;
    return mapShape(
      (name) => Object.prototype.hasOwnProperty.call(props, name) ? fromSchema(props[name])
        : embedded && name === 'metadata' ? OBJECT_META
          : isMap(additional) ? fromSchema(additional) : DEDUCED,
      (name) => Object.prototype.hasOwnProperty.call(props, name),
      s['x-kubernetes-map-type'] === 'atomic',
    );
  }
  if (s['x-kubernetes-preserve-unknown-fields'] === true) return DEDUCED;
  return SCALAR;
}

// ------------------------------------------------------------------------------------------------ built-in kinds

const builtinMemo = new Map<string, Shape>();

/** A built-in kind's field, known by name only: lists with a strategic merge key are map lists, the rest atomic. */
function builtinField(name: string): Shape {
  let shape = builtinMemo.get(name);
  if (!shape) {
    const key = Object.prototype.hasOwnProperty.call(MERGE_KEYS, name) ? MERGE_KEYS[name] : undefined;
    const list: ListShape = key ? { kind: 'list', type: 'map', keys: [key], item: DEDUCED, keyDefault: () => undefined, lenient: true }
      : MERGED_SCALAR_LISTS.has(name) ? { ...FINALIZERS } : ATOMIC_LIST;
    shape = { kind: 'any', map: BUILTIN_MAP, list };
    builtinMemo.set(name, shape);
  }
  return shape;
}
const BUILTIN_MAP: MapShape = mapShape(builtinField, () => true);

// ------------------------------------------------------------------------------------------------ roots

/** The shape of a whole object of a kind: its schema's, or a built-in kind's, with ObjectMeta for metadata. */
export function objectShape(openAPIV3Schema: Schema | undefined): MapShape {
  const body = openAPIV3Schema ? fromSchema(openAPIV3Schema) : undefined;
  const field = !body ? builtinField : body.kind === 'map' ? body.field : body.kind === 'any' ? body.map.field : () => DEDUCED;
  return mapShape((name) => (name === 'metadata' ? OBJECT_META : name === 'apiVersion' || name === 'kind' ? SCALAR : field(name)), () => true);
}
