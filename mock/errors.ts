/**
 * Kubernetes `Status` errors. Every non-2xx answer of the server is one of these, so clients (kubectl, client-node)
 * can read `reason` and `code` exactly as they would from a real kube-apiserver.
 */

export interface StatusCause { reason?: string; message?: string; field?: string }

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface StatusObject {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, unknown>;
  status: 'Failure' | 'Success';
  message: string;
  reason: string;
  code: number;
  details?: StatusDetails;
}

/** An error that becomes a Status response. Thrown anywhere in request handling and rendered by the router. */
export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: StatusDetails,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  toStatus(): StatusObject {
    const status: StatusObject = {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
      message: this.message, reason: this.reason, code: this.code,
    };
    if (this.details) status.details = this.details;
    return status;
  }
}

/** "group.resource" as the real server words it ("configmaps" for the core group). */
export function qualifiedResource(group: string, plural: string): string {
  return group ? `${plural}.${group}` : plural;
}

export const errors = {
  badRequest: (message: string) => new ApiError(400, 'BadRequest', message),
  unauthorized: () => new ApiError(401, 'Unauthorized', 'Unauthorized'),
  notFound: (group: string, plural: string, name: string) =>
    new ApiError(404, 'NotFound', `${qualifiedResource(group, plural)} "${name}" not found`, { name, group, kind: plural }),
  pathNotFound: (path: string) => new ApiError(404, 'NotFound', `the server could not find the requested resource (${path})`),
  methodNotAllowed: (method: string, what: string) =>
    new ApiError(405, 'MethodNotAllowed', `the server does not allow this method on the requested resource: ${method} ${what}`),
  alreadyExists: (group: string, plural: string, name: string) =>
    new ApiError(409, 'AlreadyExists', `${qualifiedResource(group, plural)} "${name}" already exists`, { name, group, kind: plural }),
  conflict: (group: string, plural: string, name: string, why: string) =>
    new ApiError(409, 'Conflict', `Operation cannot be fulfilled on ${qualifiedResource(group, plural)} "${name}": ${why}`,
      { name, group, kind: plural }),
  gone: (message: string) => new ApiError(410, 'Expired', message),
  tooLarge: (limit: number) => new ApiError(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${limit}`),
  /** kube-apiserver's words (handlers/negotiation/errors.go): the types the request could have used; `note` is the mock's. */
  unsupportedMediaType: (accepted: readonly string[], note?: string) =>
    new ApiError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}${note ? ` (${note})` : ''}`),
  invalid: (group: string, kind: string, name: string, causes: StatusCause[]) => {
    // As an aggregate of field errors prints: one alone as it is, several (distinct) in brackets.
    const texts = [...new Set(causes.map((c) => `${c.field ? c.field + ': ' : ''}${c.message}`))];
    return new ApiError(422, 'Invalid', `${kind}${group ? '.' + group : ''} "${name}" is invalid: ${texts.length === 1 ? texts[0] : `[${texts.join(', ')}]`}`,
      { name, group, kind, causes });
  },
  forbidden: (message: string) => new ApiError(403, 'Forbidden', message),
  tooManyRequests: (retryAfterSeconds: number) =>
    new ApiError(429, 'TooManyRequests', 'the server has received too many requests and has asked us to try again later (injected fault)',
      { retryAfterSeconds }, { 'Retry-After': String(retryAfterSeconds) }),
  internal: (message: string) => new ApiError(500, 'InternalError', `Internal error occurred: ${message}`),
};
