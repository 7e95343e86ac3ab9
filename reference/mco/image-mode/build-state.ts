/**
 * A MachineOSBuild's conditions and what they say (MCO release-4.20 pkg/apihelpers/machineosbuild.go,
 * pkg/controller/common/mosb_state.go; modern-mco.md §1.3): all five types always present, with fixed reasons and
 * messages, exactly one of them True. This is what the node controller reads to know whether a pool's image is ready.
 */
import type { Condition } from '../types.js';
import type { MachineOSBuild, MachineOSConfig } from './types.js';
import { CURRENT_MOSB_ANNOTATION } from './names.js';

export type BuildState = 'Prepared' | 'Building' | 'Failed' | 'Interrupted' | 'Succeeded';

const TEXTS: Record<BuildState, { reason: string; message: string }> = {
  Prepared: { reason: 'Prepared', message: 'Build Prepared and Pending' },
  Building: { reason: 'Building', message: 'Image Build In Progress' },
  Failed: { reason: 'Failed', message: 'Build Failed' },
  Interrupted: { reason: 'Interrupted', message: 'Build Interrupted' },
  Succeeded: { reason: 'Ready', message: 'Build Ready' },
};

const ORDER: readonly BuildState[] = ['Prepared', 'Building', 'Failed', 'Interrupted', 'Succeeded'];

/**
 * The five conditions for `state` (MachineOSBuildPendingConditions, …RunningConditions, …FailedConditions,
 * …InterruptedConditions, …SucceededConditions): the one True, the others False with the same reasons and messages.
 * A condition whose status does not change keeps its transition time.
 */
export function conditionsFor(state: BuildState, before: readonly Condition[] | undefined, now: string): Condition[] {
  return ORDER.map((type) => {
    const status = type === state ? 'True' : 'False';
    const old = before?.find((c) => c.type === type);
    return { type, status, ...TEXTS[type], lastTransitionTime: old?.status === status && old.lastTransitionTime ? old.lastTransitionTime : now };
  });
}

/** The state the build's conditions say; undefined while none is True (just created). */
export function buildStateOf(mosb: Pick<MachineOSBuild, 'status'> | undefined): BuildState | undefined {
  const conditions = mosb?.status?.conditions ?? [];
  // terminal states first: once one is True the API keeps it so (CEL on the MachineOSBuild's status)
  for (const type of ['Succeeded', 'Failed', 'Interrupted', 'Building', 'Prepared'] as const) {
    if (conditions.some((c) => c.type === type && c.status === 'True')) return type;
  }
  return undefined;
}

/** Failed, Interrupted or Succeeded: nothing more happens to the build. */
export function isTerminal(state: BuildState | undefined): boolean {
  return state === 'Failed' || state === 'Interrupted' || state === 'Succeeded';
}

/** Whether the build succeeded and names the image it pushed. */
export function isBuildReady(mosb: MachineOSBuild | undefined): boolean {
  return buildStateOf(mosb) === 'Succeeded' && !!mosb?.status?.digestedImagePushSpec;
}

/**
 * The MachineOSBuild for a pool's current target (node_controller.go: the MOSB whose spec.machineConfig.name is the
 * pool's spec.configuration.name, for the pool's MachineOSConfig). The newest if several (a rebuild).
 */
export function buildForRenderedConfig(mosc: MachineOSConfig, renderedConfig: string | undefined, builds: readonly MachineOSBuild[]): MachineOSBuild | undefined {
  const mine = builds.filter((b) => b.spec.machineOSConfig.name === mosc.metadata.name && b.spec.machineConfig.name === renderedConfig && !b.metadata.deletionTimestamp);
  // the API sends a timestamp as text; a Date only where a caller built the object
  const created = (b: MachineOSBuild): number => new Date((b.metadata.creationTimestamp as unknown as string | undefined) ?? 0).getTime();
  return mine.sort((a, b) => created(b) - created(a))[0];
}

/**
 * The image a layered pool's nodes should run, or why not yet, as the node controller's `canLayeredContinue` words
 * it (MCO release-4.20 pkg/controller/node/node_controller.go): ready only when the build for the pool's target
 * succeeded and the MachineOSConfig already points at that build's image (OCPBUGS-53408).
 */
export type PoolImage = { ready: true; image: string; build: MachineOSBuild } | { ready: false; reason: string; failed: boolean; build?: MachineOSBuild };

export function poolImage(mosc: MachineOSConfig, renderedConfig: string | undefined, builds: readonly MachineOSBuild[]): PoolImage {
  const build = buildForRenderedConfig(mosc, renderedConfig, builds);
  const state = buildStateOf(build);
  if (!build || state === undefined || state === 'Prepared') return { ready: false, reason: 'Image build pending', failed: false, build };
  if (state === 'Building') return { ready: false, reason: 'Image build in progress', failed: false, build };
  if (state === 'Failed') return { ready: false, reason: `image build for MachineConfigPool ${mosc.spec.machineConfigPool.name} failed`, failed: true, build };
  if (state === 'Interrupted' || !build.status?.digestedImagePushSpec) return { ready: false, reason: 'Image is not ready yet', failed: false, build };
  const pullspec = build.status.digestedImagePushSpec;
  if (mosc.status?.currentImagePullSpec !== pullspec || mosc.metadata.annotations?.[CURRENT_MOSB_ANNOTATION] !== build.metadata.name) {
    return { ready: false, reason: `Image built successfully, pullspec: ${pullspec}, but MachineOSConfig "${mosc.metadata.name}" has not updated yet`, failed: false, build };
  }
  return { ready: true, image: pullspec, build };
}
