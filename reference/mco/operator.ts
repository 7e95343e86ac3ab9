/**
 * The machine-config operator's sync loop (spec §1.1, §5): syncProgressingStatus, then the tasks in their fixed order
 * (RenderConfig, MachineConfigPools, MachineConfigDaemon, MachineConfigController, MachineConfigServer,
 * RequiredPools) stopping at the first error, then Degraded, Available, Upgradeable, the version and related objects
 * on ClusterOperator `machine-config`.
 *
 * The operator's RELEASE_VERSION and RELEASE_IMAGE are its environment, fixed for the life of its process: they come
 * from the MCO "deployment" ConfigMap the CVO writes, read when the process starts. A new version there replaces the
 * whole process (reference/components.ts), as the new release's operator pod replaces the old one; nothing survives
 * in memory from one process to the next.
 */
import {
  CO_NAME,
  CONFIG_GROUP,
  CONTROLLER_CONFIG_NAME,
  CONTROLLER_CONFIG_WAIT_MS,
  MCO_DEPLOYMENT_CONFIGMAP,
  MCO_NAMESPACE,
  MINUTE,
  OSIMAGEURL_CONFIGMAP,
  REQUIRED_POOLS_POLL_MS,
  REQUIRED_POOLS_TIMEOUT_MS,
  ANN,
} from '../constants.js';
import { AbortedError } from '../clock.js';
import type { Controller, ControllerContext } from '../context.js';
import type { KubeObject } from '../../lib/kube/client.js';
import type { Informer } from '../../lib/kube/informer.js';
import { SyncLoop } from '../kube/sync-loop.js';
import { semanticEqual } from '../equality.js';
import { mcoAt, type McoBuild, type McoCode } from '../profiles/index.js';
import { createRng } from '../rng.js';
import { compareNames } from './render.js';
import { isConditionTrue } from './node-status.js';
import {
  clearDegradedStatus,
  goPrintVersions,
  goQuote,
  isRequiredPool,
  machineConfigPoolStatus,
  MCO_RELATED_OBJECTS,
  notFoundError,
  operatorVersionOf,
  requiredPoolsTick,
  requiredPoolsTimeoutError,
  SYNC_TASKS,
  syncAvailableStatus,
  syncDegradedStatus,
  syncProgressingStatus,
  syncUpgradeableStatus,
  syncVersion,
  type OperandVersion,
  type SyncError,
  type SyncTask,
} from './operator-status.js';
import { isControllerConfigCompleted } from './template-controller.js';
import { masterPool, workerPool } from './pools.js';
import type { Condition, ControllerConfig, MachineConfig, MachineConfigPool } from './types.js';
import { mcoBuildFor } from './version.js';
import { layeredPools, syncMachineOSBuilder } from './image-mode/builder-sync.js';
import type { MachineOSConfig } from './image-mode/types.js';

type CC = ControllerConfig & KubeObject;
type MC = MachineConfig & KubeObject;
type Pool = MachineConfigPool & KubeObject;
interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}
export interface ClusterOperatorObject extends KubeObject {
  status?: { conditions?: Condition[]; versions?: OperandVersion[]; extension?: Record<string, unknown> | null; relatedObjects?: readonly unknown[] };
}

const COMPONENT = 'machine-config-operator';

/** The images the RenderConfig task read from machine-config-osimageurl. */
interface OsImageUrls {
  osImageURL: string;
  baseOSContainerImage: string;
  baseOSExtensionsContainerImage: string;
}

class SyncFailure extends Error {}

/** The operator process's environment (its Deployment's env in a real cluster). */
export interface OperatorEnvironment {
  releaseVersion: string | undefined;
  releaseImage: string;
}

/** The environment a new operator process starts with: what the CVO last wrote into the MCO "deployment" ConfigMap. */
export async function readOperatorEnvironment(ctx: Pick<ControllerContext, 'client'>): Promise<OperatorEnvironment> {
  const cm = await ctx.client.get<ConfigMap>('ConfigMap', MCO_DEPLOYMENT_CONFIGMAP, MCO_NAMESPACE);
  return { releaseVersion: cm?.data?.RELEASE_VERSION, releaseImage: cm?.data?.RELEASE_IMAGE ?? '' };
}

/** One pass of syncAll: what it read at the start and the status it builds up as the tasks run. */
interface SyncPass {
  co: ClusterOperatorObject;
  operatorVersion: string;
  releaseImage: string;
  build: McoBuild;
  /** The versions the ClusterOperator reported when the pass began. */
  versionsBefore: OperandVersion[];
  /** The versions as the pass goes (the deviation `operatorReportsVersionEarly` moves them mid-pass). */
  versions: OperandVersion[];
  conditions: Condition[];
}

export class Operator implements Controller {
  private pools!: Informer<Pool>;
  private mcs!: Informer<MC>;
  private ccs!: Informer<CC>;
  private configMaps!: Informer<ConfigMap>;
  /** Only where the release has image mode (McoCode.build): older releases serve no MachineOSConfig. */
  private moscs?: Informer<MachineOSConfig>;
  private readonly loop: SyncLoop;
  /** Cluster time of the next informer resync, which runs a sync even when nothing changed. */
  private nextResyncMs = 0;
  private lastExtensionError?: string;
  private readonly rng;

  constructor(
    private readonly ctx: ControllerContext,
    private readonly env: OperatorEnvironment,
  ) {
    this.rng = createRng(ctx.seed ^ 0x6d636f);
    this.loop = new SyncLoop({
      clock: ctx.clock,
      signal: ctx.signal,
      sync: () => this.syncOnce(),
      // a short pause batches a burst of events into one sync, like the rate-limited queue does
      batchWallMs: 25,
      log: (l) => ctx.log('operator', l),
    });
  }

  setup(): void {
    this.pools = this.ctx.informers.for<Pool>('MachineConfigPool');
    this.mcs = this.ctx.informers.for<MC>('MachineConfig');
    this.ccs = this.ctx.informers.for<CC>('ControllerConfig');
    this.configMaps = this.ctx.informers.for<ConfigMap>('ConfigMap', MCO_NAMESPACE);
    this.pools.onChange(() => this.trigger());
    this.ccs.onChange(() => this.trigger());
    this.configMaps.onChange(() => this.trigger());
    if (this.code().build) {
      this.moscs = this.ctx.informers.for<MachineOSConfig>('MachineOSConfig');
      this.moscs.onChange(() => this.trigger());
    }
  }

  /** The sync tasks of this operator's release: 4.18+ run MachineOSBuilder before RequiredPools (pkg/operator/operator.go). */
  private tasks(): readonly SyncTask[] {
    if (!this.moscs) return SYNC_TASKS;
    return [...SYNC_TASKS.slice(0, -1), 'MachineOSBuilder', SYNC_TASKS[SYNC_TASKS.length - 1]!];
  }

  start(): void {
    this.nextResyncMs = this.ctx.clock.nowMs() + this.resyncPeriod();
    this.loop.start();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
  }

  /** The MCO code of the release this operator pod runs (its RELEASE_VERSION): a 4.13 operator after a 4.12 → 4.13 upgrade. */
  private code(): McoCode {
    return mcoAt(this.ctx.profile, this.env.releaseVersion);
  }

  private trigger(): void {
    this.loop.trigger();
  }

  /** One sync, with the informer resync kept scheduled. */
  private async syncOnce(): Promise<void> {
    const now = this.ctx.clock.nowMs();
    if (now >= this.nextResyncMs) this.nextResyncMs = now + this.resyncPeriod();
    this.loop.syncAt(this.nextResyncMs);
    await this.syncAll(this.ctx.signal);
  }

  /** Informers resync every 20-40 minutes (minResyncPeriod × a factor of 1-2). */
  private resyncPeriod(): number {
    return 20 * MINUTE * (1 + this.rng.next());
  }

  private async syncAll(pod: AbortSignal): Promise<void> {
    const operatorVersion = this.env.releaseVersion;
    if (!operatorVersion) return; // like the real operator without RELEASE_VERSION: nothing to sync towards
    const co = await this.ensureClusterOperator();
    const versions = co.status?.versions ?? [];
    const sync: SyncPass = {
      co,
      operatorVersion,
      releaseImage: this.env.releaseImage,
      build: mcoBuildFor(operatorVersion, this.ctx.profile.name),
      versionsBefore: versions,
      versions,
      conditions: co.status?.conditions ?? [],
    };
    await this.syncProgressing(sync);
    this.ctx.log('operator', `Syncing clusteroperator/${CO_NAME} for ${operatorVersion}: ${this.tasks().join(', ')}`);
    const error = await this.runTasks(sync, pod);
    if (pod.aborted) throw new AbortedError();
    // what the real operator's queue logs for a failed key; the pod's log is where a person looks for why
    if (error) this.ctx.log('operator', `Error syncing operator ${MCO_NAMESPACE}/${CO_NAME} (task ${error.task}): ${error.message}`);
    else this.ctx.log('operator', `Synced clusteroperator/${CO_NAME} for ${operatorVersion}`);
    await this.syncOutcome(sync, error);
  }

  /** Progressing=True "Working towards …" (and the event) before any task runs. */
  private async syncProgressing(sync: SyncPass): Promise<void> {
    const { client, clock } = this.ctx;
    const progressing = syncProgressingStatus({ conditions: sync.conditions, versions: sync.versions }, sync.operatorVersion, clock.timestamp());
    sync.conditions = progressing.conditions;
    if (progressing.started) {
      void client.event(this.coRef(), 'Normal', 'OperatorVersionChanged', `clusteroperator/${COMPONENT} started a version change from ${goPrintVersions(sync.versions)} to ${goPrintVersions([{ name: 'operator', version: sync.operatorVersion }])}`, COMPONENT, clock.timestamp());
    }
    await this.writeStatus(sync.co, { conditions: sync.conditions });
  }

  /** The tasks in their fixed order, stopping at the first error; a task that passes clears its Degraded reason. */
  private async runTasks(sync: SyncPass, pod: AbortSignal): Promise<SyncError | undefined> {
    let urls: OsImageUrls | undefined;
    for (const task of this.tasks()) {
      if (pod.aborted) throw new AbortedError();
      try {
        switch (task) {
          case 'RenderConfig':
            urls = this.renderConfig(sync.operatorVersion);
            break;
          case 'MachineConfigPools':
            await this.ensurePools();
            break;
          case 'MachineConfigController':
            await this.syncControllerConfig(urls!, sync.operatorVersion, sync.build, sync.releaseImage, pod);
            break;
          case 'MachineOSBuilder': {
            const layered = layeredPools(this.moscs!.list(), this.pools.list().map((p) => p.metadata.name!));
            await syncMachineOSBuilder(this.ctx.client, { version: sync.operatorVersion, image: sync.releaseImage }, layered, (l) => this.ctx.log('operator', l), this.ctx.deviations.operatorKeepsRunningBuilder);
            break;
          }
          case 'RequiredPools':
            await this.syncRequiredPools(sync.operatorVersion, sync.build, pod, () => this.refreshUpgradeable(sync), this.reportVersionEarly(sync));
            break;
          default:
            break; // the daemon set and the server have nothing to roll out in the reference
        }
      } catch (e) {
        if (e instanceof AbortedError) throw e;
        return { task, message: (e as Error).message };
      }
      sync.conditions = clearDegradedStatus(sync.conditions, task as SyncTask, this.ctx.clock.timestamp());
    }
    return undefined;
  }

  /** Whether an updating pool turns Upgradeable False (PoolUpdating): the release's code, or the fault of 4.18 before OCPBUGS-56517. */
  private poolUpdatingMakesNotUpgradeable(): boolean {
    return this.code().operator.upgradeableFalseWhilePoolsUpdate || this.ctx.deviations.operatorSaysPoolUpdating;
  }

  /** Like upstream, each failing check of the required-pools poll refreshes Upgradeable from the pools right away. */
  private async refreshUpgradeable(sync: SyncPass): Promise<void> {
    const next = syncUpgradeableStatus(sync.conditions, this.pools.list(), this.ctx.clock.timestamp(), this.poolUpdatingMakesNotUpgradeable());
    if (semanticEqual(next.find((c) => c.type === 'Upgradeable'), sync.conditions.find((c) => c.type === 'Upgradeable'))) return;
    sync.conditions = next;
    await this.writeStatus(sync.co, { conditions: sync.conditions });
  }

  /** With the deviation `operatorReportsVersionEarly`: what the required-pools poll calls once a pool is Updating. */
  private reportVersionEarly(sync: SyncPass): (() => Promise<void>) | undefined {
    if (!this.ctx.deviations.operatorReportsVersionEarly || operatorVersionOf(sync.versions) === sync.operatorVersion) return undefined;
    return async () => {
      sync.versions = [{ name: 'operator', version: sync.operatorVersion }];
      await this.writeStatus(sync.co, { conditions: sync.conditions, versions: sync.versions });
    };
  }

  /** Degraded, Available, Upgradeable, the version and the related objects, from what the tasks found. */
  private async syncOutcome(sync: SyncPass, error: SyncError | undefined): Promise<void> {
    const { client, clock } = this.ctx;
    const now = clock.timestamp();
    let conditions = syncDegradedStatus(sync.conditions, error, sync.operatorVersion, sync.versions, now);
    if (error) {
      void client.event(this.coRef(), 'Warning', `OperatorDegraded: ${error.task}Failed`, conditions.find((c) => c.type === 'Degraded')?.message ?? '', COMPONENT, now);
    }
    conditions = syncAvailableStatus(conditions, error, sync.versions, this.code().operator.availableFalseHasReason, now);
    conditions = syncUpgradeableStatus(conditions, this.pools.list(), now, this.poolUpdatingMakesNotUpgradeable());
    const newVersions = syncVersion(conditions, sync.versions, sync.operatorVersion);
    if (!semanticEqual(newVersions, sync.versionsBefore)) {
      void client.event(this.coRef(), 'Normal', 'OperatorVersionChanged', `clusteroperator/${COMPONENT} version changed from ${goPrintVersions(sync.versionsBefore)} to ${goPrintVersions(newVersions)}`, COMPONENT, now);
      this.loop.trigger(); // the next sync reports Progressing=False "Cluster version is …"
    }
    const extension = this.extension(error?.task === 'RequiredPools' ? this.lastExtensionError : undefined);
    if (!error) this.lastExtensionError = undefined;
    await this.writeStatus(sync.co, { conditions, versions: newVersions, extension, relatedObjects: MCO_RELATED_OBJECTS });
  }

  private coRef() {
    return { kind: 'ClusterOperator', name: CO_NAME, apiVersion: `${CONFIG_GROUP}/v1` };
  }

  private async ensureClusterOperator(): Promise<ClusterOperatorObject> {
    const existing = await this.ctx.client.get<ClusterOperatorObject>('ClusterOperator', CO_NAME);
    if (existing) return existing;
    const now = this.ctx.clock.timestamp();
    await this.ctx.client.apply<ClusterOperatorObject>('ClusterOperator', { apiVersion: `${CONFIG_GROUP}/v1`, kind: 'ClusterOperator', metadata: { name: CO_NAME } });
    return this.ctx.client.patchStatus<ClusterOperatorObject>('ClusterOperator', CO_NAME, {
      conditions: [
        { type: 'Available', status: 'False', reason: '', message: '', lastTransitionTime: now },
        { type: 'Progressing', status: 'False', reason: '', message: '', lastTransitionTime: now },
        { type: 'Degraded', status: 'False', reason: '', message: '', lastTransitionTime: now },
        { type: 'Upgradeable', status: 'Unknown', reason: 'NoData', message: '', lastTransitionTime: now },
      ],
    });
  }

  private lastWritten?: unknown;

  /** Write the parts of status that changed; the operator is the only writer of this status. */
  private async writeStatus(co: ClusterOperatorObject, status: NonNullable<ClusterOperatorObject['status']>): Promise<void> {
    const merged = { ...(co.status ?? {}), ...status };
    if (semanticEqual(merged, co.status) && semanticEqual(merged, this.lastWritten)) return;
    const patch: Record<string, unknown> = { ...status };
    if (status.extension !== undefined) {
      // merge patch merges objects: say explicitly that lastSyncError is gone
      patch.extension = { ...(status.extension ?? {}), lastSyncError: status.extension?.lastSyncError ?? null };
    }
    await this.ctx.client.patchStatus('ClusterOperator', CO_NAME, patch);
    co.status = merged;
    this.lastWritten = merged;
  }

  private extension(lastSyncError: string | undefined): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const pool of [...this.pools.list()].sort((a, b) => compareNames(a.metadata.name!, b.metadata.name!))) {
      out[pool.metadata.name!] = machineConfigPoolStatus(pool, this.code().operator.lastPoolConditionWins);
    }
    if (lastSyncError) out.lastSyncError = lastSyncError;
    return out;
  }

  // ---------------------------------------------------------------------------------------------------- tasks

  private renderConfig(operatorVersion: string): OsImageUrls {
    const { configMapKeys: keys, missingUrlsMessage } = this.code().operator;
    const cm = this.configMaps.get(OSIMAGEURL_CONFIGMAP);
    if (!cm) throw new SyncFailure(`configmaps "${OSIMAGEURL_CONFIGMAP}" not found`);
    const data = cm.data ?? {};
    if (data[keys.releaseVersion] !== operatorVersion) {
      throw new SyncFailure(`refusing to read osImageURL version ${goQuote(data[keys.releaseVersion] ?? '')}, operator version ${goQuote(operatorVersion)}`);
    }
    const osImageURL = data[keys.osImageURL] ?? '';
    const base = data[keys.baseOSContainerImage] ?? '';
    if (!osImageURL && !base) throw new SyncFailure(missingUrlsMessage);
    return {
      osImageURL,
      baseOSContainerImage: base,
      baseOSExtensionsContainerImage: keys.baseOSExtensionsContainerImage ? data[keys.baseOSExtensionsContainerImage] ?? '' : '',
    };
  }

  /** The URL the required-pools check expects: BUG reads `osImageURL`, FIX the new-format key. */
  private expectedOsImage(): string {
    const code = this.code();
    const data = this.configMaps.get(OSIMAGEURL_CONFIGMAP)?.data;
    if (!data) throw new Error(`configmaps "${OSIMAGEURL_CONFIGMAP}" not found`);
    const keys = code.operator.configMapKeys;
    const key = code.render.newFormatImageByDefault ? keys.baseOSContainerImage : keys.osImageURL;
    const value = data[key] || (code.render.newFormatImageByDefault ? data[keys.osImageURL] : data[keys.baseOSContainerImage]);
    if (!value) throw new Error(code.operator.missingUrlsMessage);
    return value;
  }

  private async ensurePools(): Promise<void> {
    for (const pool of [masterPool(), workerPool()]) {
      if (!this.pools.get(pool.metadata.name!)) await this.ctx.client.apply<Pool>('MachineConfigPool', pool as Pool);
    }
  }

  private async syncControllerConfig(urls: OsImageUrls, operatorVersion: string, build: McoBuild, releaseImage: string, pod: AbortSignal): Promise<void> {
    const { client, clock } = this.ctx;
    const cc = this.ccs.get(CONTROLLER_CONFIG_NAME) ?? (await client.get<CC>('ControllerConfig', CONTROLLER_CONFIG_NAME));
    if (!cc) throw new SyncFailure(`controllerconfigs.machineconfiguration.openshift.io "${CONTROLLER_CONFIG_NAME}" not found`);
    const wantedSpec: Record<string, unknown> = {
      osImageURL: urls.osImageURL,
      baseOSContainerImage: urls.baseOSContainerImage,
      baseOSExtensionsContainerImage: urls.baseOSExtensionsContainerImage,
    };
    if (releaseImage) wantedSpec.releaseImage = releaseImage;
    const wantedAnnotations = { [ANN.generatedByVersion]: build.raw, [ANN.releaseImageVersion]: operatorVersion };
    const specChanged = Object.entries(wantedSpec).some(([k, v]) => (cc.spec as Record<string, unknown>)[k] !== v);
    const annotationsChanged = Object.entries(wantedAnnotations).some(([k, v]) => cc.metadata.annotations?.[k] !== v);
    if (specChanged || annotationsChanged) {
      await client.patch('ControllerConfig', CONTROLLER_CONFIG_NAME, { metadata: { annotations: wantedAnnotations }, spec: wantedSpec });
    }
    const deadline = clock.nowMs() + CONTROLLER_CONFIG_WAIT_MS;
    for (;;) {
      // from the informer's cache, as the operator's waitForControllerConfigToBeCompleted reads its ccLister (a GET
      // per poll was 65 of spec 1's 779 requests)
      const fresh = this.ccs.get(CONTROLLER_CONFIG_NAME);
      if (isControllerConfigCompleted(fresh) && fresh?.metadata.annotations?.[ANN.releaseImageVersion] === operatorVersion) return;
      if (clock.nowMs() >= deadline) {
        throw new SyncFailure(`error during waitForControllerConfigToBeCompleted: [timed out waiting for the condition, controllerconfig ${CONTROLLER_CONFIG_NAME} has not completed]`);
      }
      await clock.pollSleep(REQUIRED_POOLS_POLL_MS, pod);
    }
  }

  private async syncRequiredPools(
    operatorVersion: string,
    build: McoBuild,
    pod: AbortSignal,
    refreshUpgradeable: () => Promise<void>,
    bumpEarly?: () => Promise<void>,
  ): Promise<void> {
    const { clock } = this.ctx;
    const code = this.code();
    // 4.14+: 10 minutes per machine of the required pools, counted when the loop starts
    const requiredMachines = this.pools.list().filter(isRequiredPool).reduce((n, p) => n + (p.status?.machineCount ?? 0), 0);
    const deadline = clock.nowMs() + (code.operator.requiredPools.timeoutPerRequiredMachine ? requiredMachines * REQUIRED_POOLS_TIMEOUT_MS : REQUIRED_POOLS_TIMEOUT_MS);
    let lastError: string | undefined;
    const get = (name: string): MachineConfig => {
      const mc = this.mcs.get(name);
      if (!mc) throw notFoundError(name);
      return mc;
    };
    for (;;) {
      await clock.pollSleep(REQUIRED_POOLS_POLL_MS, pod); // wait.Poll: the first check comes after one interval
      if (lastError !== undefined && lastError !== this.lastExtensionError) {
        this.lastExtensionError = lastError;
        const co = await this.ctx.client.get<ClusterOperatorObject>('ClusterOperator', CO_NAME);
        if (co) await this.writeStatus(co, { extension: this.extension(lastError) });
      }
      const pools = [...this.pools.list()].sort((a, b) => compareNames(a.metadata.name!, b.metadata.name!));
      if (bumpEarly && pools.some((p) => isRequiredPool(p) && isConditionTrue(p.status?.conditions, 'Updating'))) {
        await bumpEarly();
        bumpEarly = undefined;
      }
      const tick = requiredPoolsTick({
        pools,
        controllerVersion: build.hash,
        releaseVersion: operatorVersion,
        expectedOsImage: () => this.expectedOsImage(),
        get,
        skipOverriddenOsImage: code.operator.skipsOverriddenOsImageCheck,
        lastConditionWins: code.operator.lastPoolConditionWins,
        code: code.operator.requiredPools,
      });
      if (tick.kind === 'done') return;
      if (tick.kind === 'stop') {
        await refreshUpgradeable();
        throw new SyncFailure(tick.alone ? tick.error : `error during syncRequiredMachineConfigPools: [${tick.error}, ${tick.lastError}]`);
      }
      if (tick.logged) this.ctx.log('operator', tick.logged);
      if (tick.lastError !== undefined) {
        lastError = tick.lastError;
        await refreshUpgradeable();
      }
      if (clock.nowMs() >= deadline) {
        this.lastExtensionError = lastError;
        throw new SyncFailure(requiredPoolsTimeoutError(lastError));
      }
    }
  }
}
