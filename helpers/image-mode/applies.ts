/**
 * Whether on-cluster image mode can be judged on this cluster, said before any cluster time: the release must serve
 * the v1 MachineOSConfig API (4.18.z from the Default-gate backport, 4.19+; 4.12-4.17 have none or only a gated
 * v1alpha1), and the pool's nodes must be of one architecture (image mode does not support multi-arch compute, and
 * only the NoArch Containerfile is built: modern-mco.md §1.2, §1.4).
 */
import { isNotFound } from '../../lib/kube/errors.js';
import type { Cluster } from '../cluster.js';
import type { ClusterSnapshot } from '../cluster-watcher.js';
import { nodesOfPool } from '../facts/pool.js';
import type { ReleaseRules } from '../releases/rules.js';

/** The release's rules rule image mode out (undefined: it may be there; ask the cluster). */
export function imageModeNotInRelease(rules: ReleaseRules): string | undefined {
  if (rules.imageMode === 'none') return 'the release has no on-cluster image mode (no MachineOSConfig API)';
  if (rules.imageMode === 'gated') return 'on-cluster image mode is behind the OnClusterBuild feature gate (TechPreviewNoUpgrade) in this release, and its v1alpha1 API is not the v1 MachineOSConfig this spec writes';
  return undefined;
}

/** The cluster does not serve machineosconfigs.machineconfiguration.openshift.io/v1 (a 4.18 before the backport). */
export async function imageModeNotServed(cluster: Cluster): Promise<string | undefined> {
  try {
    await cluster.client.list('MachineOSConfig');
    return undefined;
  } catch (error) {
    if (isNotFound(error)) return 'the cluster does not serve machineosconfigs.machineconfiguration.openshift.io/v1 (on-cluster image mode is not in its Default feature set)';
    throw error;
  }
}

/** The pool's nodes are of more than one architecture (status.nodeInfo.architecture). */
export function multiArchReason(snap: ClusterSnapshot, pool: string): string | undefined {
  const p = snap.pools.get(pool);
  if (!p) return undefined;
  const arches = new Map<string, string[]>();
  for (const n of nodesOfPool(p, snap.pools.values(), snap.nodes.values())) {
    const arch = n.status?.nodeInfo?.architecture ?? 'unknown';
    arches.set(arch, [...(arches.get(arch) ?? []), n.metadata?.name ?? '?']);
  }
  if (arches.size <= 1) return undefined;
  return `pool ${pool} has nodes of several architectures (${[...arches].map(([a, ns]) => `${a}: ${ns.join(', ')}`).join('; ')}): on-cluster image mode does not support multi-arch compute, and builds only the NoArch Containerfile`;
}
