/**
 * The reference OpenShift cluster, assembled: the mock API server with the OpenShift CRDs on a compressed clock, the
 * registry of the profile's releases (reference-registry.ts), a cluster seeded "installed and settled", and the MCO
 * (template, render and node controllers, operator), the machine-config daemons and the CVO running against it
 * through the API, each group as its own process (components.ts) that can be killed and restarted, as can the API
 * server. What the caller gets back is cluster-handle.ts.
 */
import { setMaxListeners } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { issueServingCertificate, type AuthorizationHook, type CertificateAuthority, type FaultConfig } from '../mock/index.js';
import { KubeClient } from '../lib/kube/client.js';
import { InformerFactory } from '../lib/kube/informer.js';
import { ReferenceApiServer } from './api-server.js';
import { Cleanups, type Say } from './cleanups.js';
import { ClusterClock, DEFAULT_CLOCK, DEFAULT_TIME_FACTOR, type ClockMode } from './clock.js';
import { clusterHandle, type ReferenceCluster, type RunningComponents } from './cluster-handle.js';
import { ClusterTraffic } from './cluster-traffic.js';
import { BuilderRollout, COMPONENTS, ComponentProcess, ON_DEMAND_COMPONENTS, OperatorRollout, type ComponentName, type ProcessBase } from './components.js';
import type { Controller, ControllerContext } from './context.js';
import { resolveFaults, withDeviations } from './faults.js';
import { imageSources, registryImageReader } from './images.js';
import { ClusterMirrorSets, seedMirrorSets } from './mirror-sets.js';
import { NodeHosts } from './kubelet/hosts.js';
import type { ImageLayerSource } from './node-fs/image-trees.js';
import { Kubelets } from './kubelet/kubelet.js';
import { PodPrograms } from './kubelet/pod-programs.js';
import { registerImageBuildProgram } from './mco/image-mode/build-program.js';
import { nodeRootsFor } from './node-fs/cluster-roots.js';
import { startKubeletServer } from './kubelet/log-server.js';
import { DaemonSet } from './mcd/daemon.js';
import { getProfile, type ProfileName } from './profiles/index.js';
import type { Profile } from './profiles/profile.js';
import { PullSecretRegistryClients, writePullSecret } from './pull-secret.js';
import { startReferenceRegistry, type ReferenceRegistry } from './reference-registry.js';
import { RegistryOutage } from './registry-outage.js';
import { baseOsImage, machineOsContent, type ReleaseInfo } from './releases/release-info.js';
import { releasePath, sameReleases } from './releases/release-set.js';
import { clusterShape, describeShape, type Arch, type ClusterShape, type Topology } from './topology.js';
import { seedCluster } from './seed.js';
import { ComponentLogs } from './workloads/component-logs.js';
import { WorkloadController } from './workloads/controller.js';
import { JobController } from './workloads/job-controller.js';
import { stableSuffix } from './workloads/pod-names.js';

export interface ReferenceClusterOptions {
  /** A name of the registry of profiles (profiles/index.ts); default its DEFAULT_PROFILE. */
  profile?: ProfileName | string;
  /** Cluster ms per wall ms. Default 600: ten cluster minutes per wall second. */
  timeFactor?: number;
  /** `skip` (DEFAULT_CLOCK): cluster time also jumps over idle time (see clock.ts); `fixed`: it is wall time × factor. */
  clock?: ClockMode;
  /** Seeds every duration the reference draws. Default 1. */
  seed?: number;
  /**
   * Where the registry keeps its images between runs. Default `<repo>/.cache/reference`. While another live cluster
   * holds it, a private folder next to it is used (and removed on stop).
   */
  workDir?: string;
  /** Named faults (see FAULTS); an unknown name is an error listing the valid ones. */
  faults?: string[];
  /** Worker nodes of an `ha` cluster. Default 2 (the report's cluster); the benchmark uses 1,000. */
  workers?: number;
  /** The cluster's shape (topology.ts): `ha` (default), `compact` or `sno`. */
  topology?: Topology;
  /** Nodes of an infra pool beside the workers (`ha` only). Default none. */
  infraNodes?: number;
  /** The nodes' architectures (topology.ts): amd64 (default), arm64 or multi; a given registry must hold releases for it. */
  arch?: Arch;
  /**
   * A disconnected cluster (mirror-sets.ts): payloads naming quay.io, reached through mirror sets mapping it to the
   * local registry; a given registry must have been started disconnected too. Default false.
   */
  disconnected?: boolean;
  /** Where to write the kubeconfig. Default a fresh temporary directory removed by stop(). */
  kubeconfigPath?: string;
  /** Progress and controller log lines. Default: silent. */
  log?: (line: string) => void;
  /** API server faults (errors, resets, cut watches) from the start; setApiFaults changes them later. */
  apiFaults?: FaultConfig;
  /**
   * A registry with the profile's releases (startReferenceRegistry) that several clusters of one process share; the
   * cluster neither takes a work folder (workDir is ignored) nor stops it. Default: the cluster starts its own.
   */
  registry?: ReferenceRegistry;
  /** The API server's data directory; with one, `restartApiServer()` brings it back with every object. */
  apiDataDir?: string;
  /**
   * Told every API request of a user other than the cluster's admin, with its RBAC decision (RBAC is always on, as on
   * a real cluster; the admin kubeconfig is a `system:masters` member): what a ServiceAccount's role must allow.
   */
  onAuthorize?: AuthorizationHook;
  /**
   * On-demand components (ON_DEMAND_COMPONENTS) whose process never starts, so a test can play them by hand: a test of
   * the node controller makes the MachineOSBuilds itself, with no build controller racing it. Their Deployment and pod
   * still come and go as the operator says. Default none.
   */
  withoutComponents?: ComponentName[];
}

export async function startReferenceCluster(options: ReferenceClusterOptions = {}): Promise<ReferenceCluster> {
  const profile = getProfile(options.profile);
  const faults = resolveFaults(options.faults ?? []);
  const deviations = withDeviations(faults.deviations, profile.deviates);
  const timeFactor = options.timeFactor ?? DEFAULT_TIME_FACTOR;
  const seed = options.seed ?? 1;
  const shape = clusterShape(options.topology, options.workers, options.infraNodes, options.arch);
  const say = options.log ?? (() => undefined);
  const clock = new ClusterClock({ factor: timeFactor, mode: options.clock ?? DEFAULT_CLOCK });
  const traffic = new ClusterTraffic(clock);
  const cleanups = new Cleanups(say);
  cleanups.push(async () => clock.stop()); // last: the controllers stop first
  try {
    const kubeconfigPath = await kubeconfigFile(options, cleanups);
    const shared = await registryFor(profile, options, cleanups, say);
    const api = await startApi({ clock, traffic }, options, profile.releases.current.version, kubeconfigPath, shared.ca, cleanups, say);
    const abort = new AbortController();
    // every sleeping daemon and poll listens to this one signal: a thousand nodes mean a thousand listeners
    setMaxListeners(0, abort.signal);
    const logs = componentLogging(clock, say);
    // the cluster's own clients run in the API server's process: they connect in-process, without TCP or TLS
    const connect = () => api.connect();
    const client = KubeClient.fromFile(kubeconfigPath, { signal: abort.signal, log: (l) => logs.log('client', l), headers: traffic.clientHeaders('cluster'), connect });
    if (shared.disconnected) await seedMirrorSets(client, shared.registry.address, profile.releases.current.version);
    const pulls = await pullWithPullSecret(client, shared);
    const machines = await seedMachines({ client, clock, profile, shared, images: pulls.images, timeFactor, seed, shape, faultNames: faults.names });
    const { current, path } = shared.releases;
    say(`cluster seeded: ${describeShape(shape)} at ${current.version}`);

    const informers = new InformerFactory(client, { log: (l) => logs.log('informer', l), receipts: traffic.receipts });
    const ctx: ControllerContext = { client, informers, clock, profile, deviations, seed, images: pulls.images, log: logs.log, signal: abort.signal };
    // one registry of pod programs for the cluster's life: the kubelets run program pods with it, and the components
    // (an on-cluster build controller) register the programs their pods name, once, whatever their restarts
    const programs = new PodPrograms();
    // what an on-cluster image build's pod runs (the MCO image's build script, buildah): registered with the cluster,
    // as the image is there whether or not a builder runs; it reads and writes through the kubelet's connection
    registerImageBuildProgram(programs, { client, caPems: [shared.ca.caPem], pullSource: pulls.sources });
    // the update graph: each release of the path updates from the one before it, one hop at a time
    const graph = path.map((release, i) => (i === 0 || release.previous?.length ? release : { ...release, previous: [path[i - 1]!.version] }));
    await startNodes(ctx, abort, cleanups, { hosts: machines.hosts, layers: pulls.hostLayers, logs: logs.componentLogs, releases: path, programs });
    const base: ProcessBase = { kubeconfigPath, connect, traffic, kubelet: client, clusterSignal: abort.signal, graph, hosts: machines.hosts, programs, clock, profile, deviations, seed, images: pulls.images, log: logs.log };
    const components = await startComponents(base, cleanups, options.withoutComponents ?? []);
    if (options.apiFaults) api.setFaults(options.apiFaults);
    say('controllers running');
    return clusterHandle({ kubeconfigPath, api, shared, machines, programs, timeFactor, profile: profile.name, seed, faults: faults.names, clock, client, components, outage: pulls.outage, cleanups, say });
  } catch (error) {
    await cleanups.run();
    throw error;
  }
}

/** The registry the cluster pulls from: the one given (it must hold this profile's releases), or its own. */
async function registryFor(profile: Profile, options: ReferenceClusterOptions, cleanups: Cleanups, say: Say): Promise<Omit<ReferenceRegistry, 'stop'>> {
  if (options.registry) {
    if (!sameReleases(options.registry.releaseSet, profile.releases)) {
      throw new Error(`the registry given holds other releases than profile ${profile.name} needs (${releasePath(profile.releases).map((r) => r.version).join(' -> ')}); start one with that profile's releases`);
    }
    if ((options.registry.arch ?? 'amd64') !== (options.arch ?? 'amd64')) {
      throw new Error(`the registry given holds releases for ${options.registry.arch}, the cluster is ${options.arch ?? 'amd64'}: start one with arch ${options.arch ?? 'amd64'}`);
    }
    if (options.registry.disconnected !== (options.disconnected ?? false)) {
      throw new Error(`the registry given is ${options.registry.disconnected ? '' : 'not '}disconnected, the cluster is ${options.disconnected ? '' : 'not '}: start one with disconnected ${options.disconnected ?? false}`);
    }
    return options.registry;
  }
  const own = await startReferenceRegistry({ releases: profile.releases, workDir: options.workDir, log: say, arch: options.arch, disconnected: options.disconnected });
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
  // every pull follows the mirror sets the API holds, as the nodes' registries.conf and the CVO do
  const mirrors = new ClusterMirrorSets(client);
  const sources = imageSources(() => pullClients.current(), () => mirrors.current());
  const images = outage.wrap(registryImageReader(() => pullClients.current(), () => mirrors.current()));
  // what debug pods read on a host: the node's own disk, so the node's copy of the credentials (the registry's, and
  // the pull secret's for a layered image pulled from another registry), of the image its mirror served
  const layers = pullClients.hostLayers(registry.credentials);
  const hostLayers: ImageLayerSource = {
    digest: async (ref) => layers.digest(await sources(ref)),
    layerDigests: async (ref) => layers.layerDigests(await sources(ref)),
    layer: async (ref, digest) => layers.layer(await sources(ref), digest),
  };
  return { images, outage, hostLayers, sources };
}

interface SeedInputs {
  client: KubeClient;
  clock: ClusterClock;
  profile: Profile;
  shared: Omit<ReferenceRegistry, 'stop'>;
  images: ControllerContext['images'];
  timeFactor: number;
  seed: number;
  shape: ClusterShape;
  faultNames: string[];
}

/** The machines booted from the current release's OS image, and the cluster's objects as an installer leaves them. */
async function seedMachines(i: SeedInputs): Promise<{ hosts: NodeHosts; imageRepo: string }> {
  const { registry, releases } = i.shared;
  const { current, next } = releases;
  const installedImage = i.profile.render.newFormatImageByDefault ? baseOsImage(current) : machineOsContent(current);
  const bootedContent = await i.images.readOsImage(installedImage);
  const imageRepo = `${registry.address}/ocp-e2e/layered-os`;
  const hosts = new NodeHosts({ pullspec: installedImage, content: bootedContent, timestampMs: i.clock.nowMs() });
  await seedCluster({ client: i.client, clock: i.clock, profile: i.profile, current, next, bootedContent, registry: registry.address, imageRepo, timeFactor: i.timeFactor, seed: i.seed, shape: i.shape, faults: i.faultNames });
  return { hosts, imageRepo };
}

/**
 * The machines' side, which outlives every component: kubelets with their log endpoint (running program pods with
 * `programs`), the workload controller and the job controller (kube-controller-manager's slices the reference plays).
 */
async function startNodes(ctx: ControllerContext, abort: AbortController, cleanups: Cleanups, n: { hosts: NodeHosts; layers: ImageLayerSource; logs: ComponentLogs; releases: ReleaseInfo[]; programs: PodPrograms }): Promise<void> {
  const roots = await nodeRootsFor(n.layers, () => ctx.clock.nowMs());
  cleanups.push(() => roots.removeAll());
  n.hosts.onBoot((_node, os) => roots.warm(os));
  // the installed OS image's tree, made once on a machine: every layered image built on it starts from it (image-trees.ts)
  roots.warm(n.hosts.asInstalled());
  const kubelets = new Kubelets(ctx, { hosts: n.hosts, roots, components: n.logs, programs: n.programs });
  const kubeletServer = await startKubeletServer(kubelets, () => ctx.clock.nowMs());
  cleanups.push(() => kubeletServer.close());
  await publishKubeletEndpoint(ctx.client, kubeletServer.port);
  await startMachines(ctx, abort, cleanups, [new WorkloadController(ctx, n.releases), new JobController(ctx), kubelets]);
}

/** The kubeconfig's path: the given one, or one in a temporary folder removed on stop. */
async function kubeconfigFile(options: ReferenceClusterOptions, cleanups: Cleanups): Promise<string> {
  if (options.kubeconfigPath) return options.kubeconfigPath;
  const dir = await mkdtemp(path.join(tmpdir(), 'ocp-e2e-reference-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return path.join(dir, 'kubeconfig');
}

/** The API server (its serving certificate signed by the cluster's CA, the installed release's CRDs), and its kubeconfig written. */
async function startApi(pace: { clock: ClusterClock; traffic: ClusterTraffic }, options: ReferenceClusterOptions, installedVersion: string, kubeconfigPath: string, ca: CertificateAuthority, cleanups: Cleanups, say: Say): Promise<ReferenceApiServer> {
  const api = await ReferenceApiServer.start({ ...pace, faults: options.apiFaults, dataDir: options.apiDataDir, certificates: issueServingCertificate(ca, ['127.0.0.1', 'localhost', '::1']), onAuthorize: options.onAuthorize, releaseVersion: installedVersion });
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

/**
 * The MCO's operator, controller and daemons and the CVO, each a process of its own, and the Deployment rollout that
 * replaces the operator at a version change; stopped by `cleanups`.
 */
async function startComponents(base: ProcessBase, cleanups: Cleanups, without: ComponentName[]): Promise<RunningComponents> {
  const refused = without.filter((name) => !ON_DEMAND_COMPONENTS.includes(name));
  if (refused.length) throw new Error(`withoutComponents takes only on-demand components (${ON_DEMAND_COMPONENTS.join(', ')}), not ${refused.join(', ')}`);
  const processes = new Map(COMPONENTS.map((name) => [name, new ComponentProcess(name, base)] as const));
  const get = (name: ComponentName): ComponentProcess => processes.get(name)!;
  const kubeletInformers = new InformerFactory(base.kubelet, { log: (l) => base.log('informer', `kubelet: ${l}`), receipts: base.traffic.receipts });
  const rollout = new OperatorRollout(get('machine-config-operator'), kubeletInformers, base.log);
  rollout.setup();
  const builder = new BuilderRollout(get('machine-os-builder'), kubeletInformers, base.log);
  if (!without.includes('machine-os-builder')) builder.setup();
  cleanups.push(async () => {
    await rollout.stop();
    await builder.stop();
    await Promise.allSettled([...processes.values()].map((p) => p.stop()));
    await kubeletInformers.stopAll();
  });
  await kubeletInformers.startAll();
  await Promise.all([...processes.values()].filter((p) => !ON_DEMAND_COMPONENTS.includes(p.name)).map((p) => p.start()));
  return {
    get,
    // work for the cluster clock, as a component's restart is (ComponentProcess.cycle)
    restartDaemon: (node, why) => base.clock.busyDuring(async () => {
      const daemons = get('machine-config-daemon');
      const set = daemons.controllers().find((c): c is DaemonSet => c instanceof DaemonSet);
      if (!set) throw new Error('the machine-config-daemon process is not running');
      const pod = await daemons.daemonPodOn(node, `machine-config-daemon-${stableSuffix(node)}`);
      await daemons.postEvent(pod, 'Killing', `Stopping container machine-config-daemon: ${why}`);
      await base.clock.outsideWork(() => set.restartNode(node));
      await daemons.postEvent(pod, 'Started', 'Started container machine-config-daemon');
    }),
  };
}

/** Every node's kubelet is reached at the stand-in's port: what `pods/log` on the API server proxies to. */
async function publishKubeletEndpoint(client: KubeClient, port: number): Promise<void> {
  const nodes = (await client.list('Node')).items;
  for (let i = 0; i < nodes.length; i += 20) {
    await Promise.all(nodes.slice(i, i + 20).map((n) => client.patchStatus('Node', n.metadata.name!, { daemonEndpoints: { kubeletEndpoint: { Port: port } } })));
  }
}

