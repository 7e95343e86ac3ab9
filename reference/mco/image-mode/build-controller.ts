/**
 * The build controller that machine-os-builder runs (MCO release-4.20 pkg/controller/build/reconciler.go,
 * imagebuilder/jobimagebuilder.go; modern-mco.md §1.3-1.6, §2.1-2.2), level-triggered per MachineOSConfig:
 *  - names the MachineOSBuild for the pool's rendered config (build-name.ts); a new name builds, or on 4.20+ reuses
 *    the last image when the new config needs none (`reuseImageForNewMOSB`: a new build Succeeded at once with the old
 *    digest, no Job); a running build of the same MachineOSConfig that the new one supersedes is deleted
 *    (`deleteOtherBuildsForMachineOSConfig`);
 *  - starts a build: the ephemeral ConfigMaps and Secrets and the Job `build-<mosb>` (build-job.ts), the build's
 *    status Prepared with its builder and related objects;
 *  - follows the Job (`MapJobStatusToBuildStatus`): Building while it runs, Failed after backoffLimit + 1 failed pods
 *    (ephemeral objects kept for inspection), Interrupted when the Job goes before an end, Succeeded with
 *    `digestedImagePushSpec` from ConfigMap `digest-<mosb>`; on success the Job and ephemeral objects are deleted and
 *    the MachineOSConfig points at the build (`updateMachineOSConfigStatus`);
 *  - honours the rebuild annotation (`rebuildMachineOSConfig`): the current build deleted, built again, the
 *    annotation removed; deletes a deleted MachineOSConfig's builds.
 * From 4.20 it sets the pool's ImageBuildDegraded as the release does (pool-build-condition.ts). A build's start names
 * it on the MachineOSConfig (the current-build annotation) and deletes every other build that did not succeed.
 */
import { MC_GROUP, MCO_NAMESPACE, OSIMAGEURL_CONFIGMAP } from '../../constants.js';
import type { Controller, ControllerContext } from '../../context.js';
import type { KubeObject } from '../../../lib/kube/client.js';
import type { Informer } from '../../../lib/kube/informer.js';
import { WorkQueue } from '../../kube/workqueue.js';
import { SUPPORTED_EXTENSIONS } from '../../mcd/node-config.js';
import { mcoAt } from '../../profiles/profile.js';
import type { BuildCode } from '../../profiles/profile.js';
import type { MachineConfig, MachineConfigPool } from '../types.js';
import { machineConfigArchive } from './build-context.js';
import { buildJob, ephemeralConfigMaps, ephemeralSecrets, type BuildJobInputs } from './build-job.js';
import { machineOSBuildName, osImageInputsFor, repositoryOf, withTag } from './build-name.js';
import { buildStateOf, conditionsFor, isBuildReady, isTerminal, type BuildState } from './build-state.js';
import { KERNEL_PACKAGES, renderContainerfile, userContainerfileOf } from './containerfile.js';
import { buildDegradedWrite, type BuildEvent } from './pool-build-condition.js';
import { setPoolCondition } from '../node-status.js';
import { buildImagesFor, needsNewImage } from './decisions.js';
import {
  CURRENT_MOSB_ANNOTATION,
  GLOBAL_PULL_SECRET_COPY,
  MOSC_LABEL,
  PUSH_SECRET_ANNOTATION,
  REBUILD_ANNOTATION,
  RENDERED_MC_LABEL,
  TARGET_POOL_LABEL,
  basePullSecretName,
  buildJobName,
  containerfileConfigMapName,
  digestConfigMapName,
  finalPushSecretName,
  machineConfigConfigMapName,
} from './names.js';
import type { MachineOSBuild, MachineOSConfig } from './types.js';

type Pool = MachineConfigPool & KubeObject;
type MC = MachineConfig & KubeObject;
interface Data extends KubeObject {
  data?: Record<string, string>;
  type?: string;
}
interface Job extends KubeObject {
  status?: { active?: number; succeeded?: number; failed?: number; startTime?: string; completionTime?: string; conditions?: Array<{ type: string; status: string }> };
}

/** The Job's backoffLimit: a build fails after this many retries, 4 pods in all (constants.JobMaxRetries). */
const JOB_MAX_RETRIES = 3;

/** What a Job's status says of its build (MapJobStatusToBuildStatus). */
export function buildStateOfJob(job: Job): BuildState {
  const s = job.status ?? {};
  const failed = s.failed ?? 0;
  const succeeded = s.succeeded ?? 0;
  if (job.metadata.deletionTimestamp && succeeded === 0 && failed < JOB_MAX_RETRIES + 1) return 'Interrupted';
  const condition = (type: string): boolean => (s.conditions ?? []).some((c) => c.type === type && c.status === 'True');
  if (succeeded > 0) return condition('Failed') ? 'Failed' : !s.conditions?.length || condition('Complete') ? 'Succeeded' : 'Building';
  if (failed >= JOB_MAX_RETRIES + 1 || condition('Failed')) return 'Failed';
  if ((s.active ?? 0) === 0 && failed === 0) return 'Prepared';
  return 'Building';
}

export class BuildController implements Controller {
  private moscs!: Informer<MachineOSConfig>;
  private mosbs!: Informer<MachineOSBuild>;
  private pools!: Informer<Pool>;
  private mcs!: Informer<MC>;
  private jobs!: Informer<Job>;
  private configMaps!: Informer<Data>;
  private readonly queue: WorkQueue;

  /** `releaseVersion` and `mcoImage`: the release this builder's pod runs (its Deployment's). */
  constructor(
    private readonly ctx: ControllerContext,
    private readonly release: { version: string | undefined; mcoImage: string },
  ) {
    this.queue = new WorkQueue((mosc) => this.sync(mosc), { name: 'machine-os-builder', signal: ctx.signal, clock: ctx.clock, log: (l) => ctx.log('machine-os-builder', l) });
  }

  setup(): void {
    this.moscs = this.ctx.informers.for<MachineOSConfig>('MachineOSConfig');
    this.mosbs = this.ctx.informers.for<MachineOSBuild>('MachineOSBuild');
    this.pools = this.ctx.informers.for<Pool>('MachineConfigPool');
    this.mcs = this.ctx.informers.for<MC>('MachineConfig');
    this.jobs = this.ctx.informers.for<Job>('Job', MCO_NAMESPACE);
    this.configMaps = this.ctx.informers.for<Data>('ConfigMap', MCO_NAMESPACE);
    this.moscs.onChange((_t, mosc) => this.queue.add(mosc.metadata.name!));
    this.mosbs.onChange((_t, mosb) => this.queue.add(mosb.spec.machineOSConfig.name));
    this.pools.onChange(() => this.enqueueAll());
    this.jobs.onChange((_t, job) => this.enqueueLabelled(job));
    this.configMaps.onChange((_t, cm) => (cm.metadata.name === OSIMAGEURL_CONFIGMAP ? this.enqueueAll() : this.enqueueLabelled(cm)));
  }

  start(): void {
    this.enqueueAll();
    this.queue.start();
  }

  async stop(): Promise<void> {
    await this.queue.idle();
  }

  private enqueueAll(): void {
    for (const mosc of this.moscs.list()) this.queue.add(mosc.metadata.name!);
  }

  private enqueueLabelled(obj: KubeObject): void {
    const mosc = obj.metadata.labels?.[MOSC_LABEL];
    if (mosc) this.queue.add(mosc);
  }

  private code(): BuildCode | undefined {
    return mcoAt(this.ctx.profile, this.release.version).build;
  }

  /** The release's build decisions; fault build-on-every-config-change plays 4.19's on every release. */
  private decisionCode(code: BuildCode): BuildCode {
    return this.ctx.deviations.builderBuildsEveryConfig ? { ...code, rebuildOn: 'any-change' } : code;
  }

  private log(line: string): void {
    this.ctx.log('machine-os-builder', line);
  }

  private buildsOf(mosc: string): MachineOSBuild[] {
    return this.mosbs.list().filter((b) => b.spec.machineOSConfig.name === mosc && !b.metadata.deletionTimestamp);
  }

  private async sync(name: string): Promise<void> {
    const code = this.code();
    if (!code) return;
    const mosc = this.moscs.get(name);
    if (!mosc) {
      // deleteMachineOSConfig: its builds go with it (their Jobs by owner reference); not with fault
      // deleted-config-keeps-builds
      if (!this.ctx.deviations.builderKeepsDeletedConfigsBuilds) for (const b of this.buildsOf(name)) await this.deleteBuild(b);
      return;
    }
    const pool = this.pools.get(mosc.spec.machineConfigPool.name);
    const renderedName = pool?.spec.configuration?.name;
    const rendered = renderedName ? this.mcs.get(renderedName) : undefined;
    if (!pool || !rendered) return; // the pool's render will wake us
    const osImageUrls = this.configMaps.get(OSIMAGEURL_CONFIGMAP, MCO_NAMESPACE)?.data;
    const os = osImageInputsFor(code, { osImageUrlConfigMap: osImageUrls, renderedConfig: rendered });
    if (!os) return;
    const target = machineOSBuildName(mosc, pool, os);
    // fault build-ignores-rebuild-annotation: the annotation is never looked at
    if (mosc.metadata.annotations?.[REBUILD_ANNOTATION] !== undefined && !this.ctx.deviations.builderIgnoresRebuildAnnotation) {
      await this.rebuild(mosc, target);
      return;
    }
    const existing = this.mosbs.get(target);
    if (existing && !existing.metadata.deletionTimestamp) {
      await this.syncBuild(existing, mosc);
      return;
    }
    if (existing) return; // being deleted (a rebuild): its deletion wakes us
    const current = this.buildOfCurrentImage(mosc);
    const previousConfig = current ? this.mcs.get(current.spec.machineConfig.name) : undefined;
    if (current && isBuildReady(current) && previousConfig && previousConfig.metadata.name !== rendered.metadata.name && !needsNewImage(this.decisionCode(code), previousConfig, rendered)) {
      this.log(`pool "${pool.metadata.name}": No new image needs to be created, reusing last MOSB`);
      await this.createBuild(mosc, pool, target, current);
      return;
    }
    this.log(`pool "${pool.metadata.name}": detected extension/kernel/kargs/OSImageURL change → will rebuild image`);
    await this.createBuild(mosc, pool, target);
  }

  /**
   * The build whose image the MachineOSConfig names (GetMachineOSBuildForImagePullspec): the annotated one where it
   * is that image's, else the newest of that image (reused builds share it). Not the annotation alone: it names a
   * build from its start, before it has an image.
   */
  private buildOfCurrentImage(mosc: MachineOSConfig): MachineOSBuild | undefined {
    const pullspec = mosc.status?.currentImagePullSpec;
    if (!pullspec) return undefined;
    const ofImage = this.buildsOf(mosc.metadata.name!).filter((b) => b.status?.digestedImagePushSpec === pullspec);
    const annotated = ofImage.find((b) => b.metadata.name === mosc.metadata.annotations?.[CURRENT_MOSB_ANNOTATION]);
    return annotated ?? ofImage.sort((a, b) => String(b.metadata.creationTimestamp ?? '').localeCompare(String(a.metadata.creationTimestamp ?? '')))[0];
  }

  /**
   * deleteOtherBuildsForMachineOSConfig, as startBuild runs it on every release (4.18-4.22): every other build of the
   * MachineOSConfig that did not succeed goes, a running one it supersedes and a failed one alike (QE 85980: a fixed
   * Containerfile's build removes the failed build).
   */
  private async deleteOtherBuilds(build: MachineOSBuild): Promise<void> {
    for (const other of this.buildsOf(build.spec.machineOSConfig.name)) {
      if (other.metadata.name === build.metadata.name || buildStateOf(other) === 'Succeeded') continue;
      this.log(`Found running MachineOSBuild ${other.metadata.name} for MachineOSConfig ${build.spec.machineOSConfig.name}, deleting...`);
      await this.deleteBuild(other);
    }
  }

  /** ImageBuildDegraded on the build's pool, where and as the release writes it (pool-build-condition.ts). */
  private async writeBuildDegraded(event: BuildEvent, mosc: MachineOSConfig, build: MachineOSBuild): Promise<void> {
    const code = this.code();
    if (!code?.poolImageBuildDegraded) return;
    // fault failed-build-hidden-after-success: release-4.20's rule on every release (OCPBUGS-61114 before its fix)
    const follows = this.ctx.deviations.buildDegradedSkipsLaterFailures ? 'failed-build' : code.buildDegradedFollows;
    const builds = [...this.buildsOf(mosc.metadata.name!).filter((b) => b.metadata.name !== build.metadata.name), build];
    const pool = mosc.spec.machineConfigPool.name;
    const write = buildDegradedWrite(follows, event, pool, mosc, build, builds);
    if (!write) return;
    const now = this.ctx.clock.timestamp();
    await this.ctx.client.updateStatus<Pool>('MachineConfigPool', pool, (current) => {
      const conditions = current.status?.conditions ?? [];
      if (write.onlyIfNotFalse && conditions.some((c) => c.type === write.condition.type && c.status === 'False')) return undefined;
      const next = setPoolCondition(conditions, write.condition, now, true);
      return next === conditions ? undefined : { ...current.status, conditions: next };
    });
    this.log(`pool ${pool}: ImageBuildDegraded=${write.condition.status} (${write.condition.reason}) for MachineOSBuild "${build.metadata.name}"`);
  }

  /** rebuildMachineOSConfig: delete the build for the current target (a new one is made once it is gone), drop the annotation. */
  private async rebuild(mosc: MachineOSConfig, target: string): Promise<void> {
    const build = this.mosbs.get(target);
    if (build) await this.deleteBuild(build);
    await this.ctx.client.patch('MachineOSConfig', mosc.metadata.name!, { metadata: { annotations: { [REBUILD_ANNOTATION]: null } } });
    this.log(`Rebuilding MachineOSConfig "${mosc.metadata.name}": deleted MachineOSBuild "${target}"`);
  }

  private async deleteBuild(build: MachineOSBuild): Promise<void> {
    const name = build.metadata.name!;
    await this.ctx.client.delete('Job', buildJobName(name), MCO_NAMESPACE);
    await this.ctx.client.delete('MachineOSBuild', name);
  }

  /** NewMachineOSBuild: the build object; with `reuse`, Succeeded at once on the reused build's image. */
  private async createBuild(mosc: MachineOSConfig, pool: Pool, name: string, reuse?: MachineOSBuild): Promise<void> {
    const { client, clock } = this.ctx;
    const body = {
      apiVersion: `${MC_GROUP}/v1`,
      kind: 'MachineOSBuild',
      metadata: {
        name,
        labels: { [TARGET_POOL_LABEL]: pool.metadata.name!, [RENDERED_MC_LABEL]: pool.spec.configuration!.name!, [MOSC_LABEL]: mosc.metadata.name! },
        annotations: { [PUSH_SECRET_ANNOTATION]: mosc.spec.renderedImagePushSecret.name },
        // owned by its MachineOSConfig, so the garbage collector removes it with it (not with deleted-config-keeps-builds)
        ...(this.ctx.deviations.builderKeepsDeletedConfigsBuilds ? {} : { ownerReferences: [{ apiVersion: `${MC_GROUP}/v1`, kind: 'MachineOSConfig', name: mosc.metadata.name!, uid: mosc.metadata.uid!, controller: true, blockOwnerDeletion: true }] }),
      },
      spec: {
        machineConfig: { name: pool.spec.configuration!.name! },
        machineOSConfig: { name: mosc.metadata.name! },
        renderedImagePushSpec: withTag(mosc.spec.renderedImagePushSpec, name),
      },
    } as MachineOSBuild;
    const created = await client.create<MachineOSBuild>('MachineOSBuild', body).catch((e) => {
      if ((e as { status?: number }).status === 409) return undefined;
      throw e;
    });
    if (!created || !reuse) return; // the new build's event brings syncBuild, which starts it
    // reuseImageForNewMOSB writes the image and the succeeded conditions alone: no build ran, so no buildStart or
    // buildEnd (the CRD wants buildStart strictly before buildEnd, so one instant for both is refused)
    const status = { conditions: conditionsFor('Succeeded', [], clock.timestamp()), digestedImagePushSpec: reuse.status!.digestedImagePushSpec };
    const done = await client.patchStatus<MachineOSBuild>('MachineOSBuild', name, status);
    this.log(`Existing MachineOSBuild "${name}" found, reusing image "${status.digestedImagePushSpec}" by assigning to MachineOSConfig "${mosc.metadata.name}"`);
    await this.pointConfigAt(mosc, done);
  }

  /** One build's progress: start it, follow its Job, finish it. */
  private async syncBuild(build: MachineOSBuild, mosc: MachineOSConfig): Promise<void> {
    const name = build.metadata.name!;
    const state = buildStateOf(build);
    if (state === 'Succeeded') {
      await this.pointConfigAt(mosc, build);
      return;
    }
    if (isTerminal(state)) return; // failed or interrupted: kept for inspection
    // a Job this process just created may not be in the cache yet: only the API can say it is gone
    const job = this.jobs.get(buildJobName(name), MCO_NAMESPACE) ?? (await this.ctx.client.get<Job>('Job', buildJobName(name), MCO_NAMESPACE));
    if (!build.status?.builder) {
      await this.startBuild(build, mosc);
      return;
    }
    const next = job ? buildStateOfJob(job) : 'Interrupted';
    if (next === state) return;
    const now = this.ctx.clock.timestamp();
    const status: NonNullable<MachineOSBuild['status']> = { conditions: conditionsFor(next, build.status?.conditions, now) };
    if (next === 'Succeeded') {
      const digest = this.configMaps.get(digestConfigMapName(name), MCO_NAMESPACE)?.data?.digest;
      if (!digest) return; // the digest ConfigMap's event brings us back
      status.digestedImagePushSpec = `${repositoryOf(build.spec.renderedImagePushSpec)}@${digest}`;
    }
    if (isTerminal(next)) status.buildEnd = job?.status?.completionTime ?? now;
    const updated = await this.ctx.client.patchStatus<MachineOSBuild>('MachineOSBuild', name, status);
    this.log(`MachineOSBuild "${name}" is now ${next}`);
    // updateMachineOSBuild: a failure leaves the ephemeral objects for inspection; both ends tell the pool
    if (next === 'Failed') await this.writeBuildDegraded('failed', mosc, updated);
    if (next === 'Succeeded') {
      await this.writeBuildDegraded('succeeded', mosc, updated);
      await this.clean(name);
      await this.pointConfigAt(mosc, updated);
    }
  }

  /** startBuild: the ephemeral objects, the Job, and the build Prepared with its builder and related objects. */
  private async startBuild(build: MachineOSBuild, mosc: MachineOSConfig): Promise<void> {
    const { client, clock } = this.ctx;
    const code = this.code()!;
    const name = build.metadata.name!;
    const rendered = this.mcs.get(build.spec.machineConfig.name);
    if (!rendered) return;
    const images = buildImagesFor(code, this.configMaps.get(OSIMAGEURL_CONFIGMAP, MCO_NAMESPACE)?.data, rendered, this.ctx.deviations.buildIgnoresOverrideAsBase);
    const inputs: BuildJobInputs = { mosb: build, pool: mosc.spec.machineConfigPool.name, ...images, mcoImage: this.release.mcoImage };
    const containerfile = renderContainerfile({
      ...images,
      extensionsPackages: (rendered.spec.extensions ?? []).flatMap((e) => SUPPORTED_EXTENSIONS[e] ?? []),
      kernelType: rendered.spec.kernelType ?? '',
      kernelPackages: KERNEL_PACKAGES,
      machineConfig: rendered.metadata.name!,
      pool: mosc.spec.machineConfigPool.name,
      userContainerfile: userContainerfileOf(mosc.spec.containerFile),
      swapsKernel: code.templateSwapsKernel,
    });
    await this.deleteOtherBuilds(build);
    const pullJson = await this.dockerConfig(mosc.spec.baseImagePullSecret?.name ?? GLOBAL_PULL_SECRET_COPY);
    const pushJson = await this.dockerConfig(mosc.spec.renderedImagePushSecret.name);
    const objects = [...ephemeralConfigMaps(inputs, containerfile, machineConfigArchive(rendered)), ...ephemeralSecrets(inputs, pullJson, pushJson)];
    for (const o of objects) await this.createIgnoringConflict(o.kind as 'ConfigMap' | 'Secret', o);
    await this.createIgnoringConflict('Job', buildJob(inputs));
    const now = clock.timestamp();
    const ref = (resource: string, n: string) => ({ group: resource === 'jobs' ? 'batch' : '', resource, namespace: MCO_NAMESPACE, name: n });
    const prepared = await client.patchStatus<MachineOSBuild>('MachineOSBuild', name, {
      conditions: conditionsFor('Prepared', build.status?.conditions, now),
      buildStart: build.status?.buildStart ?? now,
      // no relatedObjects: release-4.20's MCO never writes them, and the CRD's group rule refuses the core group's ""
      builder: { imageBuilderType: 'Job', job: ref('jobs', buildJobName(name)) },
    });
    this.log(`Started new build ${buildJobName(name)} for MachineOSBuild "${name}"`);
    // updateMachineOSConfigStatus at the start (every release): the MachineOSConfig names its build from now on
    const named = await this.nameCurrentBuild(mosc, name);
    await this.writeBuildDegraded('started', named, prepared);
  }

  /** The current-build annotation on the MachineOSConfig; returns the MachineOSConfig as it now is. */
  private async nameCurrentBuild(mosc: MachineOSConfig, name: string): Promise<MachineOSConfig> {
    if (mosc.metadata.annotations?.[CURRENT_MOSB_ANNOTATION] === name) return mosc;
    const patched = await this.ctx.client.patch<MachineOSConfig>('MachineOSConfig', mosc.metadata.name!, { metadata: { annotations: { [CURRENT_MOSB_ANNOTATION]: name } } });
    this.log(`Set current build on MachineOSConfig "${mosc.metadata.name}" to MachineOSBuild "${name}"`);
    return patched ?? mosc;
  }

  /** A secret's docker config JSON, from either secret type (the build's secrets are canonicalised to .dockerconfigjson). */
  private async dockerConfig(secretName: string): Promise<string> {
    const secret = await this.ctx.client.get<Data>('Secret', secretName, MCO_NAMESPACE);
    if (!secret) throw new Error(`could not get secret "${secretName}" in namespace "${MCO_NAMESPACE}"`);
    const raw = (key: string): string | undefined => (secret.data?.[key] ? Buffer.from(secret.data[key]!, 'base64').toString('utf8') : undefined);
    const json = raw('.dockerconfigjson');
    if (json) return json;
    const legacy = raw('.dockercfg');
    if (legacy) return JSON.stringify({ auths: JSON.parse(legacy) });
    throw new Error(`secret "${secretName}" has neither .dockerconfigjson nor .dockercfg`);
  }

  private async createIgnoringConflict(kind: 'ConfigMap' | 'Secret' | 'Job', body: KubeObject): Promise<void> {
    await this.ctx.client.create(kind, body).catch((e) => {
      if ((e as { status?: number }).status !== 409) throw e;
    });
  }

  /** jobImageBuilder.Clean: the Job and the ephemeral objects of a build that succeeded. */
  private async clean(name: string): Promise<void> {
    const { client } = this.ctx;
    for (const cm of [containerfileConfigMapName(name), machineConfigConfigMapName(name), digestConfigMapName(name)]) await client.delete('ConfigMap', cm, MCO_NAMESPACE);
    for (const s of [basePullSecretName(name), finalPushSecretName(name)]) await client.delete('Secret', s, MCO_NAMESPACE);
    await client.delete('Job', buildJobName(name), MCO_NAMESPACE);
  }

  /** updateMachineOSConfigStatus: the config's current image and build, and the current-build annotation. */
  private async pointConfigAt(mosc: MachineOSConfig, build: MachineOSBuild): Promise<void> {
    const name = build.metadata.name!;
    const pullspec = build.status?.digestedImagePushSpec;
    if (!pullspec) return;
    await this.nameCurrentBuild(mosc, name);
    // release-4.20 reconciler.go updateMachineOSConfigStatus writes the image and the generation, not status.machineOSBuild
    // (whose reference the CRD would refuse without a namespace anyway)
    if (mosc.status?.currentImagePullSpec === pullspec) return;
    await this.ctx.client.patchStatus('MachineOSConfig', mosc.metadata.name!, {
      observedGeneration: mosc.metadata.generation,
      currentImagePullSpec: pullspec,
    });
    this.log(`MachineOSConfig "${mosc.metadata.name}" now uses image ${pullspec} (MachineOSBuild "${name}")`);
  }
}

