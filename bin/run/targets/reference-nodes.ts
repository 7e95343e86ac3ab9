/**
 * The nodes a reference cluster of the run's shape will have (names, roles, architectures), known before it starts:
 * the seed's names and the topology's architectures are fixed by the shape, so the build check runs before any cluster.
 */
import type { ArchNode } from '../../../helpers/build-architectures.js';
import { nodeName } from '../../../reference/seed.js';
import { clusterShape, nodeArchitecture, type Arch, type Topology } from '../../../reference/topology.js';

export function referenceArchNodes(shape: { topology?: Topology; workers?: number; infraNodes?: number; arch?: Arch }): ArchNode[] {
  const s = clusterShape(shape.topology, shape.workers, shape.infraNodes ?? 0, shape.arch);
  const nodes: ArchNode[] = [];
  const add = (role: 'master' | 'worker' | 'infra', count: number, roles: string[]) => {
    for (let i = 0; i < count; i++) nodes.push({ name: nodeName(role, i), roles, architecture: nodeArchitecture(s.arch, role, i) });
  };
  // as seed.ts labels them: masters of a compact or single-node cluster are workers too, infra nodes are workers
  add('master', s.masters, s.mastersAreWorkers ? ['master', 'control-plane', 'worker'] : ['master', 'control-plane']);
  add('worker', s.workers, ['worker']);
  add('infra', s.infraNodes, ['infra', 'worker']);
  return nodes;
}
