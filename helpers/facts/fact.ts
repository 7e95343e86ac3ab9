/**
 * A fact about the cluster, answered the same way everywhere: whether it holds and why, in words that name the object
 * and quote the cluster. Waits wait for facts, assertions fail with their `why`, the monitor records them, and the
 * preflight refuses a cluster on them, so "pool updated" means one thing throughout the suite.
 */
export interface Fact {
  ok: boolean;
  /** When ok: what holds ("mcp/worker rolled out rendered-worker-b"). Otherwise: what is wrong, quoting the cluster. */
  why: string;
}

export function holds(why: string): Fact {
  return { ok: true, why };
}

export function fails(why: string): Fact {
  return { ok: false, why };
}

/** The first of the facts that does not hold, else one that holds and says all of them. */
export function allOf(...facts: Fact[]): Fact {
  const broken = facts.find((f) => !f.ok);
  return broken ?? holds(facts.map((f) => f.why).join('; '));
}

/** `"the message"`, or `(no message)`: how a condition's text is quoted in every fact. */
export function quote(text: string | undefined): string {
  return text ? `"${text}"` : '(no message)';
}
