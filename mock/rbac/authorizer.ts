/**
 * The RBAC authorizer: a request is allowed when a rule of a role bound to its user allows it. ClusterRoleBindings
 * grant their ClusterRole everywhere; a RoleBinding grants its Role, or the ClusterRole it references, only in its
 * own namespace (so never at the cluster scope, nor any non-resource path). `system:masters` is allowed everything
 * before RBAC is asked, as kube-apiserver's privileged-group authorizer does. Reasons are worded as the real
 * authorizer words them (`RBAC: allowed by ClusterRoleBinding "x" of ClusterRole "y" to Group "z"`; a binding to a
 * missing role makes a denial say `RBAC: clusterrole.rbac.authorization.k8s.io "y" not found`).
 */
import type { KubeObject } from '../resources.js';
import { MASTERS_GROUP, isServiceAccount, type UserInfo } from './identity.js';
import { policyRulesOf, ruleAllows, type PolicyRule, type RequestAttributes } from './rules.js';

export const RBAC_GROUP = 'rbac.authorization.k8s.io';

/** Where the authorizer reads roles and bindings (the server's store; plain arrays in unit tests). */
export interface RbacObjects {
  clusterRoleBindings(): KubeObject[];
  roleBindings(namespace: string): KubeObject[];
  clusterRole(name: string): KubeObject | undefined;
  role(namespace: string, name: string): KubeObject | undefined;
}

export interface Decision {
  allowed: boolean;
  /** Why, in the authorizer's words; empty when nothing applied (a plain "no"). */
  reason: string;
}

interface Subject { kind?: string; name?: string; namespace?: string; apiGroup?: string }

/** One binding that applies to the user: where its rules come from, and how the real server describes it. */
interface Grant {
  rules: PolicyRule[];
  error?: string;
  describe: string;
}

export class RbacAuthorizer {
  constructor(private readonly objects: RbacObjects) {}

  authorize(user: UserInfo, attrs: RequestAttributes): Decision {
    if (user.groups.includes(MASTERS_GROUP)) return { allowed: true, reason: '' };
    const namespace = attrs.kind === 'resource' ? attrs.namespace : '';
    const errors: string[] = [];
    for (const grant of this.grants(user, namespace)) {
      if (grant.error) { errors.push(grant.error); continue; }
      if (grant.rules.some((rule) => ruleAllows(attrs, rule))) return { allowed: true, reason: `RBAC: allowed by ${grant.describe}` };
    }
    return { allowed: false, reason: errors.length ? `RBAC: ${aggregate(errors)}` : '' };
  }

  /** Every rule the user has in a namespace (cluster-wide ones included), for SelfSubjectRulesReview. */
  rulesFor(user: UserInfo, namespace: string): { rules: PolicyRule[]; errors: string[] } {
    const rules: PolicyRule[] = [];
    const errors: string[] = [];
    for (const grant of this.grants(user, namespace)) {
      if (grant.error) errors.push(grant.error);
      else rules.push(...grant.rules);
    }
    return { rules, errors };
  }

  /** Cluster bindings first, then (for a namespaced request) the RoleBindings of that namespace, as RBAC visits them. */
  private *grants(user: UserInfo, namespace: string): Generator<Grant> {
    for (const binding of this.objects.clusterRoleBindings()) {
      const subject = appliesTo(user, binding, '');
      if (!subject) continue;
      const ref = roleRef(binding);
      const role = ref.kind === 'ClusterRole' ? this.objects.clusterRole(ref.name) : undefined;
      yield {
        rules: policyRulesOf(role),
        error: role ? undefined : `clusterrole.${RBAC_GROUP} "${ref.name}" not found`,
        describe: `ClusterRoleBinding "${binding.metadata.name}" of ${ref.kind} "${ref.name}" to ${describeSubject(subject, '')}`,
      };
    }
    if (!namespace) return;
    for (const binding of this.objects.roleBindings(namespace)) {
      const subject = appliesTo(user, binding, namespace);
      if (!subject) continue;
      const ref = roleRef(binding);
      const role = ref.kind === 'Role' ? this.objects.role(namespace, ref.name) : ref.kind === 'ClusterRole' ? this.objects.clusterRole(ref.name) : undefined;
      yield {
        rules: policyRulesOf(role),
        error: role ? undefined : `${ref.kind.toLowerCase()}.${RBAC_GROUP} "${ref.name}" not found`,
        describe: `RoleBinding "${binding.metadata.name}/${namespace}" of ${ref.kind} "${ref.name}" to ${describeSubject(subject, namespace)}`,
      };
    }
  }
}

function roleRef(binding: KubeObject): { kind: string; name: string } {
  const ref = (binding.roleRef ?? {}) as { kind?: unknown; name?: unknown };
  return { kind: typeof ref.kind === 'string' ? ref.kind : '', name: typeof ref.name === 'string' ? ref.name : '' };
}

/** The first subject of the binding that is this user (a ServiceAccount subject without namespace is the binding's). */
function appliesTo(user: UserInfo, binding: KubeObject, bindingNamespace: string): Subject | undefined {
  const subjects = Array.isArray(binding.subjects) ? (binding.subjects as Subject[]) : [];
  return subjects.find((s) => {
    if (!s || typeof s.name !== 'string') return false;
    switch (s.kind) {
      case 'User': return user.name === s.name;
      case 'Group': return user.groups.includes(s.name);
      case 'ServiceAccount': {
        const ns = s.namespace || bindingNamespace;
        return ns !== '' && isServiceAccount(user, ns, s.name);
      }
      default: return false;
    }
  });
}

function describeSubject(s: Subject, bindingNamespace: string): string {
  if (s.kind === 'ServiceAccount') return `ServiceAccount "${s.name}/${s.namespace || bindingNamespace}"`;
  return `${s.kind} "${s.name}"`;
}

/** utilerrors.NewAggregate(...).Error(): one message alone, several in brackets, duplicates once. */
function aggregate(messages: string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? unique[0]! : `[${unique.join(', ')}]`;
}
