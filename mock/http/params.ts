/** Query parameters (and delete bodies) turned into the options of the Api, refused with 400 when malformed. */
import type { DeleteOptions, FieldValidation, WriteOptions } from '../api.js';
import { errors } from '../errors.js';
import type { IncludeObject } from '../table.js';

export function includeObject(q: URLSearchParams): IncludeObject {
  const v = q.get('includeObject');
  return v === 'None' || v === 'Object' ? v : 'Metadata';
}

export function isWatch(q: URLSearchParams): boolean {
  return q.get('watch') === 'true' || q.get('watch') === '1';
}

export function intParam(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  if (v === null || v === '') return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw errors.badRequest(`${name}: invalid value ${JSON.stringify(v)}: must be a non-negative integer`);
  return n;
}

export function selectors(q: URLSearchParams): { labelSelector?: string; fieldSelector?: string } {
  return { labelSelector: q.get('labelSelector') ?? undefined, fieldSelector: q.get('fieldSelector') ?? undefined };
}

export function writeOptions(q: URLSearchParams, warnings: string[]): WriteOptions {
  const dryRun = q.getAll('dryRun');
  if (dryRun.some((d) => d !== 'All')) throw errors.badRequest(`dryRun: Unsupported value: ${JSON.stringify(dryRun.find((d) => d !== 'All'))}: supported values: "All"`);
  const fv = q.get('fieldValidation') ?? 'Ignore';
  if (!['Strict', 'Warn', 'Ignore'].includes(fv)) throw errors.badRequest(`fieldValidation: Unsupported value: ${JSON.stringify(fv)}: supported values: "Ignore", "Strict", "Warn"`);
  return {
    dryRun: dryRun.length > 0,
    fieldValidation: fv as FieldValidation,
    fieldManager: q.get('fieldManager') ?? undefined,
    force: q.get('force') === 'true',
    warnings,
  };
}

export function deleteOptions(q: URLSearchParams, body: unknown): DeleteOptions {
  const b = (body && typeof body === 'object' ? body : {}) as Record<string, any>;
  const policy = q.get('propagationPolicy') ?? b.propagationPolicy;
  if (policy !== undefined && !['Orphan', 'Background', 'Foreground'].includes(policy)) {
    throw errors.badRequest(`propagationPolicy: Unsupported value: ${JSON.stringify(policy)}: supported values: "Foreground", "Background", "Orphan"`);
  }
  const orphan = q.get('orphanDependents') ?? b.orphanDependents;
  const dryRun = [...q.getAll('dryRun'), ...(Array.isArray(b.dryRun) ? b.dryRun : [])];
  if (dryRun.some((d) => d !== 'All')) throw errors.badRequest('dryRun: Unsupported value: supported values: "All"');
  return {
    dryRun: dryRun.length > 0,
    propagationPolicy: policy ?? (orphan === true || orphan === 'true' ? 'Orphan' : undefined),
    preconditions: b.preconditions,
  };
}
