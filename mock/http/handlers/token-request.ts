/**
 * `POST /api/v1/namespaces/NS/serviceaccounts/NAME/token` (TokenRequest, what `kubectl create token NAME` sends): a
 * bearer token of that ServiceAccount, accepted by this server until the account is deleted. The requested
 * lifetime is echoed in `expirationTimestamp` but not enforced (test clusters run on compressed clocks).
 */
import { errors } from '../../errors.js';
import type { Call, HttpContext } from '../context.js';
import type { ResourcePath } from '../resource-path.js';
import { send } from '../respond.js';
import { readReviewBody } from './review-body.js';

const DEFAULT_AUDIENCES = ['https://kubernetes.default.svc'];

export async function serveTokenRequest(ctx: HttpContext, call: Call, { rt, namespace, name }: ResourcePath): Promise<void> {
  if (name === undefined || namespace === undefined || !ctx.access) throw errors.pathNotFound(call.path);
  const body = await readReviewBody(ctx, call);
  const account = ctx.api.get(rt, namespace, name).obj;
  const spec = (body.spec && typeof body.spec === 'object' ? body.spec : {}) as Record<string, any>;
  const expirationSeconds = Number.isInteger(spec.expirationSeconds) && spec.expirationSeconds > 0 ? spec.expirationSeconds as number : 3600;
  const audiences = Array.isArray(spec.audiences) && spec.audiences.length ? spec.audiences : DEFAULT_AUDIENCES;
  const now = ctx.now();
  send(call.res, 201, JSON.stringify({
    kind: 'TokenRequest', apiVersion: 'authentication.k8s.io/v1',
    metadata: { name, namespace, creationTimestamp: stamp(now) },
    spec: { ...spec, audiences, expirationSeconds },
    status: { token: ctx.access.tokenFor(account), expirationTimestamp: stamp(new Date(now.getTime() + expirationSeconds * 1000)) },
  }));
}

function stamp(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
