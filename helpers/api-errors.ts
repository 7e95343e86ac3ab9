/**
 * Turns what client-node throws into something a person can act on, and decides what is worth retrying:
 * throttling (429), server errors (5xx) and dropped connections are retried with backoff; authentication (401),
 * permission (403), unknown kinds (404 on a list), and validation (422) fail at once with the server's reason.
 */
import { maskSecrets } from './secrets.js';

export interface ApiFailure {
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

/** Retry-After in milliseconds, from the header (seconds) or the Status details, when the server sent one. */
function retryAfterMs(error: unknown, status: StatusBody | undefined): number | undefined {
  const headers = (error as { headers?: Record<string, string> }).headers ?? {};
  const header = Object.entries(headers).find(([k]) => k.toLowerCase() === 'retry-after')?.[1];
  const seconds = header !== undefined && /^\d+$/.test(String(header).trim()) ? Number(header) : status?.details?.retryAfterSeconds;
  return typeof seconds === 'number' && seconds >= 0 ? seconds * 1000 : undefined;
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

const NETWORK_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EAI_AGAIN', 'UND_ERR_SOCKET', 'ECONNABORTED']);

function networkCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  const text = String((error as Error)?.message ?? error);
  if (/socket hang up|ECONNRESET|network|premature close|other side closed/i.test(text)) return 'ECONNRESET';
  return undefined;
}

export function classifyApiError(error: unknown): ApiFailure {
  const code = (error as { code?: unknown })?.code;
  if (typeof code === 'number') {
    const status = parseBody((error as { body?: unknown }).body);
    const causes = status?.details?.causes?.map((c) => `${c.field ?? ''}: ${c.message ?? ''}`).join('; ');
    // client-node gives no body for codes its API description lacks (401, 403): its own message then has a
    // "Message: <status text>" line, better than its first line ("HTTP-Code: 401").
    const text = String((error as Error).message ?? '');
    const message = status?.message ?? /^Message: (.+)$/m.exec(text)?.[1] ?? text.split('\n')[0] ?? `HTTP ${code}`;
    return {
      code,
      reason: status?.reason,
      message: causes && !message.includes(causes) ? `${message} (${causes})` : message,
      retryable: code === 429 || code >= 500,
      retryAfterMs: code === 429 || code === 503 ? retryAfterMs(error, status) : undefined,
    };
  }
  const net = networkCode(error);
  if (net) return { message: `connection failed (${net}): ${(error as Error).message ?? ''}`, retryable: true };
  return { message: (error as Error)?.message ?? String(error), retryable: false };
}

/** What the user should check for a failure that will not go away by retrying. */
function hint(failure: ApiFailure, what: string): string {
  switch (failure.code) {
    case 401:
      return 'the kubeconfig credentials were refused: log in again (oc login) or point --kubeconfig at a fresh kubeconfig';
    case 403:
      return 'the kubeconfig user may not do this: the suite needs cluster-admin';
    case 404:
      return /list|watch/.test(what)
        ? 'the API server does not serve this kind: is this an OpenShift cluster (machineconfiguration.openshift.io, config.openshift.io)?'
        : 'the object does not exist';
    case 422:
      return 'the server rejected the object as invalid';
    default:
      return '';
  }
}

export class ClusterApiError extends Error {
  readonly failure: ApiFailure;
  constructor(what: string, failure: ApiFailure, attempts: number) {
    const status = failure.code ? `HTTP ${failure.code}${failure.reason ? ` ${failure.reason}` : ''}` : 'network error';
    const tail = hint(failure, what);
    super(
      maskSecrets(
        `${what} failed: ${status}: ${failure.message}${attempts > 1 ? ` (after ${attempts} attempts)` : ''}${tail ? `; ${tail}` : ''}`,
      ),
    );
    this.name = 'ClusterApiError';
    this.failure = failure;
  }
}

export interface RetryOptions {
  attempts?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Longest Retry-After honoured; a server asking for more gets this (default 10 s). */
  maxRetryAfterMs?: number;
}

/** Runs one API call, retrying transient failures with exponential backoff; throws ClusterApiError otherwise. */
export async function withRetry<T>(what: string, call: () => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const attempts = options.attempts ?? 6;
  const base = options.baseDelayMs ?? 100;
  const max = options.maxDelayMs ?? 3000;
  let last: ApiFailure | undefined;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    try {
      return await call();
    } catch (error) {
      last = classifyApiError(error);
      if (!last.retryable || attempt === attempts) throw new ClusterApiError(what, last, attempt);
      const backoff = Math.min(max, base * 2 ** (attempt - 1)) * (0.75 + Math.random() * 0.5);
      // A throttling server says how long to stay away; retrying sooner only earns another 429.
      const delay = Math.max(backoff, Math.min(last.retryAfterMs ?? 0, options.maxRetryAfterMs ?? 10_000));
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
  throw new ClusterApiError(what, last ?? { message: 'no attempt made', retryable: false }, attempts);
}

export function isNotFound(error: unknown): boolean {
  return error instanceof ClusterApiError ? error.failure.code === 404 : classifyApiError(error).code === 404;
}
