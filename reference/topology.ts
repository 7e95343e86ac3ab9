/**
 * The shapes of cluster the reference seeds, as the installer leaves them (openshift/api config/v1 Infrastructure
 * `controlPlaneTopology` / `infrastructureTopology`; the installer's compact and single-node installs):
 * - `ha`: three masters and the workers (the default, the report's cluster);
 * - `compact`: three masters that are also workers (labelled `node-role.kubernetes.io/worker`, schedulable), no other
 *   node: pool worker selects the masters too, and the MCO puts a node matched by master and worker in master, so the
 *   worker pool has no machines;
 * - `sno`: single-node OpenShift, one master that is also the worker; both topologies SingleReplica.
 */
export type Topology = 'ha' | 'compact' | 'sno';
export const TOPOLOGIES: readonly Topology[] = ['ha', 'compact', 'sno'];

/**
 * The nodes' CPU architectures (`kubernetes.io/arch`): all amd64 (the default), all arm64, or `multi`, a heterogeneous
 * cluster as the multi-arch payload installs it: amd64 masters (and infra nodes), workers alternately amd64 and arm64
 * (worker 0 amd64, worker 1 arm64, ...), as when an arm64 compute machine set is added beside the amd64 one.
 */
export type Arch = 'amd64' | 'arm64' | 'multi';
export const ARCHES: readonly Arch[] = ['amd64', 'arm64', 'multi'];

/** The architecture of a node of the shape: its role and its index among the nodes of that role. */
export function nodeArchitecture(arch: Arch, role: 'master' | 'worker' | 'infra', index: number): 'amd64' | 'arm64' {
  if (arch !== 'multi') return arch;
  return role === 'worker' && index % 2 === 1 ? 'arm64' : 'amd64';
}

export interface ClusterShape {
  topology: Topology;
  masters: number;
  workers: number;
  /** Whether the masters carry the worker role too (compact and single-node clusters). */
  mastersAreWorkers: boolean;
  /** Nodes of an infra pool (roles worker and infra; the pool selects the worker configs too): pools.ts infraPool. */
  infraNodes: number;
  /** Infrastructure status and the node annotation the MCO reads. */
  controlPlaneTopology: 'HighlyAvailable' | 'SingleReplica';
  infrastructureTopology: 'HighlyAvailable' | 'SingleReplica';
  /** The nodes' architectures (nodeArchitecture). */
  arch: Arch;
}

/** The shape of a topology; `workers` only for `ha` (default 2), where a compact or single-node cluster has none. */
export function clusterShape(topology: Topology = 'ha', workers?: number, infraNodes = 0, arch: Arch = 'amd64'): ClusterShape {
  if (!ARCHES.includes(arch)) throw new Error(`unknown architecture "${arch}"; valid: ${ARCHES.join(', ')}`);
  return { ...topologyShape(topology, workers, infraNodes), arch };
}

function topologyShape(topology: Topology, workers: number | undefined, infraNodes: number): Omit<ClusterShape, 'arch'> {
  if (!Number.isInteger(infraNodes) || infraNodes < 0) throw new Error(`infra nodes must be a non-negative integer, got ${infraNodes}`);
  if (!TOPOLOGIES.includes(topology)) throw new Error(`unknown topology "${topology}"; valid topologies: ${TOPOLOGIES.join(', ')}`);
  if (topology === 'ha') {
    const count = workers ?? 2;
    if (!Number.isInteger(count) || count < 0) throw new Error(`workers must be a non-negative integer, got ${count}`);
    return { topology, masters: 3, workers: count, mastersAreWorkers: false, infraNodes, controlPlaneTopology: 'HighlyAvailable', infrastructureTopology: 'HighlyAvailable' };
  }
  if (infraNodes) throw new Error(`a ${topology === 'sno' ? 'single-node' : 'compact'} cluster has no infra nodes: use --topology ha with --infra-nodes`);
  if (workers) throw new Error(`a ${topology === 'sno' ? 'single-node' : 'compact'} cluster has no worker nodes (its masters are the workers): leave out --workers ${workers}, or use --topology ha`);
  if (topology === 'compact') return { topology, masters: 3, workers: 0, mastersAreWorkers: true, infraNodes: 0, controlPlaneTopology: 'HighlyAvailable', infrastructureTopology: 'HighlyAvailable' };
  return { topology, masters: 1, workers: 0, mastersAreWorkers: true, infraNodes: 0, controlPlaneTopology: 'SingleReplica', infrastructureTopology: 'SingleReplica' };
}

/** How `cluster up` and the run's log name the shape. */
export function describeShape(shape: ClusterShape): string {
  const arch = shape.arch === 'amd64' ? '' : shape.arch === 'arm64' ? ', arm64' : ', multi-arch (amd64 masters, workers amd64 and arm64)';
  if (shape.topology === 'sno') return `single node (1 master that is also the worker)${arch}`;
  if (shape.topology === 'compact') return `compact (3 masters that are also the workers)${arch}`;
  return `3 masters, ${shape.workers} workers${shape.infraNodes ? `, ${shape.infraNodes} infra node(s) in pool infra` : ''}${arch}`;
}
