/**
 * Server-side apply's two changes to the live object, after structured-merge-diff (kubernetes-sigs): the applied
 * configuration merged in by shape (merge-shape.ts), then the fields its manager applied last time and no longer
 * applies taken out, unless another manager owns them.
 *
 * Merging: a map field by field (an atomic map replaced), a map list item by item by key (an applied item merged
 * into the live item of the same key, live items not applied kept in place), a set as the union, an atomic list and
 * a scalar replaced. The merged list's order is the applied order, with live items that were not applied staying
 * where they were relative to their neighbours.
 */
import { itemElement, pathKey, type Path } from './managedfields.js';
import { resolve, type ListShape, type Shape } from './merge-shape.js';

const isMap = (v: unknown): v is Record<string, any> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The live value with the applied one merged in (both left untouched). */
export function mergeApplied(live: unknown, applied: unknown, shape: Shape): unknown {
  if (applied === undefined) return structuredClone(live);
  if (live === undefined || live === null || applied === null) return structuredClone(applied);
  const s = resolve(shape, applied);
  if (s.kind !== resolve(shape, live).kind || s.kind === 'scalar' || (s.kind === 'map' && s.atomic) || (s.kind === 'list' && s.type === 'atomic')) {
    return structuredClone(applied);
  }
  if (s.kind === 'map') {
    const out: Record<string, unknown> = structuredClone(live as Record<string, unknown>);
    for (const [k, v] of Object.entries(applied as Record<string, unknown>)) out[k] = mergeApplied(out[k], v, s.field(k));
    return out;
  }
  return mergeLists(s, live as unknown[], applied as unknown[]);
}

function mergeLists(s: ListShape, live: unknown[], applied: unknown[]): unknown[] {
  const element = (item: unknown, i: number) => itemElement(s, item) ?? `i:${i}`;
  const livePEs = live.map(element);
  const appliedPEs = applied.map(element);
  const liveByPE = new Map<string, unknown>();
  live.forEach((item, i) => { if (!liveByPE.has(livePEs[i]!)) liveByPE.set(livePEs[i]!, item); });
  const appliedByPE = new Map(applied.map((item, i) => [appliedPEs[i]!, item]));
  // The applied items that are live too, in applied order: a live one is placed when its turn comes in that order.
  const shared = appliedPEs.filter((pe) => liveByPE.has(pe));
  let nextShared = 0;
  const placed = new Set<string>();
  const out: unknown[] = [];
  const place = (pe: string) => {
    out.push(mergeApplied(liveByPE.get(pe), appliedByPE.get(pe), s.item));
    placed.add(pe);
    if (shared[nextShared] === pe) nextShared++;
  };
  let l = 0, r = 0;
  while (l < live.length || r < applied.length) {
    const lpe = livePEs[l]!, rpe = appliedPEs[r]!;
    if (l < live.length && r < applied.length) {
      if (lpe === rpe) { place(rpe); l++; r++; continue; }
      // A live item that is applied too waits for its turn in the applied order.
      if (appliedByPE.has(lpe) && nextShared < shared.length && shared[nextShared] !== lpe) { l++; continue; }
    }
    if (l < live.length) {
      if (!appliedByPE.has(lpe)) { out.push(structuredClone(live[l])); l++; continue; }
      if (placed.has(lpe)) l++;
    }
    if (r < applied.length) { place(rpe); r++; }
  }
  return out;
}

/**
 * Takes the fields at `paths` out of `obj` (in place): a map's field, or a list's item by its path element. Maps and
 * lists the removal empties go too, except fields at the top level (`spec`, `metadata`).
 */
export function removePaths(obj: Record<string, any>, paths: Path[], shape: Shape): void {
  for (const path of paths) removePath(obj, path, shape);
}

function removePath(obj: Record<string, any>, path: Path, rootShape: Shape): void {
  const trail: Array<{ holder: any; at: string | number }> = [];
  let cur: any = obj;
  let shape = rootShape;
  for (const pe of path) {
    const s = resolve(shape, cur);
    let at: string | number;
    if (pe.startsWith('f:')) {
      if (s.kind !== 'map' || !isMap(cur) || !(pe.slice(2) in cur)) return;
      at = pe.slice(2);
      shape = s.field(at);
    } else {
      if (s.kind !== 'list' || !Array.isArray(cur)) return;
      at = cur.findIndex((item, i) => (itemElement(s, item) ?? `i:${i}`) === pe);
      if (at < 0) return;
      shape = s.item;
    }
    trail.push({ holder: cur, at });
    cur = (cur as any)[at];
  }
  const last = trail.pop();
  if (!last) return;
  if (Array.isArray(last.holder)) last.holder.splice(last.at as number, 1);
  else delete last.holder[last.at];
  for (let i = trail.length - 1; i >= 1; i--) {
    const { holder, at } = trail[i]!;
    const v = holder[at];
    const empty = (isMap(v) && Object.keys(v).length === 0) || (Array.isArray(v) && v.length === 0);
    if (!empty || Array.isArray(holder)) break;
    delete holder[at];
  }
}

/**
 * Paths the manager applied last time (`previous`) and not now (`applied`) that nobody else owns (`others`) and that
 * hold nothing still owned: what server-side apply removes.
 */
export function unappliedPaths(previous: Set<string>, applied: Set<string>, others: Set<string>): Path[] {
  const kept = new Set([...applied, ...others]);
  const holding = new Set<string>();
  for (const k of kept) {
    const p = k.split('\u0000');
    for (let i = 1; i < p.length; i++) holding.add(pathKey(p.slice(0, i)));
  }
  return [...previous].filter((k) => !kept.has(k) && !holding.has(k)).map((k) => k.split('\u0000'));
}
