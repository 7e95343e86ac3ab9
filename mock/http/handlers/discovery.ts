/** Discovery documents: /api, /api/v1, /apis, /apis/G and /apis/G/V. */
import { errors } from '../../errors.js';
import type { Call, HttpContext } from '../context.js';
import { send } from '../respond.js';

export function isDiscoveryPath({ segs }: Call): boolean {
  if (segs[0] === 'api') return segs.length <= 2;
  if (segs[0] === 'apis') return segs.length <= 3;
  return false;
}

export function serveDiscovery(ctx: HttpContext, call: Call): void {
  if (call.method !== 'GET') throw errors.methodNotAllowed(call.method, call.path);
  const doc = discoveryDocument(ctx, call.segs);
  if (doc === undefined) throw errors.pathNotFound(call.path);
  send(call.res, 200, doc);
}

function discoveryDocument(ctx: HttpContext, segs: string[]): string | undefined {
  if (segs[0] === 'api') return segs.length === 1 ? ctx.discovery.coreVersions(ctx.serverAddress()) : ctx.discovery.resourceList('', segs[1]!);
  if (segs.length === 1) return ctx.discovery.groupList();
  if (segs.length === 2) return ctx.discovery.groupDoc(segs[1]!);
  return ctx.discovery.resourceList(segs[1]!, segs[2]!);
}
