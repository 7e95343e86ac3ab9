/**
 * A MachineOSBuild's conditions and what they say (MCO release-4.20 pkg/apihelpers/machineosbuild.go,
 * pkg/controller/common/mosb_state.go; modern-mco.md §1.3): all five types always present, with fixed reasons and
 * messages, exactly one of them True. The build controller writes and reads them; the node controller reads a pool's
 * build through layered-pool.ts.
 */
import type { Condition } from '../types.js';
import type { MachineOSBuild } from './types.js';

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
