/**
 * The reference's controllers grouped as the processes (pods) they run in on a cluster: the machine-config operator,
 * the machine-config controller (template, render and node controllers), the daemons and the CVO. Each process has
 * its own API connection, its own caches and its own stop signal, so it can be killed and started again as a crashed
 * or replaced pod is; a started process knows only what the API holds (level-triggered, nothing carried over in
 * memory).
 *
 * Kills and starts are posted as the kubelet posts them, events `Killing` / `Started` on the component's pod, so a
 * monitor watching events sees every restart on its timeline.
 */
import { setMaxListeners } from 'node:events';
import type { Duplex } from 'node:stream';
import { MCO_DEPLOYMENT_CONFIGMAP, MCO_NAMESPACE } from './constants.js';
import type { ClusterTraffic } from './cluster-traffic.js';
import type { Controller, ControllerContext } from './context.js';
import { ClusterVersionOperator, type CvoOptions } from './cvo/cvo.js';
import { KubeClient, type KubeObject } from '../lib/kube/client.js';
import { InformerFactory } from '../lib/kube/informer.js';
import type { NodeHosts } from './kubelet/hosts.js';
import type { PodPrograms } from './kubelet/pod-programs.js';
import { DaemonSet } from './mcd/daemon.js';
import { MachineConfigNodes } from './mcd/machine-config-nodes.js';
import { KubeApiServerOperator } from './kube-apiserver/operator.js';
import { NodeController } from './mco/node-controller.js';
import { Operator, readOperatorEnvironment } from './mco/operator.js';
import { RenderController } from './mco/render-controller.js';
import { TemplateController } from './mco/template-controller.js';
import { BuildController } from './mco/image-mode/build-controller.js';
import { BuilderStartSync } from './mco/image-mode/builder-start.js';
import { MACHINE_OS_BUILDER } from './mco/image-mode/names.js';
import { createRng } from './rng.js';
import { nameHash, randomSuffix } from './workloads/pod-names.js';

export const COMPONENTS = ['machine-config-operator', 'machine-config-controller', 'machine-config-daemon', 'cluster-version-operator', 'machine-os-builder'] as const;
/** Components that run only while their Deployment has a pod (BuilderRollout), not from the cluster's start. */
export const ON_DEMAND_COMPONENTS: readonly ComponentName[] = ['machine-os-builder'];
export type ComponentName = (typeof COMPONENTS)[number];

/** What every process shares: the cluster (clock, profile, deviations, images) and the kubelet's connection. */
export interface ProcessBase extends Omit<ControllerContext, 'client' | 'informers' | 'signal'> {
  kubeconfigPath: string;
  /** Each process's connections to the API server, which runs in this process (no TCP, no TLS). */
  connect: () => Duplex;
  /** How each process's client names itself to the API server, and its informers report handled events. */
  traffic: ClusterTraffic;
  /** The kubelet stand-in's connection: posts the pod events and outlives every process. */
  kubelet: KubeClient;
  /** Fires when the whole cluster stops. */
  clusterSignal: AbortSignal;
  /** The update graph the CVO serves. */
  graph: CvoOptions['graph'];
  /** The simulated machines: what each node booted (the daemons rebase them). */
  hosts: NodeHosts;
  /**
   * The programs the kubelets run program pods with (kubelet/pod-programs.ts): a controller whose pods name one (the
   * build controller) registers it here. One registry for the cluster's life, so a process that restarts must not
   * register again: `programs.get(name) ?? programs.register(name, …)`.
   */
  programs: PodPrograms;
}

interface ComponentDefinition {
  namespace: string;
  /** The controllers of one process, built on that process's context. */
  make(ctx: ControllerContext, base: ProcessBase): Promise<Controller[]>;
}

const DEFINITIONS: Record<ComponentName, ComponentDefinition> = {
  'machine-config-operator': {
    namespace: MCO_NAMESPACE,
    make: async (ctx) => [new Operator(ctx, await readOperatorEnvironment(ctx))],
  },
  'machine-config-controller': {
    namespace: MCO_NAMESPACE,
    make: async (ctx) => [new TemplateController(ctx), new RenderController(ctx), new NodeController(ctx)],
  },
  'machine-config-daemon': {
    namespace: MCO_NAMESPACE,
    make: async (ctx, base) => [new DaemonSet(ctx, base.hosts), new MachineConfigNodes(ctx)],
  },
  'machine-os-builder': {
    namespace: MCO_NAMESPACE,
    // the release its pod runs: its Deployment's, as the operator applied it (builder-sync.ts)
    make: async (ctx) => [new BuildController(ctx, await readBuilderRelease(ctx)), new BuilderStartSync(ctx)],
  },
  'cluster-version-operator': {
    namespace: 'openshift-cluster-version',
    // the kube-apiserver operator's kubelet skew rule runs beside the CVO (kube-apiserver/operator.ts)
    make: async (ctx, base) => [new ClusterVersionOperator(ctx, { graph: base.graph }), new KubeApiServerOperator(ctx)],
  },
};

/** How long a replaced component waits for its new Pod object (the rollout makes it within a few syncs). */
const REPLACEMENT_POD_WAIT_MS = 3_000;

interface Running {
  abort: AbortController;
  informers: InformerFactory;
  controllers: Controller[];
}

/** One component's process: start, stop, restart (same pod) and replace (a new pod, as a Deployment rollout does). */
export class ComponentProcess {
  private running?: Running;
  private pod: string;
  private readonly rng;

  constructor(
    readonly name: ComponentName,
    private readonly base: ProcessBase,
  ) {
    this.rng = createRng(base.seed ^ nameHash(name));
    this.pod = this.newPodName();
  }

  /** The running process's controllers (for the daemons' per-node restart). */
  controllers(): readonly Controller[] {
    return this.running?.controllers ?? [];
  }

  async start(): Promise<void> {
    if (this.running || this.base.clusterSignal.aborted) return;
    const abort = new AbortController();
    setMaxListeners(0, abort.signal); // a thousand sleeping node daemons listen to it
    const stopWithCluster = (): void => abort.abort();
    this.base.clusterSignal.addEventListener('abort', stopWithCluster, { once: true });
    abort.signal.addEventListener('abort', () => this.base.clusterSignal.removeEventListener('abort', stopWithCluster), { once: true });
    const log = this.base.log;
    const client = KubeClient.fromFile(this.base.kubeconfigPath, { signal: abort.signal, log: (l) => log('client', `${this.name}: ${l}`), headers: this.base.traffic.clientHeaders(this.name), connect: this.base.connect });
    const informers = new InformerFactory(client, { log: (l) => log('informer', `${this.name}: ${l}`), receipts: this.base.traffic.receipts });
    const { kubeconfigPath: _k, connect: _n, traffic: _t, kubelet: _c, clusterSignal: _s, graph: _g, hosts: _h, programs: _p, ...shared } = this.base;
    const ctx: ControllerContext = { ...shared, client, informers, signal: abort.signal };
    const controllers = await DEFINITIONS[this.name].make(ctx, this.base);
    for (const c of controllers) c.setup();
    this.running = { abort, informers, controllers };
    await informers.startAll();
    for (const c of controllers) c.start();
  }

  /** Kills the process: in-flight work is abandoned where it stands (its sleeps and API calls abort). */
  async stop(): Promise<void> {
    const running = this.running;
    if (!running) return;
    this.running = undefined;
    running.abort.abort();
    await Promise.allSettled(running.controllers.map((c) => c.stop()));
    await running.informers.stopAll();
  }

  /** The container is killed and started again in the same pod (a crash, an OOM kill). */
  async restart(why: string): Promise<void> {
    await this.cycle(why, 'restarted', async (pod) => pod);
  }

  /**
   * The pod is replaced by a new one (a Deployment rollout: a new release's image, a drained node). The events name the
   * Pod objects the workload controller made, the old and the one its new ReplicaSet brings up, so `oc get pods`,
   * `oc logs` and the timeline agree; without such objects (a cluster without workloads) the names are made up.
   */
  async replace(why: string): Promise<void> {
    await this.cycle(why, 'replaced', async (old) => {
      const next = await this.apiPod({ other: old, waitMs: REPLACEMENT_POD_WAIT_MS });
      return next === old ? this.newPodName() : next;
    });
  }

  /**
   * Killing on the current pod, the process stopped and started, Started on the pod `nextPod` names. The whole cycle
   * is work for the cluster clock: a restart is under way, and the cluster must not jump past it (an idle reference
   * runs hours ahead between two of these requests, and a wait on the cluster would see the restart after its end).
   */
  private cycle(why: string, done: string, nextPod: (old: string) => Promise<string>): Promise<void> {
    return this.base.clock.busyDuring(() => this.cycleNow(why, done, nextPod));
  }

  private async cycleNow(why: string, done: string, nextPod: (old: string) => Promise<string>): Promise<void> {
    if (this.base.clusterSignal.aborted) return;
    const old = await this.apiPod();
    await this.postEvent(old, 'Killing', `Stopping container ${this.name}: ${why}`);
    await this.stop();
    await this.base.clock.outsideWork(() => this.start());
    this.pod = await nextPod(old);
    await this.postEvent(this.pod, 'Started', `Started container ${this.name}`);
    this.base.log('kubelet', `${this.name} ${done} (${why}); pod ${old === this.pod ? old : `${old} -> ${this.pod}`}`);
  }

  /** This component's Pod objects that are not being deleted (none when the API cannot be read). */
  private async livePods(): Promise<(KubeObject & { spec?: { nodeName?: string } })[]> {
    const { namespace } = DEFINITIONS[this.name];
    const pods = await this.base.kubelet.list<KubeObject & { spec?: { nodeName?: string } }>('Pod', { namespace, labelSelector: `k8s-app=${this.name}` }).then(
      (l) => l.items,
      () => [],
    );
    return pods.filter((p) => !p.metadata.deletionTimestamp);
  }

  /**
   * The name of this component's Pod object: the newest of its workload's pods (with `other`, the newest that is not
   * that one, waited for up to `waitMs` while its ReplicaSet brings it up), else the name the process made up.
   */
  private async apiPod(options: { other?: string; waitMs?: number } = {}): Promise<string> {
    const deadline = Date.now() + (options.waitMs ?? 0);
    for (;;) {
      const newest = (await this.livePods())
        .filter((p) => p.metadata.name !== options.other)
        .sort((a, b) => String(b.metadata.creationTimestamp ?? '').localeCompare(String(a.metadata.creationTimestamp ?? '')))[0];
      if (newest?.metadata.name) return (this.pod = newest.metadata.name);
      if (Date.now() >= deadline || this.base.clusterSignal.aborted) return options.other ?? this.pod;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** The daemon pod of one node, as the DaemonSet made it (or a stable made-up name without one). */
  async daemonPodOn(node: string, fallback: string): Promise<string> {
    return (await this.livePods()).find((p) => p.spec?.nodeName === node)?.metadata.name ?? fallback;
  }

  /** Posts a kubelet event on one of this component's pods. */
  async postEvent(pod: string, reason: 'Killing' | 'Started', message: string): Promise<void> {
    const { namespace } = DEFINITIONS[this.name];
    await this.base.kubelet.event({ kind: 'Pod', name: pod, namespace, apiVersion: 'v1' }, 'Normal', reason, message, 'kubelet', this.base.clock.timestamp());
  }

  private newPodName(): string {
    return `${this.name}-${randomSuffix(this.rng, 10)}-${randomSuffix(this.rng, 5)}`;
  }
}

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

/**
 * The Deployment rollout of the machine-config operator: when the CVO writes a new RELEASE_VERSION into the MCO
 * "deployment" ConfigMap, the running operator's pod is replaced by one of the new release, as on a real upgrade.
 */
export class OperatorRollout implements Controller {
  private deployed?: string;
  private rolling = Promise.resolve();

  constructor(
    private readonly operator: ComponentProcess,
    private readonly informers: InformerFactory,
    private readonly log: ControllerContext['log'],
  ) {}

  setup(): void {
    const configMaps = this.informers.for<ConfigMap>('ConfigMap', MCO_NAMESPACE);
    configMaps.onChange((type, cm) => {
      if (type === 'delete' || cm.metadata.name !== MCO_DEPLOYMENT_CONFIGMAP) return;
      const version = cm.data?.RELEASE_VERSION;
      if (this.deployed === undefined) this.deployed = version;
      if (version === this.deployed) return;
      this.deployed = version;
      this.rolling = this.rolling.then(() => this.operator.replace(`new release ${version ?? '(none)'}`)).catch((e) => this.log('kubelet', `operator rollout failed: ${(e as Error).message}`));
    });
  }

  start(): void {}

  async stop(): Promise<void> {
    await this.rolling;
  }
}

interface BuilderDeployment extends KubeObject {
  spec?: { template?: { spec?: { containers?: Array<{ image?: string; env?: Array<{ name: string; value?: string }> }> } } };
}

/** The builder pod's environment: RELEASE_VERSION and the MCO image of its Deployment's template. */
async function readBuilderRelease(ctx: Pick<ControllerContext, 'client'>): Promise<{ version: string | undefined; mcoImage: string }> {
  const d = await ctx.client.get<BuilderDeployment>('Deployment', MACHINE_OS_BUILDER, MCO_NAMESPACE);
  const c = d?.spec?.template?.spec?.containers?.[0];
  return { version: c?.env?.find((e) => e.name === 'RELEASE_VERSION')?.value, mcoImage: c?.image ?? '' };
}

/**
 * The machine-os-builder process follows its Deployment's pod, as the kubelet runs a pod's container: started when a
 * pod of it is running, replaced when the rollout brings a new pod (a new release's builder), stopped when no pod is
 * left (the operator deleted the Deployment: no pool is layered).
 */
export class BuilderRollout implements Controller {
  private running?: string;
  private work = Promise.resolve();

  constructor(
    private readonly builder: ComponentProcess,
    private readonly informers: InformerFactory,
    private readonly log: ControllerContext['log'],
  ) {}

  setup(): void {
    const pods = this.informers.for<KubeObject & { status?: { phase?: string } }>('Pod', MCO_NAMESPACE);
    pods.onChange(() => {
      const live = pods.list().filter((p) => p.metadata.labels?.['k8s-app'] === MACHINE_OS_BUILDER && !p.metadata.deletionTimestamp && p.status?.phase === 'Running');
      const newest = live.sort((a, b) => String(b.metadata.creationTimestamp ?? '').localeCompare(String(a.metadata.creationTimestamp ?? '')))[0]?.metadata.name;
      if (newest === this.running) return;
      const before = this.running;
      this.running = newest;
      this.work = this.work
        .then(async () => {
          if (!newest) await this.builder.stop();
          else if (!before) await this.builder.start();
          else await this.builder.replace('new machine-os-builder pod');
        })
        .catch((e) => this.log('kubelet', `machine-os-builder rollout failed: ${(e as Error).message}`));
    });
  }

  start(): void {}

  async stop(): Promise<void> {
    await this.work;
  }
}
