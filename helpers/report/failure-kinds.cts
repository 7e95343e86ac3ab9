/**
 * Failures grouped by what went wrong rather than by their exact text: the text of two runs of the same failure
 * differs in rendered-config hashes, image digests, registry ports and run ids. The kinds are tried in order; the first
 * whose pattern matches the failure message names it. The same kinds feed Allure's Categories and JUnit's `type`.
 */

export interface FailureKind {
  /** Short machine name: the JUnit failure type and the Allure category id. */
  id: string;
  /** What a person reads in the Categories view. */
  name: string;
  /** Tried against the failure message. */
  pattern: RegExp;
}

export const FAILURE_KINDS: readonly FailureKind[] = [
  {
    id: 'upgrade-deadlock',
    name: 'Upgrade deadlock: machine-config Degraded on the osImageURL check',
    pattern: /osImageURL mismatch|cannot happen: machine-config stays Degraded/,
  },
  { id: 'invariant-broken', name: 'Upgrade invariant broken', pattern: /invariant/i },
  { id: 'node-wrong-image', name: 'Node booted the wrong OS image', pattern: /node \S+ booted .* expected/ },
  { id: 'rendered-wrong-image', name: 'Rendered config has the wrong osImageURL', pattern: /rendered config \S+ has osImageURL/ },
  // helpers/default-os-image.ts: the template MachineConfig carries no OS image of the release the cluster runs
  { id: 'template-wrong-image', name: 'Template MachineConfig has no OS image of the release', pattern: /MachineConfig 00-\S+ gives \S+ pools \S+, which is none of the OS images/ },
  { id: 'pull-error-hidden', name: 'Image pull error hidden', pattern: /cannot be pulled|pull error/i },
  { id: 'pool-degraded', name: 'MachineConfigPool degraded', pattern: /pool \S+ (?:is )?degraded|Degraded=True|NodeDegraded|RenderDegraded/ },
  { id: 'operator-degraded', name: 'ClusterOperator degraded', pattern: /ClusterOperator .*Degraded|machine-config .*Degraded/ },
  { id: 'timeout', name: 'Timed out waiting for the cluster', pattern: /timed out|did not .* within|budget|WaitTimeoutError/i },
  { id: 'leak', name: 'Cleanup failed or objects left behind', pattern: /left behind with label|cleanup .* failed/ },
  { id: 'image-build', name: 'Layered image build or push failed', pattern: /\b(?:build|push)(?:ing)? .*(?:failed|exited)/i },
];

/** The kind of a failure message, or undefined when none applies (Allure then files it as product/test error). */
export function failureKind(message: string): FailureKind | undefined {
  return FAILURE_KINDS.find((k) => k.pattern.test(message));
}

/**
 * The message with what differs from run to run masked: digests, rendered-config hashes, loopback registry ports, run
 * ids, UUIDs and long hex strings. Two runs of the same failure give the same masked text.
 */
export function maskVolatile(message: string): string {
  return message
    .replace(/sha256:[0-9a-f]{12,64}/g, 'sha256:…')
    .replace(/\b(rendered-[a-z0-9-]+?-)[0-9a-f]{16,64}\b/g, '$1…')
    .replace(/\b(?:127(?:\.\d{1,3}){3}|localhost|\[::1\]):\d{2,5}\b/g, '<registry>')
    .replace(/\br\d{8}-[0-9a-f]{4}\b/g, '<run-id>')
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, '<uuid>')
    .replace(/\b[0-9a-f]{32,}\b/g, '…');
}

/** The first sentence-ish part of a message, masked: what Categories groups by under a kind. */
export function failureSummary(message: string, maxLength = 200): string {
  const first = maskVolatile(message.split('\n')[0] ?? '').trim();
  return first.length > maxLength ? `${first.slice(0, maxLength - 1)}…` : first;
}
