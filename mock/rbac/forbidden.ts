/**
 * The 403 kube-apiserver answers a denied request with: a Status of reason Forbidden whose message names the user,
 * the verb and the resource (with its subresource) or path, and the scope, e.g.
 *   nodes is forbidden: User "system:serviceaccount:ns:sa" cannot list resource "nodes" in API group "" at the cluster scope
 *   pods "x" is forbidden: User "u" cannot get resource "pods/log" in API group "" in the namespace "ns"
 *   forbidden: User "u" cannot get path "/apis"
 * and details {name, group, kind} where kind is the resource (empty fields left out, as Go's omitempty does).
 */
import { ApiError, type StatusDetails } from '../errors.js';
import type { UserInfo } from './identity.js';
import type { RequestAttributes } from './rules.js';

export function forbiddenMessage(user: UserInfo, attrs: RequestAttributes): string {
  if (attrs.kind === 'nonResource') return `User ${quote(user.name)} cannot ${attrs.verb} path ${quote(attrs.path)}`;
  const resource = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
  const scope = attrs.namespace ? `in the namespace ${quote(attrs.namespace)}` : 'at the cluster scope';
  return `User ${quote(user.name)} cannot ${attrs.verb} resource ${quote(resource)} in API group ${quote(attrs.group)} ${scope}`;
}

export function forbidden(user: UserInfo, attrs: RequestAttributes, reason: string): ApiError {
  const why = reason ? `${forbiddenMessage(user, attrs)}: ${reason}` : forbiddenMessage(user, attrs);
  if (attrs.kind === 'nonResource') return new ApiError(403, 'Forbidden', `forbidden: ${why}`, {});
  const qualified = attrs.group ? `${attrs.resource}.${attrs.group}` : attrs.resource;
  const details: StatusDetails = {};
  if (attrs.name) details.name = attrs.name;
  if (attrs.group) details.group = attrs.group;
  if (attrs.resource) details.kind = attrs.resource;
  const subject = attrs.name ? `${qualified} ${quote(attrs.name)}` : qualified;
  return new ApiError(403, 'Forbidden', `${subject} is forbidden: ${why}`, details);
}

/** Go's %q for the plain strings found here. */
function quote(s: string): string {
  return JSON.stringify(s);
}
