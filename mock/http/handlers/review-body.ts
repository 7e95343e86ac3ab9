/**
 * Bodies of the requests that ask the server about access: SelfSubjectAccessReview, SelfSubjectRulesReview and
 * TokenRequest. kubectl sends them as protobuf (`auth can-i`, `create token`), which ../../protobuf.ts does not
 * describe; this decodes just the fields these handlers read (numbers from the upstream generated.proto files),
 * and leaves JSON and YAML to the shared decoder.
 */
import { DEFAULT_BODY_LIMIT, decodeBody, readBody } from '../../body.js';
import { ApiError, errors } from '../../errors.js';
import { bodyMediaType } from '../../media-types.js';
import type { Call, HttpContext } from '../context.js';

type Field = { name: string; kind: 'string' | 'bytes' | 'int' | Message; repeated?: boolean };
type Message = Record<number, Field>;

const RESOURCE_ATTRIBUTES: Message = {
  1: { name: 'namespace', kind: 'string' }, 2: { name: 'verb', kind: 'string' }, 3: { name: 'group', kind: 'string' },
  4: { name: 'version', kind: 'string' }, 5: { name: 'resource', kind: 'string' }, 6: { name: 'subresource', kind: 'string' },
  7: { name: 'name', kind: 'string' },
};
const NON_RESOURCE_ATTRIBUTES: Message = { 1: { name: 'path', kind: 'string' }, 2: { name: 'verb', kind: 'string' } };

/** The spec (field 2) of each kind; metadata (1) and status (3) carry nothing a request needs. */
const SPECS: Record<string, Message> = {
  'authorization.k8s.io/v1/SelfSubjectAccessReview': {
    1: { name: 'resourceAttributes', kind: RESOURCE_ATTRIBUTES }, 2: { name: 'nonResourceAttributes', kind: NON_RESOURCE_ATTRIBUTES },
  },
  'authorization.k8s.io/v1/SelfSubjectRulesReview': { 1: { name: 'namespace', kind: 'string' } },
  'authentication.k8s.io/v1/TokenRequest': { 1: { name: 'audiences', kind: 'string', repeated: true }, 4: { name: 'expirationSeconds', kind: 'int' } },
};

const ENVELOPE: Message = { 1: { name: 'typeMeta', kind: { 1: { name: 'apiVersion', kind: 'string' }, 2: { name: 'kind', kind: 'string' } } }, 2: { name: 'raw', kind: 'bytes' } };

export async function readReviewBody(ctx: HttpContext, call: Call): Promise<Record<string, any>> {
  const type = bodyMediaType(call.req.headers['content-type']);
  const raw = await readBody(call.req, ctx.bodyLimit ?? DEFAULT_BODY_LIMIT);
  const body = type === 'application/vnd.kubernetes.protobuf' ? decodeReview(raw) : decodeBody(raw, type);
  return body && typeof body === 'object' ? (body as Record<string, any>) : {};
}

function decodeReview(body: Buffer): Record<string, unknown> {
  if (body.length < 4 || body.readUInt32BE(0) !== 0x6b387300) throw errors.badRequest('protobuf body lacks the k8s envelope');
  try {
    const envelope = decode(body.subarray(4), ENVELOPE);
    const { apiVersion = '', kind = '' } = (envelope.typeMeta ?? {}) as { apiVersion?: string; kind?: string };
    const spec = SPECS[`${apiVersion}/${kind}`];
    if (!spec) throw errors.unsupportedMediaType(['application/json', 'application/yaml'], `the mock decodes ${apiVersion} ${kind} from JSON or YAML only`);
    const object = decode(envelope.raw as Buffer ?? Buffer.alloc(0), { 2: { name: 'spec', kind: spec } });
    return { apiVersion, kind, spec: object.spec ?? {} };
  } catch (e) {
    if (e instanceof ApiError) throw e;
    throw errors.badRequest(`malformed protobuf body: ${(e as Error).message}`);
  }
}

/** Proto3 wire format: varints and length-delimited fields only (what these messages use); unknown fields skipped. */
function decode(buf: Buffer, message: Message): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  let pos = 0;
  const varint = (): number => {
    let result = 0, scale = 1;
    for (;;) {
      if (pos >= buf.length) throw new Error('truncated varint');
      const b = buf[pos++]!;
      result += (b & 0x7f) * scale;
      if (!(b & 0x80)) return result;
      scale *= 128;
      if (scale > 2 ** 63) throw new Error('varint too long');
    }
  };
  const bytes = (): Buffer => {
    const len = varint();
    if (pos + len > buf.length) throw new Error('truncated length-delimited field');
    pos += len;
    return buf.subarray(pos - len, pos);
  };
  while (pos < buf.length) {
    const tag = varint();
    const wire = tag % 8, field = message[Math.floor(tag / 8)];
    if (wire === 0) { const n = varint(); if (field?.kind === 'int') out[field.name] = n; continue; }
    if (wire === 1 || wire === 5) { pos += wire === 1 ? 8 : 4; continue; }
    if (wire !== 2) throw new Error(`unsupported wire type ${wire}`);
    const data = bytes();
    if (!field || field.kind === 'int') continue;
    const value = field.kind === 'bytes' ? data : field.kind === 'string' ? data.toString('utf8') : decode(data, field.kind);
    if (field.repeated) ((out[field.name] ??= []) as unknown[]).push(value);
    else if (value !== '') out[field.name] = value;
  }
  return out;
}
