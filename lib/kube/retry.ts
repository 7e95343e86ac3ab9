/**
 * The one retry policy of the project's API calls: throttling (429), server errors (5xx) and dropped connections are
 * retried with jittered exponential backoff, never sooner than a Retry-After the server sent (up to a bound), and for
 * a bounded number of attempts; everything else fails at once, after one request.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { classifyApiError, KubeApiError, type ApiFailure } from './errors.js';

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  attempts: number;
  /** Backoff before the second attempt; doubles each time. */
  baseDelayMs: number;
  /** Longest backoff between two attempts. */
  maxDelayMs: number;
  /** Longest Retry-After honoured; a server asking for more gets this. */
  maxRetryAfterMs: number;
}

/** About 3 s of backoff in all (100, 200, 400, 800, 1600 ms): long enough for a blip, short enough to fail fast. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = { attempts: 6, baseDelayMs: 100, maxDelayMs: 3000, maxRetryAfterMs: 10_000 };

export interface RetryOptions extends Partial<RetryPolicy> {
  /** Stops retrying (the last failure is thrown) when aborted. */
  signal?: AbortSignal;
  /** Told of every retry, e.g. for a controller's log. */
  onRetry?: (what: string, failure: ApiFailure, attempt: number, delayMs: number) => void;
  /** The error to throw when giving up; default a KubeApiError. Lets a caller add the hint its users need. */
  errorFor?: (what: string, failure: ApiFailure, attempts: number) => Error;
}

/** The wait before attempt `attempt + 1`: jittered backoff, or the server's Retry-After when that is longer. */
export function retryDelayMs(policy: RetryPolicy, attempt: number, failure: ApiFailure, random: () => number = Math.random): number {
  const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1)) * (0.75 + random() * 0.5);
  // A throttling server says how long to stay away; retrying sooner only earns another 429.
  return Math.max(backoff, Math.min(failure.retryAfterMs ?? 0, policy.maxRetryAfterMs));
}

/** Runs one API call under the retry policy; throws `errorFor(...)` (a KubeApiError by default) when giving up. */
export async function withRetry<T>(what: string, call: () => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const policy: RetryPolicy = {
    attempts: options.attempts ?? DEFAULT_RETRY_POLICY.attempts,
    baseDelayMs: options.baseDelayMs ?? DEFAULT_RETRY_POLICY.baseDelayMs,
    maxDelayMs: options.maxDelayMs ?? DEFAULT_RETRY_POLICY.maxDelayMs,
    maxRetryAfterMs: options.maxRetryAfterMs ?? DEFAULT_RETRY_POLICY.maxRetryAfterMs,
  };
  const fail = options.errorFor ?? ((w: string, f: ApiFailure, n: number) => new KubeApiError(w, f, n));
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      const failure = classifyApiError(error);
      if (!failure.retryable || attempt >= policy.attempts || options.signal?.aborted) throw fail(what, failure, attempt);
      const delay = retryDelayMs(policy, attempt, failure);
      options.onRetry?.(what, failure, attempt, delay);
      try {
        await sleep(delay, undefined, { signal: options.signal });
      } catch {
        throw fail(what, failure, attempt); // aborted while waiting
      }
    }
  }
}
