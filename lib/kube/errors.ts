/**
 * What client-node threw, classified: the HTTP status and the server's Status (reason, message, causes), or the
 * network failure underneath; whether retrying can help; and how long the server asked us to stay away. Callers ask
 * `isNotFound(error)` & co. instead of reading status codes, so both sides of the project read errors the same way.
 */

export type FailureKind =
  | 'unauthorized' // 401: the credentials were refused
  | 'forbidden' // 403
  | 'not-found' // 404
  | 'conflict' // 409: a concurrent writer, or the object already exists
  | 'gone' // 410: history compacted (a watch must re-list)
  | 'invalid' // 422 and other 4xx the server rejects for what was sent
  | 'throttled' // 429
  | 'server' // 5xx
  | 'unreachable' // no HTTP answer: refused, reset, timed out, name not resolved, or a certificate not trusted
  | 'other'; // not an API failure at all (a bug, a bad kubeconfig)

export interface ApiFailure {
  kind: FailureKind;
  /** HTTP status, or undefined for a network failure. */
  code?: number;
  reason?: string;
  message: string;
  retryable: boolean;
  /** What the server asked us to wait before retrying (Retry-After of a 429 or 503), in milliseconds. */
  retryAfterMs?: number;
}

interface StatusBody {
  kind?: string;
  message?: string;
  reason?: string;
  details?: { causes?: { field?: string; message?: string }[]; retryAfterSeconds?: number };
}

/** An API call that failed for good: names the call, the failure and how many attempts were made. */
export class KubeApiError extends Error {
  constructor(
    readonly what: string,
    readonly failure: ApiFailure,
    readonly attempts: number,
    /** Appended after `; ` (what the user should check), by callers that know their audience. */
    hint = '',
  ) {
    const status = failure.code ? `HTTP ${failure.code}${failure.reason ? ` ${failure.reason}` : ''}` : 'network error';
    super(`${what} failed: ${status}: ${failure.message}${attempts > 1 ? ` (after ${attempts} attempts)` : ''}${hint ? `; ${hint}` : ''}`);
    this.name = 'KubeApiError';
  }

  /** HTTP status of the last attempt (undefined for a network failure). */
  get status(): number | undefined {
    return this.failure.code;
  }
}

function parseBody(body: unknown): StatusBody | undefined {
  if (!body) return undefined;
  if (typeof body === 'string') {
    try {
      return JSON.parse(body) as StatusBody;
    } catch {
      return { message: body.slice(0, 500) };
    }
  }
  if (typeof body === 'object') return body as StatusBody;
  return undefined;
}

/** Retry-After in milliseconds, from the header (seconds) or the Status details, when the server sent one. */
function retryAfterMs(error: unknown, status: StatusBody | undefined): number | undefined {
  const headers = (error as { headers?: Record<string, string> }).headers ?? {};
  const header = Object.entries(headers).find(([k]) => k.toLowerCase() === 'retry-after')?.[1];
  const seconds = header !== undefined && /^\d+$/.test(String(header).trim()) ? Number(header) : status?.details?.retryAfterSeconds;
  return typeof seconds === 'number' && seconds >= 0 ? seconds * 1000 : undefined;
}

/** Certificate problems: the server answered, but not with a certificate we trust. Retrying cannot fix them. */
const TLS_CODE = /^(CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|ERR_TLS_|ERR_SSL_)/;

const NETWORK_CODES = new Set([
  'ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EAI_AGAIN', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH',
  'UND_ERR_SOCKET', 'ECONNABORTED',
]);
const NETWORK_TEXT = /socket hang up|ECONNRESET|ECONNREFUSED|EPIPE|ETIMEDOUT|network|premature close|other side closed|UND_ERR/i;

/** The string codes of an error and of the causes fetch wraps around it, outermost first. */
function errorCodes(error: unknown): string[] {
  const codes: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
    current = (current as { cause?: unknown }).cause;
  }
  return codes;
}

/** The network error code under whatever wrappers fetch put around it, or undefined when it is not a network failure. */
function networkCode(error: unknown): string | undefined {
  const code = errorCodes(error).find((c) => NETWORK_CODES.has(c));
  if (code) return code;
  const text = `${String((error as Error)?.message ?? error)} ${String((error as { cause?: unknown })?.cause ?? '')}`;
  return NETWORK_TEXT.test(text) ? (/ECONNREFUSED/.test(text) ? 'ECONNREFUSED' : 'ECONNRESET') : undefined;
}

function kindOfStatus(code: number): FailureKind {
  if (code === 401) return 'unauthorized';
  if (code === 403) return 'forbidden';
  if (code === 404) return 'not-found';
  if (code === 409) return 'conflict';
  if (code === 410) return 'gone';
  if (code === 429) return 'throttled';
  if (code >= 500) return 'server';
  return 'invalid';
}

/** Classifies anything client-node (or its fetch underneath) throws; a KubeApiError keeps its classification. */
export function classifyApiError(error: unknown): ApiFailure {
  if (error instanceof KubeApiError) return error.failure;
  const raw = error as { code?: unknown; statusCode?: unknown; body?: unknown; message?: unknown };
  // Generated clients put the status in `code`; Watch puts it in `statusCode`.
  const code = typeof raw?.code === 'number' ? raw.code : typeof raw?.statusCode === 'number' ? raw.statusCode : undefined;
  if (code !== undefined) {
    const status = parseBody(raw.body);
    const causes = status?.details?.causes?.map((c) => `${c.field ?? ''}: ${c.message ?? ''}`).join('; ');
    // client-node gives no body for codes its API description lacks (401, 403): its own message then has a
    // "Message: <status text>" line, better than its first line ("HTTP-Code: 401").
    const text = String(raw.message ?? '');
    const message = status?.message ?? /^Message: (.+)$/m.exec(text)?.[1] ?? text.split('\n')[0] ?? `HTTP ${code}`;
    return {
      kind: kindOfStatus(code),
      code,
      reason: status?.reason,
      message: causes && !message.includes(causes) ? `${message} (${causes})` : message,
      retryable: code === 429 || code >= 500,
      retryAfterMs: code === 429 || code === 503 ? retryAfterMs(error, status) : undefined,
    };
  }
  const message = String((error as Error)?.message ?? error);
  const tls = errorCodes(error).find((c) => TLS_CODE.test(c));
  if (tls) return { kind: 'unreachable', message: `TLS failed (${tls}): ${message}`, retryable: false };
  const net = networkCode(error);
  if (net) return { kind: 'unreachable', message: `connection failed (${net}): ${message}`, retryable: true };
  return { kind: 'other', message, retryable: false };
}

export const isNotFound = (error: unknown): boolean => classifyApiError(error).kind === 'not-found';
export const isConflict = (error: unknown): boolean => classifyApiError(error).kind === 'conflict';
export const isUnauthorized = (error: unknown): boolean => classifyApiError(error).kind === 'unauthorized';
export const isForbidden = (error: unknown): boolean => classifyApiError(error).kind === 'forbidden';
export const isUnreachable = (error: unknown): boolean => classifyApiError(error).kind === 'unreachable';
