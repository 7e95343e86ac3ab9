/**
 * The matching of one RBAC PolicyRule against one request, as kube-apiserver's RBAC authorizer does it: verbs and
 * API groups by name or `*`; resources by `resource`, `resource/subresource`, `*` (everything, subresources too) or
 * `*\/subresource`; resourceNames empty meaning every name; nonResourceURLs exact or ending in `*` as a prefix.
 * Pure functions: no store, no HTTP.
 */

export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

/** What is asked: the attributes kube-apiserver derives from a request (its RequestInfo) or an access review. */
export type RequestAttributes = ResourceAttributes | NonResourceAttributes;

export interface ResourceAttributes {
  kind: 'resource';
  verb: string;
  group: string;
  version?: string;
  resource: string;
  subresource: string;
  /** Empty at the cluster scope (and for cluster-scoped kinds). */
  namespace: string;
  /** Empty for collections (list, create, deletecollection) unless a field selector names one object. */
  name: string;
}

export interface NonResourceAttributes {
  kind: 'nonResource';
  verb: string;
  path: string;
}

const ALL = '*';

export function verbMatches(rule: PolicyRule, verb: string): boolean {
  return rule.verbs.some((v) => v === ALL || v === verb);
}

export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  return (rule.apiGroups ?? []).some((g) => g === ALL || g === group);
}

/** `pods/*` is no wildcard in RBAC: only `*` and `*\/subresource` are. */
export function resourceMatches(rule: PolicyRule, resource: string, subresource: string): boolean {
  const combined = subresource ? `${resource}/${subresource}` : resource;
  return (rule.resources ?? []).some((r) => r === ALL || r === combined || (subresource !== '' && r === `*/${subresource}`));
}

export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(name);
}

export function nonResourceUrlMatches(rule: PolicyRule, path: string): boolean {
  return (rule.nonResourceURLs ?? []).some((u) => u === ALL || u === path || (u.endsWith(ALL) && path.startsWith(u.replace(/\*+$/, ''))));
}

export function ruleAllows(attrs: RequestAttributes, rule: PolicyRule): boolean {
  if (!verbMatches(rule, attrs.verb)) return false;
  if (attrs.kind === 'nonResource') return nonResourceUrlMatches(rule, attrs.path);
  return apiGroupMatches(rule, attrs.group) && resourceMatches(rule, attrs.resource, attrs.subresource) && resourceNameMatches(rule, attrs.name);
}

/** A rule as stored in a Role or ClusterRole, whatever shape the object had (fields the server does not check). */
export function policyRulesOf(role: Record<string, unknown> | undefined): PolicyRule[] {
  if (!role || !Array.isArray(role.rules)) return [];
  const strings = (v: unknown): string[] | undefined => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : undefined);
  return role.rules.filter((r): r is Record<string, unknown> => !!r && typeof r === 'object').map((r) => ({
    verbs: strings(r.verbs) ?? [],
    apiGroups: strings(r.apiGroups),
    resources: strings(r.resources),
    resourceNames: strings(r.resourceNames),
    nonResourceURLs: strings(r.nonResourceURLs),
  }));
}
