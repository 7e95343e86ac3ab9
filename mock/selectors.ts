/**
 * Label selectors (equality and set-based) and field selectors, parsed the way kube-apiserver parses them.
 * A malformed selector is a 400, never a silent match-all.
 */
import { errors } from './errors.js';
import type { KubeObject } from './resources.js';

type Requirement =
  | { op: 'exists' | 'notexists'; key: string }
  | { op: 'in' | 'notin'; key: string; values: string[] }
  | { op: '=' | '!='; key: string; value: string };

export type Matcher = (obj: KubeObject) => boolean;

/** Splits on commas that are not inside parentheses. */
function splitTop(text: string): string[] {
  const parts: string[] = [];
  let depth = 0, start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '(') depth++;
    else if (ch === ')') depth--;
    else if (ch === ',' && depth === 0) { parts.push(text.slice(start, i)); start = i + 1; }
  }
  parts.push(text.slice(start));
  return parts.map((p) => p.trim()).filter((p) => p.length > 0);
}

const KEY = /^([a-z0-9A-Z.\-_/]+)$/;
const VALUE = /^[A-Za-z0-9._\-]*$/;

function parseRequirement(part: string, selector: string): Requirement {
  let m: RegExpMatchArray | null;
  const bad = () => errors.badRequest(`unable to parse requirement: invalid label selector "${selector}"`);
  if ((m = part.match(/^!\s*(\S+)$/))) return { op: 'notexists', key: m[1]! };
  if ((m = part.match(/^(\S+)\s+(in|notin)\s*\(([^)]*)\)$/))) {
    const values = m[3]!.split(',').map((v) => v.trim()).filter((v) => v.length);
    if (!KEY.test(m[1]!) || values.some((v) => !VALUE.test(v))) throw bad();
    return { op: m[2] as 'in' | 'notin', key: m[1]!, values };
  }
  if ((m = part.match(/^([^=!\s]+)\s*(==|=|!=)\s*(.*)$/))) {
    if (!KEY.test(m[1]!) || !VALUE.test(m[3]!.trim())) throw bad();
    return { op: m[2] === '!=' ? '!=' : '=', key: m[1]!, value: m[3]!.trim() };
  }
  if (KEY.test(part)) return { op: 'exists', key: part };
  throw bad();
}

function matches(req: Requirement, labels: Record<string, string>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, req.key);
  switch (req.op) {
    case 'exists': return has;
    case 'notexists': return !has;
    case 'in': return has && req.values.includes(labels[req.key]!);
    case 'notin': return !has || !req.values.includes(labels[req.key]!);
    case '=': return has && labels[req.key] === req.value;
    case '!=': return !has || labels[req.key] !== req.value;
  }
}

export function parseLabelSelector(selector: string | undefined | null): Matcher | undefined {
  if (!selector || !selector.trim()) return undefined;
  const reqs = splitTop(selector).map((p) => parseRequirement(p, selector));
  return (obj) => {
    const labels = obj.metadata.labels ?? {};
    return reqs.every((r) => matches(r, labels));
  };
}

/** Reads a dotted field path such as `metadata.name` or `status.phase` from an object. */
function fieldValue(obj: KubeObject, path: string): string {
  let cur: any = obj;
  for (const seg of path.split('.')) cur = cur?.[seg];
  return cur === undefined || cur === null ? '' : String(cur);
}

/**
 * Field selectors: metadata.name and metadata.namespace for every kind, plus the kind-specific fields in
 * `extraFields` (for example `involvedObject.name` for events). Unknown fields are a 400 as on a real server.
 */
export function parseFieldSelector(selector: string | undefined | null, kind: string, extraFields: string[] = []): Matcher | undefined {
  if (!selector || !selector.trim()) return undefined;
  const allowed = new Set(['metadata.name', 'metadata.namespace', ...extraFields]);
  const reqs = splitTop(selector).map((part) => {
    const m = part.match(/^([A-Za-z0-9._\-/]+)\s*(==|=|!=)\s*(.*)$/);
    if (!m) throw errors.badRequest(`invalid field selector: "${selector}"`);
    if (!allowed.has(m[1]!)) {
      throw errors.badRequest(`"${m[1]}" is not a known field selector: only "${[...allowed].join('", "')}" are supported for ${kind}`);
    }
    return { path: m[1]!, negate: m[2] === '!=', value: m[3]!.trim() };
  });
  return (obj) => reqs.every((r) => (fieldValue(obj, r.path) === r.value) !== r.negate);
}

/** Kind-specific field selectors the real server accepts and clients of this project use. */
export const KIND_FIELDS: Record<string, string[]> = {
  Event: ['involvedObject.kind', 'involvedObject.namespace', 'involvedObject.name', 'involvedObject.uid', 'reason', 'type', 'source', 'regarding.name', 'regarding.kind'],
  Namespace: ['status.phase'],
  Node: ['spec.unschedulable'],
  Secret: ['type'],
  Pod: ['spec.nodeName', 'spec.serviceAccountName', 'status.phase', 'status.podIP', 'spec.restartPolicy', 'spec.schedulerName'],
};
