/**
 * Template controller: keeps the per-role template and generated MachineConfigs in line with the ControllerConfig
 * and marks the ControllerConfig completed, which the operator and the render controller wait for.
 */
import { ANN, CONTROLLER_CONFIG_NAME } from '../constants.js';
import type { Controller, ControllerContext } from '../context.js';
import type { KubeObject } from '../../lib/kube/client.js';
import type { Informer } from '../../lib/kube/informer.js';
import { WorkQueue } from '../kube/workqueue.js';
import { setOperatorCondition } from './operator-status.js';
import { machineConfigDiffers, ROLES, templateMachineConfigs } from './templates.js';
import type { ControllerConfig, MachineConfig } from './types.js';
import { mcoBuildFor } from './version.js';
import { mcoAt } from '../profiles/profile.js';

type CC = ControllerConfig & KubeObject;
type MC = MachineConfig & KubeObject;

/** The controller build follows the release the operator last rolled out, which it records on the ControllerConfig. */
export function controllerReleaseOf(cc: ControllerConfig): string | undefined {
  return cc.metadata.annotations?.[ANN.releaseImageVersion];
}

export function isControllerConfigCompleted(cc: ControllerConfig | undefined): boolean {
  if (!cc) return false;
  const done = cc.status?.conditions?.find((c) => c.type === 'TemplateControllerCompleted');
  return done?.status === 'True' && (cc.status?.observedGeneration ?? -1) >= (cc.metadata.generation ?? 0);
}

export class TemplateController implements Controller {
  private ccs!: Informer<CC>;
  private mcs!: Informer<MC>;
  private readonly queue: WorkQueue;

  constructor(private readonly ctx: ControllerContext) {
    this.queue = new WorkQueue(() => this.sync(), { name: 'template-controller', signal: ctx.signal, clock: ctx.clock, log: (l) => ctx.log('template', l) });
  }

  setup(): void {
    this.ccs = this.ctx.informers.for<CC>('ControllerConfig');
    this.mcs = this.ctx.informers.for<MC>('MachineConfig');
    this.ccs.onChange(() => this.queue.add(CONTROLLER_CONFIG_NAME));
    // a deleted or edited template is put back, as the real controller does
    this.mcs.onChange((type, mc) => {
      if (/^(00|01|97|98|99)-.*-(generated|container-runtime|kubelet)|^00-(master|worker)$/.test(mc.metadata.name ?? '') && type !== 'add') {
        this.queue.add(CONTROLLER_CONFIG_NAME);
      }
    });
  }

  start(): void {
    this.queue.add(CONTROLLER_CONFIG_NAME);
    this.queue.start();
  }

  async stop(): Promise<void> {
    await this.queue.idle();
  }

  private async sync(): Promise<void> {
    const { client, profile, deviations, clock } = this.ctx;
    const cc = this.ccs.get(CONTROLLER_CONFIG_NAME);
    if (!cc) return;
    const release = controllerReleaseOf(cc);
    if (!release) return;
    const build = mcoBuildFor(release, profile.name);
    for (const role of ROLES) {
      const keepOsImage = deviations.templateKeepsPreviousOsImage ? this.mcs.get(`00-${role}`)?.spec?.osImageURL : undefined;
      for (const wanted of templateMachineConfigs(role, cc, mcoAt(profile, release), build, { keepOsImage })) {
        const existing = this.mcs.get(wanted.metadata.name!);
        if (!existing) {
          await client.apply<MC>('MachineConfig', wanted as MC);
        } else if (machineConfigDiffers(existing, wanted)) {
          await client.patch('MachineConfig', wanted.metadata.name!, { metadata: { annotations: wanted.metadata.annotations, labels: wanted.metadata.labels }, spec: wanted.spec });
        }
      }
    }
    const now = clock.timestamp();
    await client.updateStatus<CC>('ControllerConfig', CONTROLLER_CONFIG_NAME, (current) => {
      if (isControllerConfigCompleted(current)) return undefined;
      let conditions = current.status?.conditions ?? [];
      conditions = setOperatorCondition(conditions, { type: 'TemplateControllerRunning', status: 'False', reason: '', message: '' }, now);
      conditions = setOperatorCondition(conditions, { type: 'TemplateControllerFailing', status: 'False', reason: '', message: '' }, now);
      conditions = setOperatorCondition(conditions, { type: 'TemplateControllerCompleted', status: 'True', reason: '', message: `sync completed towards (${current.metadata.generation ?? 0}) generation using controller version ${build.raw}` }, now);
      return { observedGeneration: current.metadata.generation ?? 0, conditions };
    });
  }
}
