/**
 * The Ignition library's merge (config/merge): primitives from the child even when empty, pointers from the child when
 * set, structs merged unless one side is zero, keyed lists merged entry by entry (in the parent's order, new child
 * entries after), lists with IgnoreDuplicates concatenated, and an entry dropped when the child has its key in another
 * list of the same key space (a file replacing a link).
 */
import { flatFields, TYPES, type FieldKind, type Obj } from './schema.js';

function isZeroValue(kind: FieldKind, value: unknown): boolean {
  if (value === undefined) return true;
  if (kind.t === 'str') return value === '';
  if (kind.t === 'int') return value === 0;
  if (kind.t === 'struct') return isZeroStruct(kind.of, value as Obj);
  return false; // pointers and slices are zero only when nil
}

function isZeroStruct(type: string, obj: Obj): boolean {
  return TYPES[type]!.fields.every((field) => (field.kind.t === 'embed' ? isZeroStruct(field.kind.of, obj) : isZeroValue(field.kind, obj[field.json])));
}

function keyOf(of: string, item: unknown): string {
  if (of.startsWith('string:')) return String(item);
  return TYPES[of]!.key!(item as Obj);
}

/** The Ignition library's merge: child fields override parent fields; keyed lists merge entries with equal keys. */
export function mergeIgnitionConfigs(parent: Obj, child: Obj): Obj {
  return mergeStruct('Config', parent, child);
}

function mergeStruct(type: string, parent: Obj, child: Obj, into: Obj = {}): Obj {
  const info = TYPES[type]!;
  const ignore = new Set(info.ignoreDups ?? []);
  const handleOf = (goName: string): string => info.mergedKeys?.[goName] ?? goName;
  // every keyed entry of the child's lists, by (shared) key space
  const childEntries = new Map<string, { list: string; item: unknown }>();
  for (const field of info.fields) {
    if (field.kind.t !== 'list' || ignore.has(field.go)) continue;
    for (const item of (child[field.json] as unknown[] | undefined) ?? []) {
      childEntries.set(`${handleOf(field.go)}\0${keyOf(field.kind.of, item)}`, { list: field.go, item });
    }
  }
  for (const field of info.fields) {
    const { kind } = field;
    const p = parent[field.json];
    const c = child[field.json];
    const set = (value: unknown): void => {
      if (value === undefined) delete into[field.json];
      else into[field.json] = value;
    };
    switch (kind.t) {
      case 'str':
      case 'int':
        set(c);
        break;
      case 'pstr':
      case 'pint':
      case 'pbool':
        set(c !== undefined ? c : p);
        break;
      case 'pstruct':
        if (p !== undefined && c !== undefined) set(mergeStruct(kind.of, p as Obj, c as Obj));
        else set(c !== undefined ? c : p);
        break;
      case 'embed':
        if (isZeroStruct(kind.of, child)) copyFields(kind.of, parent, into);
        else if (isZeroStruct(kind.of, parent)) copyFields(kind.of, child, into);
        else mergeStruct(kind.of, parent, child, into);
        break;
      case 'struct':
        if (isZeroValue(kind, c)) set(p);
        else if (isZeroValue(kind, p)) set(c);
        else set(mergeStruct(kind.of, p as Obj, c as Obj));
        break;
      case 'list': {
        const pl = (p as unknown[] | undefined) ?? [];
        const cl = (c as unknown[] | undefined) ?? [];
        if (pl.length + cl.length === 0) {
          set(undefined);
          break;
        }
        if (ignore.has(field.go)) {
          set([...pl, ...cl]);
          break;
        }
        const result: unknown[] = [];
        const parentKeys = new Set(pl.map((item) => keyOf(kind.of, item)));
        for (const item of pl) {
          const entry = childEntries.get(`${handleOf(field.go)}\0${keyOf(kind.of, item)}`);
          if (!entry) {
            result.push(item);
          } else if (entry.list === field.go) {
            if (kind.of.startsWith('string:')) result.push(entry.item);
            else if (field.go === 'HTTPHeaders' && (entry.item as Obj).value === undefined) continue;
            else result.push(mergeStruct(kind.of, item as Obj, entry.item as Obj));
          } // else: the child has this key in another list of the same key space, which replaces it
        }
        for (const item of cl) if (!parentKeys.has(keyOf(kind.of, item))) result.push(item);
        set(result);
        break;
      }
    }
  }
  return into;
}

function copyFields(type: string, from: Obj, into: Obj): void {
  for (const field of flatFields(type)) {
    if (from[field.json] === undefined) delete into[field.json];
    else into[field.json] = from[field.json];
  }
}
