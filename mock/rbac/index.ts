/**
 * Authentication and authorization of the server: who a bearer token is (identity.ts), and, when RBAC is on,
 * whether that user may do what the request asks (attributes.ts, authorizer.ts over the Role, ClusterRole,
 * RoleBinding and ClusterRoleBinding objects in the store). With RBAC off every authenticated user may do
 * everything, as kube-apiserver with `--authorization-mode=AlwaysAllow`; ServiceAccount tokens are accepted either way.
 */
import { randomUUID } from 'node:crypto';
import type { Api } from '../api.js';
import { ApiError } from '../errors.js';
import type { KubeObject, ResourceType } from '../resources.js';
import { requestAttributes } from './attributes.js';
import type { AuthorizationHook } from './audit.js';
import { RBAC_GROUP, RbacAuthorizer, type Decision, type RbacObjects } from './authorizer.js';
import { BOOTSTRAP_CLUSTER_ROLES, BOOTSTRAP_CLUSTER_ROLE_BINDINGS } from './bootstrap.js';
import { forbidden } from './forbidden.js';
import { ADMIN_USER, ServiceAccountTokens, serviceAccountUser, type UserInfo } from './identity.js';
import type { PolicyRule, RequestAttributes } from './rules.js';

export { ADMIN_USER, type UserInfo } from './identity.js';
export type { PolicyRule, RequestAttributes } from './rules.js';
export type { Decision } from './authorizer.js';
export type { AuthorizationHook, AuthorizationRecord } from './audit.js';

export class AccessControl {
  private readonly tokens: ServiceAccountTokens;
  private readonly authorizer: RbacAuthorizer;

  constructor(private readonly api: Api, adminToken: string, readonly enforcing: boolean, private readonly onAuthorize?: AuthorizationHook) {
    this.tokens = new ServiceAccountTokens(adminToken);
    this.authorizer = new RbacAuthorizer(storeObjects(api));
  }

  /**
   * The bootstrap roles and bindings, created when absent (a restarted server keeps edited ones), RBAC on only.
   * Written to the store directly: their `system:` names are valid RBAC names (path segments) that the verbs'
   * DNS-subdomain name check would refuse.
   */
  installDefaults(now: () => Date): void {
    if (!this.enforcing) return;
    for (const obj of [...BOOTSTRAP_CLUSTER_ROLES, ...BOOTSTRAP_CLUSTER_ROLE_BINDINGS]) {
      const rt = this.type(obj.kind === 'ClusterRole' ? 'clusterroles' : 'clusterrolebindings');
      if (this.api.store.get(rt.storageKey, undefined, obj.metadata.name!)) continue;
      const created = structuredClone(obj);
      created.metadata.uid = randomUUID();
      created.metadata.creationTimestamp = now().toISOString().replace(/\.\d{3}Z$/, 'Z');
      this.api.store.put(rt.storageKey, created);
    }
  }

  /** The user of a bearer token other than the admin's: a ServiceAccount token of this server whose account still exists. */
  authenticateToken(token: string): UserInfo | undefined {
    const claims = this.tokens.verify(token);
    if (!claims) return undefined;
    const account = this.api.store.get(this.type('serviceaccounts', '').storageKey, claims.namespace, claims.name)?.obj;
    if (!account || account.metadata.uid !== claims.uid) return undefined;
    return serviceAccountUser(claims.namespace, claims.name, claims.uid);
  }

  /** A token of the ServiceAccount NS/NAME, which is created when absent (its namespace must exist). */
  issueServiceAccountToken(namespace: string, name: string): string {
    const rt = this.type('serviceaccounts', '');
    const account = this.api.store.get(rt.storageKey, namespace, name)?.obj ?? this.api.create(rt, namespace, { metadata: { name, namespace } });
    return this.tokens.mint({ namespace, name, uid: account.metadata.uid! });
  }

  /** A token for an existing ServiceAccount object (TokenRequest). */
  tokenFor(account: KubeObject): string {
    return this.tokens.mint({ namespace: account.metadata.namespace!, name: account.metadata.name!, uid: account.metadata.uid! });
  }

  decide(user: UserInfo, attrs: RequestAttributes): Decision {
    if (!this.enforcing) return { allowed: true, reason: '' };
    return this.authorizer.authorize(user, attrs);
  }

  /** Throws the real 403 when RBAC is on and the request is not allowed; tells the audit hook, if any, either way. */
  check(user: UserInfo, method: string, path: string, segs: string[], query: URLSearchParams): void {
    // The admin is neither authorized nor audited: the server's own clients (controllers) make most requests.
    if (user === ADMIN_USER || (!this.enforcing && !this.onAuthorize)) return;
    const attrs = requestAttributes(method, path, segs, query);
    const decision = this.decide(user, attrs);
    this.audit(user, attrs, decision);
    if (!decision.allowed) throw forbidden(user, attrs, decision.reason);
  }

  private audit(user: UserInfo, attributes: RequestAttributes, decision: Decision): void {
    if (!this.onAuthorize) return;
    try {
      this.onAuthorize({ user, attributes, decision });
    } catch {
      // an audit must never change what the client is answered
    }
  }

  /** What a user may do in a namespace (cluster-wide grants included); everything when RBAC is off. */
  rulesFor(user: UserInfo, namespace: string): { rules: PolicyRule[]; errors: string[] } {
    if (!this.enforcing) return { rules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, { verbs: ['*'], nonResourceURLs: ['*'] }], errors: [] };
    return this.authorizer.rulesFor(user, namespace);
  }

  private type(plural: string, group = RBAC_GROUP): ResourceType {
    const rt = this.api.registry.get(group, 'v1', plural);
    if (!rt) throw new ApiError(500, 'InternalError', `Internal error occurred: ${group || 'core'}/v1 ${plural} is not served`);
    return rt;
  }
}

/** The RBAC objects as the store holds them right now (no cache: a binding is in force the moment it is written). */
function storeObjects(api: Api): RbacObjects {
  const key = (plural: string) => api.registry.get(RBAC_GROUP, 'v1', plural)?.storageKey;
  const list = (plural: string, namespace?: string) => {
    const k = key(plural);
    return k ? api.store.list(k, namespace).map((s) => s.obj) : [];
  };
  const get = (plural: string, namespace: string | undefined, name: string) => {
    const k = key(plural);
    return k ? api.store.get(k, namespace, name)?.obj : undefined;
  };
  return {
    clusterRoleBindings: () => list('clusterrolebindings'),
    roleBindings: (namespace) => list('rolebindings', namespace),
    clusterRole: (name) => get('clusterroles', undefined, name),
    role: (namespace, name) => get('roles', namespace, name),
  };
}
