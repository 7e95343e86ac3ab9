/**
 * Machine-config daemons on simulated nodes. For a node whose desiredConfig differs from its currentConfig:
 * Working → drain → pull the rendered config's OS image from the registry → write files and units, stage kernel
 * arguments, extensions and kernel type → reboot → Done, each step lasting a seeded share of 10-20 cluster minutes.
 * A change the 4.12 daemon applies without a reboot (node-config.ts: only files it reloads crio for or ignores, SSH
 * keys) is written without drain and reboot. A pull is retried as the real daemon retries it (PULL_RETRY_DELAYS_MS); only when
 * every try failed is the node Degraded with the pull error, and the update is requeued with the daemon queue's
 * backoff until it succeeds or the node is asked for another config. What the node booted is kept with the simulated
 * machine (kubelet/hosts.ts), where a debug pod's `rpm-ostree status` and `rpm -q` read it; each daemon logs what it
 * applies into its pod's log (`mcd/<node>`).
 *
 * Each node's daemon can be killed and started again on its own (restartNode): the new one knows only what the node
 * object and the machine say and redoes the update from the start, as a restarted machine-config-daemon pod does.
 */
import type { V1Node, V1NodeCondition, V1Pod } from '@kubernetes/client-node';
import { ANN, MINUTE } from '../constants.js';
import { AbortedError } from '../clock.js';
import type { Controller, ControllerContext, OsImageContent } from '../context.js';
import type { KubeClient, KubeObject } from '../../lib/kube/client.js';
import type { Informer } from '../../lib/kube/informer.js';
import type { DeploymentConfig, NodeHosts } from '../kubelet/hosts.js';
import { FAILED_STATES } from '../mco/node-status.js';
import type { MachineConfig } from '../mco/types.js';
import { rngFor } from '../rng.js';
import { missingExtensionsRepoFailure } from './extensions-repo.js';
import { degradedReason, isBootableImage, notAnOsImageReason, uninspectableImageReason } from './image-type.js';
import { checkBootedImage, deploymentCommitOf, encapsulatedCommitOf } from './booted-image.js';
import { acceptedAsOs, notAnOsRebaseError, pullRebaseError, rebaseFailedReason, rebaseRetryDelaysMs, willRetryLine, wrongArchitectureRebaseError } from './rebase.js';
import { mcoAt, type DaemonCode, type RebaseWithRetries } from '../profiles/profile.js';
import { MCO_NAMESPACE } from '../workloads/components.js';
import { evictForDrain } from './drain-evictions.js';
import { runtimeVersionsOf } from '../kubelet/node-info.js';
import { changedFilePaths, configDiff, hostFilesOf, invalidExtensions, nodeConfigOf, osChangesString, postConfigChangeAction, type ConfigDiff, type NodeConfig } from './node-config.js';
import { osImageName, planUpdate, type BootedImage } from './os-status.js';
import { unreconcilableMessage, unreconcilableReason } from './reconcilable.js';
import { currentImagePatch, nodeImagesOf, updateKey, withImage } from './layered-os.js';

type Node = V1Node & KubeObject;
type Pod = V1Pod & KubeObject;

const SECOND = 1000;
/**
 * The waits between the tries of one pull, in cluster ms, as the 4.12 daemon does it (pkg/daemon): the image is
 * inspected with containers/image and retried twice (1 s, 2 s apart, image-inspect.go retryIfNecessary), then
 * `podman pull` is run with 5 retries (5, 10, 20, 40, 80 s apart, pivot/utils RunExt with numRetriesNetCommands).
 * An outage shorter than their sum (158 s) costs the node nothing but time.
 */
export const PULL_RETRY_DELAYS_MS = [1, 2, 5, 10, 20, 40, 80].map((s) => s * SECOND);
/**
 * Fault mcd-retries-unpullable-pulls (OCPBUGS-1761 as reported): after the tries above, the pull is tried again once a
 * cluster minute, whatever the error, until this long has passed since its first try.
 */
const HOPELESS_PULL_RETRIES_FOR_MS = 60 * MINUTE;
const HOPELESS_PULL_RETRY_EVERY_MS = MINUTE;
/** The daemon queue's rate limiter after a failed sync: 1 s doubling to at most 60 s (daemon.go maxUpdateBackoff). */
const requeueDelayMs = (failures: number): number => Math.min(SECOND * 2 ** Math.max(0, failures - 1), 60 * SECOND);
const DIGEST_REF = /@sha256:[0-9a-f]{64}$/;
/** Fault mcd-layers-only-changes: the deployment keeps only the layering the diff changes. */
function changedLayering(deployment: DeploymentConfig, diff: ConfigDiff): DeploymentConfig {
  return {
    ...deployment,
    kernelArguments: diff.kargs ? deployment.kernelArguments : [],
    extensions: diff.extensions ? deployment.extensions : [],
    kernelType: diff.kernelType ? deployment.kernelType : 'default',
  };
}

/**
 * The image was pulled but the rebase failed: `reason` is the node's Degraded reason, whole; `staged` whether the
 * failure comes after the point where the daemon rolls a staged deployment back (and logs so).
 */
class RebaseFailed extends Error {
  constructor(
    readonly reason: string,
    readonly staged = true,
  ) {
    super(reason);
    this.name = 'RebaseFailed';
  }
}

/** What a config change means for the node (planChange). */
interface ConfigChange {
  target: NodeConfig;
  before: NodeConfig;
  diff: ConfigDiff;
  action: ReturnType<typeof postConfigChangeAction>;
  staged: string;
}

/** A change the daemon is applying: the config and image it moves to (updateKey) and the daemon code doing it. */
interface PlannedChange extends ConfigChange {
  desired: string;
  code: DaemonCode;
}

/** The daemon's command-line flag naming the release it belongs to (workloads/components.ts). */
const PAYLOAD_VERSION_FLAG = '--payload-version=';

interface NodeDaemon {
  running: boolean;
  /** Kills this node's daemon: its update stops where it stands. */
  abort: AbortController;
  task?: Promise<void>;
  /** The config and image (updateKey) this daemon last finished; the cache may still show the node before that write. */
  completed?: string;
  attempts: number;
  /** Whether this daemon has made its first sync, which checks the booted OS (checkStateOnFirstRun). */
  started: boolean;
  /**
   * The booted OS failed the check at a start: upstream's daemon stays in its first sync, failing it again on every
   * requeue, so nothing moves the node until a daemon starts again (and checks again).
   */
  bootCheckFailed?: boolean;
}

export class DaemonSet implements Controller {
  private nodes!: Informer<Node>;
  private pods!: Informer<Pod>;
  private readonly daemons = new Map<string, NodeDaemon>();
  private readonly inFlight = new Set<Promise<void>>();
  /** Pulled image contents: by digest forever, by tag briefly (a tag can move). */
  private readonly pulled = new Map<string, { at: number; content: Promise<OsImageContent> }>();

  constructor(
    private readonly ctx: ControllerContext,
    private readonly hosts: NodeHosts,
  ) {}

  setup(): void {
    this.nodes = this.ctx.informers.for<Node>('Node');
    this.pods = this.ctx.informers.for<Pod>('Pod');
    this.nodes.onChange((type, node) => {
      if (type === 'delete') this.daemons.delete(node.metadata!.name!);
      else this.consider(node);
    });
  }

  start(): void {
    for (const node of this.nodes.list()) this.consider(node);
  }

  async stop(): Promise<void> {
    for (const daemon of this.daemons.values()) daemon.abort.abort();
    await Promise.allSettled([...this.inFlight]);
  }

  /** Kills one node's daemon and starts a new one, which resumes from what the node object says. */
  async restartNode(name: string): Promise<void> {
    const daemon = this.daemons.get(name);
    if (!daemon) throw new Error(`no daemon runs on node ${name}`);
    daemon.abort.abort();
    await daemon.task?.catch(() => undefined);
    this.daemons.delete(name);
    const node = this.nodes.get(name);
    if (node) this.consider(node);
  }

  private newAbort(): AbortController {
    const abort = new AbortController();
    if (this.ctx.signal.aborted) abort.abort();
    return abort;
  }

  private consider(node: Node): void {
    const name = node.metadata!.name!;
    const annotations = node.metadata?.annotations ?? {};
    const desired = annotations[ANN.desiredConfig] ?? '';
    const current = annotations[ANN.currentConfig] ?? '';
    let daemon = this.daemons.get(name);
    if (!daemon) {
      daemon = { running: false, abort: this.newAbort(), attempts: 0, started: false };
      this.daemons.set(name, daemon);
    }
    if (daemon.running || daemon.bootCheckFailed) return;
    const images = nodeImagesOf(node);
    const firstSync = !daemon.started && Boolean(desired);
    if (!firstSync && (!desired || (desired === current && images.desired === images.current && annotations[ANN.state] === 'Done'))) return;
    // our Done write is not in the cache yet; a failed node re-pointed at the config it completed goes on, to Done
    if (updateKey(desired, images.desired) === daemon.completed && !FAILED_STATES.has(annotations[ANN.state] ?? '')) return;
    if (this.ctx.signal.aborted) return;
    daemon.running = true;
    let retryAfterMs = 0;
    const alive = daemon;
    // the update is work for the cluster clock, except while it waits on the clock (drain grace, pull retry, reboot)
    const task = this.ctx.clock.busyDuring(() => (firstSync ? this.checkOnStart(name, desired, current, daemon) : this.update(name, desired, daemon)))
      .catch((error) => {
        if (error instanceof AbortedError || this.ctx.signal.aborted || alive.abort.signal.aborted) return;
        // an API failure the client could not ride out: try again in a cluster minute, as the daemon's requeue does
        this.ctx.log(`mcd/${name}`, `Unable to apply update to ${desired}: ${(error as Error).message}`);
        retryAfterMs = MINUTE;
      })
      .finally(() => {
        alive.running = false;
        this.inFlight.delete(task);
        if (this.ctx.signal.aborted || alive.abort.signal.aborted) return;
        const again = (): void => {
          const latest = this.nodes.get(name);
          if (latest && !this.ctx.signal.aborted) this.consider(latest);
        };
        if (retryAfterMs === 0) setTimeout(again, 0); // look at the node as it is now: a change may have come meanwhile
        else void this.ctx.clock.sleep(retryAfterMs, this.ctx.signal).then(again, () => undefined);
      });
    daemon.task = task;
    this.inFlight.add(task);
  }

  /** One try of this node's pull. The content one node read is shared, but each node reaches the registry itself. */
  private async pull(ref: string): Promise<OsImageContent> {
    const cached = this.pulled.get(ref);
    const fresh = cached && (DIGEST_REF.test(ref) || Date.now() - cached.at < 2000);
    if (fresh) {
      await this.ctx.images.resolveOsImage(ref);
      return cached.content;
    }
    const content = this.ctx.images.readOsImage(ref);
    this.pulled.set(ref, { at: Date.now(), content });
    content.catch(() => this.pulled.delete(ref));
    return content;
  }

  /**
   * One pull as the real daemon makes it: tried again after each of PULL_RETRY_DELAYS_MS; the last error is thrown.
   * With the fault mcd-retries-unpullable-pulls it is then tried once a cluster minute until an hour has passed, or
   * until the node is no longer asked for `desired` (`stillWanted`), so that pointing a node back is not held up by
   * the fault for an hour.
   */
  private async pullWithRetries(ref: string, signal: AbortSignal, log: (line: string) => void, stillWanted: () => boolean): Promise<OsImageContent> {
    const { clock, deviations } = this.ctx;
    const firstTryMs = clock.nowMs();
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.pull(ref);
      } catch (error) {
        let delay = PULL_RETRY_DELAYS_MS[attempt];
        let of = ` of ${PULL_RETRY_DELAYS_MS.length + 1}`;
        if (deviations.daemonRetriesHopelessPulls) {
          of = ', retried for up to an hour';
          if (delay === undefined && clock.nowMs() - firstTryMs < HOPELESS_PULL_RETRIES_FOR_MS && stillWanted()) delay = HOPELESS_PULL_RETRY_EVERY_MS;
        }
        log(`pull of ${ref} failed (try ${attempt + 1}${of}): ${(error as Error).message}${delay === undefined ? '' : `; retrying in ${delay / SECOND} s`}`);
        if (delay === undefined) throw error;
        await clock.sleep(delay, signal);
      }
    }
  }

  /** What the node asks for now (updateKey of its desired config and image). */
  private desiredNow(name: string): string {
    const node = this.nodes.get(name);
    return updateKey(node?.metadata?.annotations?.[ANN.desiredConfig] ?? '', nodeImagesOf(node).desired);
  }

  private async update(name: string, desired: string, daemon: NodeDaemon): Promise<void> {
    const { clock, deviations } = this.ctx;
    const signal = daemon.abort.signal;
    // a killed daemon writes nothing more: every write goes through this client
    const client = alive(this.ctx.client, signal);
    daemon.attempts++;
    const plan = planUpdate(rngFor(this.ctx.seed, name, desired, String(daemon.attempts)));
    const log = (line: string): void => this.ctx.log(`mcd/${name}`, line);
    const code = this.codeOn(name);
    const from = this.nodes.get(name)?.metadata?.annotations?.[ANN.currentConfig] ?? '';
    // image mode: the node boots its desired image in place of the config's osImageURL (layered-os.ts)
    const images = nodeImagesOf(this.nodes.get(name));
    const key = updateKey(desired, images.desired);
    const rendered = await client.get<MachineConfig & KubeObject>('MachineConfig', desired);
    const config = rendered && withImage(rendered, images.desired);
    const change = config ? await this.planChange(client, from, config, images.current) : undefined;
    log(`Starting update from ${from} to ${desired}`);
    if (change && 'unreconcilable' in change) {
      // update() refuses before any drain; the sync is requeued rate-limited until the node is pointed elsewhere
      const state = this.nodes.get(name)?.metadata?.annotations?.[ANN.state];
      if (!FAILED_STATES.has(state ?? '')) await client.patch('Node', name, { metadata: { annotations: { [ANN.state]: 'Working', [ANN.reason]: '' } } });
      log(`Marking Unreconcilable due to: ${change.unreconcilable}`);
      await client.patch('Node', name, { metadata: { annotations: { [ANN.state]: 'Unreconcilable', [ANN.reason]: degradedReason(change.unreconcilable) } } });
      await clock.sleep(requeueDelayMs(daemon.attempts), signal);
      return;
    }
    if (change && 'target' in change && change.action !== 'reboot') return this.updateWithoutReboot(client, name, desired, images.desired, change.target, change.action, plan.settleMs, daemon);
    // The drain controller drains once per desired config: a retry of the same update (a failed pull requeued) finds
    // lastAppliedDrain already at drain-<config> and goes straight on, as the 4.12 daemon does.
    const drained = this.nodes.get(name)?.metadata?.annotations?.[ANN.lastAppliedDrain] === `drain-${desired}`;
    log(drained ? 'Update prepared; the node is already drained for this config' : 'Update prepared; requesting cordon and drain via annotation to controller');
    await client.patch('Node', name, {
      metadata: { annotations: { [ANN.state]: 'Working', [ANN.reason]: '', [ANN.desiredDrain]: `drain-${desired}` } },
      spec: { unschedulable: true },
    });
    if (!drained) {
      // the drain's evictions: a builder on this node is made again elsewhere and restarts (OCPBUGS-58238's trigger)
      for (const pod of await evictForDrain(this.ctx.client, name)) log(`evicting pod ${MCO_NAMESPACE}/${pod}`);
      await clock.sleep(plan.drainMs, signal);
      await client.patch('Node', name, { metadata: { annotations: { [ANN.lastAppliedDrain]: `drain-${desired}` } } });
      log('drain complete');
    }

    if (!config || !change) {
      await this.degrade(client, name, `could not find MachineConfig: machineconfig.machineconfiguration.openshift.io "${desired}" not found`);
      return;
    }
    if ('refused' in change) {
      log(`Marking Degraded due to: ${change.refused}`);
      await this.degrade(client, name, change.refused);
      return;
    }
    const target = change.target;
    const wanted = config.spec?.osImageURL ?? '';
    const before = this.hosts.get(name).booted;
    let booted = before;
    if (wanted && wanted !== before.pullspec && !deviations.daemonSkipsRebase) {
      log(`Initiating switch to OS image ${wanted}`);
      await clock.sleep(plan.pullMs, signal);
      log(`pulling ${wanted}`);
      const planned: PlannedChange = { ...change, desired: key, code };
      const moveTo = code.osUpdate.kind === 'rebase-with-retries' ? this.rebaseWithRetries(code.osUpdate, wanted, planned, log, signal, this.architectureOf(name)) : this.inspectThenRebase(name, wanted, planned, log, signal);
      // fault node-degraded-pulling-built-image: an image-mode node's first pull of a built image fails
      const failFirstPull = deviations.daemonFailsFirstBuiltImagePull && nodeImagesOf(this.nodes.get(name)).desired === wanted;
      for (let failures = 1; ; failures++) {
        try {
          if (failFirstPull && failures === 1) {
            // in the release's words for a pull that failed every try (4.16+: rpm-ostree's, after its retries)
            const missing = `reading manifest ${wanted}: manifest unknown`;
            throw code.osUpdate.kind === 'rebase-with-retries' ? new RebaseFailed(rebaseFailedReason(wanted, pullRebaseError(wanted, missing), code.osUpdate, false), false) : new Error(missing);
          }
          const content = await moveTo(failures);
          booted = { pullspec: wanted, content, timestampMs: clock.nowMs() };
          log(`Running rpm-ostree [rebase --experimental ostree-unverified-registry:${wanted}]: staged ${content.digest}`);
          break;
        } catch (error) {
          if (error instanceof AbortedError) throw error;
          const rebaseFailed = error instanceof RebaseFailed;
          if (deviations.daemonIgnoresPullErrors && !rebaseFailed) break;
          const reason = rebaseFailed ? error.reason : uninspectableImageReason(wanted, (error as Error).message);
          // applyLayeredOSChanges' deferred cleanup logs the error before it removes the staged deployment
          if (rebaseFailed && error.staged) log(`Rolling back applied changes to OS due to error: ${reason}`);
          log(`Marking Degraded due to: ${reason}`);
          await this.degrade(client, name, reason);
          // the failed sync is requeued rate-limited, for as long as the node is still asked for this config
          await clock.sleep(requeueDelayMs(failures), signal);
          if (this.desiredNow(name) !== key) return;
        }
      }
      if (this.nodes.get(name)?.metadata?.annotations?.[ANN.state] === 'Degraded') {
        await client.patch('Node', name, { metadata: { annotations: { [ANN.state]: 'Working', [ANN.reason]: '' } } });
      }
    } else if (code.layeredImageRefusesLayering && wanted) {
      // no rebase, but BUG-B's applyOSChanges still inspects the image and takes the layered path on every update
      const refused = this.layeringRefusal(code, await this.ctx.images.readImageLabels(wanted).catch(() => ({})), change.before.deployment, target.deployment);
      if (refused) {
        log(`Marking Degraded due to: ${refused}`);
        await this.degrade(client, name, refused);
        await clock.sleep(requeueDelayMs(daemon.attempts), signal);
        return;
      }
    }

    // the files and units are on disk now; the rest is staged in the new deployment and booted below
    this.hosts.write(name, hostFilesOf(target), target.units);
    if (change.staged) log(`${change.staged}: kernel arguments [${target.deployment.kernelArguments.join(' ')}], extensions [${target.deployment.extensions.join(' ')}], kernelType ${target.deployment.kernelType}`);
    log(`Rebooting node (config ${desired})`);
    await this.setReady(client, name, false);
    await clock.sleep(plan.rebootMs, signal);
    if (signal.aborted) throw new AbortedError();
    if (deviations.hostBootsPreviousDeployment) {
      // the staged deployment never became the default: the machine boots what it booted before, as it was staged
      const host = this.hosts.get(name);
      this.hosts.boot(name, host.booted, host.deployment, clock.nowMs());
    } else {
      this.hosts.boot(name, booted, deviations.daemonLayersOnlyChanges ? changedLayering(target.deployment, change.diff) : target.deployment, clock.nowMs(), deviations.daemonKeepsOldEtc);
    }
    await this.setReady(client, name, true, this.hosts.get(name).booted);
    await clock.sleep(plan.settleMs, signal);
    // the daemon pod that starts after the reboot validates against the pending config before it says Done
    log(`Validating against pending config ${desired}`);
    const refused = await this.bootedImageRefusal(name, desired, wanted, log);
    if (refused) {
      log(`Marking Degraded due to: ${refused}`);
      await this.degrade(client, name, refused);
      daemon.bootCheckFailed = true;
      return;
    }
    log('Validated on-disk state');
    const annotations: Record<string, string | null> = {
      [ANN.state]: 'Done',
      [ANN.currentConfig]: desired,
      ...currentImagePatch(images.desired, this.nodes.get(name)),
      [ANN.reason]: '',
      [ANN.desiredDrain]: `uncordon-${desired}`,
      [ANN.lastAppliedDrain]: `uncordon-${desired}`,
    };
    await client.patch('Node', name, { metadata: { annotations }, spec: { unschedulable: null } });
    log(`Update completed for config ${desired} and node has been successfully uncordoned`);
    daemon.attempts = 0;
    daemon.completed = key;
  }

  /**
   * A daemon's first sync (checkStateOnFirstRun): on a node that is on its desired config, the booted OS is checked
   * against that config; a node still asked for another config takes the update path, which checks after its reboot.
   * (Upstream also checks a node whose update was pending at its reboot against the pending config; the reference's
   * restarted daemon redoes such an update instead, see restartNode.)
   */
  private async checkOnStart(name: string, desired: string, current: string, daemon: NodeDaemon): Promise<void> {
    daemon.started = true;
    // a node of an image-mode pool is checked against the image it booted last (currentImage), once it has no other to go to
    const images = nodeImagesOf(this.nodes.get(name));
    if (desired !== current || images.desired !== images.current) return;
    const log = (line: string): void => this.ctx.log(`mcd/${name}`, line);
    const config = await alive(this.ctx.client, daemon.abort.signal).get<MachineConfig & KubeObject>('MachineConfig', current);
    const wanted = images.current || (config?.spec?.osImageURL ?? '');
    if (!config) return;
    log(`Validating against current config ${current}`);
    const refused = await this.bootedImageRefusal(name, current, wanted, log);
    if (!refused) {
      log('Validated on-disk state');
      return;
    }
    log(`Marking Degraded due to: ${refused}`);
    await this.degrade(alive(this.ctx.client, daemon.abort.signal), name, refused);
    daemon.bootCheckFailed = true;
  }

  /**
   * The booted-image check of the node's daemon code (mcd/booted-image.ts): the node's Degraded reason, or undefined.
   * The faults mcd-skips-os-update and mcd-ignores-pull-errors stand for a daemon whose OS update is broken while it
   * believes it booted what each config says: such a daemon does not doubt the booted image either, so it skips the
   * check, and the suite's own look at the node (spec 1's and 13's booted image, spec 6's hidden error) is what must
   * catch it, as the kill matrix expects. An empty osImageURL leaves the OS alone, so there is nothing to check.
   */
  private async bootedImageRefusal(name: string, configName: string, wanted: string, log: (line: string) => void): Promise<string | undefined> {
    const { deviations } = this.ctx;
    if (!wanted || deviations.daemonSkipsRebase || deviations.daemonIgnoresPullErrors) return undefined;
    const booted = this.hosts.get(name).booted;
    const answer = await checkBootedImage({
      check: this.codeOn(name).bootedImageCheck,
      configName,
      wanted,
      booted: booted.pullspec,
      // the label through the registry, as imageInspect reads it; the booted commit is the node's own record (upstream
      // reads rpm-ostree's booted deployment), which the reference derives from the booted image's labels
      commits: async () => {
        const label = await this.ctx.images.readImageLabels(wanted).then(encapsulatedCommitOf, (error: Error) => error);
        const bootedLabels = await this.ctx.images.readImageLabels(booted.pullspec).catch(() => ({}));
        return { label, booted: deploymentCommitOf(booted.pullspec, booted.content.digest, bootedLabels) };
      },
    });
    for (const line of answer.logs) log(line);
    return answer.reason;
  }

  /**
   * The daemon code of the release this node's machine-config-daemon pod runs (its `--payload-version`): an upgrade's
   * roll-out of the daemon DaemonSet is what switches a node to the new release's daemon, as on a real cluster. Before
   * any pod exists (a cluster starting up), the installed release's.
   */
  private codeOn(name: string): DaemonCode {
    const pod = this.pods.list().find((p) => p.spec?.nodeName === name && p.metadata?.namespace === MCO_NAMESPACE && p.metadata?.labels?.['k8s-app'] === 'machine-config-daemon' && !p.metadata?.deletionTimestamp);
    const arg = pod?.spec?.containers?.[0]?.command?.find((c) => c.startsWith(PAYLOAD_VERSION_FLAG));
    return (arg ? mcoAt(this.ctx.profile, arg.slice(PAYLOAD_VERSION_FLAG.length)) : this.ctx.profile).daemon;
  }

  /**
   * 4.12-4.13: pull (with the inspection's and podman's retries), inspect, and take an image that is not bootable the
   * machine-os-content way, which fails on an image that is no OS (mcd/image-type.ts). A pull that fails is thrown as
   * is (the caller words it as the inspection's failure).
   */
  private inspectThenRebase(name: string, wanted: string, change: PlannedChange, log: (line: string) => void, signal: AbortSignal): (failures: number) => Promise<OsImageContent> {
    const { deviations } = this.ctx;
    return async (failures) => {
      const content = await this.pullWithRetries(wanted, signal, log, () => this.desiredNow(name) === change.desired);
      // IsBootableImage's inspection reads the labels; an image that is no OS fails the legacy path's rebase
      const labels = await this.ctx.images.readImageLabels(wanted);
      const notAnOs = deviations.daemonBootsAnyImage ? undefined : notAnOsImageReason(wanted, labels, rngFor(this.ctx.seed, name, wanted, String(failures)));
      if (notAnOs) throw new RebaseFailed(notAnOs, false);
      const refused = this.layeringRefusalOf(change.code, deviations.daemonOmitsExtensionsRepoOnOsUpdate, wanted, change, labels);
      if (refused) throw new RebaseFailed(refused);
      return content;
    };
  }

  /**
   * 4.16+: `rpm-ostree rebase` straight to the image, each try a pull and ostree-rs-ext's check that the image is an
   * OS, tried again after each of the backoff's waits; the node's reason once every try failed (mcd/rebase.ts).
   */
  private rebaseWithRetries(retries: RebaseWithRetries, wanted: string, change: PlannedChange, log: (line: string) => void, signal: AbortSignal, architecture: string): () => Promise<OsImageContent> {
    const { clock, deviations } = this.ctx;
    return async () => {
      const delays = rebaseRetryDelaysMs(retries);
      for (let attempt = 0; ; attempt++) {
        let error: string;
        try {
          const content = await this.pull(wanted);
          // the pull picks the node's platform from an index (none there: a pull error); ostree-rs-ext then checks the
          // bootable label and, on a bootable image, that its config's architecture is the host's
          const imageArchitecture = await this.ctx.images.imageArchitecture(wanted, architecture);
          const labels = await this.ctx.images.readImageLabels(wanted);
          if (deviations.daemonBootsAnyImage || (acceptedAsOs(labels) && imageArchitecture === architecture)) {
            const refused = this.layeringRefusalOf(change.code, deviations.daemonOmitsExtensionsRepoOnOsUpdate, wanted, change, labels);
            if (refused) throw new RebaseFailed(refused);
            return content;
          }
          error = acceptedAsOs(labels) ? wrongArchitectureRebaseError(wanted, imageArchitecture, architecture) : notAnOsRebaseError(wanted);
        } catch (e) {
          if (e instanceof AbortedError || e instanceof RebaseFailed) throw e;
          // fault mcd-ignores-pull-errors: the pull's error goes up as it is, and the caller carries on without it
          if (deviations.daemonIgnoresPullErrors) throw e;
          error = pullRebaseError(wanted, (e as Error).message);
        }
        log(willRetryLine(wanted, error));
        const delay = delays[attempt];
        if (delay === undefined) throw new RebaseFailed(rebaseFailedReason(wanted, error, retries, deviations.daemonLosesRebaseError), false);
        await clock.sleep(delay, signal);
      }
    };
  }

  /** The node's architecture as its kubelet reports it (status.nodeInfo.architecture; amd64 where unset). */
  private architectureOf(name: string): string {
    const node = this.nodes.get(name);
    return node?.status?.nodeInfo?.architecture || node?.metadata?.labels?.['kubernetes.io/arch'] || 'amd64';
  }

  /** What stops a pulled OS image before the reboot: the extensions repository's window, or BUG-B's refusal to layer. */
  private layeringRefusalOf(code: DaemonCode, omitsExtensionsRepo: boolean, wanted: string, change: PlannedChange, labels: Record<string, string>): string | undefined {
    return missingExtensionsRepoFailure(omitsExtensionsRepo, wanted, change.diff, change.target.deployment) ?? this.layeringRefusal(code, labels, change.before.deployment, change.target.deployment);
  }

  /**
   * What going from the node's current config to `config` means (node-config.ts): the node's new state and whether
   * it reboots, or why the daemon refuses it. The current config is read as the daemon reads it, from the API.
   */
  private async planChange(client: Writer, from: string, config: MachineConfig, currentImage: string): Promise<ConfigChange | { refused: string } | { unreconcilable: string }> {
    const stored = from ? await client.get<MachineConfig & KubeObject>('MachineConfig', from) : undefined;
    // the config the node is on, with the image it booted for it: going to or from an image is an OS update
    const current = stored && withImage(stored, currentImage);
    const unreconcilable = unreconcilableReason(current, config);
    if (unreconcilable) return { unreconcilable: unreconcilableMessage(from, config.metadata.name ?? '', unreconcilable) };
    try {
      const target = nodeConfigOf(config);
      const invalid = invalidExtensions(target.deployment.extensions);
      if (invalid) return { refused: invalid };
      const before = nodeConfigOf(current);
      const diff = configDiff(before, target);
      const action = postConfigChangeAction(diff, changedFilePaths(before, target));
      // fault daemon-writes-files-without-reboot: a change of files only is written rebootless, whatever the paths
      const filesOnly = !diff.osUpdate && !diff.kargs && !diff.fips && !diff.units && !diff.kernelType && !diff.extensions;
      const taken = this.ctx.deviations.daemonWritesFilesWithoutReboot && filesOnly && action === 'reboot' ? 'none' : action;
      return { target, before, diff, action: taken, staged: osChangesString({ ...diff, osUpdate: false }) };
    } catch (error) {
      return { refused: `failed to apply update: ${(error as Error).message}` };
    }
  }

  /**
   * BUG-B's applyLayeredOSChanges: on a bootable image, a non-default kernel, then extensions, end the update (the
   * node Degraded with the error as it is). Undefined where the profile's daemon layers them, or the image is legacy.
   */
  private layeringRefusal(code: DaemonCode, labels: Record<string, string>, before: DeploymentConfig, deployment: DeploymentConfig): string | undefined {
    if (!code.layeredImageRefusesLayering || !isBootableImage(labels)) return undefined;
    const oldType = before.kernelType;
    if (oldType !== 'default' || deployment.kernelType !== 'default') {
      return `Non-default kernels are not currently supported for layered images. (old: ${oldType} new ${deployment.kernelType})`;
    }
    if (deployment.extensions.length) return `Extensions are not currently supported with layered images, but extensions were supplied: ${deployment.extensions.join(' ')}`;
    return undefined;
  }

  /** 4.12's rebootless update: files written (crio reloaded when its files changed), node Done without drain. */
  private async updateWithoutReboot(client: Writer, name: string, desired: string, image: string, target: NodeConfig, action: 'none' | 'reload crio', settleMs: number, daemon: NodeDaemon): Promise<void> {
    const log = (line: string): void => this.ctx.log(`mcd/${name}`, line);
    await client.patch('Node', name, { metadata: { annotations: { [ANN.state]: 'Working', [ANN.reason]: '' } } });
    log('Changes do not require drain, skipping.');
    this.hosts.write(name, hostFilesOf(target), target.units);
    await this.ctx.clock.sleep(settleMs, daemon.abort.signal);
    log(action === 'reload crio' ? `crio config reloaded successfully! Desired config ${desired} has been applied, skipping reboot` : `Node has Desired Config ${desired}, skipping reboot`);
    // completeUpdate uncordons whatever the action: a node re-pointed at its config after a failed update (the
    // documented way out of NodeDegraded) is still cordoned from that update's drain
    const annotations = {
      [ANN.state]: 'Done',
      [ANN.currentConfig]: desired,
      ...currentImagePatch(image, this.nodes.get(name)),
      [ANN.reason]: '',
      [ANN.desiredDrain]: `uncordon-${desired}`,
      [ANN.lastAppliedDrain]: `uncordon-${desired}`,
    };
    await client.patch('Node', name, { metadata: { annotations }, spec: { unschedulable: null } });
    log(`Update completed for config ${desired} and node has been successfully uncordoned`);
    daemon.attempts = 0;
    daemon.completed = updateKey(desired, image);
  }

  private async degrade(client: Writer, name: string, reason: string): Promise<void> {
    await client.patch('Node', name, { metadata: { annotations: { [ANN.state]: 'Degraded', [ANN.reason]: reason } } });
  }

  /** The kubelet's view around a reboot: NotReady while down, Ready with the new OS name once back. */
  private async setReady(client: Writer, name: string, ready: boolean, booted?: BootedImage): Promise<void> {
    const node = this.nodes.get(name);
    const now = this.ctx.clock.now();
    // metav1.Time is second-precision RFC 3339; a Date would serialize with milliseconds
    const ts = this.ctx.clock.timestamp() as unknown as Date;
    const others = (node?.status?.conditions ?? []).filter((c) => c.type !== 'Ready');
    const ready_: V1NodeCondition = ready
      ? { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status', lastHeartbeatTime: ts, lastTransitionTime: ts }
      : { type: 'Ready', status: 'Unknown', reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.', lastHeartbeatTime: ts, lastTransitionTime: ts };
    const patch: Record<string, unknown> = { conditions: [...others, ready_] };
    if (ready && booted) {
      const rng = rngFor(this.ctx.seed, name, 'boot', String(now.getTime()));
      const hex = (n: number): string => Array.from({ length: n }, () => Math.floor(rng.next() * 16).toString(16)).join('');
      const versions = runtimeVersionsOf(booted.content, this.hosts.get(name).deployment.kernelType);
      patch.nodeInfo = { ...(node?.status?.nodeInfo ?? {}), ...versions, osImage: osImageName(booted.content), bootID: `${hex(8)}-${hex(4)}-${hex(4)}-${hex(4)}-${hex(12)}` };
    }
    await client.patchStatus('Node', name, patch);
  }
}

/** The writes a node's daemon makes. */
type Writer = Pick<KubeClient, 'patch' | 'patchStatus' | 'get'>;

/** The client as one daemon sees it: once that daemon is killed, every call fails instead of writing. */
function alive(client: KubeClient, signal: AbortSignal): Writer {
  const check = (): void => {
    if (signal.aborted) throw new AbortedError();
  };
  return {
    patch: (...args) => (check(), client.patch(...args)),
    patchStatus: (...args) => (check(), client.patchStatus(...args)),
    get: (...args) => (check(), client.get(...args)),
  } as Writer;
}
