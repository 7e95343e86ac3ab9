/** The small documents outside the resource tree: health probes, /version, /openapi/v2, /openapi/v3. */
import { SERVER_VERSION } from '../../discovery.js';
import { errors } from '../../errors.js';
import type { Call, HttpContext } from '../context.js';
import { send } from '../respond.js';

const HEALTH_PATHS = new Set(['/healthz', '/readyz', '/livez']);

export const isHealthPath = (call: Call): boolean => HEALTH_PATHS.has(call.path);

export function serveHealth(_ctx: HttpContext, call: Call): void {
  call.res.writeHead(200, { 'Content-Type': 'text/plain' });
  call.res.end('ok');
}

export const isVersionPath = (call: Call): boolean => call.path === '/version' || call.path === '/version/';

export function serveVersion(_ctx: HttpContext, call: Call): void {
  send(call.res, 200, JSON.stringify(SERVER_VERSION));
}

export const isOpenApiV2Path = (call: Call): boolean => call.path === '/openapi/v2' || call.path === '/openapi/v2/';

/** What kubectl asks for; the answer's Content-Type spells the version with a dot, as kube-openapi's does. */
const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
const OPENAPI_V2_PROTOBUF_ANSWER = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

/**
 * /openapi/v2 without schemas: the kinds' schemas live in /openapi/v3, and the server validates fields itself.
 * kubectl still reads v2 to validate what v3 cannot tell it about (a `kind: List` file); finding no model for an
 * item, it leaves that item's validation to the server, as it does for any kind its document lacks. kubectl asks for
 * the gnostic protobuf form (openapi_v2.Document: swagger = 1, info = 2 {title = 1, version = 2}, paths = 8).
 */
export function serveOpenApiV2(_ctx: HttpContext, call: Call): void {
  const info = { title: 'Kubernetes', version: SERVER_VERSION.gitVersion };
  if ((call.req.headers.accept ?? '').includes(OPENAPI_V2_PROTOBUF)) {
    const text = (t: string): number[] => [...Buffer.from(t)];
    const body = Buffer.from([...field(1, text('2.0')), ...field(2, [...field(1, text(info.title)), ...field(2, text(info.version))]), ...field(8, [])]);
    call.res.writeHead(200, { 'Content-Type': OPENAPI_V2_PROTOBUF_ANSWER, 'Content-Length': String(body.length) });
    call.res.end(body);
    return;
  }
  send(call.res, 200, JSON.stringify({ swagger: '2.0', info, paths: {}, definitions: {} }));
}

/** One length-delimited protobuf field (wire type 2). */
function field(number: number, value: number[]): number[] {
  const varint = (n: number): number[] => {
    const out: number[] = [];
    for (; n > 0x7f; n >>>= 7) out.push((n & 0x7f) | 0x80);
    out.push(n);
    return out;
  };
  return [...varint((number << 3) | 2), ...varint(value.length), ...value];
}

export const isOpenApiV3Path = (call: Call): boolean => call.segs[0] === 'openapi' && call.segs[1] === 'v3';

/** /openapi/v3 is the index of group-versions; /openapi/v3/<group-version path> one of them. */
export function serveOpenApiV3(ctx: HttpContext, call: Call): void {
  const doc = call.segs.length === 2 ? ctx.openapi.indexDocument() : ctx.openapi.document(call.segs.slice(2).join('/'));
  if (!doc) throw errors.pathNotFound(call.path);
  send(call.res, 200, doc);
}
