/**
 * Node controller: computes each pool's status from its nodes and points the next nodes (maxUnavailable, zone and
 * age order) at the pool's target rendered config through the desiredConfig annotation.
 *
 * Where the release serves MachineOSConfig (image mode), a pool with one is layered: its rollout waits until the
 * MachineOSBuild of its target config succeeded and the MachineOSConfig names that build's image, then each node gets
 * desiredConfig and desiredImage in one write (node_controller.go `canLayeredContinue`, `updateCandidateNode`;
 * layered-pool.ts). Once the MachineOSConfig is gone the pool is no longer layered and its nodes lose desiredImage,
 * which sends their daemons back to the rendered config's OS image.
 */
import type { V1Node } from '@kubernetes/client-node';
import { ANN } from '../constants.js';
import type { Controller, ControllerContext } from '../context.js';
import type { KubeObject } from '../../lib/kube/client.js';
import type { Informer } from '../../lib/kube/informer.js';
import { WorkQueue } from '../kube/workqueue.js';
import { calculateStatus, chooseCandidates, isConditionTrue, poolForNode, type ImageModeView } from './node-status.js';
import type { ControllerConfig, MachineConfigPool } from './types.js';
import { semanticEqual } from '../equality.js';
import { canLayeredContinue, continuesWithoutBuild, isLayered, layeredObjectsFor, moscImage, type LayeredObjects, type MachineOSBuildView, type MachineOSConfigView } from './layered-pool.js';
import { CONTROLLER_CONFIG_NAME } from '../constants.js';
import { controllerReleaseOf } from './template-controller.js';
import { mcoAt } from '../profiles/profile.js';
import { servesKind } from '../crds/served.js';

type Pool = MachineConfigPool & KubeObject;
type Node = V1Node & KubeObject;
type Mosc = MachineOSConfigView & KubeObject;
type Mosb = MachineOSBuildView & KubeObject;

/** What the controller last wrote to a node: its desired config, and its desired image (null: removed). */
interface PendingWrite {
  config: string;
  image: string | null;
}

const COMPONENT = 'machineconfigcontroller-nodecontroller';

export class NodeController implements Controller {
  private pools!: Informer<Pool>;
  private nodes!: Informer<Node>;
  /** Image mode's objects and the ControllerConfig (whose release says which code runs), where the API serves them. */
  private imageMode?: { configs: Informer<Mosc>; builds: Informer<Mosb>; controllerConfigs: Informer<ControllerConfig & KubeObject> };
  private readonly queue: WorkQueue;
  /**
   * desiredConfig (and desiredImage) values this controller wrote that the cache may not show yet. Without them a sync
   * right after a write would see the old value and point more nodes than maxUnavailable allows.
   */
  private readonly pendingDesired = new Map<string, PendingWrite>();

  constructor(private readonly ctx: ControllerContext) {
    this.queue = new WorkQueue((pool) => this.sync(pool), { name: 'node-controller', signal: ctx.signal, clock: ctx.clock, batchWallMs: 15, log: (l) => ctx.log('node-controller', l) });
  }

  setup(): void {
    this.pools = this.ctx.informers.for<Pool>('MachineConfigPool');
    this.nodes = this.ctx.informers.for<Node>('Node');
    this.pools.onChange((type, pool) => {
      if (type !== 'delete') this.queue.add(pool.metadata.name!);
    });
    this.setupImageMode();
    this.nodes.onChange((_type, node) => {
      const pending = this.pendingDesired.get(node.metadata!.name!);
      if (pending !== undefined && shows(node, pending)) this.pendingDesired.delete(node.metadata!.name!);
      try {
        const pool = poolForNode(node, this.pools.list());
        if (pool) this.queue.add(pool.metadata.name!);
      } catch (error) {
        this.ctx.log('node-controller', (error as Error).message);
      }
    });
  }

  /**
   * Watches MachineOSConfigs and MachineOSBuilds where the installed release's API serves them (4.18 on): a cluster of
   * older releases has no such resource, and an informer on it would fail the start.
   */
  private setupImageMode(): void {
    if (!servesKind(this.ctx.profile.releases.current.version, 'MachineOSConfig')) return;
    const { informers } = this.ctx;
    this.imageMode = {
      configs: informers.for<Mosc>('MachineOSConfig'),
      builds: informers.for<Mosb>('MachineOSBuild'),
      controllerConfigs: informers.for<ControllerConfig & KubeObject>('ControllerConfig'),
    };
    const { configs, builds } = this.imageMode;
    // a change of either (a delete too: the revert) is a change of the pool they name
    configs.onChange((_type, mosc) => {
      const pool = mosc.spec?.machineConfigPool?.name;
      if (pool) this.queue.add(pool);
    });
    builds.onChange((_type, mosb) => {
      const pool = configs.get(mosb.spec?.machineOSConfig?.name ?? '')?.spec?.machineConfigPool?.name;
      if (pool) this.queue.add(pool);
    });
  }

  /** The pool's image-mode objects and the code of the controller's release; undefined where there is no image mode. */
  private imageModeOf(pool: Pool): ImageModeView | undefined {
    if (!this.imageMode) return undefined;
    const { configs, builds, controllerConfigs } = this.imageMode;
    const cc = controllerConfigs.get(CONTROLLER_CONFIG_NAME);
    const release = (cc && controllerReleaseOf(cc)) || this.ctx.profile.releases.current.version;
    return { objects: layeredObjectsFor(pool, configs.list(), builds.list()), code: mcoAt(this.ctx.profile, release).nodeController };
  }

  start(): void {
    for (const pool of this.pools.list()) this.queue.add(pool.metadata.name!);
    this.queue.start();
  }

  async stop(): Promise<void> {
    await this.queue.idle();
  }

  private nodesOf(pool: Pool): Node[] {
    const pools = this.pools.list();
    const out: Node[] = [];
    for (const cached of this.nodes.list()) {
      let owner: MachineConfigPool | undefined;
      try {
        owner = poolForNode(cached, pools);
      } catch {
        continue;
      }
      if (owner?.metadata.name !== pool.metadata.name) continue;
      const pending = this.pendingDesired.get(cached.metadata!.name!);
      out.push(pending !== undefined && !shows(cached, pending) ? withPending(cached, pending) : cached);
    }
    return out;
  }

  private async sync(poolName: string): Promise<void> {
    const { client, clock } = this.ctx;
    const cached = this.pools.get(poolName);
    if (!cached) return;
    const now = clock.timestamp();
    const image = this.imageModeOf(cached);
    const verdict = !cached.spec.paused && image && isLayered(image.objects) ? canLayeredContinue(image.objects) : undefined;
    if (verdict?.error) {
      // syncMachineConfigPool returns canLayeredContinue's error before syncStatusOnly: while the target's build has
      // failed, the node controller writes no pool status at all (the same at release-4.20, 4.21 and 4.22)
      this.ctx.log('node-controller', `Layered pool ${poolName} encountered an error: ${verdict.error}`);
      return;
    }
    let before: MachineConfigPool['status'];
    let after: MachineConfigPool['status'];
    await client.updateStatus<Pool>(
      'MachineConfigPool',
      poolName,
      (current) => {
        const status = calculateStatus(current, this.nodesOf(current), now, this.imageModeOf(current));
        before = current.status;
        after = status;
        return semanticEqual(status, current.status) ? undefined : status;
      },
      cached,
    );
    this.recordTransitions(cached, before, after, now);
    const pool = this.pools.get(poolName) ?? cached;
    if (pool.spec.paused) return;
    const target = pool.spec.configuration?.name;
    if (!target) return;
    const layered = this.imageModeOf(pool)?.objects ?? {};
    if (isLayered(layered)) {
      // the pool is requeued by the next change of its MachineOSConfig or MachineOSBuild
      const { proceed, reason } = this.ctx.deviations.nodeControllerSkipsBuildWait ? continuesWithoutBuild(layered) : canLayeredContinue(layered);
      if (!proceed) {
        this.ctx.log('node-controller', `Requeueing layered pool ${poolName}: ${reason}`);
        return;
      }
    }
    const candidates = chooseCandidates(pool, this.nodesOf(pool), layered).filter((n) => !this.keepsBuiltImage(n, target, layered));
    if (candidates.length === 0) return;
    const write = desiredWrite(target, layered);
    await Promise.all(
      candidates.map(async (node) => {
        const name = node.metadata!.name!;
        this.pendingDesired.set(name, write);
        try {
          const annotations: Record<string, string | null> = { [ANN.desiredConfig]: write.config };
          // a merge patch's null removes desiredImage, as SetDesiredStateFromPool deletes it
          if (write.image !== null || node.metadata?.annotations?.[ANN.desiredImage] !== undefined) annotations[ANN.desiredImage] = write.image;
          await client.patch('Node', name, { metadata: { annotations } });
        } catch (error) {
          this.pendingDesired.delete(name);
          throw error;
        }
      }),
    );
    const involved = { kind: 'MachineConfigPool', name: poolName, uid: pool.metadata.uid };
    if (write.image !== null) {
      // setDesiredAnnotations' texts for a layered pool
      const update = `MachineConfig: ${write.config} / Image: ${write.image}`;
      const message = candidates.length === 1 ? `Targeted node ${candidates[0]!.metadata!.name} to ${update}` : `Set target for ${candidates.length} nodes to ${update}`;
      await client.event(involved, 'Normal', 'SetDesiredConfigAndOSImage', message, COMPONENT, now);
      return;
    }
    const message = candidates.length === 1 ? `Targeted node ${candidates[0]!.metadata!.name} to config ${target}` : `Set target for ${candidates.length} nodes to config ${target}`;
    await client.event(involved, 'Normal', 'SetDesiredConfig', message, COMPONENT, now);
  }

  /** Fault revert-keeps-built-image: a node of a pool no longer layered, already on its config, keeps its desiredImage. */
  private keepsBuiltImage(node: V1Node, target: string, layered: LayeredObjects): boolean {
    return this.ctx.deviations.nodeControllerKeepsImageOnRevert && !isLayered(layered) && node.metadata?.annotations?.[ANN.desiredConfig] === target;
  }

  private recordTransitions(pool: Pool, before: MachineConfigPool['status'], after: MachineConfigPool['status'], now: string): void {
    if (!after) return;
    const name = pool.metadata.name!;
    const target = pool.spec.configuration?.name ?? '';
    const involved = { kind: 'MachineConfigPool', name, uid: pool.metadata.uid };
    if (isConditionTrue(after.conditions, 'Updating') && !isConditionTrue(before?.conditions, 'Updating')) {
      void this.ctx.client.event(involved, 'Normal', 'Updating', `Pool ${name} now targeting ${target}`, COMPONENT, now);
    }
    if (isConditionTrue(after.conditions, 'Updated') && !isConditionTrue(before?.conditions, 'Updated')) {
      void this.ctx.client.event(involved, 'Normal', 'Completed', `Pool ${name} has completed update to ${target}`, COMPONENT, now);
    }
  }
}

/** SetDesiredStateFromMachineOSConfig for a layered pool (the build's config, the MachineOSConfig's image), else SetDesiredStateFromPool. */
function desiredWrite(target: string, layered: LayeredObjects): PendingWrite {
  if (!isLayered(layered)) return { config: target, image: null };
  return { config: layered.mosb?.spec?.machineConfig?.name ?? target, image: moscImage(layered.mosc) || null };
}

/** Whether the node as cached shows the controller's write. */
function shows(node: Node, pending: PendingWrite): boolean {
  const annotations = node.metadata?.annotations ?? {};
  return annotations[ANN.desiredConfig] === pending.config && (annotations[ANN.desiredImage] ?? null) === pending.image;
}

/** The node as it is once the controller's write lands. */
function withPending(node: Node, pending: PendingWrite): Node {
  const annotations: Record<string, string> = { ...node.metadata?.annotations, [ANN.desiredConfig]: pending.config };
  if (pending.image === null) delete annotations[ANN.desiredImage];
  else annotations[ANN.desiredImage] = pending.image;
  return { ...node, metadata: { ...node.metadata, annotations } } as Node;
}
