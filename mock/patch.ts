/**
 * The four patch types of the Kubernetes API: JSON patch (RFC 6902, via fast-json-patch), JSON merge patch
 * (RFC 7386), strategic merge patch (built-in kinds; lists merged by their known keys) and server-side apply
 * (whole-object create-or-update, merged like a strategic patch and recorded in managedFields).
 */
import fastJsonPatch from 'fast-json-patch';
import { errors } from './errors.js';

const { applyPatch, JsonPatchError } = fastJsonPatch as unknown as typeof import('fast-json-patch');

export const PATCH_TYPES = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
} as const;

function isPlainObject(v: unknown): v is Record<string, any> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

export function jsonPatch(target: unknown, operations: unknown): any {
  if (!Array.isArray(operations)) throw errors.badRequest('json patch must be an array of operations');
  try {
    return applyPatch(structuredClone(target), operations as any, true, false).newDocument;
  } catch (e) {
    if (e instanceof JsonPatchError) {
      // A failed "test" op or a missing path is the client's mistake, reported as the real server does (422 for test).
      if ((e as any).name === 'TEST_OPERATION_FAILED') throw errors.invalid('', 'Object', '', [{ reason: 'FieldValueInvalid', message: `the server rejected our request due to an error in our request: ${e.message.split('\n')[0]}` }]);
      throw errors.badRequest(`the server rejected our request due to an error in our request: ${e.message.split('\n')[0]}`);
    }
    throw errors.badRequest(`invalid json patch: ${(e as Error).message}`);
  }
}

/** RFC 7386: objects merge recursively, null deletes, anything else (arrays included) replaces. */
export function mergePatch(target: unknown, patch: unknown): any {
  if (!isPlainObject(patch)) return structuredClone(patch);
  const out: Record<string, any> = isPlainObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

/**
 * patchMergeKey of the list fields of the built-in types this server serves (and the common ones of pods, in case
 * a client sends them); lists not named here are replaced, as `patchStrategy` is absent for them upstream.
 */
export const MERGE_KEYS: Record<string, string> = {
  conditions: 'type', addresses: 'type', taints: 'key', images: '', volumesAttached: 'name',
  containers: 'name', initContainers: 'name', ephemeralContainers: 'name', volumes: 'name', env: 'name',
  ports: 'containerPort', volumeMounts: 'mountPath', ownerReferences: 'uid', secrets: 'name', imagePullSecrets: 'name',
  tolerations: '',
};
/** Lists of scalars merged as sets (patchStrategy: merge without a key). */
export const MERGED_SCALAR_LISTS = new Set(['finalizers']);

function strategicList(field: string, target: unknown, patch: unknown[]): unknown[] {
  const key = MERGE_KEYS[field];
  // A `{$patch: replace}` element asks for the list to be replaced by the others.
  if (patch.some((p) => isPlainObject(p) && p.$patch === 'replace')) {
    return patch.filter((p) => !(isPlainObject(p) && p.$patch === 'replace')).map((p) => strategicMerge(undefined, p));
  }
  if (MERGED_SCALAR_LISTS.has(field) && Array.isArray(target)) {
    const out = [...target];
    for (const v of patch) if (!out.includes(v)) out.push(v);
    return out;
  }
  if (!key || !Array.isArray(target)) return patch.filter((p) => !(isPlainObject(p) && p.$patch)).map((p) => strategicMerge(undefined, p));
  const out = target.map((t) => structuredClone(t));
  for (const p of patch) {
    if (!isPlainObject(p)) continue;
    const idx = out.findIndex((t) => isPlainObject(t) && t[key] === p[key]);
    if (p.$patch === 'delete') { if (idx >= 0) out.splice(idx, 1); continue; }
    if (idx >= 0) out[idx] = strategicMerge(out[idx], p);
    else out.push(strategicMerge(undefined, p));
  }
  return out;
}

/** Strategic merge patch for built-in kinds, including the directives kubectl sends ($patch, $setElementOrder, $retainKeys, $deleteFromPrimitiveList). */
export function strategicMerge(target: unknown, patch: unknown): any {
  if (!isPlainObject(patch)) return structuredClone(patch);
  if (patch.$patch === 'delete') return undefined;
  const base: Record<string, any> = patch.$patch === 'replace' || !isPlainObject(target) ? {} : { ...target };
  for (const [k, v] of Object.entries(patch)) {
    if (k === '$patch' || k.startsWith('$setElementOrder/') || k === '$retainKeys') continue;
    if (k.startsWith('$deleteFromPrimitiveList/')) {
      const field = k.slice('$deleteFromPrimitiveList/'.length);
      if (Array.isArray(base[field]) && Array.isArray(v)) base[field] = base[field].filter((x: unknown) => !v.includes(x));
      continue;
    }
    if (v === null) { delete base[k]; continue; }
    if (Array.isArray(v)) { base[k] = strategicList(k, base[k], v); continue; }
    const merged = strategicMerge(base[k], v);
    if (merged === undefined) delete base[k];
    else base[k] = merged;
  }
  if (Array.isArray(patch.$retainKeys)) {
    for (const k of Object.keys(base)) if (!patch.$retainKeys.includes(k)) delete base[k];
  }
  return base;
}
