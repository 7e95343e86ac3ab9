/**
 * Where the reference's workload controllers put a new pod, playing kube-scheduler for them: a Ready node that is not
 * cordoned, matches the pod's nodeSelector and whose NoSchedule/NoExecute taints the pod tolerates (so a pod with no
 * tolerations, an on-cluster build's, lands on a worker, not on a tainted master); among those, the one running the
 * fewest pods of the same owner (spread), then by name.
 */
import type { V1Node, V1PodSpec, V1Taint, V1Toleration } from '@kubernetes/client-node';
import type { KubeObject } from '../../lib/kube/client.js';

type Node = V1Node & KubeObject;

export function nodeSchedulable(node: Node): boolean {
  const ready = (node.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
  return ready && !node.spec?.unschedulable;
}

export function matchesSelector(node: Node, selector: Record<string, string> | undefined): boolean {
  return Object.entries(selector ?? {}).every(([k, v]) => node.metadata.labels?.[k] === v);
}

/** A toleration matches a taint as kube's ToleratesTaint reads it: key (or none with Exists), effect (or all), value. */
function tolerationMatches(t: V1Toleration, taint: V1Taint): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (t.operator === 'Exists') return !t.key || t.key === taint.key;
  return t.key === taint.key && (t.value ?? '') === (taint.value ?? '');
}

/** Whether a pod may be scheduled onto the node: every NoSchedule and NoExecute taint is tolerated. */
export function toleratesTaints(node: Node, tolerations: V1Toleration[] | undefined): boolean {
  return (node.spec?.taints ?? [])
    .filter((taint) => taint.effect === 'NoSchedule' || taint.effect === 'NoExecute')
    .every((taint) => (tolerations ?? []).some((t) => tolerationMatches(t, taint)));
}

/** The node for one more pod of `spec`: the feasible node with the lowest `load`, then by name; undefined when none fits. */
export function chooseNode(nodes: Node[], spec: Pick<V1PodSpec, 'nodeSelector' | 'tolerations'> | undefined, load: (n: Node) => number): Node | undefined {
  const feasible = nodes.filter((n) => nodeSchedulable(n) && matchesSelector(n, spec?.nodeSelector) && toleratesTaints(n, spec?.tolerations));
  return feasible.sort((a, b) => load(a) - load(b) || a.metadata.name!.localeCompare(b.metadata.name!))[0];
}
