/**
 * Structural-schema handling for custom resources, as kube-apiserver applies a CRD version's `openAPIV3Schema`:
 * pruning of unknown fields and of non-nullable nulls, `default` values (on writes and on reads of stored objects),
 * validation in kube-apiserver's words (types, `nullable`, int-or-string, enums, formats, bounds, list types and their
 * keys, embedded resources), `x-kubernetes-validations` CEL rules (cel/), and ratcheting on update: an error at a value
 * equal to its old value (same path; map-list items by key) is dropped, as CRDValidationRatcheting does.
 * Compilation is lazy: a big CRD costs nothing until its first object is written, which keeps start-up fast.
 */
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { rulesOf, startLoadingCel, type CompiledRule } from './cel/loader.js';
import type { StatusCause } from './errors.js';
import type { KubeObject, SchemaCheck } from './resources.js';

type Schema = Record<string, any>;
type Json = Record<string, unknown>;

/**
 * Formats kube-apiserver checks (others are ignored, as on the real server), each by ajv-formats' full definition:
 * the test ajv's `{type: 'string', format}` would run on a string. Used directly rather than through an Ajv instance,
 * whose compilation of its meta-schema cost the mock server about 100 ms of CPU at every start for a regex test.
 */
const CHECKED_FORMATS: Record<string, keyof typeof fullFormats> = {
  'date-time': 'date-time', datetime: 'date-time', date: 'date', uuid: 'uuid', ipv4: 'ipv4', ipv6: 'ipv6', hostname: 'hostname', email: 'email', byte: 'byte',
};
function formatChecker(format: string): ((value: string) => boolean) | undefined {
  const name = Object.hasOwn(CHECKED_FORMATS, format) ? CHECKED_FORMATS[format] : undefined;
  const def = name && fullFormats[name];
  const test = def && typeof def === 'object' && !(def instanceof RegExp) ? def.validate : def;
  if (test instanceof RegExp) return (v) => test.test(v);
  if (typeof test === 'function') return (v) => (test as (v: string) => boolean)(v);
  return undefined;
}

/** One validation error, as k8s.io/apimachinery's field.Error: type, path, bad value and detail. */
export interface FieldError {
  type: 'Invalid' | 'TypeInvalid' | 'Required' | 'NotSupported' | 'TooLong' | 'TooMany' | 'Duplicate' | 'Forbidden';
  field: string;
  value?: unknown;
  detail?: string;
}

const ROOT_KEPT = new Set(['apiVersion', 'kind', 'metadata']);
const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

// ------------------------------------------------------------------------------------------------ pruning

/** Removes, in place, fields the schema does not declare; records their paths. */
function pruneValue(value: unknown, schema: Schema | undefined, path: string, unknown: string[]): void {
  if (!schema || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    value.forEach((item, i) => pruneValue(item, schema.items, `${path}[${i}]`, unknown));
    return;
  }
  const obj = value as Json;
  const props: Schema | undefined = schema.properties;
  const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true;
  const embedded = schema['x-kubernetes-embedded-resource'] === true;
  const additional = schema.additionalProperties;
  for (const key of Object.keys(obj)) {
    const childPath = path ? `${path}.${key}` : key;
    if (props && key in props) pruneValue(obj[key], props[key], childPath, unknown);
    else if (additional && typeof additional === 'object') pruneValue(obj[key], additional, childPath, unknown);
    else if (additional === true || preserve || (embedded && ROOT_KEPT.has(key))) continue;
    else if (!props && !additional && schema.type !== 'object') continue; // not an object schema: nothing to prune
    else { delete obj[key]; unknown.push(childPath); }
  }
}

// ------------------------------------------------------------------------------------------------ defaulting

/** Whether anything below a schema declares a default (memoised per schema node): reads skip the rest. */
const defaultsBelow = new WeakMap<Schema, boolean>();
function hasDefaults(schema: Schema | undefined): boolean {
  if (!schema || typeof schema !== 'object') return false;
  let known = defaultsBelow.get(schema);
  if (known === undefined) {
    defaultsBelow.set(schema, false); // cycles cannot occur in CRD schemas, but stay safe
    known = Object.values(schema.properties ?? {}).some((p: any) => p?.default !== undefined || hasDefaults(p))
      || hasDefaults(schema.items) || (typeof schema.additionalProperties === 'object' && hasDefaults(schema.additionalProperties));
    defaultsBelow.set(schema, known);
  }
  return known;
}

/**
 * Fills in defaults of absent properties (and of null ones that are not nullable), as kube-apiserver does when it
 * decodes a request or reads an object from storage; on writes (`pruneNulls`) also drops the other nulls of
 * non-nullable properties. Returns whether anything changed.
 */
function applyDefaults(value: unknown, schema: Schema | undefined, pruneNulls: boolean): boolean {
  if (!schema || value === null || typeof value !== 'object' || (!pruneNulls && !hasDefaults(schema))) return false;
  let changed = false;
  if (Array.isArray(value)) {
    for (const item of value) changed = applyDefaults(item, schema.items, pruneNulls) || changed;
    return changed;
  }
  const obj = value as Json;
  const props: Schema = schema.properties ?? {};
  for (const key of Object.keys(props)) {
    const prop: Schema = props[key];
    if (obj[key] === undefined || (obj[key] === null && prop.nullable !== true)) {
      if (prop.default !== undefined) { obj[key] = structuredClone(prop.default); changed = true; }
      else if (obj[key] === null && pruneNulls) { delete obj[key]; changed = true; }
    }
    if (obj[key] !== undefined && obj[key] !== null && typeof obj[key] === 'object') changed = applyDefaults(obj[key], prop, pruneNulls) || changed;
  }
  if (isObject(schema.additionalProperties)) {
    for (const key of Object.keys(obj)) if (!props[key]) changed = applyDefaults(obj[key], schema.additionalProperties, pruneNulls) || changed;
  }
  return changed;
}

/** Whether applyDefaults (without pruning nulls) would change anything: reads look first and copy only then. */
function lacksDefaults(value: unknown, schema: Schema | undefined): boolean {
  if (!schema || value === null || typeof value !== 'object' || !hasDefaults(schema)) return false;
  if (Array.isArray(value)) return value.some((item) => lacksDefaults(item, schema.items));
  const obj = value as Json;
  const props: Schema = schema.properties ?? {};
  for (const key of Object.keys(props)) {
    const v = obj[key];
    if ((v === undefined || (v === null && props[key].nullable !== true)) && props[key].default !== undefined) return true;
    if (v !== null && typeof v === 'object' && lacksDefaults(v, props[key])) return true;
  }
  return isObject(schema.additionalProperties) && Object.keys(obj).some((k) => !props[k] && lacksDefaults(obj[k], schema.additionalProperties));
}

// ------------------------------------------------------------------------------------------------ validation

/** The word kube-apiserver uses for a JSON value's type. */
export function jsonType(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  if (typeof v === 'object') return 'object';
  return typeof v;
}

function typeMatches(v: unknown, schema: Schema): boolean {
  if (schema['x-kubernetes-int-or-string'] === true) return typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v));
  switch (schema.type) {
    case undefined: case '': return true;
    case 'object': return isObject(v);
    case 'array': return Array.isArray(v);
    case 'string': return typeof v === 'string';
    case 'integer': return typeof v === 'number' && Number.isInteger(v);
    case 'number': return typeof v === 'number';
    case 'boolean': return typeof v === 'boolean';
    default: return true;
  }
}

/** Values shown as Go's validation errors show them: strings quoted, numbers and booleans bare, the rest as JSON. */
export function goValue(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (v instanceof GoMap) return v.toString();
  return JSON.stringify(v) ?? 'null';
}

/** A map-list key shown as kube-apiserver shows it in a Duplicate error: Go's %#v of a map[string]interface{}. */
class GoMap {
  constructor(readonly fields: Json) {}
  toString(): string {
    const show = (x: unknown): string => (x === null || x === undefined ? 'interface {}(nil)'
      : typeof x === 'string' ? JSON.stringify(x) : isObject(x) ? new GoMap(x).toString() : typeof x === 'object' ? JSON.stringify(x) : String(x));
    const entries = Object.keys(this.fields).sort().map((k) => `${JSON.stringify(k)}:${show(this.fields[k])}`);
    return `map[string]interface {}{${entries.join(', ')}}`;
  }
}

const child = (path: string, key: string) => (path ? `${path}.${key}` : key);
const bodyPath = (path: string) => path || '<nil>';

/** A map-list item's key, as a string for comparison, and as the map kube-apiserver shows in a Duplicate error. */
function mapKey(item: unknown, keys: string[]): { id: string; shown: Json } | undefined {
  if (!isObject(item)) return undefined;
  const shown: Json = {};
  for (const k of keys) shown[k] = item[k];
  return { id: JSON.stringify(keys.map((k) => item[k] ?? null)), shown };
}

/** The old item a map-list item correlates with (same key values), for ratcheting and transition rules. */
export function correlatedItem(oldList: unknown, item: unknown, schema: Schema): { found: boolean; old?: unknown } {
  const keys: string[] | undefined = schema['x-kubernetes-list-map-keys'];
  if (schema['x-kubernetes-list-type'] !== 'map' || !keys?.length || !Array.isArray(oldList)) return { found: false };
  const key = mapKey(item, keys);
  if (!key) return { found: false };
  const old = oldList.find((o) => mapKey(o, keys)?.id === key.id);
  return old === undefined ? { found: false } : { found: true, old };
}

export function deepEqualJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((v, i) => deepEqualJson(v, (b as unknown[])[i]));
  const ka = Object.keys(a), kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqualJson((a as Json)[k], (b as Json)[k]));
}

/** The OpenAPI checks of one value and what is below it; `old` (when `hasOld`) is its correlated old value. */
function validateValue(v: unknown, s: Schema, path: string, out: FieldError[], old: unknown, hasOld: boolean): void {
  // Ratcheting: a value equal to its old self keeps whatever errors it had.
  if (hasOld && deepEqualJson(v, old)) return;
  if (v === null) {
    if (s.nullable === true) return;
    if (s.type !== undefined || s['x-kubernetes-int-or-string'] === true) {
      out.push({ type: 'TypeInvalid', field: path, value: 'null', detail: `${bodyPath(path)} in body must be of type ${s.type ?? 'integer-or-string'}: "null"` });
    }
    return;
  }
  if (!typeMatches(v, s)) {
    const got = jsonType(v);
    const want = s['x-kubernetes-int-or-string'] === true ? 'integer-or-string' : s.type;
    out.push({ type: 'TypeInvalid', field: path, value: got, detail: `${bodyPath(path)} in body must be of type ${want}: "${got}"` });
    // No return: kube-openapi's SchemaValidator runs every validator that applies to the value's own kind after a
    // failed type check (the enum, the string, number, list and object checks), so `1234` in a string enum is both a
    // type error and an Unsupported value (validate/schema.go, Validate; each validator's Applies).
  }
  if (Array.isArray(s.enum) && !s.enum.some((e: unknown) => deepEqualJson(e, v))) {
    out.push({ type: 'NotSupported', field: path, value: v, detail: `supported values: ${s.enum.map(goValue).join(', ')}` });
  }
  if (typeof v === 'string') validateString(v, s, path, out);
  else if (typeof v === 'number') validateNumber(v, s, path, out);
  else if (Array.isArray(v)) validateArray(v, s, path, out, old, hasOld);
  else if (isObject(v)) validateObject(v, s, path, out, old, hasOld);
  for (const sub of s.allOf ?? []) validateValue(v, sub, path, out, undefined, false);
  for (const [key, word] of [['anyOf', 'at least one schema (anyOf)'], ['oneOf', 'one and only one schema (oneOf)']] as const) {
    const subs: Schema[] | undefined = s[key];
    if (!subs?.length || s['x-kubernetes-int-or-string'] === true) continue;
    const passing = subs.filter((sub) => { const e: FieldError[] = []; validateValue(v, sub, path, e, undefined, false); return e.length === 0; }).length;
    if (key === 'anyOf' ? passing === 0 : passing !== 1) out.push({ type: 'Invalid', field: path, value: v, detail: `${bodyPath(path)} in body must validate ${word}` });
  }
  if (s.not) {
    const e: FieldError[] = [];
    validateValue(v, s.not, path, e, undefined, false);
    if (e.length === 0) out.push({ type: 'Invalid', field: path, value: v, detail: `${bodyPath(path)} in body must not validate the schema (not)` });
  }
}

function validateString(v: string, s: Schema, path: string, out: FieldError[]): void {
  const length = [...v].length; // characters, as kube-openapi counts them
  if (typeof s.maxLength === 'number' && length > s.maxLength) {
    out.push({ type: 'TooLong', field: path, detail: `may not be more than ${s.maxLength} ${s.maxLength === 1 ? 'byte' : 'bytes'}` });
  }
  if (typeof s.minLength === 'number' && length < s.minLength) {
    out.push({ type: 'Invalid', field: path, value: v, detail: `${bodyPath(path)} in body should be at least ${s.minLength} chars long` });
  }
  if (typeof s.pattern === 'string' && !patternOf(s.pattern)?.test(v)) {
    out.push({ type: 'Invalid', field: path, value: v, detail: `${bodyPath(path)} in body should match '${s.pattern}'` });
  }
  if (typeof s.format === 'string') {
    const check = formatChecker(s.format);
    if (check && !check(v)) out.push({ type: 'TypeInvalid', field: path, value: 'string', detail: `${bodyPath(path)} in body must be of type ${s.format}: ${JSON.stringify(v)}` });
  }
}

const patterns = new Map<string, RegExp | undefined>();
function patternOf(source: string): RegExp | undefined {
  if (!patterns.has(source)) {
    let re: RegExp | undefined;
    try { re = new RegExp(source, 'u'); } catch { try { re = new RegExp(source); } catch { re = undefined; } }
    patterns.set(source, re);
  }
  return patterns.get(source);
}

function validateNumber(v: number, s: Schema, path: string, out: FieldError[]): void {
  const p = bodyPath(path);
  if (typeof s.minimum === 'number') {
    if (s.exclusiveMinimum === true ? v <= s.minimum : v < s.minimum) {
      out.push({ type: 'Invalid', field: path, value: v, detail: `${p} in body should be greater than ${s.exclusiveMinimum === true ? '' : 'or equal to '}${s.minimum}` });
    }
  }
  if (typeof s.maximum === 'number') {
    if (s.exclusiveMaximum === true ? v >= s.maximum : v > s.maximum) {
      out.push({ type: 'Invalid', field: path, value: v, detail: `${p} in body should be less than ${s.exclusiveMaximum === true ? '' : 'or equal to '}${s.maximum}` });
    }
  }
  if (typeof s.multipleOf === 'number' && s.multipleOf > 0 && !Number.isInteger(v / s.multipleOf)) {
    out.push({ type: 'Invalid', field: path, value: v, detail: `${p} in body should be a multiple of ${s.multipleOf}` });
  }
}

function validateArray(v: unknown[], s: Schema, path: string, out: FieldError[], old: unknown, hasOld: boolean): void {
  if (typeof s.maxItems === 'number' && v.length > s.maxItems) {
    out.push({ type: 'TooMany', field: path, value: v.length, detail: `must have at most ${s.maxItems} ${s.maxItems === 1 ? 'item' : 'items'}` });
  }
  if (typeof s.minItems === 'number' && v.length < s.minItems) {
    out.push({ type: 'Invalid', field: path, value: v.length, detail: `${bodyPath(path)} in body should have at least ${s.minItems} items` });
  }
  const listType = s['x-kubernetes-list-type'];
  if (listType === 'set') {
    v.forEach((item, i) => { if (v.findIndex((other) => deepEqualJson(other, item)) < i) out.push({ type: 'Duplicate', field: `${path}[${i}]`, value: item }); });
  } else if (listType === 'map') {
    const keys: string[] = s['x-kubernetes-list-map-keys'] ?? [];
    const seen = new Set<string>();
    v.forEach((item, i) => {
      const key = mapKey(item, keys);
      if (!key) return;
      if (seen.has(key.id)) out.push({ type: 'Duplicate', field: `${path}[${i}]`, value: new GoMap(key.shown) });
      seen.add(key.id);
    });
  }
  if (!s.items) return;
  v.forEach((item, i) => {
    const c = hasOld ? correlatedItem(old, item, s) : { found: false };
    validateValue(item, s.items, `${path}[${i}]`, out, c.old, c.found);
  });
}

function validateObject(v: Json, s: Schema, path: string, out: FieldError[], old: unknown, hasOld: boolean): void {
  const oldObj = hasOld && isObject(old) ? old : undefined;
  for (const key of s.required ?? []) {
    if (v[key] === undefined) out.push({ type: 'Required', field: child(path, key) });
  }
  const count = Object.keys(v).length;
  if (typeof s.maxProperties === 'number' && count > s.maxProperties) {
    out.push({ type: 'TooMany', field: path, value: count, detail: `must have at most ${s.maxProperties} ${s.maxProperties === 1 ? 'item' : 'items'}` });
  }
  if (typeof s.minProperties === 'number' && count < s.minProperties) {
    out.push({ type: 'Invalid', field: path, value: count, detail: `${bodyPath(path)} in body should have at least ${s.minProperties} properties` });
  }
  if (s['x-kubernetes-embedded-resource'] === true) {
    for (const key of ['apiVersion', 'kind']) {
      if (typeof v[key] !== 'string' || v[key] === '') out.push({ type: 'Required', field: child(path, key), detail: 'must not be empty' });
    }
  }
  const props: Schema = s.properties ?? {};
  for (const [key, value] of Object.entries(v)) {
    const sub = props[key] ?? (isObject(s.additionalProperties) ? s.additionalProperties : undefined);
    if (!sub || value === undefined) continue;
    validateValue(value, sub, child(path, key), out, oldObj?.[key], oldObj !== undefined && key in oldObj);
  }
}

/** OpenAPI errors after which kube-apiserver does not run the CEL rules. */
const BLOCKING = new Set(['NotSupported', 'Required', 'TooLong', 'TooMany', 'TypeInvalid']);

const REASONS: Record<FieldError['type'], string> = {
  Invalid: 'FieldValueInvalid', TypeInvalid: 'FieldValueTypeInvalid', Required: 'FieldValueRequired',
  NotSupported: 'FieldValueNotSupported', TooLong: 'FieldValueTooLong', TooMany: 'FieldValueTooMany',
  Duplicate: 'FieldValueDuplicate', Forbidden: 'FieldValueForbidden',
};
const WORDS: Record<FieldError['type'], string> = {
  Invalid: 'Invalid value', TypeInvalid: 'Invalid value', Required: 'Required value', NotSupported: 'Unsupported value',
  TooLong: 'Too long', TooMany: 'Too many', Duplicate: 'Duplicate value', Forbidden: 'Forbidden',
};

/** A field error as a Status cause: the message is the error without its path, as kube-apiserver's ErrorBody. */
export function toCause(e: FieldError): StatusCause {
  let body = WORDS[e.type];
  if (!['Required', 'Forbidden', 'TooLong'].includes(e.type)) body += `: ${goValue(e.value)}`;
  if (e.detail) body += `: ${e.detail}`;
  return { reason: REASONS[e.type], message: body, field: bodyPath(e.field) };
}

// ------------------------------------------------------------------------------------------------ CEL rules

function memo(cache: WeakMap<Schema, boolean>, test: (s: Schema) => boolean) {
  const below = (s: Schema | undefined): boolean => {
    if (!s || typeof s !== 'object') return false;
    let known = cache.get(s);
    if (known === undefined) {
      cache.set(s, false);
      known = test(s) || Object.values<Schema>(s.properties ?? {}).some(below) || below(s.items)
        || (isObject(s.additionalProperties) && below(s.additionalProperties));
      cache.set(s, known);
    }
    return known;
  };
  return below;
}
/** Whether a schema node or one below it carries rules; and transition rules (those reading oldSelf). */
export const hasRules = memo(new WeakMap(), (s) => Array.isArray(s['x-kubernetes-validations']) && s['x-kubernetes-validations'].length > 0);
const hasTransitionRules = memo(new WeakMap(), (s) => Array.isArray(s['x-kubernetes-validations'])
  && s['x-kubernetes-validations'].some((r: any) => typeof r?.rule === 'string' && r.rule.includes('oldSelf')));

/** The type word of a rule's error: the schema's type (`Invalid value: "object": ...`). */
const typeWord = (s: Schema) => (typeof s.type === 'string' ? s.type : '');

/** `fieldPath` of a rule, relative to its node: `.a.b`, `.a['b']` or `.a[0]`. */
function joinFieldPath(path: string, fieldPath: string): string {
  const rel = fieldPath.replace(/\['([^']*)'\]/g, '.$1').replace(/^\./, '');
  if (!rel) return path;
  return path && !rel.startsWith('[') ? `${path}.${rel}` : `${path}${rel}`;
}

function ruleError(r: CompiledRule, s: Schema, path: string, message: string): FieldError {
  const field = r.rule.fieldPath ? joinFieldPath(path, r.rule.fieldPath) : path;
  switch (r.rule.reason) {
    case 'FieldValueForbidden': return { type: 'Forbidden', field, detail: message };
    case 'FieldValueRequired': return { type: 'Required', field, detail: message };
    case 'FieldValueDuplicate': return { type: 'Duplicate', field, value: typeWord(s) };
    default: return { type: 'Invalid', field, value: typeWord(s), detail: message };
  }
}

/**
 * Runs the rules of a node and of every node below it. Rules that do not read oldSelf are not run on a value equal
 * to its old value (ratcheting); transition rules run only where an old value correlates (object fields by name,
 * map-list items by key), unless they set optionalOldSelf.
 */
function runRules(v: unknown, s: Schema, path: string, out: FieldError[], old: unknown, hasOld: boolean): void {
  if (v === undefined || v === null || !hasRules(s)) return;
  const unchanged = hasOld && deepEqualJson(v, old);
  if (unchanged && !hasTransitionRules(s)) return;
  for (const r of rulesOf(s)) {
    if (r.usesOldSelf ? !hasOld && r.rule.optionalOldSelf !== true : unchanged) continue;
    const ruleText = r.rule.message?.trim() || r.rule.rule.trim();
    if (r.unsupported.length) {
      out.push({ type: 'Invalid', field: path, value: typeWord(s), detail: `rule not evaluated: the mock API server does not support the CEL function(s) ${r.unsupported.join(', ')}: ${r.rule.rule.trim()}` });
      continue;
    }
    const result = r.evaluate(v, s, { present: hasOld, value: old });
    if ('error' in result) {
      const detail = result.error.startsWith('no such overload')
        ? `'${result.error}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleText}`
        : `${result.error} evaluating rule: ${ruleText}`;
      out.push({ type: 'Invalid', field: path, value: typeWord(s), detail });
    } else if (!result.pass) {
      out.push(ruleError(r, s, path, result.message));
    }
  }
  if (Array.isArray(v)) {
    if (!s.items) return;
    v.forEach((item, i) => {
      const c = hasOld ? correlatedItem(old, item, s) : { found: false };
      runRules(item, s.items, `${path}[${i}]`, out, c.old, c.found);
    });
  } else if (isObject(v)) {
    const oldObj = hasOld && isObject(old) ? old : undefined;
    for (const [key, value] of Object.entries(v)) {
      const sub = s.properties?.[key] ?? (isObject(s.additionalProperties) ? s.additionalProperties : undefined);
      if (sub) runRules(value, sub, child(path, key), out, oldObj?.[key], oldObj !== undefined && key in oldObj);
    }
  }
}

/** What CEL sees of the root object: its metadata is only name and generateName, as on the real server. */
function celRoot(obj: KubeObject): Json {
  const { metadata, ...rest } = obj;
  const meta: Json = {};
  if (metadata?.name !== undefined) meta.name = metadata.name;
  if (metadata?.generateName !== undefined) meta.generateName = metadata.generateName;
  return { ...rest, metadata: meta };
}

export function makeSchemaCheck(openAPIV3Schema: Schema): SchemaCheck {
  // apiVersion/kind/metadata are checked by the server itself; a CRD's metadata schema is usually just "object".
  const forValidation: Schema = { ...openAPIV3Schema, properties: { ...(openAPIV3Schema.properties ?? {}) } };
  delete forValidation.properties.metadata;
  delete forValidation.properties.apiVersion;
  delete forValidation.properties.kind;
  const forRules: Schema = { ...openAPIV3Schema, properties: { ...(openAPIV3Schema.properties ?? {}) } };
  forRules.properties.metadata = { type: 'object', properties: { name: { type: 'string' }, generateName: { type: 'string' } } };
  // the first schema with rules loads the CEL engine; requests wait for it (cel/loader.ts)
  if (hasRules(forRules)) startLoadingCel();
  return {
    prune(obj: KubeObject): string[] {
      const unknown: string[] = [];
      const top = openAPIV3Schema;
      if (top['x-kubernetes-preserve-unknown-fields'] === true && !top.properties) return unknown;
      for (const key of Object.keys(obj)) {
        if (ROOT_KEPT.has(key)) continue;
        if (top.properties && key in top.properties) pruneValue(obj[key], top.properties[key], key, unknown);
        else if (top['x-kubernetes-preserve-unknown-fields'] !== true) { delete obj[key]; unknown.push(key); }
      }
      applyDefaults(obj, forValidation, true);
      return unknown;
    },
    withDefaults(obj: KubeObject): KubeObject | undefined {
      if (!lacksDefaults(obj, forValidation)) return undefined;
      const copy = structuredClone(obj);
      applyDefaults(copy, forValidation, false);
      return copy;
    },
    validate(obj: KubeObject, old?: KubeObject, subresource?: string): StatusCause[] {
      const errs: FieldError[] = [];
      const statusSchema: Schema | undefined = forValidation.properties.status;
      if (subresource === 'status') {
        // The status subresource validates status alone, naming fields in the text relative to it, as upstream.
        if (statusSchema && obj.status !== undefined) {
          const statusErrs: FieldError[] = [];
          validateValue(obj.status, statusSchema, 'status', statusErrs, old?.status, old !== undefined && old.status !== undefined);
          for (const e of statusErrs) errs.push(e.detail?.startsWith('status.') ? { ...e, detail: e.detail.slice('status.'.length) } : e);
        }
      } else {
        validateValue(obj, forValidation, '', errs, old, old !== undefined);
      }
      if (hasRules(forRules)) {
        if (errs.some((e) => BLOCKING.has(e.type))) {
          errs.push({ type: 'Invalid', field: '', value: 'null', detail: 'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation' });
        } else {
          runRules(celRoot(obj), forRules, '', errs, old === undefined ? undefined : celRoot(old), old !== undefined);
        }
      }
      const causes: StatusCause[] = [];
      const seen = new Set<string>();
      for (const e of errs) {
        const cause = toCause(e);
        const key = `${cause.field}|${cause.message}`;
        if (!seen.has(key)) { seen.add(key); causes.push(cause); }
      }
      return causes;
    },
  };
}
