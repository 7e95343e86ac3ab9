/**
 * The frame of an upgrade spec that puts a custom pool of one worker in on-cluster image mode (specs 15, 16, 19): it
 * makes or takes its own pool (the run's plan gives it one alone), judges that pool's node, and is skipped before
 * cluster time where image mode is not there (the release's rules, the served API), where the pool is of several
 * architectures, and on a real cluster where the build could not be pushed or pulled or compute is multi-arch
 * (target-preflight.ts). `alsoNotOnCluster` adds the spec's own reason to skip, asked last.
 */
import type { ConformanceOptions, ConformanceSession } from '../conformance.js';
import { imageModeNotInRelease, imageModeNotServed, multiArchReason } from './applies.js';
import { imageModeTargetReason } from './target-preflight.js';

export function imageModeUpgradeSpec(alsoNotOnCluster?: (s: ConformanceSession) => Promise<string | undefined>): ConformanceOptions {
  return {
    disruptive: true,
    upgrades: true,
    pools: { worker: { image: 'layered', alone: true } },
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
