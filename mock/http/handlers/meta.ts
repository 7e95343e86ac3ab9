/** The small documents outside the resource tree: health probes, /version, /openapi/v3. */
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

export const isOpenApiV3Path = (call: Call): boolean => call.segs[0] === 'openapi' && call.segs[1] === 'v3';

/** /openapi/v3 is the index of group-versions; /openapi/v3/<group-version path> one of them. */
export function serveOpenApiV3(ctx: HttpContext, call: Call): void {
  const doc = call.segs.length === 2 ? ctx.openapi.indexDocument() : ctx.openapi.document(call.segs.slice(2).join('/'));
  if (!doc) throw errors.pathNotFound(call.path);
  send(call.res, 200, doc);
}
