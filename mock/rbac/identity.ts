/**
 * Who a request is: the admin of the kubeconfig the server writes (a `system:masters` member, as the installer's
 * `system:admin`), or a ServiceAccount (`system:serviceaccount:<ns>:<name>` with the groups kube-apiserver gives
 * every ServiceAccount). ServiceAccount tokens are opaque to clients: the account's namespace, name and uid signed
 * with a key derived from the admin token, so they survive a restart of the same server (same token, same data
 * directory) and die with the account (a recreated account has another uid), as bound tokens do.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export interface UserInfo {
  name: string;
  groups: string[];
  uid?: string;
}

export const MASTERS_GROUP = 'system:masters';
export const AUTHENTICATED_GROUP = 'system:authenticated';

export const ADMIN_USER: UserInfo = { name: 'system:admin', groups: [MASTERS_GROUP, AUTHENTICATED_GROUP] };

const SA_PREFIX = 'system:serviceaccount:';

export function serviceAccountUser(namespace: string, name: string, uid?: string): UserInfo {
  return {
    name: `${SA_PREFIX}${namespace}:${name}`,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, AUTHENTICATED_GROUP],
    ...(uid ? { uid } : {}),
  };
}

/** `system:serviceaccount:NS:NAME` is that ServiceAccount (RBAC's Subject of kind ServiceAccount). */
export function isServiceAccount(user: UserInfo, namespace: string, name: string): boolean {
  return user.name === `${SA_PREFIX}${namespace}:${name}`;
}

export interface ServiceAccountClaims { namespace: string; name: string; uid: string }

export class ServiceAccountTokens {
  private readonly key: string;

  constructor(adminToken: string) {
    this.key = createHash('sha256').update(`mock service account tokens\0${adminToken}`).digest('hex');
  }

  mint(claims: ServiceAccountClaims): string {
    const payload = Buffer.from(JSON.stringify({ ns: claims.namespace, name: claims.name, uid: claims.uid, n: Date.now() })).toString('base64url');
    return `${payload}.${this.sign(payload)}`;
  }

  /** The claims of a token this server minted, or undefined for anything else. */
  verify(token: string): ServiceAccountClaims | undefined {
    const dot = token.indexOf('.');
    if (dot <= 0) return undefined;
    const payload = token.slice(0, dot);
    const given = Buffer.from(token.slice(dot + 1));
    const expected = Buffer.from(this.sign(payload));
    if (given.length !== expected.length || !timingSafeEqual(given as unknown as Uint8Array, expected as unknown as Uint8Array)) return undefined;
    try {
      const c = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
      if (typeof c.ns !== 'string' || typeof c.name !== 'string' || typeof c.uid !== 'string') return undefined;
      return { namespace: c.ns, name: c.name, uid: c.uid };
    } catch {
      return undefined;
    }
  }

  private sign(payload: string): string {
    return createHmac('sha256', this.key).update(payload).digest('base64url');
  }
}
