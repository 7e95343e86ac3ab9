/**
 * The frame of a spec that puts a custom pool of one worker in on-cluster image mode (upgrades: specs 15, 16, 19): it
 * makes or takes its own pool (the run's plan gives it one alone), judges that pool's node, and is skipped before
 * cluster time where image mode is not there (the release's rules, the served API), where the pool is of several
 * architectures, and on a real cluster where the build could not be pushed or pulled or compute is multi-arch
 * (target-preflight.ts). `alsoNotOnCluster` adds the spec's own reason to skip, asked last.
 */
import type { ConformanceOptions, ConformanceSession } from '../conformance.js';
import { imageModeNotInRelease, imageModeNotServed, multiArchReason } from './applies.js';
import { imageModeTargetReason } from './target-preflight.js';

/**
 * The frame of an image-mode spec that does not upgrade (specs 17, 18): the same pool and the same reasons to skip,
 * and it runs whole, with --phase all.
 */
export function imageModePoolSpec(alsoNotOnCluster?: (s: ConformanceSession) => Promise<string | undefined>): ConformanceOptions {
  return {
    disruptive: true,
    nodesIn: ['worker'],
    ownCustomPool: true,
    notOn: imageModeNotInRelease,
    notOnCluster: async (s) =>
      (await imageModeNotServed(s.cluster)) ??
      multiArchReason(s.watcher.snapshot(), s.poolFor('worker')) ??
      (await imageModeTargetReason(s)) ??
      (await alsoNotOnCluster?.(s)),
  };
}

export function imageModeUpgradeSpec(alsoNotOnCluster?: (s: ConformanceSession) => Promise<string | undefined>): ConformanceOptions {
  return { ...imageModePoolSpec(alsoNotOnCluster), upgrades: true, pools: { worker: { image: 'layered', alone: true } } };
}
