/**
 * Decoding of Kubernetes protobuf request bodies (`application/vnd.kubernetes.protobuf`) for the built-in kinds
 * whose kubectl generators send protobuf (`kubectl create configmap|secret|namespace|serviceaccount`), plus
 * DeleteOptions. The wire format is the `k8s\0` envelope around a runtime.Unknown holding the object; field numbers
 * follow the upstream generated.proto files. Kinds not described here answer 415, which is what a real server
 * without protobuf support for them would do.
 */
import { errors } from './errors.js';

type FieldKind = 'string' | 'bytes' | 'int' | 'bool' | 'time' | 'mapString' | 'mapBytes' | Descriptor;
interface FieldDef { name: string; kind: FieldKind; repeated?: boolean }
type Descriptor = Record<number, FieldDef>;

const f = (name: string, kind: FieldKind, repeated = false): FieldDef => ({ name, kind, repeated });

const OWNER_REFERENCE: Descriptor = { 1: f('kind', 'string'), 3: f('name', 'string'), 4: f('uid', 'string'), 5: f('apiVersion', 'string'), 6: f('controller', 'bool'), 7: f('blockOwnerDeletion', 'bool') };
const OBJECT_META: Descriptor = {
  1: f('name', 'string'), 2: f('generateName', 'string'), 3: f('namespace', 'string'), 5: f('uid', 'string'),
  6: f('resourceVersion', 'string'), 7: f('generation', 'int'), 8: f('creationTimestamp', 'time'), 9: f('deletionTimestamp', 'time'),
  10: f('deletionGracePeriodSeconds', 'int'), 11: f('labels', 'mapString'), 12: f('annotations', 'mapString'),
  13: f('ownerReferences', OWNER_REFERENCE, true), 14: f('finalizers', 'string', true),
};
const OBJECT_REFERENCE: Descriptor = { 1: f('kind', 'string'), 2: f('namespace', 'string'), 3: f('name', 'string'), 4: f('uid', 'string'), 5: f('apiVersion', 'string'), 6: f('resourceVersion', 'string'), 7: f('fieldPath', 'string') };

const KINDS: Record<string, Descriptor> = {
  'v1/ConfigMap': { 1: f('metadata', OBJECT_META), 2: f('data', 'mapString'), 3: f('binaryData', 'mapBytes'), 4: f('immutable', 'bool') },
  'v1/Secret': { 1: f('metadata', OBJECT_META), 2: f('data', 'mapBytes'), 3: f('type', 'string'), 4: f('stringData', 'mapString'), 5: f('immutable', 'bool') },
  'v1/Namespace': { 1: f('metadata', OBJECT_META), 2: f('spec', { 1: f('finalizers', 'string', true) }), 3: f('status', { 1: f('phase', 'string') }) },
  'v1/ServiceAccount': { 1: f('metadata', OBJECT_META), 2: f('secrets', OBJECT_REFERENCE, true), 3: f('imagePullSecrets', { 1: f('name', 'string') }, true), 4: f('automountServiceAccountToken', 'bool') },
  'v1/DeleteOptions': { 1: f('gracePeriodSeconds', 'int'), 2: f('preconditions', { 1: f('uid', 'string'), 2: f('resourceVersion', 'string') }), 3: f('orphanDependents', 'bool'), 4: f('propagationPolicy', 'string'), 5: f('dryRun', 'string', true) },
  'meta.k8s.io/v1/DeleteOptions': {},
};
KINDS['meta.k8s.io/v1/DeleteOptions'] = KINDS['v1/DeleteOptions']!;

const UNKNOWN: Descriptor = { 1: f('typeMeta', { 1: f('apiVersion', 'string'), 2: f('kind', 'string') }), 2: f('raw', 'bytes'), 3: f('contentEncoding', 'string'), 4: f('contentType', 'string') };
const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

class Reader {
  pos = 0;
  constructor(readonly buf: Buffer) {}
  get done(): boolean { return this.pos >= this.buf.length; }
  varint(): bigint {
    let result = 0n, shift = 0n;
    for (;;) {
      if (this.pos >= this.buf.length) throw new Error('truncated varint');
      const b = this.buf[this.pos++]!;
      result |= BigInt(b & 0x7f) << shift;
      if (!(b & 0x80)) return result;
      shift += 7n;
      if (shift > 70n) throw new Error('varint too long');
    }
  }
  bytes(): Buffer {
    const len = Number(this.varint());
    if (this.pos + len > this.buf.length) throw new Error('truncated length-delimited field');
    const out = this.buf.subarray(this.pos, this.pos + len);
    this.pos += len;
    return out;
  }
  skip(wireType: number): void {
    if (wireType === 0) this.varint();
    else if (wireType === 1) this.pos += 8;
    else if (wireType === 2) this.bytes();
    else if (wireType === 5) this.pos += 4;
    else throw new Error(`unsupported wire type ${wireType}`);
  }
}

function decodeMapEntry(buf: Buffer): [string, Buffer] {
  const r = new Reader(buf);
  let key = '', value = Buffer.alloc(0);
  while (!r.done) {
    const tag = Number(r.varint());
    if (tag >> 3 === 1 && (tag & 7) === 2) key = r.bytes().toString('utf8');
    else if (tag >> 3 === 2 && (tag & 7) === 2) value = r.bytes();
    else r.skip(tag & 7);
  }
  return [key, value];
}

function decodeMessage(buf: Buffer, desc: Descriptor): Record<string, any> {
  const r = new Reader(buf);
  const out: Record<string, any> = {};
  while (!r.done) {
    const tag = Number(r.varint());
    const def = desc[tag >> 3];
    const wire = tag & 7;
    if (!def) { r.skip(wire); continue; }
    let value: unknown;
    switch (def.kind) {
      case 'string': value = r.bytes().toString('utf8'); break;
      case 'bytes': value = r.bytes(); break;
      case 'int': value = Number(BigInt.asIntN(64, r.varint())); break;
      case 'bool': value = r.varint() !== 0n; break;
      case 'time': {
        const t = decodeMessage(r.bytes(), { 1: f('seconds', 'int'), 2: f('nanos', 'int') });
        value = new Date((t.seconds ?? 0) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
        break;
      }
      case 'mapString': case 'mapBytes': {
        const [k, v] = decodeMapEntry(r.bytes());
        out[def.name] ??= {};
        out[def.name][k] = def.kind === 'mapString' ? v.toString('utf8') : v.toString('base64');
        continue;
      }
      default: value = decodeMessage(r.bytes(), def.kind);
    }
    if (def.repeated) (out[def.name] ??= []).push(value);
    // Go's protobuf writes every non-pointer field, empty or not; JSON omits empty ones, and so do we.
    else if (value === '' || value === 0 || value === false || (typeof value === 'object' && value !== null && Object.keys(value).length === 0)) delete out[def.name];
    else out[def.name] = value;
  }
  return out;
}

/** Decodes a protobuf request body into the JSON form of the object, or answers 415 for kinds not described. */
export function decodeProtobuf(body: Buffer): Record<string, unknown> {
  if (body.length < 4 || !body.subarray(0, 4).equals(MAGIC as unknown as Uint8Array)) throw errors.badRequest('protobuf body lacks the k8s envelope');
  let unknown: Record<string, any>;
  try {
    unknown = decodeMessage(body.subarray(4), UNKNOWN);
  } catch (e) {
    throw errors.badRequest(`malformed protobuf body: ${(e as Error).message}`);
  }
  const apiVersion = unknown.typeMeta?.apiVersion ?? '';
  const kind = unknown.typeMeta?.kind ?? '';
  const desc = KINDS[`${apiVersion}/${kind}`];
  if (!desc) throw errors.unsupportedMediaType(['application/json', 'application/yaml'], `the mock decodes ${apiVersion} ${kind} from JSON or YAML only`);
  try {
    return { apiVersion, kind, ...decodeMessage(unknown.raw ?? Buffer.alloc(0), desc) };
  } catch (e) {
    throw errors.badRequest(`malformed protobuf body: ${(e as Error).message}`);
  }
}
