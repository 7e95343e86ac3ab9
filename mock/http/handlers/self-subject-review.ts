/**
 * `POST /apis/authentication.k8s.io/v1/selfsubjectreviews` (`kubectl auth whoami`): who the server takes the caller
 * for, as kube-apiserver 1.28+ answers it. The spec is empty, so no body is read; nothing is stored.
 */
import { errors } from '../../errors.js';
import { ADMIN_USER } from '../../rbac/index.js';
import type { Call, HttpContext } from '../context.js';
import { send } from '../respond.js';

export function isSelfSubjectReviewPath({ segs }: Call): boolean {
  return segs.length === 4 && segs[0] === 'apis' && segs[1] === 'authentication.k8s.io' && segs[2] === 'v1' && segs[3] === 'selfsubjectreviews';
}

export async function serveSelfSubjectReview(ctx: HttpContext, call: Call): Promise<void> {
  if (call.method !== 'POST') throw errors.methodNotAllowed(call.method, call.path);
  call.req.resume(); // the body says nothing (an empty spec); drain it so the connection can be reused
  const user = call.user ?? ADMIN_USER;
  const userInfo = { username: user.name, ...(user.uid ? { uid: user.uid } : {}), groups: user.groups };
  const creationTimestamp = ctx.now().toISOString().replace(/\.\d{3}Z$/, 'Z');
  send(call.res, 201, JSON.stringify({ kind: 'SelfSubjectReview', apiVersion: 'authentication.k8s.io/v1', metadata: { creationTimestamp }, status: { userInfo } }));
}
