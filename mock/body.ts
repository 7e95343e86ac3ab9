/**
 * Request bodies: read with a size limit (413, checked as the bytes arrive), then decoded by the media type
 * ./media-types.ts chose (400 when malformed), within the bounds of ./decode-limits.ts.
 */
import type { IncomingMessage } from 'node:http';
import { ApiError, errors } from './errors.js';
import { MAX_BODY_BYTES, MAX_JSON_DEPTH, MAX_JSON_PATCH_OPERATIONS, jsonNestsDeeperThan, tooDeep, tooManyPatchOperations } from './decode-limits.js';
import type { BodyMediaType, PatchMediaType } from './media-types.js';
import { decodeProtobuf } from './protobuf.js';
import { decodeYaml } from './yaml-decode.js';

/** The real server's limit for one request body. */
export const DEFAULT_BODY_LIMIT = MAX_BODY_BYTES;

/**
 * The body, refused with 413 when its Content-Length says it is too large or as soon as more than `limit` bytes have
 * arrived; what comes after is read and dropped, so the connection stays usable, but never kept.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (declared > limit) { req.resume(); reject(errors.tooLarge(limit)); return; }
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > limit) { failed = true; chunks.length = 0; reject(errors.tooLarge(limit)); return; }
      chunks.push(chunk);
    });
    req.on('end', () => { if (!failed) resolve(Buffer.concat(chunks as unknown as Uint8Array[])); });
    req.on('error', (e) => { if (!failed) { failed = true; reject(e); } });
  });
}

/** A body decoded as `type`: undefined when empty; JSON, YAML or kubectl's protobuf otherwise. */
export function decodeBody(raw: Buffer, type: BodyMediaType | PatchMediaType): unknown {
  if (raw.length === 0) return undefined;
  if (type === 'application/vnd.kubernetes.protobuf') return decodeProtobuf(raw);
  const text = raw.toString('utf8');
  if (type === 'application/yaml') return decodeYamlBody(text);
  if (type === 'application/apply-patch+yaml') return applyConfiguration(decodeYamlBody(text));
  const value = decodeJson(text);
  // handlers/patch.go counts a JSON patch's operations once it is decoded: more than 10000 is 413.
  if (type === 'application/json-patch+json' && Array.isArray(value) && value.length > MAX_JSON_PATCH_OPERATIONS) throw tooManyPatchOperations(value.length);
  return value;
}

/**
 * An apply patch is decoded into a map (handlers/patch.go, applyPatcher): a document that is a list, a string or a
 * number is a 400 there, with Go's words, before any field of it is looked at.
 */
function applyConfiguration(value: unknown): unknown {
  if (value === null || value === undefined || (typeof value === 'object' && !Array.isArray(value))) return value;
  const type = Array.isArray(value) ? 'array' : typeof value === 'boolean' ? 'bool' : typeof value;
  throw errors.badRequest(`error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${type} into Go value of type map[string]interface {}`);
}

function decodeJson(text: string): unknown {
  // JSON.parse itself does not recurse, but everything after it does: the depth is checked first, in one pass.
  if (jsonNestsDeeperThan(text, MAX_JSON_DEPTH)) throw tooDeep('JSON', MAX_JSON_DEPTH);
  try {
    return JSON.parse(text);
  } catch (e) {
    throw errors.badRequest(`the request body is not valid JSON: ${(e as Error).message}`);
  }
}

/**
 * A YAML body that is a JSON object or array is read as JSON (JSON is YAML, and kube-apiserver's apply takes a
 * `{` body as JSON too: k8s.io/apimachinery util/yaml ToJSON): kubectl's server-side apply sends JSON, and
 * JSON.parse is many times faster than a YAML parser. Anything else goes through the bounded YAML reader.
 */
function decodeYamlBody(text: string): unknown {
  const first = text.trimStart()[0];
  if ((first === '{' || first === '[') && !jsonNestsDeeperThan(text, MAX_JSON_DEPTH)) {
    try { return JSON.parse(text); } catch { /* YAML's flow style is wider than JSON: read it as YAML */ }
  }
  try {
    return decodeYaml(text);
  } catch (e) {
    if (e instanceof ApiError) throw e;
    throw new ApiError(400, 'BadRequest', `the request body is not valid YAML: ${(e as Error).message.split('\n')[0]}`);
  }
}
