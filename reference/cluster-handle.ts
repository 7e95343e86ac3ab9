/** What the caller of startReferenceCluster holds: addresses and releases, the switches tests use to restart or cut things, and stop(). */
import type { FaultConfig } from '../mock/index.js';
import type { KubeClient } from '../lib/kube/client.js';
import type { RegistryCredentials } from '../lib/oci/credentials.js';
import type { ReferenceApiServer } from './api-server.js';
import type { Cleanups, Say } from './cleanups.js';
import type { ClusterClock } from './clock.js';
import type { ComponentName, ComponentProcess } from './components.js';
import type { HostOs, NodeHosts } from './kubelet/hosts.js';
import type { PodPrograms } from './kubelet/pod-programs.js';
import type { ProfileName } from './profiles/index.js';
import type { ReferenceRegistry } from './reference-registry.js';
import type { ClusterRegistry, ClusterRegistryFiles } from './registry.js';
import type { RegistryOutage } from './registry-outage.js';
import type { BuiltReleases } from './releases/ensure.js';
import { nodeName } from './seed.js';

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
  /** The profile's releases as built: pullspecs of each payload and its OS images (see releases/release-info.ts). */
  releases: BuiltReleases;
  timeFactor: number;
  profile: ProfileName;
  seed: number;
  faults: string[];
  /** Cluster time now. */
  now(): Date;
  /**
   * Resolves after `clusterMs` of cluster time: a timer on the cluster's own clock, so with the skipping clock it fires
   * in its place among the cluster's timers (a wall-clock sleep would let the cluster run through all of them).
   */
  sleep(clusterMs: number): Promise<void>;
  /**
   * The programs the kubelets run pods annotated with PROGRAM_ANNOTATION through (kubelet/pod-programs.ts); the
   * components get the same registry as ProcessBase.programs. Tests register programs of their own here.
   */
  programs: PodPrograms;
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

/** The started components, as the handle restarts them. */
export interface RunningComponents {
  get(name: ComponentName): ComponentProcess;
  restartDaemon(node: string, why: string): Promise<void>;
}

export interface HandleParts {
  kubeconfigPath: string;
  api: ReferenceApiServer;
  shared: Omit<ReferenceRegistry, 'stop'>;
  machines: { hosts: NodeHosts; imageRepo: string };
  programs: PodPrograms;
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

export function clusterHandle(p: HandleParts): ReferenceCluster {
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
    programs: p.programs,
    releases,
    timeFactor: p.timeFactor,
    profile: p.profile,
    seed: p.seed,
    faults: p.faults,
    now: () => clock.now(),
    sleep: (clusterMs) => clock.sleep(clusterMs),
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
