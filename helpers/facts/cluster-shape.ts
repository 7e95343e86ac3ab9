/**
 * The shape of a cluster as its nodes tell it: how many masters, how many nodes that are workers only, and whether
 * the masters are workers too (compact and single-node clusters, whose nodes show ROLES control-plane,master,worker).
 */
import type { Node } from '../types.js';

const ROLE = 'node-role.kubernetes.io/';

export interface ClusterShapeFacts {
  masters: number;
  /** Nodes with the worker role and not the master one. */
  workers: number;
  mastersAreWorkers: boolean;
}

export function clusterShapeOf(nodes: Iterable<Node>): ClusterShapeFacts {
  let masters = 0;
  let workers = 0;
  let mastersAreWorkers = false;
  for (const node of nodes) {
    const labels = node.metadata?.labels ?? {};
    const master = `${ROLE}master` in labels;
    const worker = `${ROLE}worker` in labels;
    if (master) masters++;
    if (master && worker) mastersAreWorkers = true;
    if (worker && !master) workers++;
  }
  return { masters, workers, mastersAreWorkers };
}

/** "a compact cluster: its 3 masters are the workers", "a single-node cluster", "3 masters, 2 workers". */
export function describeClusterShape(snap: { nodes: ReadonlyMap<string, Node> }): string {
  const shape = clusterShapeOf(snap.nodes.values());
  if (shape.workers === 0 && shape.masters === 1 && shape.mastersAreWorkers) return 'a single-node cluster: its one master is the worker';
  if (shape.workers === 0 && shape.mastersAreWorkers) return `a compact cluster: its ${shape.masters} masters are the workers`;
  return `${shape.masters} master(s), ${shape.workers} worker(s)`;
}
