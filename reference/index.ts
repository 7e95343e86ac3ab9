/**
 * The reference OpenShift cluster: the mock API server with the OpenShift CRDs on a compressed clock, a local OCI
 * registry holding the two releases as real images, a cluster seeded "installed and settled", and the MCO (template,
 * render and node controllers, operator), the machine-config daemons and the CVO running against it through the API,
 * each group as its own process (components.ts) that can be killed and restarted, as can the API server.
 *
 *   const cluster = await startReferenceCluster({ profile: '4.12-nightly-2022-09-08' });
 *   // KUBECONFIG=cluster.kubeconfigPath kubectl get co machine-config
 *   await cluster.stop();
 */
import { setMaxListeners } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { issueServingCertificate, makeCertificateAuthority, type CertificateAuthority, type FaultConfig } from '../mock/index.js';
import type { RegistryCredentials } from '../lib/oci/credentials.js';
import { connectEngine } from '../lib/oci/engine.js';
import { RegistryClient } from '../lib/oci/image-files.js';
import { ReferenceApiServer } from './api-server.js';
import { ClusterClock } from './clock.js';
import { COMPONENTS, ComponentProcess, OperatorRollout, type ComponentName, type ProcessBase } from './components.js';
import type { Controller, ControllerContext, ReleaseImages } from './context.js';
import { registryImageReader } from './images.js';
import { KubeClient } from '../lib/kube/client.js';
import { InformerFactory } from '../lib/kube/informer.js';
import { NodeHosts, type HostOs } from './kubelet/hosts.js';
import { Kubelets } from './kubelet/kubelet.js';
import { startKubeletServer } from './kubelet/log-server.js';
import { DaemonSet } from './mcd/daemon.js';
import { resolveFaults } from './faults.js';
import { getProfile, type ProfileName } from './profiles.js';
import { PullSecretRegistryClients, writePullSecret } from './pull-secret.js';
import { startClusterRegistry, type ClusterRegistry, type ClusterRegistryFiles } from './registry.js';
import { ensureReleases, type ReleaseInfo } from './releases/index.js';
import { RegistryOutage } from './registry-outage.js';
import { nodeName, seedCluster } from './seed.js';
import { acquireWorkDir } from './workdir.js';
import { ComponentLogs } from './workloads/component-logs.js';
import { WorkloadController } from './workloads/controller.js';

export { FAULTS, type FaultName } from './faults.js';
export { PROFILES, type ProfileName } from './profiles.js';
export { CURRENT_VERSION, NEXT_VERSION } from './constants.js';
export { COMPONENTS, type ComponentName } from './components.js';

export interface ReferenceClusterOptions {
  /** `4.12-ga` (default, the fixed code) or `4.12-nightly-2022-09-08` (the report's code). */
  profile?: ProfileName | string;
  /** Cluster ms per wall ms. Default 600: ten cluster minutes per wall second. */
  timeFactor?: number;
  /** Seeds every duration the reference draws. Default 1. */
  seed?: number;
  /**
   * Where the registry keeps its images between runs. Default `<repo>/.cache/reference`. While another live cluster
   * holds it, a private folder next to it is used (and removed on stop).
   */
  workDir?: string;
  /** Named faults (see FAULTS); an unknown name is an error listing the valid ones. */
  faults?: string[];
  /** Worker nodes. Default 2 (the report's cluster); the benchmark uses 1,000. */
  workers?: number;
  /** Where to write the kubeconfig. Default a fresh temporary directory removed by stop(). */
  kubeconfigPath?: string;
  /** Progress and controller log lines. Default: silent. */
  log?: (line: string) => void;
  /** API server faults (errors, resets, cut watches) from the start; setApiFaults changes them later. */
  apiFaults?: FaultConfig;
  /**
   * A registry with the releases (startReferenceRegistry) that several clusters of one process share; the cluster
   * neither takes a work folder (workDir is ignored) nor stops it. Default: the cluster starts its own.
   */
  registry?: ReferenceRegistry;
  /** The API server's data directory; with one, `restartApiServer()` brings it back with every object. */
  apiDataDir?: string;
}

/**
 * The local registry holding both releases, on its storage folder; stop() stops it and frees the folder. Its CA is the
 * CA of every cluster that uses it (it signs their API servers' certificates too), its credentials their pull secret.
 */
export interface ReferenceRegistry {
  registry: ClusterRegistry;
  ca: CertificateAuthority;
  releases: { current: ReleaseInfo; next: ReleaseInfo };
  stop(): Promise<void>;
}

export interface ReferenceCluster {
  kubeconfigPath: string;
  apiUrl: string;
  /** `127.0.0.1:PORT` of the local registry holding the releases (HTTPS, credentials required). */
  registry: string;
  /** PEM of the cluster's CA: it signed the API server's and the registry's certificates. */
  caPem: string;
  /**
   * Files for clients of the registry, removed by stop(): the CA, a bundle for SSL_CERT_FILE, and a docker config
   * with the pull secret's credentials (0600) for REGISTRY_AUTH_FILE / DOCKER_CONFIG.
   */
  registryFiles: ClusterRegistryFiles;
  /** The registry's credentials, as the pull secret holds them (printing the object shows host names only). */
  registryCredentials: RegistryCredentials;
  /** certs.d files written so the engines trust the registry (removed by stop()), and folders that could not be. */
  engineTrust: ClusterRegistry['engineTrust'];
  /** Where layered images built against this cluster may be pushed. */
  imageRepo: string;
  releases: { current: ReleaseInfo; next: ReleaseInfo };
  timeFactor: number;
  profile: ProfileName;
  seed: number;
  faults: string[];
  /** Cluster time now. */
  now(): Date;
  /** What a simulated machine booted (for the reference's own tests; the suite asks the node with a debug pod). */
  hostOs(node: string): HostOs;
  /** Replace the API server's fault injection (see `apiFaults`). */
  setApiFaults(faults: FaultConfig): void;
  /** Ends every open watch of the API server, as its restart would (new faults apply only to new requests). */
  dropApiWatches(): void;
  /**
   * Restarts the API server on the same address from its data directory (needs `apiDataDir`), down for `downWallMs`
   * (default 300): every watch is cut, clients reconnect, resource versions go on. Posted as kubelet events on
   * kube-apiserver's pod.
   */
  restartApiServer(downWallMs?: number): Promise<void>;
  /** Kills a component's process and starts it again in the same pod; it resumes from what the API holds. */
  restartComponent(name: ComponentName, why?: string): Promise<void>;
  /** Kills the machine-config-daemon of one node and starts a new one, which redoes that node's update. */
  restartDaemon(node: string, why?: string): Promise<void>;
  /** Cuts the registry off from the cluster (false) or brings it back (true): pulls and payload reads fail meanwhile. */
  setRegistryReachable(reachable: boolean): void;
  /** Stops controllers, API server and registry; leaves no process behind. Safe to call twice. */
  stop(): Promise<void>;
}

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

type Say = (line: string) => void;

/** Undo steps of a start, run in reverse; a failing step is logged and the rest still run. */
class Cleanups {
  private readonly steps: Array<() => Promise<unknown>> = [];
  constructor(private readonly say: Say) {}
  push(step: () => Promise<unknown>): void {
    this.steps.push(step);
  }
  async run(): Promise<void> {
    for (const step of this.steps.splice(0).reverse()) await step().catch((e) => this.say(`stop: ${(e as Error).message}`));
  }
}

export async function startReferenceCluster(options: ReferenceClusterOptions = {}): Promise<ReferenceCluster> {
  const profile = getProfile(options.profile);
  const faults = resolveFaults(options.faults ?? []);
  const timeFactor = options.timeFactor ?? 600;
  const seed = options.seed ?? 1;
  const workers = options.workers ?? 2;
  if (!Number.isInteger(workers) || workers < 0) throw new Error(`workers must be a non-negative integer, got ${workers}`);
  const say = options.log ?? (() => undefined);
  const clock = new ClusterClock({ factor: timeFactor });
  const cleanups = new Cleanups(say);
  try {
    const kubeconfigPath = await kubeconfigFile(options, cleanups);
    const shared = options.registry ?? (await ownRegistry(options, cleanups, say));
    const api = await startApi(clock, options, kubeconfigPath, shared.ca, cleanups, say);
    const abort = new AbortController();
    // every sleeping daemon and poll listens to this one signal: a thousand nodes mean a thousand listeners
    setMaxListeners(0, abort.signal);
    const logs = componentLogging(clock, say);
    const client = KubeClient.fromFile(kubeconfigPath, { signal: abort.signal, log: (l) => logs.log('client', l) });
    const pulls = await pullWithPullSecret(client, shared);
    const machines = await seedMachines({ client, clock, profile, shared, images: pulls.images, timeFactor, seed, workers, faultNames: faults.names });
    say(`cluster seeded: 3 masters, ${workers} workers at ${machines.current.version}`);

    const informers = new InformerFactory(client, { log: (l) => logs.log('informer', l) });
    const ctx: ControllerContext = { client, informers, clock, profile, deviations: faults.deviations, seed, images: pulls.images, log: logs.log, signal: abort.signal };
    const { current, next } = machines;
    const graph = [current, { ...next, previous: shared.releases.next.previous?.length ? shared.releases.next.previous : [current.version] }];
    await startNodes(ctx, abort, cleanups, { hosts: machines.hosts, files: pulls.hostFiles, logs: logs.componentLogs, releases: [current, next] });
    const base: ProcessBase = { kubeconfigPath, kubelet: client, clusterSignal: abort.signal, graph, hosts: machines.hosts, clock, profile, deviations: faults.deviations, seed, images: pulls.images, log: logs.log };
    const components = await startComponents(base, cleanups);
    if (options.apiFaults) api.setFaults(options.apiFaults);
    say('controllers running');
    return clusterHandle({ kubeconfigPath, api, shared, machines, timeFactor, profile: profile.name, seed, faults: faults.names, clock, client, components, outage: pulls.outage, cleanups, say });
  } catch (error) {
    await cleanups.run();
    throw error;
  }
}

async function ownRegistry(options: ReferenceClusterOptions, cleanups: Cleanups, say: Say): Promise<Omit<ReferenceRegistry, 'stop'>> {
  const own = await startReferenceRegistry({ workDir: options.workDir, log: say });
  cleanups.push(() => own.stop());
  return own;
}

/** Controller log lines go to the log of the pod that runs the component, as well as to the caller's log. */
function componentLogging(clock: ClusterClock, say: Say): { componentLogs: ComponentLogs; log: (component: string, line: string) => void } {
  const componentLogs = new ComponentLogs(() => clock.nowMs());
  const log = (component: string, line: string): void => {
    componentLogs.write(component, line);
    say(`[${clock.timestamp()}] ${component}: ${line}`);
  };
  return { componentLogs, log };
}

/**
 * The pull secret exists before anything pulls: the CVO and the daemons pull with it, read from the API each time.
 * Their reads go through the outage switch, so a test can cut the registry off from the cluster.
 */
async function pullWithPullSecret(client: KubeClient, shared: Omit<ReferenceRegistry, 'stop'>) {
  const { registry, ca } = shared;
  await client.apply('Namespace', { metadata: { name: 'openshift-config' } });
  await writePullSecret(client, registry.pullSecretJson);
  const pullClients = new PullSecretRegistryClients(client, [ca.caPem]);
  const outage = new RegistryOutage(registry.address);
  const images = outage.wrap(registryImageReader(() => pullClients.current()));
  // what debug pods read on a host: the node's own disk, so the node's copy of the credentials
  const hostFiles = new RegistryClient({ credentials: registry.credentials, caPems: [ca.caPem] });
  return { images, outage, hostFiles };
}

interface SeedInputs {
  client: KubeClient;
  clock: ClusterClock;
  profile: ReturnType<typeof getProfile>;
  shared: Omit<ReferenceRegistry, 'stop'>;
  images: ControllerContext['images'];
  timeFactor: number;
  seed: number;
  workers: number;
  faultNames: string[];
}

/** The machines booted from the current release's OS image, and the cluster's objects as an installer leaves them. */
async function seedMachines(i: SeedInputs): Promise<{ current: ReleaseImages; next: ReleaseImages; hosts: NodeHosts; imageRepo: string }> {
  const { registry, releases } = i.shared;
  const current = releaseImages(releases.current);
  const next = releaseImages(releases.next);
  const installedImage = i.profile.newFormatImageByDefault ? current.rhelCoreos8 : current.machineOsContent;
  const bootedContent = await i.images.readOsImage(installedImage);
  const imageRepo = `${registry.address}/ocp-e2e/layered-os`;
  const hosts = new NodeHosts({ pullspec: installedImage, content: bootedContent, timestampMs: i.clock.nowMs() });
  await seedCluster({ client: i.client, clock: i.clock, profile: i.profile, current, next, bootedContent, registry: registry.address, imageRepo, timeFactor: i.timeFactor, seed: i.seed, workers: i.workers, faults: i.faultNames });
  return { current, next, hosts, imageRepo };
}

/** The machines' side, which outlives every component: kubelets with their log endpoint, and the workload controller. */
async function startNodes(ctx: ControllerContext, abort: AbortController, cleanups: Cleanups, n: { hosts: NodeHosts; files: RegistryClient; logs: ComponentLogs; releases: ReleaseImages[] }): Promise<void> {
  const kubelets = new Kubelets(ctx, { hosts: n.hosts, files: n.files, components: n.logs });
  const kubeletServer = await startKubeletServer(kubelets, () => ctx.clock.nowMs());
  cleanups.push(() => kubeletServer.close());
  await publishKubeletEndpoint(ctx.client, kubeletServer.port);
  await startMachines(ctx, abort, cleanups, [new WorkloadController(ctx, n.releases), kubelets]);
}

interface HandleParts {
  kubeconfigPath: string;
  api: ReferenceApiServer;
  shared: Omit<ReferenceRegistry, 'stop'>;
  machines: { hosts: NodeHosts; imageRepo: string };
  timeFactor: number;
  profile: ProfileName;
  seed: number;
  faults: string[];
  clock: ClusterClock;
  client: KubeClient;
  components: RunningComponents;
  outage: RegistryOutage;
  cleanups: Cleanups;
  say: Say;
}

/** What the caller holds: addresses and releases, the switches tests use to restart or cut things, and stop(). */
function clusterHandle(p: HandleParts): ReferenceCluster {
  const { api, clock, client, say } = p;
  const { registry, releases, ca } = p.shared;
  const kubeApiserverPod = { kind: 'Pod', name: `kube-apiserver-${nodeName('master', 0)}`, namespace: 'openshift-kube-apiserver', apiVersion: 'v1' };
  let stopped: Promise<void> | undefined;
  return {
    kubeconfigPath: p.kubeconfigPath,
    apiUrl: api.url,
    registry: registry.address,
    caPem: ca.caPem,
    registryFiles: registry.files,
    registryCredentials: registry.credentials,
    engineTrust: registry.engineTrust,
    imageRepo: p.machines.imageRepo,
    releases,
    timeFactor: p.timeFactor,
    profile: p.profile,
    seed: p.seed,
    faults: p.faults,
    now: () => clock.now(),
    hostOs: (node: string) => p.machines.hosts.get(node),
    setApiFaults: (f: FaultConfig) => api.setFaults(f),
    dropApiWatches: () => api.dropWatches(),
    restartApiServer: async (downWallMs = 300) => {
      await client.event(kubeApiserverPod, 'Normal', 'Killing', 'Stopping container kube-apiserver', 'kubelet', clock.timestamp());
      await api.restart(downWallMs);
      await client.event(kubeApiserverPod, 'Normal', 'Started', 'Started container kube-apiserver', 'kubelet', clock.timestamp());
      say(`API server restarted (down ${downWallMs} ms)`);
    },
    restartComponent: (name, why = 'killed') => p.components.get(name).restart(why),
    restartDaemon: (node, why = 'killed') => p.components.restartDaemon(node, why),
    setRegistryReachable: (reachable) => {
      p.outage.reachable = reachable;
      say(`registry ${reachable ? 'reachable again' : 'cut off from the cluster'}`);
    },
    stop: () => (stopped ??= p.cleanups.run()),
  };
}

/**
 * The registry with both releases on its storage folder (shared between runs, or private while another process's
 * cluster holds it). Several clusters of one process may share it: pass it as `registry` to each.
 */
export async function startReferenceRegistry(options: { workDir?: string; log?: Say } = {}): Promise<ReferenceRegistry> {
  const say = options.log ?? (() => undefined);
  const cleanups = new Cleanups(say);
  try {
    const work = await acquireWorkDir(path.resolve(options.workDir ?? path.join(REPO_ROOT, '.cache', 'reference')));
    cleanups.push(() => work.release());
    if (work.private) say(`registry storage ${work.path} (the shared one is in use by another cluster)`);
    const { registry, releases, ca } = await startRegistryWithReleases(work.path, cleanups, say);
    let stopped: Promise<void> | undefined;
    return { registry, releases, ca, stop: () => (stopped ??= cleanups.run()) };
  } catch (error) {
    await cleanups.run();
    throw error;
  }
}

/** The kubeconfig's path: the given one, or one in a temporary folder removed on stop. */
async function kubeconfigFile(options: ReferenceClusterOptions, cleanups: Cleanups): Promise<string> {
  if (options.kubeconfigPath) return options.kubeconfigPath;
  const dir = await mkdtemp(path.join(tmpdir(), 'ocp-e2e-reference-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return path.join(dir, 'kubeconfig');
}

/**
 * The local registry on `workDir`, holding both releases as real images (built once, then cached): HTTPS with a
 * certificate of a new CA, credentials required (reference/registry.ts).
 */
async function startRegistryWithReleases(workDir: string, cleanups: Cleanups, say: Say): Promise<Omit<ReferenceRegistry, 'stop'>> {
  // One CA for the registry and the API servers of its clusters, as OpenShift has one trust anchor for both.
  const ca = makeCertificateAuthority('ocp-e2e reference cluster CA');
  const secretsDir = await mkdtemp(path.join(tmpdir(), 'ocp-e2e-reference-trust-'));
  cleanups.push(() => rm(secretsDir, { recursive: true, force: true }));
  const engine = await connectEngine().catch(() => undefined); // needed only when the release images must be built
  const registry = await startClusterRegistry({ storageDir: path.join(workDir, 'registry'), secretsDir, ca, engine });
  cleanups.push(() => registry.stop());
  say(`registry ${registry.address} (${registry.kind}, HTTPS, credentials required)`);
  const built = await ensureReleases({ engine, registry: registry.address, credentials: registry.credentials, caPems: [ca.caPem], log: say });
  say(`releases ready in ${(built.durationMs / 1000).toFixed(1)} s${built.built.length ? ` (built ${built.built.length} images)` : ' (cached)'}`);
  return { registry, ca, releases: { current: built.current, next: built.next } };
}

/** The API server (its serving certificate signed by the cluster's CA), and its kubeconfig written. */
async function startApi(clock: ClusterClock, options: ReferenceClusterOptions, kubeconfigPath: string, ca: CertificateAuthority, cleanups: Cleanups, say: Say): Promise<ReferenceApiServer> {
  const api = await ReferenceApiServer.start({ clock, faults: options.apiFaults, dataDir: options.apiDataDir, certificates: issueServingCertificate(ca, ['127.0.0.1', 'localhost', '::1']) });
  cleanups.push(() => api.close());
  await api.writeKubeconfig(kubeconfigPath);
  say(`API server ${api.url}`);
  return api;
}

/** The workload controllers and the kubelets, on the cluster's own caches; stopped by `cleanups`. */
async function startMachines(ctx: ControllerContext, abort: AbortController, cleanups: Cleanups, machines: Controller[]): Promise<void> {
  for (const c of machines) c.setup();
  cleanups.push(async () => {
    abort.abort();
    await Promise.allSettled(machines.map((c) => c.stop()));
    await ctx.informers.stopAll();
  });
  await ctx.informers.startAll();
  for (const c of machines) c.start();
}

interface RunningComponents {
  get(name: ComponentName): ComponentProcess;
  restartDaemon(node: string, why: string): Promise<void>;
}

/**
 * The MCO's operator, controller and daemons and the CVO, each a process of its own, and the Deployment rollout that
 * replaces the operator at a version change; stopped by `cleanups`.
 */
async function startComponents(base: ProcessBase, cleanups: Cleanups): Promise<RunningComponents> {
  const processes = new Map(COMPONENTS.map((name) => [name, new ComponentProcess(name, base)] as const));
  const get = (name: ComponentName): ComponentProcess => processes.get(name)!;
  const kubeletInformers = new InformerFactory(base.kubelet, { log: (l) => base.log('informer', `kubelet: ${l}`) });
  const rollout = new OperatorRollout(get('machine-config-operator'), kubeletInformers, base.log);
  rollout.setup();
  cleanups.push(async () => {
    await rollout.stop();
    await Promise.allSettled([...processes.values()].map((p) => p.stop()));
    await kubeletInformers.stopAll();
  });
  await kubeletInformers.startAll();
  await Promise.all([...processes.values()].map((p) => p.start()));
  return {
    get,
    restartDaemon: async (node, why) => {
      const daemons = get('machine-config-daemon');
      const set = daemons.controllers().find((c): c is DaemonSet => c instanceof DaemonSet);
      if (!set) throw new Error('the machine-config-daemon process is not running');
      const pod = await daemons.daemonPodOn(node, `machine-config-daemon-${podSuffix(node)}`);
      await daemons.postEvent(pod, 'Killing', `Stopping container machine-config-daemon: ${why}`);
      await set.restartNode(node);
      await daemons.postEvent(pod, 'Started', 'Started container machine-config-daemon');
    },
  };
}

/** A stable five-letter pod suffix for a node's daemon pod. */
function podSuffix(node: string): string {
  const chars = 'bcdfghjklmnpqrstvwxz2456789';
  let h = 0;
  for (const ch of node) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return Array.from({ length: 5 }, (_, i) => chars[(h >>> (i * 5)) % chars.length]).join('');
}

/** Every node's kubelet is reached at the stand-in's port: what `pods/log` on the API server proxies to. */
async function publishKubeletEndpoint(client: KubeClient, port: number): Promise<void> {
  const nodes = (await client.list('Node')).items;
  for (let i = 0; i < nodes.length; i += 20) {
    await Promise.all(nodes.slice(i, i + 20).map((n) => client.patchStatus('Node', n.metadata.name!, { daemonEndpoints: { kubeletEndpoint: { Port: port } } })));
  }
}

function releaseImages(info: ReleaseInfo): ReleaseImages {
  return { version: info.version, image: info.image, rhelCoreos8: info.rhelCoreos8, machineOsContent: info.machineOsContent, extensions: info.extensions };
}
