/**
 * `POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews` and `.../selfsubjectrulesreviews`: what the caller
 * may do, answered from the same authorizer that guards its requests (`kubectl auth can-i VERB RESOURCE` and
 * `kubectl auth can-i --list`). Reviews are answered, never stored.
 */
import { errors } from '../../errors.js';
import { ADMIN_USER, type PolicyRule, type RequestAttributes } from '../../rbac/index.js';
import type { Call, HttpContext } from '../context.js';
import { send } from '../respond.js';
import { readReviewBody } from './review-body.js';

const GROUP_VERSION = 'authorization.k8s.io/v1';
const REVIEWS = new Set(['selfsubjectaccessreviews', 'selfsubjectrulesreviews']);

export function isAccessReviewPath({ segs }: Call): boolean {
  return segs.length === 4 && segs[0] === 'apis' && segs[1] === 'authorization.k8s.io' && segs[2] === 'v1' && REVIEWS.has(segs[3]!);
}

export async function serveAccessReview(ctx: HttpContext, call: Call): Promise<void> {
  if (call.method !== 'POST') throw errors.methodNotAllowed(call.method, call.path);
  const body = await readReviewBody(ctx, call);
  const spec = (body.spec && typeof body.spec === 'object' ? body.spec : {}) as Record<string, any>;
  const status = call.segs[3] === 'selfsubjectaccessreviews' ? accessReview(ctx, call, spec) : rulesReview(ctx, call, spec);
  const kind = call.segs[3] === 'selfsubjectaccessreviews' ? 'SelfSubjectAccessReview' : 'SelfSubjectRulesReview';
  send(call.res, 201, JSON.stringify({ kind, apiVersion: GROUP_VERSION, metadata: {}, spec, status }));
}

function accessReview(ctx: HttpContext, call: Call, spec: Record<string, any>): Record<string, unknown> {
  const attrs = attributesOf(spec);
  const decision = ctx.access ? ctx.access.decide(call.user ?? ADMIN_USER, attrs) : { allowed: true, reason: '' };
  return decision.reason ? { allowed: decision.allowed, reason: decision.reason } : { allowed: decision.allowed };
}

function attributesOf(spec: Record<string, any>): RequestAttributes {
  const r = spec.resourceAttributes, n = spec.nonResourceAttributes;
  if (!!r === !!n) {
    const field = r ? 'spec.resourceAttributes' : 'spec.nonResourceAttributes';
    throw errors.invalid('authorization.k8s.io', 'SelfSubjectAccessReview', '', [{
      reason: 'FieldValueInvalid', field,
      message: `Invalid value: ${r ? '"resourceAttributes"' : '"null"'}: exactly one of nonResourceAttributes or resourceAttributes must be specified`,
    }]);
  }
  const s = (v: unknown) => (typeof v === 'string' ? v : '');
  if (n) return { kind: 'nonResource', verb: s(n.verb), path: s(n.path) };
  return {
    kind: 'resource', verb: s(r.verb), group: s(r.group), version: s(r.version), resource: s(r.resource),
    subresource: s(r.subresource), namespace: s(r.namespace), name: s(r.name),
  };
}

function rulesReview(ctx: HttpContext, call: Call, spec: Record<string, any>): Record<string, unknown> {
  const namespace = typeof spec.namespace === 'string' ? spec.namespace : '';
  if (!namespace) throw errors.badRequest('no namespace on request');
  const everything: PolicyRule[] = [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, { verbs: ['*'], nonResourceURLs: ['*'] }];
  const { rules, errors: problems } = ctx.access ? ctx.access.rulesFor(call.user ?? ADMIN_USER, namespace) : { rules: everything, errors: [] };
  const nonResource = rules.filter((r) => (r.nonResourceURLs ?? []).length > 0);
  const resource = rules.filter((r) => (r.nonResourceURLs ?? []).length === 0);
  const status: Record<string, unknown> = {
    resourceRules: resource.map((r) => withoutEmpty({ verbs: r.verbs, apiGroups: r.apiGroups, resources: r.resources, resourceNames: r.resourceNames })),
    nonResourceRules: nonResource.map((r) => withoutEmpty({ verbs: r.verbs, nonResourceURLs: r.nonResourceURLs })),
    incomplete: problems.length > 0,
  };
  if (problems.length) status.evaluationError = problems.join(', ');
  return status;
}

/** Go's omitempty on the optional lists of a rule; `verbs` is always there. */
function withoutEmpty(rule: Record<string, string[] | undefined>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(rule)) if (k === 'verbs' || (v && v.length)) out[k] = v ?? [];
  return out;
}
