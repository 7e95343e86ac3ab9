/**
 * The decoding matrix of the fuzz test: every Content-Type below on every verb (GET, POST, PUT, PATCH, DELETE) and
 * every kind of path (built-in and custom, cluster-scoped and namespaced, collection, object and status), each with
 * a document drawn at random: valid, deep (under and over the server's limits, JSON and YAML styles), wide, aliased
 * (billion laughs, fan-outs, self references), a JSON patch of too many operations, garbage or nothing.
 *
 * The n-th matrix case takes combination n (modulo MATRIX_SIZE), so enough cases cover them all. Each carries what
 * kube-apiserver would answer where that is certain: 404 for a status the kind lacks, 405 for a verb the path
 * lacks, 415 for a media type the verb refuses (decided before the body is read), never 415 for one it takes (except
 * protobuf, which the mock decodes for some kinds only), and 400 (413 for a JSON patch over 10000 operations) for a
 * document over the limits. The table of media types is written out by hand from kube-apiserver's rules, not
 * computed by the mock's code: it is the oracle.
 */
import { stringify } from 'yaml';
import { COLLECTIONS, CM, MC, MCP, NODES, PODS, SEEDED_NAMES, WIDGETS } from './fuzz-objects.js';
import type { FuzzCase } from './fuzz-cases.js';

type Rand = () => number;
const pick = <T>(rand: Rand, xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
const int = (rand: Rand, max: number) => Math.floor(rand() * max);

/**
 * Content-Type, then whether kube-apiserver takes it for a create/update/DeleteOptions body (mime.ParseMediaType,
 * then json, yaml or protobuf exactly; none given is JSON), a patch of a built-in kind, a patch of a custom resource
 * (the header up to its first `;`, compared as it is).
 */
const MEDIA_TYPES: ReadonlyArray<[type: string, write: boolean, patchBuiltin: boolean, patchCustom: boolean]> = [
  ['application/json', true, false, false],
  ['application/yaml', true, false, false],
  ['application/vnd.kubernetes.protobuf', true, false, false],
  ['application/json-patch+json', false, true, true],
  ['application/merge-patch+json', false, true, true],
  ['application/strategic-merge-patch+json', false, true, false],
  ['application/apply-patch+yaml', false, true, true],
  ['application/apply-patch+cbor', false, false, false],
  ['application/cbor', false, false, false],
  ['APPLICATION/JSON', true, false, false],
  ['application/json; charset=utf-8', true, false, false],
  ['application/yaml;', true, false, false],
  ['application/yaml; x="a;b"', true, false, false],
  ['application/json;;;', false, false, false],
  ['application/json; a=1; A=2', false, false, false],
  ['application/json x', false, false, false],
  ['application/merge-patch+json; charset=utf-8', false, true, true],
  ['application/merge-patch+json;', false, true, true],
  ['Application/Merge-Patch+Json', false, false, false],
  ['application/apply-patch+yaml ; x=1', false, false, false],
  ['text/plain', false, false, false],
  ['application/x-yaml', false, false, false],
  ['*/*', false, false, false],
  ['multipart/form-data; boundary=x', false, false, false],
  ['', true, false, false],
];

interface PathKind { name: string; collection: string; builtin: boolean; status: boolean }

const PATH_KINDS: readonly PathKind[] = [
  { name: 'built-in cluster-scoped', collection: NODES, builtin: true, status: true },
  { name: 'built-in namespaced', collection: CM, builtin: true, status: false },
  { name: 'built-in namespaced', collection: PODS, builtin: true, status: true },
  { name: 'custom cluster-scoped', collection: MC, builtin: false, status: false },
  { name: 'custom cluster-scoped', collection: MCP, builtin: false, status: true },
  { name: 'custom namespaced', collection: WIDGETS, builtin: false, status: true },
];
const AT = ['collection', 'object', 'status'] as const;
const VERBS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** How many combinations of media type, path and verb there are. */
export const MATRIX_SIZE = MEDIA_TYPES.length * PATH_KINDS.length * AT.length * VERBS.length;

/** Which verbs each place in the tree answers (others are 405). */
const SERVED: Record<typeof AT[number], readonly string[]> = {
  collection: ['GET', 'POST', 'DELETE'], object: ['GET', 'PUT', 'PATCH', 'DELETE'], status: ['GET', 'PUT', 'PATCH'],
};

/** A document and, when it is over a limit, the answer any decoder of it must give. */
interface Doc { shape: string; text: string; over?: 400 | 'too-many-ops' }

const nestJson = (rand: Rand, depth: number) => rand() < 0.5 ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
const nestFlowYaml = (depth: number) => '{a: '.repeat(depth) + 'x' + '}'.repeat(depth);
const nestBlockYaml = (depth: number) => Array.from({ length: depth }, (_, i) => ' '.repeat(i) + 'a:').join('\n') + ' x';

/** The valid object of a path kind as JSON or YAML text, with `inner` (text in the same syntax) as its `spec.x`. */
function objectText(kind: PathKind, name: string, yaml: boolean, inner?: string): string {
  const valid = COLLECTIONS.find((c) => c.path === kind.collection)!.valid(name);
  if (inner === undefined) return yaml ? stringify(valid) : JSON.stringify(valid);
  const withSlot = { ...valid, spec: { ...(valid.spec as object), x: 'INNERSLOT' } };
  return yaml ? stringify(withSlot).replace('INNERSLOT', inner) : JSON.stringify(withSlot).replace('"INNERSLOT"', inner);
}

/** Levels of lists of aliases to the level below: fan^levels nodes (at least 6^7, 280,000) from a few hundred bytes. */
function billionLaughs(rand: Rand): string {
  const levels = 7 + int(rand, 4), fan = 6 + int(rand, 5);
  const lines = ['l0: &l0 [' + Array(fan).fill('"lol"').join(',') + ']'];
  for (let i = 1; i < levels; i++) lines.push(`l${i}: &l${i} [` + Array(fan).fill(`*l${i - 1}`).join(',') + ']');
  return lines.join('\n') + '\n';
}

/** One document for a path kind, drawn at random among the shapes. */
function document(rand: Rand, kind: PathKind, name: string): Doc {
  const yaml = rand() < 0.5;
  switch (int(rand, 15)) {
    case 0: return { shape: 'valid', text: objectText(kind, name, yaml) };
    case 1: return { shape: 'deep-json-under', text: objectText(kind, name, false, nestJson(rand, 990 - int(rand, 20))) };
    case 2: return { shape: 'deep-json-over', text: nestJson(rand, 1001 + int(rand, 100_000)), over: 400 };
    case 3: return { shape: 'deep-yaml-under', text: objectText(kind, name, true, nestFlowYaml(250 - int(rand, 10))) };
    case 4: {
      // Block nesting costs its square in indentation: it stays within a few hundred levels past the limit.
      const style = int(rand, 4);
      const depth = 257 + int(rand, style === 1 ? 300 : 100_000);
      const text = [nestFlowYaml, nestBlockYaml, (d: number) => '- '.repeat(d) + 'x', (d: number) => '? '.repeat(d) + 'x'][style]!(depth);
      return { shape: 'deep-yaml-over', text, over: 400 };
    }
    case 5: {
      const n = int(rand, 3000);
      if (!yaml) return { shape: 'wide', text: objectText(kind, name, false, JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i % 3 ? `v${i}` : [i, { i }]])))) };
      const entries = Array.from({ length: n }, (_, i) => i % 3 ? `  k${i}: v${i}` : `  k${i}:\n  - ${i}\n  - {i: ${i}}`);
      return { shape: 'wide', text: `${objectText(kind, name, true)}wide:\n${entries.join('\n')}\n` };
    }
    case 6: return { shape: 'wide-array', text: JSON.stringify(Array.from({ length: int(rand, 20_000) }, (_, i) => i)) };
    case 7: return { shape: 'billion-laughs', text: billionLaughs(rand), over: 400 };
    case 8: {
      // An anchor without aliases inside, repeated: each alias is cheap, their sum is not.
      // With 300 or more of each, aliases make more than 99% of the nodes: go-yaml's bound refuses it.
      const items = 300 + int(rand, 500), refs = 300 + int(rand, 5000);
      return { shape: 'alias-fan-out', text: `a: &a [${Array(items).fill('x').join(',')}]\nb: [${Array(refs).fill('*a').join(',')}]\n`, over: 400 };
    }
    case 9: return { shape: 'alias-self', text: pick(rand, ['a: &a [*a]', 'metadata: &m {name: x, labels: *m}', 'a: &a {b: &b [*a, *b]}']), over: 400 };
    case 10: return { shape: 'alias-unknown', text: 'metadata: {name: *nope}', over: 400 };
    case 11: return { shape: 'aliased-valid', text: objectText(kind, name, true).replace(/^metadata:\n/m, 'metadata: &meta\n') + 'x-copy: *meta\n' };
    case 12: {
      const ops = rand() < 0.5 ? 10_001 + int(rand, 100) : 1 + int(rand, 5);
      return { shape: 'json-patch-ops', text: JSON.stringify(Array.from({ length: ops }, (_, i) => ({ op: 'add', path: `/metadata/labels/l${i}`, value: 'v' }))), over: ops > 10_000 ? 'too-many-ops' : undefined };
    }
    case 13: return { shape: 'garbage', text: Array.from({ length: int(rand, 512) }, () => String.fromCharCode(int(rand, 128))).join('') };
    default: return { shape: 'empty', text: '' };
  }
}

/** The n-th case of the matrix: its combination, a document for it, and the answer kube-apiserver's rules require. */
export function matrixCase(rand: Rand, n: number): FuzzCase {
  let i = n % MATRIX_SIZE;
  const [type, write, patchBuiltin, patchCustom] = MEDIA_TYPES[i % MEDIA_TYPES.length]!; i = Math.floor(i / MEDIA_TYPES.length);
  const kind = PATH_KINDS[i % PATH_KINDS.length]!; i = Math.floor(i / PATH_KINDS.length);
  const at = AT[i % AT.length]!; i = Math.floor(i / AT.length);
  const method = VERBS[i % VERBS.length]!;
  const name = pick(rand, SEEDED_NAMES);
  const path = at === 'collection' ? kind.collection : `${kind.collection}/${name}${at === 'status' ? '/status' : ''}`;
  // Deletes are dry runs (a delete of the whole collection would remove the seeded objects); applies name a manager.
  const query = method === 'DELETE' ? '?dryRun=All' : method === 'PATCH' && rand() < 0.8 ? '?fieldManager=fuzz' : '';
  const doc = document(rand, kind, name);
  const combo = `${method} ${kind.name}${kind.status ? ' (with status)' : ''} ${at} ${JSON.stringify(type)}`;

  const accepted = method === 'PATCH' ? (kind.builtin ? patchBuiltin : patchCustom) : write;
  const readsBody = method !== 'GET' && (method !== 'DELETE' || doc.text.length > 0);
  const protobuf = type.toLowerCase().startsWith('application/vnd.kubernetes.protobuf');
  const expect = (status: number): string | undefined => {
    const want = (codes: number[], why: string) => codes.includes(status) ? undefined : `${status}, not ${codes.join(' or ')} (${why})`;
    if (at === 'status' && !kind.status) return want([404], 'the kind has no status');
    if (!SERVED[at].includes(method)) return want([405], `${at} takes no ${method}`);
    if (!readsBody) return status === 415 ? '415 for a request whose body is not read' : undefined;
    if (!accepted) return want([415], `${method} takes no ${JSON.stringify(type)}`);
    if (status === 415 && !protobuf) return `415 for a media type ${method} takes`;
    if (protobuf) return undefined;
    if (doc.over === 400) return want([400], `a ${doc.shape} document`);
    if (doc.over === 'too-many-ops' && type.startsWith('application/json-patch+json')) return want([413], 'a JSON patch of more than 10000 operations');
    return undefined;
  };
  return { kind: `decoding-matrix ${doc.shape}`, req: { method, path: path + query, headers: { 'Content-Type': type }, body: doc.text }, expect, combo };
}
