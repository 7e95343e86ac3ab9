/**
 * `GET /ocp-e2e/client-work`: a client says "I am working, not waiting on you" for as long as this request stays open.
 *
 * A server that keeps the pace of a simulated clock (the reference's `skip` clock, told of requests by activity.ts)
 * counts a request in flight as work and does not jump its clock over it. Between two requests it cannot tell a
 * client that is waiting for the cluster from one that is busy on its own side (building an image, reading files):
 * only the client knows. So a client that keeps cluster time honest opens this request while it works and closes it
 * when it starts to wait. The answer's headers come at once (the client then knows the hold is in place); the body
 * never comes: the request ends when the client closes it, or when the server stops or drops its streams.
 * On a server that keeps no pace the request is held all the same and means nothing.
 */
import { errors } from '../../errors.js';
import type { Call, HttpContext } from '../context.js';

export const CLIENT_WORK_PATH = '/ocp-e2e/client-work';

export const isClientWorkPath = (call: Call): boolean => call.path === CLIENT_WORK_PATH;

export function serveClientWork(ctx: HttpContext, call: Call): void {
  if (call.method !== 'GET') throw errors.methodNotAllowed(call.method, call.path);
  const { req, res } = call;
  res.writeHead(200, { 'Content-Type': 'text/plain', 'Cache-Control': 'no-store' });
  res.flushHeaders();
  // kept with the watches: ended when the server stops (or drops its streams, as a restart would)
  ctx.watches.add(res);
  const end = (): void => {
    ctx.watches.delete(res);
    if (!res.writableEnded) res.end();
  };
  req.once('close', end);
  res.once('close', end);
}
