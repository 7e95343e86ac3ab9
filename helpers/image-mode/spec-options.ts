/**
 * The frame of an upgrade spec that puts a custom pool of one worker in on-cluster image mode (spec 19; spec 15 is so): it makes
 * or takes its own pool (the run's plan gives it one alone), judges that pool's node, and is skipped before cluster
 * time where image mode is not there (the release's rules, the served API) or the pool is of several architectures.
 * `alsoNotOnCluster` adds the spec's own reason to skip, asked last.
 */
import type { ConformanceOptions, ConformanceSession } from '../conformance.js';
import { imageModeNotInRelease, imageModeNotServed, multiArchReason } from './applies.js';

export function imageModeUpgradeSpec(alsoNotOnCluster?: (s: ConformanceSession) => Promise<string | undefined>): ConformanceOptions {
  return {
    disruptive: true,
    upgrades: true,
    pools: { worker: { image: 'layered', alone: true } },
    nodesIn: ['worker'],
    notOn: imageModeNotInRelease,
    notOnCluster: async (s) => (await imageModeNotServed(s.cluster)) ?? multiArchReason(s.watcher.snapshot(), s.poolFor('worker')) ?? (await alsoNotOnCluster?.(s)),
  };
}
