/**
 * What a machine-os-builder does about the pools when it starts (AddMachineConfigPool → syncMachineConfigPools →
 * reconcilePoolChange for every pool, MCO pkg/controller/build/reconciler.go), apart from the level-triggered build
 * controller (build-controller.ts).
 *
 * Released code does nothing here that the build controller does not do anyway:
 *  - 4.18-4.19 (release-4.19 `syncMachineConfigPool` → `createNewMachineOSBuildOrReuseExistingForPoolChange` →
 *    `createNewMachineOSBuildOrReuseExisting(mosc, false)`): a MachineOSBuild of the target config that exists is
 *    reused (`reuseExistingMachineOSBuildIfPossible`), never made again while its image is in the registry;
 *  - 4.20.0 and later (release-4.20 after OCPBUGS-58238's fix, 35bc4a2b0, merged 5a97a9a29 on 2025-07-21): the
 *    build of the target config is looked up first, and one that succeeded is reused, one in progress left alone.
 * Fault builder-rebuilds-built-config-on-restart plays the code between 97cecaed0 (merged a4ec776a8, 2025-06-19, on
 * the way to 4.20) and that fix: reconcilePoolChange passed "the change needs a new image" as `isRebuild`, so a
 * builder started while a pool's target config differs from its rolled-out one by what RequiresRebuild reads (an
 * upgrade's osImageURL) deleted the MachineOSBuild of the target config, built or building, and made it anew: the
 * config is built a second time. Its builder restarts whenever the node it runs on is drained (mcd/drain-evictions.ts),
 * which an upgrade does to every node. Upstream's deletion also removes the build's image from the registry unless a
 * node of the pool is on it or told it (`deleteMOSBImage`); the reference removes no images, so the degraded pools of
 * the bug's report, which that removal is said to have caused (PR 5161: "accidental image removal on controller
 * restarts"), are not played.
 */
import type { Controller, ControllerContext } from '../../context.js';
import type { KubeObject } from '../../../lib/kube/client.js';
import type { Informer } from '../../../lib/kube/informer.js';
import { MCO_NAMESPACE } from '../../constants.js';
import type { MachineConfig, MachineConfigPool } from '../types.js';
import { requiresRebuild } from './decisions.js';
import {
  basePullSecretName,
  buildJobName,
  containerfileConfigMapName,
  CURRENT_MOSB_ANNOTATION,
  digestConfigMapName,
  finalPushSecretName,
  machineConfigConfigMapName,
} from './names.js';
import type { MachineOSBuild, MachineOSConfig } from './types.js';

type Pool = MachineConfigPool & KubeObject;
type MC = MachineConfig & KubeObject;

export class BuilderStartSync implements Controller {
  private moscs!: Informer<MachineOSConfig>;
  private mosbs!: Informer<MachineOSBuild>;
  private pools!: Informer<Pool>;
  private mcs!: Informer<MC>;
  private work = Promise.resolve();

  constructor(private readonly ctx: ControllerContext) {}

  setup(): void {
    this.moscs = this.ctx.informers.for<MachineOSConfig>('MachineOSConfig');
    this.mosbs = this.ctx.informers.for<MachineOSBuild>('MachineOSBuild');
    this.pools = this.ctx.informers.for<Pool>('MachineConfigPool');
    this.mcs = this.ctx.informers.for<MC>('MachineConfig');
  }

  start(): void {
    if (!this.ctx.deviations.builderRemakesTargetBuildOnStart) return;
    this.work = this.remakeTargetBuilds().catch((e) => this.ctx.log('machine-os-builder', `could not sync MachineConfigPools: ${(e as Error).message}`));
  }

  async stop(): Promise<void> {
    await this.work;
  }

  /** reconcilePoolChange at start, as 97cecaed0 wrote it: a target config that needs a new image has its build remade. */
  private async remakeTargetBuilds(): Promise<void> {
    for (const mosc of this.moscs.list()) {
      const pool = this.pools.get(mosc.spec.machineConfigPool.name);
      const target = pool?.spec.configuration?.name;
      const rolledOut = pool?.status?.configuration?.name;
      // a MachineOSConfig never built has no current build: upstream returns an error there and builds nothing
      if (!pool || !target || !rolledOut || target === rolledOut || !mosc.metadata.annotations?.[CURRENT_MOSB_ANNOTATION]) continue;
      const [oldMC, newMC] = [this.mcs.get(rolledOut), this.mcs.get(target)];
      if (!oldMC || !newMC || !requiresRebuild(oldMC, newMC)) continue;
      const build = this.mosbs.list().find((b) => b.spec.machineOSConfig.name === mosc.metadata.name && b.spec.machineConfig.name === target && !b.metadata.deletionTimestamp);
      if (!build) continue;
      this.ctx.log('machine-os-builder', `pool "${pool.metadata.name}": detected extension/kernel/kargs/OSImageURL change → will rebuild image`);
      // createNewMachineOSBuildOrReuseExisting(isRebuild: true): the existing build goes with what its deletion
      // cleans (DeleteMachineOSBuild → deleteBuilderForMachineOSBuild: the Job, the ephemeral objects, the digest
      // ConfigMap, which createNewMachineOSBuildForRebuild deletes again), and the build controller makes the
      // missing build of the target config again
      await this.removeBuild(build.metadata.name!);
      this.ctx.log('machine-os-builder', `deleted existing MOSB "${build.metadata.name}" to build it again`);
    }
  }

  private async removeBuild(name: string): Promise<void> {
    const { client } = this.ctx;
    await client.delete('Job', buildJobName(name), MCO_NAMESPACE);
    for (const cm of [containerfileConfigMapName(name), machineConfigConfigMapName(name), digestConfigMapName(name)]) await client.delete('ConfigMap', cm, MCO_NAMESPACE);
    for (const secret of [basePullSecretName(name), finalPushSecretName(name)]) await client.delete('Secret', secret, MCO_NAMESPACE);
    await client.delete('MachineOSBuild', name);
  }
}
