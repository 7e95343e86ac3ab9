/**
 * Structural-schema handling for custom resources: pruning of unknown fields (what the real server does on every
 * write) and validation against `openAPIV3Schema` (types, required, enums, formats, bounds) through ajv.
 * Compilation is lazy: a big CRD costs nothing until its first object is written, which keeps start-up fast.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { StatusCause } from './errors.js';
import type { KubeObject, SchemaCheck } from './resources.js';

type Schema = Record<string, any>;

// ajv-formats is CommonJS; under NodeNext its default export arrives wrapped.
const addFormats = ((addFormatsModule as any).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;

let sharedAjv: Ajv | undefined;
function ajv(): Ajv {
  if (!sharedAjv) {
    // strict: false lets the x-kubernetes-* extension keywords through; unknown formats are ignored as on a real server.
    sharedAjv = new Ajv({ strict: false, allErrors: true, logger: false, validateFormats: true });
    addFormats(sharedAjv);
    // Kubernetes formats ajv-formats lacks; accepted as on the real server, which only checks a few of them.
    for (const f of ['int-or-string', 'quantity', 'duration']) sharedAjv.addFormat(f, true);
  }
  return sharedAjv;
}

const ROOT_KEPT = new Set(['apiVersion', 'kind', 'metadata']);

/** Removes, in place, fields the schema does not declare; records their paths. */
function pruneValue(value: unknown, schema: Schema | undefined, path: string, unknown: string[]): void {
  if (!schema || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    value.forEach((item, i) => pruneValue(item, schema.items, `${path}[${i}]`, unknown));
    return;
  }
  const obj = value as Record<string, unknown>;
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

function fieldPath(instancePath: string): string {
  // "/spec/items/0/name" -> "spec.items[0].name"
  return instancePath.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((acc, seg) => (/^\d+$/.test(seg) ? `${acc}[${seg}]` : acc ? `${acc}.${seg}` : seg), '');
}

function show(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value) ?? String(value);
}

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function valueAt(obj: unknown, instancePath: string): unknown {
  let cur: any = obj;
  for (const seg of instancePath.split('/').slice(1)) cur = cur?.[seg.replace(/~1/g, '/').replace(/~0/g, '~')];
  return cur;
}

/** Words ajv errors the way kube-apiserver words them, with the field each one concerns. */
function toCause(err: ErrorObject, obj: unknown): StatusCause | undefined {
  const base = fieldPath(err.instancePath);
  switch (err.keyword) {
    case 'required': {
      const field = base ? `${base}.${(err.params as any).missingProperty}` : (err.params as any).missingProperty;
      return { reason: 'FieldValueRequired', message: 'Required value', field };
    }
    case 'enum': {
      const allowed = ((err.params as any).allowedValues as unknown[]).map(show).join(', ');
      return { reason: 'FieldValueNotSupported', message: `Unsupported value: ${show(valueAt(obj, err.instancePath))}: supported values: ${allowed}`, field: base };
    }
    case 'type': {
      // The real server names the JSON type it got, not the value: `Invalid value: "integer": ... : "integer"`.
      const got = jsonType(valueAt(obj, err.instancePath));
      return { reason: 'FieldValueInvalid', message: `Invalid value: "${got}": ${base} in body must be of type ${(err.params as any).type}: "${got}"`, field: base };
    }
    case 'if': case 'anyOf': case 'oneOf':
      return undefined; // the branch errors that follow say more
    default: {
      const v = valueAt(obj, err.instancePath);
      return { reason: 'FieldValueInvalid', message: `Invalid value: ${show(v)}: ${base} in body ${err.message ?? 'is invalid'}`, field: base };
    }
  }
}

/** Schema keywords a CRD may carry that mean nothing to JSON Schema validation and would only slow ajv down. */
function forValidation(schema: Schema): Schema {
  const copy = structuredClone(schema);
  // apiVersion/kind/metadata are checked by the server itself; a CRD's metadata schema is usually just "object".
  if (copy.properties?.metadata) copy.properties.metadata = { type: 'object' };
  return copy;
}

export function makeSchemaCheck(openAPIV3Schema: Schema): SchemaCheck {
  let validator: ValidateFunction | undefined;
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
      return unknown;
    },
    validate(obj: KubeObject): StatusCause[] {
      validator ??= ajv().compile(forValidation(openAPIV3Schema));
      if (validator(obj)) return [];
      const causes: StatusCause[] = [];
      const seen = new Set<string>();
      for (const err of validator.errors ?? []) {
        const cause = toCause(err, obj);
        if (!cause) continue;
        const key = `${cause.field}|${cause.message}`;
        if (!seen.has(key)) { seen.add(key); causes.push(cause); }
      }
      return causes;
    },
  };
}
