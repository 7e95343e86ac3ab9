/**
 * Why a spec must not change or judge a pool that is in on-cluster image mode, said before cluster time: the pool's
 * nodes boot the image the MCO builds for it, whatever an osImageURL override or the release's OS image says. That
 * holds for the pool a spec names and for every pool that takes its MachineConfigs (a custom pool whose
 * machineConfigSelector selects role worker): a worker change lands on it too, makes the MCO build it again, and the
 * spec would judge its nodes with the worker pool against an image they do not boot.
 */
import { inheritingPools } from '../facts/pool.js';
import { isSuiteCustomPool } from '../plan/custom-pools.js';
import type { MachineConfigPool, MachineOSConfig } from '../types.js';

/** `inheritors: false` for a spec that changes a custom pool of its own only. */
export function imageModePoolReason(poolNames: readonly string[], pools: readonly MachineConfigPool[], imageMode: readonly MachineOSConfig[], options: { inheritors: boolean }): string | undefined {
  const moscOf = (pool: string) => imageMode.find((m) => m.spec?.machineConfigPool?.name === pool);
  for (const name of poolNames) {
    const mosc = moscOf(name);
    if (mosc) {
      return `pool ${name} is in on-cluster image mode (MachineOSConfig ${mosc.metadata.name}): its nodes boot the image the MCO builds for it, whatever an osImageURL override says, so this spec's override would judge nothing of the report's; run it on a pool without a MachineOSConfig`;
    }
  }
  if (!options.inheritors) return undefined;
  const theirs = pools.filter((p) => !isSuiteCustomPool(p));
  for (const [inheritor, role] of inheritingPools(poolNames, theirs)) {
    const mosc = moscOf(inheritor);
    if (mosc) {
      return `pool ${inheritor} takes pool ${role}'s MachineConfigs (its machineConfigSelector selects role ${role}) and is in on-cluster image mode (MachineOSConfig ${mosc.metadata.name}): this spec's changes to pool ${role} would reach it and make the MCO build its image again, and its nodes boot that build, not what this spec judges pool ${role} by; run the spec where no image-mode pool takes pool ${role}'s configs (or make that pool's machineConfigSelector select its own role only)`;
    }
  }
  return undefined;
}
