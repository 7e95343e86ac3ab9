/**
 * The HTTP face of the server: a router (router.ts) over a table of routes (routes.ts), each answered by a handler
 * in handlers/. Authentication, fault injection, content negotiation, watch streams and Status errors live here;
 * nothing here knows any particular kind.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HttpContext } from './context.js';
import { createRequestHandler } from './router.js';
import { ROUTES } from './routes.js';

export type { Call, HttpContext, Route } from './context.js';

export function createApiHandler(ctx: HttpContext): (req: IncomingMessage, res: ServerResponse) => void {
  return createRequestHandler(ctx, ROUTES);
}
