/**
 * The build controller's side of the pool condition ImageBuildDegraded (4.20+; the node controller's side, which only
 * clears it, is node-status.ts). Upstream's texts and when each is written:
 *  - a build starts: False, reason Building, "Build started for pool <pool>", unless it is False already
 *    (`initializeBuildDegradedCondition`);
 *  - a build succeeded: False, reason BuildSuccess, "Build succeeded for pool <pool>" (`syncBuildSuccessStatus`);
 *  - a build failed: True, reason BuildFailed, "Failed to build OS image for pool <pool> (MachineOSBuild: <mosb>):
 *    <reason>: <message>" of the build's Failed condition (`syncBuildFailureStatus`, `getBuildErrorFromMOSB`).
 * Which build decides differs by release (BuildCode.buildDegradedFollows):
 *  - 'failed-build' (release-4.20 afed09939, pkg/controller/build/reconciler.go `updateMachineOSBuild`, fff5a045b): the
 *    failed build sets it True unless another build of the MachineOSConfig is building, prepared or succeeded, or the
 *    MachineOSConfig's image is not the failed build's (it never is: a failed build pushed nothing). So a build that
 *    fails after an earlier one succeeded, as a rebuild on an upgrade does, leaves it False (OCPBUGS-61114);
 *  - 'active-build' (release-4.21 db84d8368 and 4.22, `updateImageBuildDegradedCondition`, `getCurrentBuild`; e56dd2516,
 *    merged 661e30e32 "OCPBUGS-61114: Fix ImageBuildDegraded Status updates"): at a build's start, failure and success
 *    the build the MachineOSConfig's current-build annotation names (else one building or prepared, else the newest)
 *    decides: failed True, succeeded False, building or prepared False as at a start.
 */
import type { Condition } from '../types.js';
import { buildStateOf, type BuildState } from './build-state.js';
import { CURRENT_MOSB_ANNOTATION } from './names.js';
import type { MachineOSBuild, MachineOSConfig } from './types.js';

export type BuildEvent = 'started' | 'failed' | 'succeeded';

/** The condition to write, or undefined to leave the pool alone. */
export type BuildDegradedWrite = { condition: Condition; onlyIfNotFalse?: boolean } | undefined;

const started = (pool: string): BuildDegradedWrite => ({ condition: { type: 'ImageBuildDegraded', status: 'False', reason: 'Building', message: `Build started for pool ${pool}` }, onlyIfNotFalse: true });
const succeeded = (pool: string): BuildDegradedWrite => ({ condition: { type: 'ImageBuildDegraded', status: 'False', reason: 'BuildSuccess', message: `Build succeeded for pool ${pool}` } });

function failed(pool: string, build: MachineOSBuild): BuildDegradedWrite {
  const f = build.status?.conditions?.find((c) => c.type === 'Failed' && c.status === 'True');
  // errUnknownBuildFailure when no Failed condition is True (helpers.go getBuildErrorFromMOSB)
  const error = f ? `${f.reason ?? ''}: ${f.message ?? ''}` : 'unknown build failure';
  return { condition: { type: 'ImageBuildDegraded', status: 'True', reason: 'BuildFailed', message: `Failed to build OS image for pool ${pool} (MachineOSBuild: ${build.metadata.name}): ${error}` } };
}

const isActive = (state: BuildState | undefined): boolean => state === 'Building' || state === 'Prepared';

/** getCurrentBuild: the annotated build, else one building or prepared, else the newest. */
export function currentBuildOf(mosc: MachineOSConfig, builds: readonly MachineOSBuild[]): MachineOSBuild | undefined {
  const annotated = mosc.metadata.annotations?.[CURRENT_MOSB_ANNOTATION];
  return (
    builds.find((b) => annotated && b.metadata.name === annotated) ??
    builds.find((b) => isActive(buildStateOf(b))) ??
    [...builds].sort((a, b) => String(b.metadata.creationTimestamp ?? '').localeCompare(String(a.metadata.creationTimestamp ?? '')))[0]
  );
}

/**
 * What the build controller writes on the pool when `build` of `mosc` has just started, failed or succeeded, given
 * every build of the MachineOSConfig (`builds`, the event's own among them).
 */
export function buildDegradedWrite(follows: 'failed-build' | 'active-build', event: BuildEvent, pool: string, mosc: MachineOSConfig, build: MachineOSBuild, builds: readonly MachineOSBuild[]): BuildDegradedWrite {
  if (follows === 'failed-build') {
    if (event === 'started') return started(pool);
    if (event === 'succeeded') return succeeded(pool);
    const superseded = builds.some((b) => b.metadata.name !== build.metadata.name && (isActive(buildStateOf(b)) || buildStateOf(b) === 'Succeeded'));
    const stale = (mosc.status?.currentImagePullSpec ?? '') !== '' && !(mosc.metadata.annotations?.[CURRENT_MOSB_ANNOTATION] === build.metadata.name && mosc.status?.currentImagePullSpec === build.status?.digestedImagePushSpec);
    return superseded || stale ? undefined : failed(pool, build);
  }
  const active = currentBuildOf(mosc, builds);
  if (!active) return succeeded(pool);
  const state = buildStateOf(active);
  if (state === 'Failed') return failed(pool, active);
  if (state === 'Succeeded') return succeeded(pool);
  if (isActive(state)) return started(pool);
  return undefined;
}
