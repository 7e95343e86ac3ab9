/**
 * Render controller: for every pool, merge the MachineConfigs its selector picks into `rendered-<pool>-<hash>`,
 * create it when new (refresh its annotations when it exists), point `pool.spec.configuration` at it, and report
 * RenderDegraded.
 */
import { CONTROLLER_CONFIG_NAME } from '../constants.js';
import type { Controller, ControllerContext } from '../context.js';
import type { KubeObject } from '../../lib/kube/client.js';
import type { Informer } from '../../lib/kube/informer.js';
import { WorkQueue } from '../kube/workqueue.js';
import { setPoolCondition } from './node-status.js';
import { generateRenderedMachineConfig, isEmptySelector, selectorMatches } from './render.js';
import { controllerReleaseOf, isControllerConfigCompleted } from './template-controller.js';
import type { ControllerConfig, MachineConfig, MachineConfigPool } from './types.js';
import { mcoBuildFor } from './version.js';
import { semanticEqual } from '../equality.js';
import { mcoAt } from '../profiles/profile.js';

type CC = ControllerConfig & KubeObject;
type MC = MachineConfig & KubeObject;
type Pool = MachineConfigPool & KubeObject;

export class RenderController implements Controller {
  private pools!: Informer<Pool>;
  private mcs!: Informer<MC>;
  private ccs!: Informer<CC>;
  private readonly queue: WorkQueue;
  private readonly seenGenerations = new Map<string, number>();

  constructor(private readonly ctx: ControllerContext) {
    this.queue = new WorkQueue((pool) => this.sync(pool), { name: 'render-controller', signal: ctx.signal, clock: ctx.clock, log: (l) => ctx.log('render', l) });
  }

  setup(): void {
    this.pools = this.ctx.informers.for<Pool>('MachineConfigPool');
    this.mcs = this.ctx.informers.for<MC>('MachineConfig');
    this.ccs = this.ctx.informers.for<CC>('ControllerConfig');
    // status-only pool updates (the node controller writes many) do not change what renders
    this.pools.onChange((type, pool) => {
      const name = pool.metadata.name!;
      if (type === 'delete') return;
      const generation = pool.metadata.generation ?? 0;
      if (this.seenGenerations.get(name) === generation && type === 'update') return;
      this.seenGenerations.set(name, generation);
      this.queue.add(name);
    });
    this.mcs.onChange((_type, mc) => {
      if (mc.metadata.name?.startsWith('rendered-')) return;
      this.enqueueAll();
    });
    this.ccs.onChange(() => this.enqueueAll());
  }

  start(): void {
    this.enqueueAll();
    this.queue.start();
  }

  async stop(): Promise<void> {
    await this.queue.idle();
  }

  private enqueueAll(): void {
    for (const pool of this.pools.list()) this.queue.add(pool.metadata.name!);
  }

  private async sync(poolName: string): Promise<void> {
    const { client, profile, deviations, clock } = this.ctx;
    const pool = this.pools.get(poolName);
    if (!pool) return;
    if (isEmptySelector(pool.spec.machineConfigSelector)) {
      await client.event({ kind: 'MachineConfigPool', name: poolName, uid: pool.metadata.uid }, 'Warning', 'SelectingAll', `This machineconfigpool is selecting all machineconfigs. A non-empty selector is required.`, 'machineconfigcontroller-rendercontroller', clock.timestamp());
      return;
    }
    const cc = this.ccs.get(CONTROLLER_CONFIG_NAME);
    const release = cc ? controllerReleaseOf(cc) : undefined;
    if (!cc || !release || !isControllerConfigCompleted(cc)) return; // the ControllerConfig change will requeue us
    const build = mcoBuildFor(release, profile.name);
    const configs = this.mcs.list().filter((mc) => selectorMatches(pool.spec.machineConfigSelector, mc.metadata.labels ?? {}));
    const currentTarget = pool.spec.configuration?.name;
    let output;
    try {
      output = generateRenderedMachineConfig({
        pool,
        configs,
        controllerConfig: cc,
        mco: mcoAt(profile, release),
        build,
        reverseOrder: deviations.renderMergesInReverseOrder,
        stickyOsImageURL: deviations.renderKeepsCurrentOsImage && currentTarget ? this.mcs.get(currentTarget)?.spec?.osImageURL : undefined,
      });
    } catch (error) {
      await this.setRenderDegraded(poolName, `Failed to render configuration for pool ${poolName}: ${(error as Error).message}`);
      throw error;
    }
    const rendered = output.machineConfig;
    const name = rendered.metadata.name!;
    const announceOverride = () =>
      client.event({ kind: 'MachineConfig', name, apiVersion: rendered.apiVersion }, 'Normal', 'OSImageURLOverridden', `OSImageURL was overridden via machineconfig in ${name} (was: ${output.defaultUrl} is: ${rendered.spec.osImageURL})`, 'machineconfigcontroller-rendercontroller', clock.timestamp());
    // up to 4.19 (and 4.20 before OCPBUGS-62493's fix) every sync of an overridden pool announces the override again
    const announceEverySync = mcoAt(profile, release).render.overrideEventOnEverySync || deviations.renderRepeatsOverrideEvent;
    if (output.overridden && announceEverySync) await announceOverride();
    const existing = this.mcs.get(name) ?? (await client.get<MC>('MachineConfig', name));
    if (!existing) {
      await client.apply<MC>('MachineConfig', rendered as MC);
      if (output.overridden && !announceEverySync) await announceOverride();
      await client.event({ kind: 'MachineConfigPool', name: poolName, uid: pool.metadata.uid, apiVersion: pool.apiVersion }, 'Normal', 'RenderedConfigGenerated', `${name} successfully generated (release version: ${release}, controller version: ${build.hash})`, 'machineconfigcontroller-rendercontroller', clock.timestamp());
    } else {
      // ApplyMachineConfig: annotations are added or updated, never removed; the name pins the spec
      const stale = Object.entries(rendered.metadata.annotations ?? {}).some(([k, v]) => existing.metadata.annotations?.[k] !== v);
      if (stale) await client.patch('MachineConfig', name, { metadata: { annotations: rendered.metadata.annotations } });
    }
    if (currentTarget !== name || !semanticEqual(pool.spec.configuration?.source, output.sources)) {
      await client.patch('MachineConfigPool', poolName, { spec: { configuration: { name, source: output.sources } } });
      if (currentTarget !== name) this.ctx.log('render', `Pool ${poolName}: now targeting: ${name}`);
    }
    await this.setRenderDegraded(poolName, undefined);
  }

  private async setRenderDegraded(poolName: string, message: string | undefined): Promise<void> {
    const now = this.ctx.clock.timestamp();
    await this.ctx.client.updateStatus<Pool>('MachineConfigPool', poolName, (current) => {
      const before = current.status?.conditions ?? [];
      let conditions = setPoolCondition(before, { type: 'RenderDegraded', status: message ? 'True' : 'False', reason: '', message: message ?? '' }, now);
      const degraded = message !== undefined || before.some((c) => c.type === 'NodeDegraded' && c.status === 'True');
      conditions = setPoolCondition(conditions, { type: 'Degraded', status: degraded ? 'True' : 'False', reason: '', message: '' }, now);
      if (conditions === before) return undefined;
      return { ...(current.status ?? {}), conditions };
    });
  }
}

