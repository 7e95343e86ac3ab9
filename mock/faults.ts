/**
 * Fault injection, so clients can be tested against a misbehaving server: added latency, a share of 429 (with
 * Retry-After) and 500 answers, connections reset without an answer, and watch streams cut every N seconds.
 * The configuration can be replaced while the server runs.
 */

export interface FaultConfig {
  /** Added delay before each request is handled, in milliseconds. */
  latencyMs?: number;
  /** Extra random delay up to this many milliseconds. */
  latencyJitterMs?: number;
  /** Share (0..1) of requests answered 429 TooManyRequests. */
  rate429?: number;
  /** Retry-After seconds sent with injected 429s (default 1). */
  retryAfterSeconds?: number;
  /** Share (0..1) of requests answered 500 InternalError. */
  rate500?: number;
  /** Share (0..1) of requests whose connection is destroyed without an answer. */
  resetRate?: number;
  /** Watch streams are ended after this many seconds (0 or absent: held open). */
  watchCutSeconds?: number;
  /** Only requests whose path matches this regular expression are affected (default: all but /healthz, /readyz). */
  pathPattern?: string;
}

export type FaultDecision = 'none' | '429' | '500' | 'reset';

export class Faults {
  private config: FaultConfig = {};
  private pattern?: RegExp;

  constructor(initial?: FaultConfig, private readonly random: () => number = Math.random) {
    this.set(initial ?? {});
  }

  set(config: FaultConfig): void {
    for (const key of ['rate429', 'rate500', 'resetRate'] as const) {
      const v = config[key];
      if (v !== undefined && !(v >= 0 && v <= 1)) throw new Error(`fault ${key} must be between 0 and 1, got ${v}`);
    }
    for (const key of ['latencyMs', 'latencyJitterMs', 'watchCutSeconds', 'retryAfterSeconds'] as const) {
      const v = config[key];
      if (v !== undefined && !(v >= 0)) throw new Error(`fault ${key} must be a non-negative number, got ${v}`);
    }
    this.pattern = config.pathPattern ? new RegExp(config.pathPattern) : undefined;
    this.config = { ...config };
  }

  /** Whether any fault is configured: lets the request path skip fault handling entirely. */
  get active(): boolean {
    const c = this.config;
    return Boolean(c.latencyMs || c.latencyJitterMs || c.rate429 || c.rate500 || c.resetRate);
  }

  get current(): FaultConfig {
    return { ...this.config };
  }

  private applies(path: string): boolean {
    if (this.pattern) return this.pattern.test(path);
    return path !== '/healthz' && path !== '/readyz' && path !== '/livez';
  }

  delayMs(path: string): number {
    if (!this.applies(path)) return 0;
    return (this.config.latencyMs ?? 0) + (this.config.latencyJitterMs ? this.random() * this.config.latencyJitterMs : 0);
  }

  decide(path: string): FaultDecision {
    if (!this.applies(path)) return 'none';
    const r = this.random();
    const reset = this.config.resetRate ?? 0, r429 = this.config.rate429 ?? 0, r500 = this.config.rate500 ?? 0;
    if (r < reset) return 'reset';
    if (r < reset + r429) return '429';
    if (r < reset + r429 + r500) return '500';
    return 'none';
  }

  get retryAfterSeconds(): number {
    return this.config.retryAfterSeconds ?? 1;
  }

  get watchCutMs(): number {
    return (this.config.watchCutSeconds ?? 0) * 1000;
  }
}
