/**
 * `oc` does not retry a request the API server failed for a moment (client-go retries only a 429 with Retry-After), so
 * one 500 or one dropped connection fails the whole command although the cluster is fine. The suite's own API calls
 * ride such blips out (lib/kube/retry.ts); this gives its `oc` calls the same footing: a run whose stderr names a
 * passing API error is repeated, with a growing pause, a bounded number of times. Only commands that may be repeated
 * safely come here (a read, or a write of the same desired state).
 */
import type { CliResult } from './cli.js';

/** What `oc` prints when the API server failed for a moment (a rolling API server, a 5xx, a connection dropped mid-request: Go says `Post "…": EOF`). */
// "doesn't have a resource type": oc's discovery (its first requests) failed, so it cannot map node/N to a resource;
// every cluster serves nodes, so that is a passing API error too.
const TRANSIENT_API_ERROR = /InternalError|Internal error occurred|ServiceUnavailable|TooManyRequests|the server is currently unable|connection refused|connection reset|i\/o timeout|TLS handshake timeout|GOAWAY|unexpected EOF|": EOF$|: EOF\s*$|the server doesn't have a resource type "node"/im;

/** Whether oc's stderr names an API error that passes (asking again may succeed), rather than a problem of the cluster's state. */
export function isTransientOcError(stderr: string): boolean {
  return TRANSIENT_API_ERROR.test(stderr);
}

export interface TransientRetry {
  /** Runs in all, the first included. */
  attempts: number;
  /** Pause before the second run; doubles each time. */
  firstPauseMs: number;
}

export const OC_TRANSIENT_RETRY: TransientRetry = { attempts: 4, firstPauseMs: 500 };

/**
 * Runs `run` (an `oc` call with allowFailure) until `done` accepts its result, its stderr names no passing API error,
 * or the attempts are spent. Returns the last result and how many runs it took; the caller decides what a failure means.
 */
export async function retryTransientCli(
  run: () => Promise<CliResult>,
  done: (r: CliResult) => boolean = (r) => r.exitCode === 0,
  policy: TransientRetry = OC_TRANSIENT_RETRY,
): Promise<{ result: CliResult; attempts: number }> {
  for (let attempt = 1; ; attempt++) {
    const result = await run();
    if (done(result) || attempt >= policy.attempts || !isTransientOcError(result.stderr)) return { result, attempts: attempt };
    await new Promise((resolve) => setTimeout(resolve, policy.firstPauseMs * 2 ** (attempt - 1)));
  }
}
