/**
 * The request pipeline: split the URL once, serve public routes (health) before anything else, then check the
 * bearer token, inject faults, and hand the call to the first route that matches it. Errors thrown by handlers
 * become Status answers; nothing here knows a path beyond what the routes tell it.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError, errors } from '../errors.js';
import { ADMIN_USER, type UserInfo } from '../rbac/index.js';
import type { Call, HttpContext, Route } from './context.js';
import { celLoading } from '../cel/loader.js';
import { sendError } from './respond.js';

export function createRequestHandler(ctx: HttpContext, routes: readonly Route[]): (req: IncomingMessage, res: ServerResponse) => void {
  const token = Buffer.from(ctx.token);
  const publicRoutes = routes.filter((r) => r.public);
  const privateRoutes = routes.filter((r) => !r.public);
  return (req, res) => {
    dispatch(ctx, token, publicRoutes, privateRoutes, req, res).catch((err) => {
      if (err instanceof ApiError) sendError(res, err);
      else sendError(res, errors.internal((err as Error)?.message ?? String(err)));
    });
  };
}

async function dispatch(ctx: HttpContext, token: Buffer, publicRoutes: readonly Route[], privateRoutes: readonly Route[],
  req: IncomingMessage, res: ServerResponse): Promise<void> {
  // a CRD with rules stored since the last request: its CEL engine is loading, and a write may need it
  const cel = celLoading();
  if (cel) await cel;
  const { call, malformed } = splitUrl(req, res);
  const open = publicRoutes.find((r) => r.matches(call));
  if (open) return open.handle(ctx, call);
  call.user = authenticate(ctx, req, token);
  if (!call.user) throw errors.unauthorized();
  if (ctx.faults.active && (await injectFaults(ctx, call)) === 'dropped') return;
  if (malformed) throw errors.badRequest('malformed path escape');
  // Authorization comes before routing, as on kube-apiserver: a denied request is 403 even where nothing is served.
  ctx.access?.check(call.user, call.method, call.path, call.segs, call.query);
  const route = privateRoutes.find((r) => r.matches(call));
  if (!route) throw errors.pathNotFound(call.path);
  return route.handle(ctx, call);
}

function splitUrl(req: IncomingMessage, res: ServerResponse): { call: Call; malformed: boolean } {
  // Split by hand: new URL() on every request costs more than the rest of a GET.
  const rawUrl = req.url ?? '/';
  const qmark = rawUrl.indexOf('?');
  const path = qmark < 0 ? rawUrl : rawUrl.slice(0, qmark);
  const query = new URLSearchParams(qmark < 0 ? '' : rawUrl.slice(qmark + 1));
  let segs: string[] = [];
  let malformed = false;
  try {
    segs = path.split('/').filter((s) => s.length > 0).map(decodeURIComponent);
  } catch {
    malformed = true;
  }
  return { call: { req, res, method: req.method ?? 'GET', path, segs, query }, malformed };
}

/** The admin for the server's own token; else whoever the access control says the token is (undefined: 401). */
function authenticate(ctx: HttpContext, req: IncomingMessage, expected: Buffer): UserInfo | undefined {
  const header = req.headers.authorization ?? '';
  const m = /^Bearer\s+(.+)$/i.exec(header);
  if (!m) return undefined;
  const token = m[1]!.trim();
  const given = Buffer.from(token);
  if (given.length === expected.length && timingSafeEqual(given as unknown as Uint8Array, expected as unknown as Uint8Array)) return ADMIN_USER;
  return ctx.access?.authenticateToken(token);
}

/** Latency, then maybe a dropped connection or an error answer, as configured for this path. */
async function injectFaults(ctx: HttpContext, call: Call): Promise<'dropped' | 'passed'> {
  const delay = ctx.faults.delayMs(call.path);
  if (delay > 0) await new Promise((r) => setTimeout(r, delay));
  switch (ctx.faults.decide(call.path)) {
    case 'reset': call.req.socket.destroy(); return 'dropped';
    case '429': throw errors.tooManyRequests(ctx.faults.retryAfterSeconds);
    case '500': throw errors.internal('injected fault');
    default: return 'passed';
  }
}
