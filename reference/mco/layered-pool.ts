/**
 * What the node controller reads of image mode (on-cluster layering) for one pool, from the API objects alone: the
 * pool's MachineOSConfig and the MachineOSBuild of its target rendered config, what the build's conditions say, and
 * whether the rollout may go on (MCO release-4.20 pkg/controller/node/node_controller.go `getConfigAndBuild`,
 * `canLayeredContinue`; pkg/controller/common/mos_state.go; the same at release-4.19). Whoever made the objects (the
 * build controller or a test by hand) does not matter here.
 */
import type { Condition, MachineConfigPool } from './types.js';

/** The fields of a v1 MachineOSConfig the node controller reads. */
export interface MachineOSConfigView {
  metadata: { name?: string; annotations?: Record<string, string> };
  spec?: { machineConfigPool?: { name?: string } };
  status?: { currentImagePullSpec?: string };
}

/** The fields of a v1 MachineOSBuild the node controller reads. */
export interface MachineOSBuildView {
  metadata: { name?: string; creationTimestamp?: string; deletionTimestamp?: string };
  spec?: { machineConfig?: { name?: string }; machineOSConfig?: { name?: string } };
  status?: { conditions?: Condition[]; digestedImagePushSpec?: string };
}

/** A pool's image-mode objects; the pool is layered when either exists (`isLayeredPool`). */
export interface LayeredObjects {
  mosc?: MachineOSConfigView;
  mosb?: MachineOSBuildView;
}

const isTrue = (mosb: MachineOSBuildView | undefined, type: string): boolean => mosb?.status?.conditions?.some((c) => c.type === type && c.status === 'True') ?? false;

/** MachineOSBuildState's predicates; upstream's IsBuildPending reads the Building condition too, so pending == building. */
export const buildSucceeded = (mosb: MachineOSBuildView | undefined): boolean => isTrue(mosb, 'Succeeded');
export const buildFailed = (mosb: MachineOSBuildView | undefined): boolean => isTrue(mosb, 'Failed');
export const buildRunning = (mosb: MachineOSBuildView | undefined): boolean => isTrue(mosb, 'Building');
export const buildPrepared = (mosb: MachineOSBuildView | undefined): boolean => isTrue(mosb, 'Prepared');

/** MachineOSConfigState.GetOSImage: the image the MachineOSConfig says the pool's nodes boot. */
export const moscImage = (mosc: MachineOSConfigView | undefined): string => mosc?.status?.currentImagePullSpec ?? '';

/**
 * getConfigAndBuild: the first MachineOSConfig whose spec names the pool, then the first MachineOSBuild of that config
 * for the pool's target rendered config. Lists come in name order, as a lister's do.
 */
export function layeredObjectsFor(pool: MachineConfigPool, configs: readonly MachineOSConfigView[], builds: readonly MachineOSBuildView[]): LayeredObjects {
  const byName = (a: { metadata: { name?: string } }, b: { metadata: { name?: string } }): number => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? '');
  const mosc = [...configs].sort(byName).find((c) => c.spec?.machineConfigPool?.name === pool.metadata.name);
  if (!mosc) return {};
  const target = pool.spec.configuration?.name;
  const mosb = [...builds].sort(byName).find((b) => b.spec?.machineOSConfig?.name === mosc.metadata.name && b.spec?.machineConfig?.name === target);
  return { mosc, mosb };
}

export const isLayered = (objects: LayeredObjects): boolean => objects.mosc !== undefined || objects.mosb !== undefined;

/** canLayeredContinue's answer: whether nodes may be pointed at the build now, why not, and its error where it has one. */
export interface LayeredVerdict {
  proceed: boolean;
  reason: string;
  error?: string;
}

/**
 * canLayeredContinue: the rollout waits until the build succeeded and the MachineOSConfig names its image
 * (OCPBUGS-53408, 4.19.0: config and image move together); a failed build is an error that requeues the pool.
 */
export function canLayeredContinue({ mosc, mosb }: LayeredObjects): LayeredVerdict {
  if (!mosc || !mosb) return { proceed: false, reason: 'No MachineOSConfig or MachineOSBuild for this pool' };
  const image = moscImage(mosc);
  if (!image) return { proceed: false, reason: 'Desired image not set in MachineOSConfig' };
  if (buildSucceeded(mosb)) {
    if (mosb.status?.digestedImagePushSpec === image) return { proceed: true, reason: `Image built successfully, pullspec: ${image}` };
    return { proceed: false, reason: `Image built successfully, pullspec: ${image}, but MachineOSConfig "${mosc.metadata.name}" has not updated yet` };
  }
  if (buildRunning(mosb)) return { proceed: false, reason: 'Image build pending' };
  if (buildFailed(mosb)) return { proceed: false, reason: 'Image build failed', error: `image build for MachineConfigPool ${mosb.metadata.name} failed` };
  return { proceed: false, reason: 'Image is not ready yet' };
}

/**
 * Fault node-controller-moves-config-before-image (OCPBUGS-53408 as reported, before MCO 57eee4a69, 4.19.0): the node
 * controller goes on as soon as the MachineOSConfig names an image, whatever the build of the pool's target config
 * says, so nodes get the new rendered config beside the old image while that config is still being built. Upstream's
 * window was narrower (the build Succeeded, the MachineOSConfig not yet pointed at it: canLayeredPoolContinue checked
 * the build, not that the MachineOSConfig named its image); here the build controller points the MachineOSConfig at
 * a build in the same sync, so the fault opens the window the bug's report describes: the whole build.
 */
export function continuesWithoutBuild({ mosc, mosb }: LayeredObjects): LayeredVerdict {
  const image = moscImage(mosc);
  if (!image) return canLayeredContinue({ mosc, mosb });
  return { proceed: true, reason: `Image built successfully, pullspec: ${image}` };
}
