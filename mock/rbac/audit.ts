/**
 * What a request of a user other than the server's admin asked and how it was decided, handed to an opt-in callback
 * (`startApiServer({ onAuthorize })`). A client's needs can then be read off a run of it instead of guessed: the set of
 * (verb, group, resource/subresource, scope) it used is what a least-privilege role must allow.
 */
import type { Decision } from './authorizer.js';
import type { UserInfo } from './identity.js';
import type { RequestAttributes } from './rules.js';

export interface AuthorizationRecord {
  user: UserInfo;
  /** As kube-apiserver's RequestInfo has them: verb, group, resource, subresource, namespace, name (or the path). */
  attributes: RequestAttributes;
  /** The decision RBAC made; allowed with an empty reason when RBAC is off. */
  decision: Decision;
}

/** Called synchronously on every request it records; it must not throw (an audit never changes an answer). */
export type AuthorizationHook = (record: AuthorizationRecord) => void;
