/**
 * Malformed and mutated Kubernetes API requests, drawn from a seeded generator. Each case names its class, so the
 * fuzz test can print how many of each it sent and what the server made of them. The classes are the ones a
 * broken or hostile client produces: random bytes, truncated and deeply nested JSON, wrong types, huge bodies,
 * invalid names, bad selectors, bad patch documents, bad content types, bad resourceVersions, unknown groups and
 * kinds, bad query parameters and odd methods, plus valid objects mutated at random. Every fourth case is one of the
 * decoding matrix (./decoding-cases.ts): each media type on each verb and kind of path, with deep, wide and aliased
 * documents.
 */
import type { RawRequest } from '../../support/http.js';
import { matrixCase } from './decoding-cases.js';
import { COLLECTIONS, CRD, SEEDED_NAMES, MC, CM, NS } from './fuzz-objects.js';

export interface FuzzCase {
  kind: string;
  req: RawRequest;
  /** Why the answer's status is wrong (undefined when right), for cases whose answer is known. */
  expect?: (status: number) => string | undefined;
  /** The combination of the decoding matrix the case stands for. */
  combo?: string;
}

type Rand = () => number;

export { COLLECTIONS, SEEDED_NAMES };

const pick = <T>(rand: Rand, xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
const int = (rand: Rand, max: number) => Math.floor(rand() * max);

function randomBytes(rand: Rand, n: number): Buffer {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = int(rand, 256);
  return b;
}

function randomString(rand: Rand, max = 40): string {
  const alphabet = 'abcXYZ019-_./:%?#&=!@ ${}[]()"\'\\\u00e9\u4e2d\u0000\n\t';
  let s = '';
  for (let i = int(rand, max); i > 0; i--) s += alphabet[int(rand, alphabet.length)];
  return s;
}

/** A value of a random JSON type (sometimes large, sometimes nested). */
function randomValue(rand: Rand, depth = 0): unknown {
  switch (int(rand, depth > 2 ? 7 : 9)) {
    case 0: return null;
    case 1: return rand() < 0.5;
    case 2: return pick(rand, [0, -1, 1.5, 2 ** 53 + 1, 1e308, -0, 4294967296]);
    case 3: return randomString(rand);
    case 4: return '';
    case 5: return 'x'.repeat(int(rand, 70_000));
    case 6: return [];
    case 7: return Array.from({ length: int(rand, 4) }, () => randomValue(rand, depth + 1));
    default: return Object.fromEntries(Array.from({ length: int(rand, 4) }, () => [randomString(rand, 8), randomValue(rand, depth + 1)]));
  }
}

/** Paths (lists of keys) of every node of a JSON value. */
function nodePaths(value: unknown, prefix: string[] = []): string[][] {
  const out: string[][] = [prefix];
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) out.push(...nodePaths(v, [...prefix, k]));
  }
  return out;
}

/** A copy of `obj` with one to three nodes replaced by values of other types, removed, or given new keys. */
export function mutate(rand: Rand, obj: Record<string, unknown>): unknown {
  let doc: any = structuredClone(obj);
  for (let n = 1 + int(rand, 3); n > 0; n--) {
    const paths = nodePaths(doc);
    const path = pick(rand, paths);
    if (path.length === 0) { if (rand() < 0.2) doc = randomValue(rand); continue; }
    let parent = doc;
    for (const k of path.slice(0, -1)) parent = parent[k];
    const key = path[path.length - 1]!;
    const op = int(rand, 3);
    if (op === 0) parent[key] = randomValue(rand);
    else if (op === 1) delete parent[key];
    else if (parent[key] && typeof parent[key] === 'object') parent[key][randomString(rand, 10)] = randomValue(rand);
    else parent[key] = randomValue(rand);
  }
  return doc;
}

function deeplyNested(rand: Rand): string {
  const depth = 1000 + int(rand, 100_000);
  const style = int(rand, 3);
  if (style === 0) return '['.repeat(depth) + ']'.repeat(depth);
  if (style === 1) return '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
  // Nested inside a valid-looking object, where the server walks it (schema, pruning, cloning).
  return `{"apiVersion":"machineconfiguration.openshift.io/v1","kind":"MachineConfig","metadata":{"name":"deep-${int(rand, 1e6)}"},"spec":{"config":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}}`;
}

const CONTENT_TYPES = [
  'application/json', 'application/yaml', 'application/merge-patch+json', 'application/json-patch+json',
  'application/strategic-merge-patch+json', 'application/apply-patch+yaml', 'application/vnd.kubernetes.protobuf',
  'text/plain', 'application/xml', 'multipart/form-data; boundary=x', 'application/cbor', '', '*/*',
  'application/json; charset=utf-16', 'application/json;;;', 'application/x-www-form-urlencoded', '\u00e9/\u00e9',
];

const BAD_NAMES = [
  'UPPER', 'under_score', '-lead', 'trail-', 'a..b', '.', '..', 'x'.repeat(300), 'with space', '%2F', '%2e%2e',
  'emoji-\u{1F600}', 'semi;colon', 'a/b', 'tab\t', '', '%00', '%zz', 'null', 'é',
];

const BAD_LABEL_SELECTORS = [
  '=', '!', 'a in', 'a in (', 'a in (b', 'a notin ()', 'a==', '==b', 'a=b=c', '(a)', 'a,,b', '!!a', 'a!', 'a in (b c)',
  'key with space=1', 'a=' + 'v'.repeat(100), '\u0000', 'a>1', 'a<1', 'a in ((b))', ',', 'a=b,', '%', 'a=%zz',
];
const BAD_FIELD_SELECTORS = [
  'spec.unknown=1', 'metadata.uid=1', '=', 'metadata.name', 'metadata.name==', 'metadata.name in (a)', '!metadata.name',
  'status.phase=Running', 'a=b,c', ',', 'metadata.name=a,metadata.bogus=b', 'metadata.name!!=a',
];
const BAD_RVS = ['abc', '-1', '1.5', '1e400', '0x10', ' ', '99999999999999999999999', 'NaN', '१२', '%00', '1;2'];

const BAD_JSON_PATCHES: unknown[] = [
  {}, 'op', [{}], [{ op: 'add' }], [{ op: 'frobnicate', path: '/spec' }], [{ op: 'add', path: 'spec', value: 1 }],
  [{ op: 'remove', path: '/nonexistent/deeper' }], [{ op: 'replace', path: '/metadata/name', value: 'other' }],
  [{ op: 'test', path: '/spec', value: 'nope' }], [{ op: 'move', from: '/nope', path: '/spec' }],
  [{ op: 'copy', from: '/spec', path: '/spec/x/y/z' }], [{ op: 'add', path: '/metadata/labels/a~1b', value: 5 }],
  [{ op: 'add', path: '/', value: 7 }], [{ op: 'replace', path: '', value: [] }], [{ op: 'add', path: '/spec/-', value: 1 }],
  [{ op: 'add', path: '/__proto__/polluted', value: true }], [{ op: 'add', path: '/constructor/prototype/x', value: 1 }],
  [{ op: 'add', path: '/metadata/resourceVersion', value: 'abc' }], [{ op: 'replace', path: '/kind', value: 'Other' }],
];
const BAD_MERGE_PATCHES: unknown[] = [
  null, [], 1, 'str', { metadata: 1 }, { metadata: { name: 'other' } }, { metadata: { labels: { 'a b': 1 } } },
  { spec: [] }, { kind: 'Wrong' }, { apiVersion: 'v9' }, { metadata: { resourceVersion: 'abc' } }, { status: 'x' },
  { __proto__: { polluted: true } }, { metadata: { annotations: { a: { b: 1 } } } }, { metadata: { finalizers: 'x' } },
  { metadata: { ownerReferences: [{ uid: 5 }] } }, { metadata: { generateName: 7 } },
];

const UNKNOWN_PATHS = [
  '/apis/fuzz.invalid/v1/widgets', '/apis/machineconfiguration.openshift.io/v9/machineconfigs', '/api/v2/pods',
  '/apis/machineconfiguration.openshift.io/v1/machineconfigz', '/api/v1/namespaces/default/pods', '/apis/',
  '/apis/config.openshift.io', '/apis/config.openshift.io/v1/clusteroperators/x/y/z', '/api/v1/nodes/a/proxy',
  '/api/v1/namespaces/default/configmaps/a/status', '/apis/apps/v1/deployments', '/openapi/v2', '/openapi/v3/apis/nope/v1',
  '/metrics', '/../../etc/passwd', '/api/v1/namespaces/%zz/configmaps', '//api//v1', '/api/v1/nodes/x/scale',
  '/apis/machineconfiguration.openshift.io/v1/namespaces/default/machineconfigs/x', '/version/extra', '/logs',
];

const BAD_QUERIES = [
  'limit=-1', 'limit=abc', 'limit=1e99', 'continue=garbage', 'continue=' + Buffer.from('{"rv":1}').toString('base64url'),
  'timeoutSeconds=-5', 'timeoutSeconds=x', 'dryRun=Some', 'fieldValidation=Loose', 'propagationPolicy=Now',
  'watch=1&timeoutSeconds=abc', 'watch=true&labelSelector=%3D', 'watch=1&resourceVersion=abc', 'includeObject=x&limit=-2',
  'fieldManager=' + 'm'.repeat(500) + '&dryRun=No', 'orphanDependents=maybe&propagationPolicy=Sideways', 'continue=%ff%fe',
];

const METHODS = ['POST', 'PUT', 'PATCH', 'DELETE', 'GET', 'OPTIONS', 'PROPFIND', 'CONNECTX', 'TRACE'];

function collectionAndObject(rand: Rand): { path: string; object: Record<string, unknown>; item: string } {
  const c = pick(rand, COLLECTIONS);
  const name = rand() < 0.6 ? pick(rand, SEEDED_NAMES) : `fz-${int(rand, 1e6)}`;
  return { path: c.path, object: c.valid(name), item: `${c.path}/${name}` };
}

function withRv(rand: Rand, obj: Record<string, unknown>, rv: unknown): Record<string, unknown> {
  return { ...obj, metadata: { ...(obj.metadata as object), resourceVersion: rv } };
}

const json = (v: unknown) => JSON.stringify(v);
const ctJson = { 'Content-Type': 'application/json' };

/**
 * One fuzz case. Every class is drawn about equally often except huge bodies, which cost megabytes each. A DELETE of
 * the whole CustomResourceDefinition or Namespace collection is a valid request that would remove the very kinds
 * being fuzzed, so it is sent as a GET instead.
 */
export function fuzzCase(rand: Rand, index = 0): FuzzCase {
  // Every fourth case is the decoding matrix's next combination (./decoding-cases.ts).
  const c = index % 4 === 3 ? matrixCase(rand, Math.floor(index / 4)) : drawCase(rand);
  const collection = c.req.path.split('?')[0]!.replace(/\/+$/, '');
  if (c.req.method === 'DELETE' && (collection === CRD || collection === NS)) c.req.method = 'GET';
  return c;
}

function drawCase(rand: Rand): FuzzCase {
  const { path, object, item } = collectionAndObject(rand);
  const r = rand();
  if (r < 0.004) {
    // Over the 3 MiB limit: must be 413, read or refused without buffering it all.
    const size = 3 * 1024 * 1024 + 1 + int(rand, 1024 * 1024);
    return { kind: 'huge-body', req: { method: pick(rand, ['POST', 'PUT', 'PATCH']), path: pick(rand, [path, item]), headers: { 'Content-Type': 'application/merge-patch+json' }, body: '{"a":"' + 'x'.repeat(size) + '"}' } };
  }
  switch (int(rand, 14)) {
    case 0:
      return { kind: 'random-bytes', req: { method: pick(rand, ['POST', 'PUT', 'PATCH']), path: pick(rand, [path, item]), headers: { 'Content-Type': pick(rand, CONTENT_TYPES) }, body: randomBytes(rand, int(rand, 4096)) } };
    case 1: {
      const text = json(object);
      return { kind: 'truncated-json', req: { method: pick(rand, ['POST', 'PUT']), path: rand() < 0.5 ? path : item, headers: ctJson, body: text.slice(0, int(rand, text.length)) } };
    }
    case 2:
      return { kind: 'deeply-nested-json', req: { method: pick(rand, ['POST', 'PUT', 'PATCH']), path: pick(rand, [MC, `${MC}/fz-a`, CM, `${CM}/fz-a`]), headers: { 'Content-Type': pick(rand, ['application/json', 'application/merge-patch+json', 'application/json-patch+json', 'application/yaml']) }, body: deeplyNested(rand) } };
    case 3: {
      const wrong = structuredClone(object) as any;
      const field = pick(rand, ['metadata', 'metadata.name', 'metadata.labels', 'metadata.annotations', 'metadata.namespace', 'metadata.finalizers', 'metadata.ownerReferences', 'metadata.generateName', 'spec', 'kind', 'apiVersion', 'status', 'metadata.labels.x', 'data', 'spec.paused', 'spec.osImageURL']);
      const parts = field.split('.');
      let at = wrong;
      for (const p of parts.slice(0, -1)) { if (typeof at[p] !== 'object' || at[p] === null) at[p] = {}; at = at[p]; }
      at[parts[parts.length - 1]!] = pick(rand, [5, true, [], ['a'], { a: 1 }, null, 1.5, 'str', [{}], -1]);
      return { kind: 'wrong-types', req: { method: pick(rand, ['POST', 'PUT']), path: rand() < 0.5 ? path : item, headers: ctJson, body: json(wrong) } };
    }
    case 4: {
      const bad = pick(rand, BAD_NAMES);
      const body = { ...object, metadata: { ...(object.metadata as object), name: rand() < 0.3 ? decodeURIComponentSafe(bad) : bad } };
      return rand() < 0.5
        ? { kind: 'invalid-names', req: { method: 'POST', path, headers: ctJson, body: json(body) } }
        : { kind: 'invalid-names', req: { method: pick(rand, ['GET', 'PUT', 'PATCH', 'DELETE']), path: `${path}/${encodeName(bad)}`, headers: { 'Content-Type': 'application/merge-patch+json' }, body: json(body) } };
    }
    case 5: {
      const q = rand() < 0.6 ? `labelSelector=${encodeURIComponent(pick(rand, BAD_LABEL_SELECTORS))}` : `fieldSelector=${encodeURIComponent(pick(rand, BAD_FIELD_SELECTORS))}`;
      const watch = rand() < 0.3 ? '&watch=1' : '';
      return { kind: 'bad-selectors', req: { method: pick(rand, ['GET', 'GET', 'DELETE']), path: `${path}?${q}${watch}` } };
    }
    case 6: {
      const type = pick(rand, ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml']);
      const doc = type === 'application/json-patch+json' ? pick(rand, BAD_JSON_PATCHES) : type === 'application/apply-patch+yaml' ? pick(rand, [...BAD_MERGE_PATCHES, mutate(rand, object)]) : pick(rand, BAD_MERGE_PATCHES);
      const q = type === 'application/apply-patch+yaml' && rand() < 0.7 ? '?fieldManager=fuzz' : '';
      const target = `${item.replace(/\/[^/]+$/, '/' + pick(rand, SEEDED_NAMES))}${rand() < 0.2 ? '/status' : ''}`;
      return { kind: 'bad-patch', req: { method: 'PATCH', path: target + q, headers: { 'Content-Type': type }, body: doc === undefined ? 'null' : json(doc) } };
    }
    case 7:
      return { kind: 'bad-content-type', req: { method: pick(rand, ['POST', 'PUT', 'PATCH']), path: rand() < 0.5 ? path : item, headers: { 'Content-Type': pick(rand, CONTENT_TYPES) }, body: rand() < 0.5 ? json(object) : 'kind: [' } };
    case 8: {
      const rv = pick(rand, BAD_RVS);
      const how = int(rand, 4);
      if (how === 0) return { kind: 'bad-resource-version', req: { method: 'PUT', path: item.replace(/\/[^/]+$/, '/' + pick(rand, SEEDED_NAMES)), headers: ctJson, body: json(withRv(rand, { ...object, metadata: { ...(object.metadata as object), name: undefined } }, rand() < 0.5 ? rv : int(rand, 99))) } };
      if (how === 1) return { kind: 'bad-resource-version', req: { method: 'GET', path: `${path}?watch=1&resourceVersion=${encodeURIComponent(rv)}` } };
      if (how === 2) return { kind: 'bad-resource-version', req: { method: 'DELETE', path: item, headers: ctJson, body: json({ kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { resourceVersion: rv, uid: rand() < 0.5 ? 5 : 'nope' } }) } };
      return { kind: 'bad-resource-version', req: { method: 'PATCH', path: item.replace(/\/[^/]+$/, '/' + pick(rand, SEEDED_NAMES)), headers: { 'Content-Type': 'application/merge-patch+json' }, body: json({ metadata: { resourceVersion: rand() < 0.5 ? rv : 1 } }) } };
    }
    case 9:
      return { kind: 'unknown-group-kind', req: { method: pick(rand, METHODS.slice(0, 5)), path: pick(rand, UNKNOWN_PATHS) + (rand() < 0.3 ? '/' + pick(rand, SEEDED_NAMES) : ''), headers: ctJson, body: json(object) } };
    case 10:
      return { kind: 'bad-query', req: { method: pick(rand, ['GET', 'POST', 'DELETE', 'PUT']), path: `${rand() < 0.5 ? path : item}?${pick(rand, BAD_QUERIES)}`, headers: ctJson, body: json(object) } };
    case 11:
      return { kind: 'odd-method', req: { method: pick(rand, ['OPTIONS', 'PROPFIND', 'TRACE', 'POST', 'PUT', 'PATCH', 'DELETE']), path: pick(rand, ['/api', '/apis', '/api/v1', '/version', '/apis/config.openshift.io/v1', '/openapi/v3', path, item, `${item}/status`]) } };
    case 12:
      return { kind: 'wrong-kind-or-version', req: { method: pick(rand, ['POST', 'PUT']), path: pick(rand, [path, item]), headers: ctJson, body: json({ ...object, kind: pick(rand, ['Pod', 'Status', '', 'machineconfig', 5]), apiVersion: pick(rand, ['v1', 'v2', 'apps/v1', 'config.openshift.io/v1', null]) }) } };
    default:
      return { kind: 'mutated-valid', req: { method: pick(rand, ['POST', 'POST', 'PUT', 'PATCH']), path: rand() < 0.5 ? path : item.replace(/\/[^/]+$/, '/' + pick(rand, SEEDED_NAMES)), headers: { 'Content-Type': rand() < 0.8 ? 'application/json' : 'application/merge-patch+json' }, body: json(mutate(rand, object)) } };
  }
}

function encodeName(name: string): string {
  return /%/.test(name) ? name : encodeURIComponent(name);
}

function decodeURIComponentSafe(s: string): string {
  try { return decodeURIComponent(s); } catch { return s; }
}
