/**
 * What the target offers, discovered rather than assumed. The embedded reference cluster publishes a ConfigMap with
 * its clock factor and registry; a real cluster has none, runs at wall-clock speed, and needs --image-repo.
 */
import type { Cluster } from './cluster.js';

export const ReferenceInfoConfigMap = { namespace: 'kube-system', name: 'ocp-e2e-reference-cluster' } as const;

export interface TargetCapabilities {
  /** Cluster seconds per wall second: 1 on a real cluster. */
  timeFactor: number;
  isReference: boolean;
  profile?: string;
  registry?: string;
  imageRepo?: string;
}

export async function discoverCapabilities(cluster: Cluster): Promise<TargetCapabilities> {
  const cm = await cluster.getConfigMap(ReferenceInfoConfigMap.namespace, ReferenceInfoConfigMap.name);
  if (!cm?.data) return { timeFactor: 1, isReference: false };
  const factor = Number(cm.data.timeFactor);
  return {
    timeFactor: Number.isFinite(factor) && factor > 0 ? factor : 1,
    isReference: true,
    profile: cm.data.profile,
    registry: cm.data.registry,
    imageRepo: cm.data.imageRepo,
  };
}

/**
 * Wall-clock budget for something that takes `clusterMinutes` on a real cluster, scaled by the target's clock.
 * `floorMs` keeps a compressed clock from producing budgets shorter than the API round trips themselves.
 */
export function wallBudgetMs(clusterMinutes: number, caps: Pick<TargetCapabilities, 'timeFactor'>, floorMs = 5_000): number {
  return Math.max(floorMs, Math.ceil((clusterMinutes * 60_000) / caps.timeFactor));
}

/**
 * Cluster minutes a pool rollout may take: MCO rolls one node at a time (maxUnavailable 1) and a node update with its
 * drain and reboot takes 10-20 minutes on real hardware, up to 30 with a slow image pull, so the budget grows with the
 * pool. (QE's fixed 10-minute pool wait failed about half its runs: the budget must follow the pool size.)
 */
export function poolRolloutClusterMinutes(nodeCount: number, perNodeMinutes = 30, slackMinutes = 30): number {
  return Math.max(1, nodeCount) * perNodeMinutes + slackMinutes;
}

/** Formats a duration in cluster time for messages ("12m30s (cluster time)"). */
export function formatClusterDuration(wallMs: number, caps: Pick<TargetCapabilities, 'timeFactor'>): string {
  const seconds = Math.round((wallMs * caps.timeFactor) / 1000);
  const m = Math.floor(seconds / 60);
  const s = seconds % 60;
  const text = m > 0 ? `${m}m${String(s).padStart(2, '0')}s` : `${s}s`;
  return caps.timeFactor === 1 ? text : `${text} cluster time (${(wallMs / 1000).toFixed(1)}s wall)`;
}
