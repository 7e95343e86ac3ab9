/**
 * Machine-config daemons on simulated nodes. For a node whose desiredConfig differs from its currentConfig:
 * Working → drain → pull the rendered config's OS image from the registry → reboot → Done, each step lasting a seeded
 * share of 10-20 cluster minutes. A pull that fails leaves the node Degraded with the pull error, retried every
 * 10 cluster minutes. What the node booted is kept with the simulated machine (kubelet/hosts.ts), where a debug pod's
 * `rpm-ostree status` and `rpm -q` read it; each daemon logs what it applies into its pod's log (`mcd/<node>`).
 */
import type { V1Node, V1NodeCondition } from '@kubernetes/client-node';
import { ANN, MINUTE } from '../constants.js';
import { AbortedError } from '../clock.js';
import type { Controller, ControllerContext, OsImageContent } from '../context.js';
import type { KubeObject } from '../../lib/kube/client.js';
import type { Informer } from '../../lib/kube/informer.js';
import type { NodeHosts } from '../kubelet/hosts.js';
import type { MachineConfig } from '../mco/types.js';
import { rngFor } from '../rng.js';
import { osImageName, planUpdate, pullFailureReason, type BootedImage } from './os-status.js';

type Node = V1Node & KubeObject;

const RETRY_MS = 10 * MINUTE;
const DIGEST_REF = /@sha256:[0-9a-f]{64}$/;

interface NodeDaemon {
  running: boolean;
  /** The config this daemon last finished; the cache may still show the node before that write. */
  completed?: string;
  attempts: number;
}

export class DaemonSet implements Controller {
  private nodes!: Informer<Node>;
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
    this.nodes.onChange((type, node) => {
      if (type === 'delete') this.daemons.delete(node.metadata!.name!);
      else this.consider(node);
    });
  }

  start(): void {
    for (const node of this.nodes.list()) this.consider(node);
  }

  async stop(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }

  private consider(node: Node): void {
    const name = node.metadata!.name!;
    const annotations = node.metadata?.annotations ?? {};
    const desired = annotations[ANN.desiredConfig] ?? '';
    const current = annotations[ANN.currentConfig] ?? '';
    let daemon = this.daemons.get(name);
    if (!daemon) {
      daemon = { running: false, attempts: 0 };
      this.daemons.set(name, daemon);
    }
    if (daemon.running || !desired || (desired === current && annotations[ANN.state] === 'Done')) return;
    if (desired === daemon.completed && annotations[ANN.state] !== 'Degraded') return; // our Done write is not in the cache yet
    if (this.ctx.signal.aborted) return;
    daemon.running = true;
    let retryAfterWallMs = 0;
    const task = this.update(name, desired, daemon)
      .catch((error) => {
        if (error instanceof AbortedError || this.ctx.signal.aborted) return;
        // an API failure the client could not ride out: try again in a cluster minute, as the daemon's requeue does
        this.ctx.log(`mcd/${name}`, `Unable to apply update to ${desired}: ${(error as Error).message}`);
        retryAfterWallMs = this.ctx.clock.pollWallMs(MINUTE);
      })
      .finally(() => {
        daemon.running = false;
        this.inFlight.delete(task);
        if (this.ctx.signal.aborted) return;
        setTimeout(() => {
          const latest = this.nodes.get(name);
          if (latest && !this.ctx.signal.aborted) this.consider(latest);
        }, retryAfterWallMs);
      });
    this.inFlight.add(task);
  }

  private pull(ref: string): Promise<OsImageContent> {
    const cached = this.pulled.get(ref);
    const fresh = cached && (DIGEST_REF.test(ref) || Date.now() - cached.at < 2000);
    if (fresh) return cached.content;
    const content = this.ctx.images.readOsImage(ref);
    this.pulled.set(ref, { at: Date.now(), content });
    content.catch(() => this.pulled.delete(ref));
    return content;
  }

  private desiredNow(name: string): string | undefined {
    return this.nodes.get(name)?.metadata?.annotations?.[ANN.desiredConfig];
  }

  private async update(name: string, desired: string, daemon: NodeDaemon): Promise<void> {
    const { client, clock, signal, deviations } = this.ctx;
    daemon.attempts++;
    const plan = planUpdate(rngFor(this.ctx.seed, name, desired, String(daemon.attempts)));
    const log = (line: string): void => this.ctx.log(`mcd/${name}`, line);
    const from = this.nodes.get(name)?.metadata?.annotations?.[ANN.currentConfig] ?? '';
    log(`Starting update from ${from} to ${desired}`);
    log('Update prepared; requesting cordon and drain via annotation to controller');
    await client.patch('Node', name, {
      metadata: { annotations: { [ANN.state]: 'Working', [ANN.reason]: '', [ANN.desiredDrain]: `drain-${desired}` } },
      spec: { unschedulable: true },
    });
    await clock.sleep(plan.drainMs, signal);
    await client.patch('Node', name, { metadata: { annotations: { [ANN.lastAppliedDrain]: `drain-${desired}` } } });
    log('drain complete');

    const config = await client.get<MachineConfig & KubeObject>('MachineConfig', desired);
    if (!config) {
      await this.degrade(name, `could not find MachineConfig: machineconfig.machineconfiguration.openshift.io "${desired}" not found`);
      return;
    }
    const wanted = config.spec?.osImageURL ?? '';
    const before = this.hosts.get(name).booted;
    let booted = before;
    if (wanted && wanted !== before.pullspec && !deviations.daemonSkipsRebase) {
      log(`Initiating switch to OS image ${wanted}`);
      for (;;) {
        await clock.sleep(plan.pullMs, signal);
        try {
          const content = await this.pull(wanted);
          booted = { pullspec: wanted, content, timestampMs: clock.nowMs() };
          log(`Running rpm-ostree [rebase --experimental ostree-unverified-registry:${wanted}]: staged ${content.digest}`);
          break;
        } catch (error) {
          if (deviations.daemonIgnoresPullErrors) break;
          log(`Marking Degraded due to: ${pullFailureReason(wanted, (error as Error).message)}`);
          await this.degrade(name, pullFailureReason(wanted, (error as Error).message));
          // keep retrying while the node is still asked for this config, as the real daemon's requeue does
          await clock.sleep(RETRY_MS, signal);
          if (this.desiredNow(name) !== desired) return;
        }
      }
      if (this.nodes.get(name)?.metadata?.annotations?.[ANN.state] === 'Degraded') {
        await client.patch('Node', name, { metadata: { annotations: { [ANN.state]: 'Working', [ANN.reason]: '' } } });
      }
    }

    log(`Rebooting node (config ${desired})`);
    await this.setReady(name, false);
    await clock.sleep(plan.rebootMs, signal);
    this.hosts.boot(name, booted);
    await this.setReady(name, true, booted);
    await clock.sleep(plan.settleMs, signal);
    const annotations: Record<string, string> = {
      [ANN.state]: 'Done',
      [ANN.currentConfig]: desired,
      [ANN.reason]: '',
      [ANN.desiredDrain]: `uncordon-${desired}`,
      [ANN.lastAppliedDrain]: `uncordon-${desired}`,
    };
    await client.patch('Node', name, { metadata: { annotations }, spec: { unschedulable: null } });
    log(`Update completed for config ${desired} and node has been successfully uncordoned`);
    daemon.attempts = 0;
    daemon.completed = desired;
  }

  private async degrade(name: string, reason: string): Promise<void> {
    await this.ctx.client.patch('Node', name, { metadata: { annotations: { [ANN.state]: 'Degraded', [ANN.reason]: reason } } });
  }

  /** The kubelet's view around a reboot: NotReady while down, Ready with the new OS name once back. */
  private async setReady(name: string, ready: boolean, booted?: BootedImage): Promise<void> {
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
      patch.nodeInfo = { ...(node?.status?.nodeInfo ?? {}), osImage: osImageName(booted.content), bootID: `${hex(8)}-${hex(4)}-${hex(4)}-${hex(4)}-${hex(12)}` };
    }
    await this.ctx.client.patchStatus('Node', name, patch);
  }
}
