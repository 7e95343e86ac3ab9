/**
 * `cluster up --audit-log FILE`: one JSON line per API request of a user other than the cluster's admin, with the
 * attributes RBAC judged it by and the decision. What a client (the suite under a ServiceAccount) needs is then read
 * off a run: each line's verb, group, resource/subresource and scope. No line holds a token or a request body.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import type { AuthorizationHook, AuthorizationRecord } from '../../mock/index.js';

/** One line of the audit log. `namespace` is empty at the cluster scope; `path` is set for non-resource requests. */
export interface AuditLine {
  user: string;
  verb: string;
  group?: string;
  resource?: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  path?: string;
  allowed: boolean;
  reason?: string;
}

export function auditLine({ user, attributes: a, decision }: AuthorizationRecord): AuditLine {
  const line: AuditLine = a.kind === 'nonResource'
    ? { user: user.name, verb: a.verb, path: a.path, allowed: decision.allowed }
    : { user: user.name, verb: a.verb, group: a.group, resource: a.resource, subresource: a.subresource, namespace: a.namespace, name: a.name, allowed: decision.allowed };
  if (decision.reason) line.reason = decision.reason;
  return line;
}

/** Starts the file empty (mode 0600) and appends each request as it is decided, so a reader sees it at once. */
export function auditLogWriter(file: string): AuthorizationHook {
  writeFileSync(file, '', { mode: 0o600 });
  return (record) => appendFileSync(file, `${JSON.stringify(auditLine(record))}\n`);
}
