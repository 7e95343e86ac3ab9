/** Request bodies: read with a size limit (413), decoded from JSON or YAML by content type (400 when malformed). */
import type { IncomingMessage } from 'node:http';
import { parse as parseYaml } from 'yaml';
import { ApiError, errors } from './errors.js';
import { decodeProtobuf } from './protobuf.js';

/** The real server's limit for one request body. */
export const DEFAULT_BODY_LIMIT = 3 * 1024 * 1024;

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
      if (size > limit) { failed = true; reject(errors.tooLarge(limit)); return; }
      chunks.push(chunk);
    });
    req.on('end', () => { if (!failed) resolve(Buffer.concat(chunks as unknown as Uint8Array[])); });
    req.on('error', (e) => { if (!failed) { failed = true; reject(e); } });
  });
}

/** Media type without parameters, lower-cased ("application/json; charset=utf-8" -> "application/json"). */
export function mediaType(header: string | undefined): string {
  return (header ?? '').split(';')[0]!.trim().toLowerCase();
}

/**
 * Deepest nesting of objects and arrays a body may have. Real objects stay far below it; deeper documents would
 * overflow the stack of the recursive walks (cloning, schema checks, merge patches) and end as a 500.
 */
export const MAX_BODY_DEPTH = 1000;

/** Whether a parsed document nests deeper than `limit` (walked without recursion, so any depth is safe to test). */
function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > limit) return true;
    for (const child of Object.values(v as object)) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}

export function decodeBody(raw: Buffer, contentType: string): unknown {
  const value = decodeRawBody(raw, contentType);
  if (nestsDeeperThan(value, MAX_BODY_DEPTH)) throw errors.badRequest(`the request body nests objects or arrays deeper than ${MAX_BODY_DEPTH} levels`);
  return value;
}

function decodeRawBody(raw: Buffer, contentType: string): unknown {
  if (raw.length === 0) return undefined;
  const type = mediaType(contentType);
  if (type === 'application/vnd.kubernetes.protobuf') return decodeProtobuf(raw);
  if (type.includes('protobuf') || type.includes('cbor')) throw errors.unsupportedMediaType(type);
  const text = raw.toString('utf8');
  const yamlish = type.includes('yaml');
  try {
    if (!yamlish) return JSON.parse(text);
  } catch (e) {
    // kubectl and client-node send JSON; a body that is not JSON under a JSON type is a client error, said plainly.
    if (type && type !== 'application/json' && !type.endsWith('+json')) throw errors.unsupportedMediaType(type);
    throw errors.badRequest(`the request body is not valid JSON: ${(e as Error).message}`);
  }
  try {
    return parseYaml(text, { maxAliasCount: 100, logLevel: 'error' });
  } catch (e) {
    throw new ApiError(400, 'BadRequest', `the request body is not valid YAML: ${(e as Error).message.split('\n')[0]}`);
  }
}
