/**
 * What an image-mode spec needs of a real cluster (`--target cluster`) and of its push target, asked before any
 * cluster time, so that a build that cannot be pushed or pulled is said at once, not as a Failed MachineOSBuild or a
 * Degraded pool an hour later:
 *  - compute of one architecture: image mode does not support multi-arch compute (the build runs on whichever node
 *    the builder's Job lands on and only the NoArch Containerfile is built: modern-mco.md §1.2);
 *  - the push target takes a push with the credentials of the push Secret the suite will make (the run's entry for
 *    that repository): the registry is asked to start a blob upload, which is then cancelled, so nothing is written
 *    and nothing can be left behind (a probe tag pushed and deleted would stay where the registry allows no deletes);
 *  - the nodes can pull from it: they pull the build with the cluster's global pull secret (the internal registry's
 *    credentials are merged in by the MCO, modern-mco.md §1.6), so that secret must hold the registry, or the
 *    registry must serve pulls without credentials.
 * Only where the spec prepares (phases all and pre): a later phase pushes nothing.
 */
import { RegistryClient } from '../../lib/oci/image-files.js';
import { parseImageRef } from '../../lib/oci/image-ref.js';
import type { TargetCapabilities } from '../capabilities.js';
import type { Cluster } from '../cluster.js';
import type { ClusterSnapshot } from '../cluster-watcher.js';
import { buildCredentials, clusterPullSecret, type RegistryAccess } from '../credentials.js';
import { addToPullSecretHint, anonymousPull, type AnonymousProbe } from '../preflight/node-pull.js';
import type { TargetConfig } from '../target.js';
import { pushCredentialsFor } from './push-secret.js';
import { imageModePushTarget, INTERNAL_REGISTRY, PushTargetError } from './push-target.js';

/** The cluster's nodes are of more than one architecture (kubernetes.io/arch). */
export function multiArchComputeReason(snap: ClusterSnapshot): string | undefined {
  const arches = new Map<string, number>();
  for (const n of snap.nodes.values()) {
    const arch = n.metadata?.labels?.['kubernetes.io/arch'] ?? n.status?.nodeInfo?.architecture ?? 'unknown';
    arches.set(arch, (arches.get(arch) ?? 0) + 1);
  }
  if (arches.size <= 1) return undefined;
  return `the cluster's compute is multi-arch (${[...arches].map(([a, n]) => `${n} ${a}`).join(', ')} nodes): on-cluster image mode does not support multi-arch compute (its build runs on any node and only the NoArch Containerfile is built)`;
}

export interface ImageModePreflightSession {
  readonly cluster: Cluster;
  readonly caps: Pick<TargetCapabilities, 'imageRepo' | 'isReference'>;
  readonly target: Pick<TargetConfig, 'kind' | 'phase' | 'imageRepo' | 'runId'>;
  readonly access: RegistryAccess;
  readonly watcher: { snapshot(): ClusterSnapshot };
}

/** Why the push target cannot take the build or the nodes cannot pull it (undefined where both can). */
export async function imageModePushReason(s: ImageModePreflightSession, probe: AnonymousProbe = anonymousPull): Promise<string | undefined> {
  let target;
  try {
    // the repository is what is asked about; the tag (a case's, in a spec) is replaced by each build's name anyway
    target = await imageModePushTarget(s.cluster, s.target, s.caps, 'preflight');
  } catch (error) {
    if (error instanceof PushTargetError) return error.message;
    throw error;
  }
  // the internal registry: pushed with the builder ServiceAccount's secret, pulled with the credentials the MCO merges in
  if (target.source === 'internal registry') return undefined;
  const repository = target.pushSpec.replace(/:[^/:]+$/, '');
  let pushCredentials;
  try {
    pushCredentials = pushCredentialsFor(await buildCredentials(s.cluster, s.access), target.pushSpec);
  } catch (error) {
    return (error as Error).message;
  }
  try {
    await new RegistryClient({ credentials: pushCredentials, timeoutMs: 15_000 }).checkPushAccess(repository);
  } catch (error) {
    return `the image-mode build cannot push to ${repository} (${target.source}) with its push secret's credentials (the run's entry for it): ${(error as Error).message}`;
  }
  const { registry } = parseImageRef(repository);
  if (registry === INTERNAL_REGISTRY) return undefined;
  const pullSecret = await clusterPullSecret(s.cluster);
  if (pullSecret?.keyFor(repository)) return undefined;
  if ((await probe(repository)) !== 'private') return undefined;
  const missing = pullSecret ? `the cluster's pull secret openshift-config/pull-secret has no entry for ${registry}` : 'the cluster has no pull secret openshift-config/pull-secret';
  return `the nodes pull the image-mode build from ${repository} with the cluster's global pull secret, and ${missing}, while ${registry} refuses a pull without credentials: ${addToPullSecretHint(registry)}`;
}

/** The image-mode preflight of a real cluster: undefined on the reference target, and in phases that push nothing. */
export async function imageModeTargetReason(s: ImageModePreflightSession): Promise<string | undefined> {
  if (s.target.kind !== 'cluster' || (s.target.phase !== 'all' && s.target.phase !== 'pre')) return undefined;
  return multiArchComputeReason(s.watcher.snapshot()) ?? (await imageModePushReason(s));
}
