/**
 * How a release shows an image-mode pool whose rebuild failed after an earlier build of it succeeded (a rebuild FROM
 * the new base on an upgrade, modern-mco.md §1.8, §2.1; QE 85980 judges the first build's failure, which differs).
 * Written from the MCO's release branches:
 *  - the node controller writes no pool status while the build of the pool's target config has failed and the
 *    MachineOSConfig already names an image (release-4.19..4.22 pkg/controller/node/node_controller.go
 *    `syncMachineConfigPool` returns `canLayeredContinue`'s "image build for MachineConfigPool … failed" before
 *    `syncStatusOnly`): Degraded and Updating stay as its last write, during the build, left them (Updating True
 *    "Pool is waiting for OS image build to complete", Degraded not True), so the upgrade is not held back by the pool
 *    (`syncRequiredMachineConfigPools` stops only on a Degraded one);
 *  - `updating-only` (4.18.z, 4.19: no ImageBuildDegraded at all; 4.20 at afed09939: the failed build sets it only
 *    when no other build of the MachineOSConfig succeeded and the MachineOSConfig's image is its own, never the case
 *    after an earlier success: OCPBUGS-61114): ImageBuildDegraded is not True;
 *  - `image-build-degraded` (4.21 db84d8368, 4.22 9027c94cd: `updateImageBuildDegradedCondition` follows the build
 *    the MachineOSConfig names, e56dd2516 merged 661e30e32): ImageBuildDegraded True, reason BuildFailed, message
 *    "Failed to build OS image for pool <pool> (MachineOSBuild: <mosb>): Failed: Build Failed"
 *    (pkg/controller/build/reconciler.go `syncBuildFailureStatus`, pkg/apihelpers/machineosbuild.go).
 * Every release deletes the failed build once a new build of the MachineOSConfig starts (`startBuild` →
 * `deleteOtherBuildsForMachineOSConfig`: every other build that did not succeed, release-4.18..4.22).
 */
import type { ReleaseRules } from './rules.js';

export type FailedRebuildShows = 'updating-only' | 'image-build-degraded';

export function failedRebuildShows(rules: Pick<ReleaseRules, 'minor'>): FailedRebuildShows {
  return rules.minor >= 21 ? 'image-build-degraded' : 'updating-only';
}

/** ImageBuildDegraded's message for a failed build (the Failed condition's reason and message, fixed strings). */
export function imageBuildDegradedMessage(pool: string, mosb: string): string {
  return `Failed to build OS image for pool ${pool} (MachineOSBuild: ${mosb}): Failed: Build Failed`;
}
