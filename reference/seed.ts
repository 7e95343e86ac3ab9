/**
 * The "installed and settled" starting point, written straight through the API instead of simulating an install:
 * namespaces, the MCO's ConfigMaps, ControllerConfig, template and rendered MachineConfigs (made by the same code the
 * controllers run, so they find nothing to change), pools at their rendered configs, nodes that look real and are
 * booted from the current release's OS image, ClusterOperator machine-config and ClusterVersion `version`.
 */
import { randomUUID } from 'node:crypto';
import type { V1Node } from '@kubernetes/client-node';
import {
  ANN,
  CO_NAME,
  CONFIG_API_VERSION,
  CONTROLLER_CONFIG_NAME,
  CV_NAME,
  LABEL,
  MC_API_VERSION,
  MCO_DEPLOYMENT_CONFIGMAP,
  MCO_NAMESPACE,
  OSIMAGEURL_CONFIGMAP,
  REFERENCE_INFO_CONFIGMAP,
  REFERENCE_INFO_NAMESPACE,
} from './constants.js';
import type { ClusterClock } from './clock.js';
import type { OsImageContent } from './context.js';
import { osImageUrlConfigMapData, type ClusterVersionObject } from './cvo/cvo.js';
import { completedConditions, completeHistoryHead, startHistoryEntry } from './cvo/status.js';
import type { KubeClient, KubeObject } from '../lib/kube/client.js';
import { CLIENT_WORK_PATH } from '../mock/index.js';
import { osImageName } from './mcd/os-status.js';
import { calculateStatus, poolForNode } from './mco/node-status.js';
import { clusterShape, nodeArchitecture, type ClusterShape } from './topology.js';
import { goPrintVersions, machineConfigPoolStatus, MCO_RELATED_OBJECTS, syncUpgradeableStatus } from './mco/operator-status.js';
import { mcoManifestNamespaces } from './mco/namespaces.js';
import { infraPool, masterPool, workerPool } from './mco/pools.js';
import { defaultOsImage, generateRenderedMachineConfig, selectorMatches } from './mco/render.js';
import { installerSshMachineConfig, ROLES, templateMachineConfigs } from './mco/templates.js';
import type { ControllerConfig, MachineConfig, MachineConfigPool } from './mco/types.js';
import { mcoBuildFor } from './mco/version.js';
import type { McoBuild, Profile } from './profiles/profile.js';
import { baseOsImage, extensionsImage, legacyOsImageUrl, type ReleaseInfo } from './releases/release-info.js';
import { runtimeVersionsOf } from './kubelet/node-info.js';
import { createRng, type Rng } from './rng.js';

export interface SeedInput {
  client: KubeClient;
  clock: ClusterClock;
  profile: Profile;
  current: ReleaseInfo;
  next: ReleaseInfo;
  /** What the current release's default OS image contains, read from the registry. */
  bootedContent: OsImageContent;
  registry: string;
  imageRepo: string;
  timeFactor: number;
  seed: number;
  /** The cluster's shape: how many masters and workers, and whether the masters are the workers (topology.ts). */
  shape: ClusterShape;
  faults: string[];
}

const ZONES = ['us-east-2a', 'us-east-2b', 'us-east-2c'];
const b64 = (text: string): string => Buffer.from(text).toString('base64');

/** Run `fn` over `items` with at most `limit` in flight: seeding 1,000 nodes must not open 1,000 connections. */
async function inBatches<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await fn(items[next++]!);
  });
  await Promise.all(workers);
}

export function controllerConfigFor(release: ReleaseInfo, build: McoBuild, shape: ClusterShape = clusterShape()): ControllerConfig & KubeObject {
  return {
    apiVersion: MC_API_VERSION,
    kind: 'ControllerConfig',
    metadata: {
      name: CONTROLLER_CONFIG_NAME,
      annotations: { [ANN.generatedByVersion]: build.raw, [ANN.releaseImageVersion]: release.version },
    },
    spec: {
      additionalTrustBundle: null,
      cloudProviderCAData: null,
      cloudProviderConfig: '',
      clusterDNSIP: '172.30.0.10',
      dns: { apiVersion: CONFIG_API_VERSION, kind: 'DNS', spec: { baseDomain: 'reference.ocp-e2e.local' } },
      images: {},
      infra: {
        apiVersion: CONFIG_API_VERSION,
        kind: 'Infrastructure',
        spec: { platformSpec: { type: 'None' } },
        status: { controlPlaneTopology: shape.controlPlaneTopology, infrastructureTopology: shape.infrastructureTopology, platform: 'None', infrastructureName: 'reference-x7k2p' },
      },
      ipFamilies: 'IPv4',
      kubeAPIServerServingCAData: b64('-----BEGIN CERTIFICATE-----\nreference\n-----END CERTIFICATE-----\n'),
      // the operator's renderConfig always sets it, a cluster that never migrated its MTU with a null migration; 4.18+'s
      // CRD requires it
      network: { mtuMigration: null },
      networkType: 'OVNKubernetes',
      osImageURL: legacyOsImageUrl(release),
      baseOSContainerImage: baseOsImage(release),
      baseOSExtensionsContainerImage: extensionsImage(release) ?? '',
      platform: 'none',
      proxy: null,
      releaseImage: release.image,
      rootCAData: b64('-----BEGIN CERTIFICATE-----\nreference-root\n-----END CERTIFICATE-----\n'),
    },
  };
}

function node(name: string, role: 'master' | 'worker' | 'infra', index: number, rng: Rng, rendered: string, booted: { pullspec: string; content: OsImageContent }, clusterStart: Date, shape: ClusterShape): V1Node & KubeObject {
  const zone = ZONES[index % ZONES.length]!;
  const hex = (n: number): string => Array.from({ length: n }, () => Math.floor(rng.next() * 16).toString(16)).join('');
  const arch = nodeArchitecture(shape.arch, role, index);
  const labels: Record<string, string> = {
    'beta.kubernetes.io/arch': arch,
    'beta.kubernetes.io/os': 'linux',
    'kubernetes.io/arch': arch,
    'kubernetes.io/hostname': name,
    'kubernetes.io/os': 'linux',
    'node.openshift.io/os_id': 'rhcos',
    [`${LABEL.nodeRolePrefix}${role}`]: '',
    // an infra node is a worker too (the documented infra machine sets label both)
    ...(role === 'infra' ? { [`${LABEL.nodeRolePrefix}worker`]: '' } : {}),
    [LABEL.zone]: zone,
    'topology.kubernetes.io/region': 'us-east-2',
  };
  if (role === 'master') labels[`${LABEL.nodeRolePrefix}control-plane`] = '';
  // compact and single-node clusters: the masters are the workers too (ROLES control-plane,master,worker)
  if (role === 'master' && shape.mastersAreWorkers) labels[`${LABEL.nodeRolePrefix}worker`] = '';
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels,
      annotations: {
        [ANN.currentConfig]: rendered,
        [ANN.desiredConfig]: rendered,
        [ANN.state]: 'Done',
        [ANN.reason]: '',
        [ANN.desiredDrain]: `uncordon-${rendered}`,
        [ANN.lastAppliedDrain]: `uncordon-${rendered}`,
        [ANN.controlPlaneTopology]: shape.controlPlaneTopology,
        'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
      },
    },
    spec: {
      providerID: `aws:///${zone}/i-0${hex(16)}`,
      taints: role === 'master' ? [{ key: `${LABEL.nodeRolePrefix}master`, effect: 'NoSchedule' }] : undefined,
    },
  } as V1Node & KubeObject;
}

function nodeStatus(index: number, rng: Rng, content: OsImageContent, now: string, architecture: string): Record<string, unknown> {
  const hex = (n: number): string => Array.from({ length: n }, () => Math.floor(rng.next() * 16).toString(16)).join('');
  const ok = (type: string, reason: string, message: string) => ({ type, status: 'False', reason, message, lastHeartbeatTime: now, lastTransitionTime: now });
  return {
    conditions: [
      ok('MemoryPressure', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
      ok('DiskPressure', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
      ok('PIDPressure', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
      { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status', lastHeartbeatTime: now, lastTransitionTime: now },
    ],
    addresses: [
      { type: 'InternalIP', address: `10.0.${128 + (index >> 8)}.${index & 255}` },
      { type: 'Hostname', address: `ip-10-0-${128 + (index >> 8)}-${index & 255}.us-east-2.compute.internal` },
    ],
    capacity: { cpu: '4', memory: '16116152Ki', pods: '250', 'ephemeral-storage': '125293548Ki' },
    allocatable: { cpu: '3500m', memory: '14965176Ki', pods: '250', 'ephemeral-storage': '114396791822' },
    nodeInfo: {
      // what the kubelet reports (runtime.GOARCH), the same as its kubernetes.io/arch label
      architecture,
      bootID: `${hex(8)}-${hex(4)}-${hex(4)}-${hex(4)}-${hex(12)}`,
      ...runtimeVersionsOf(content),
      machineID: hex(32),
      operatingSystem: 'linux',
      osImage: osImageName(content),
      systemUUID: `ec2${hex(5)}-${hex(4)}-${hex(4)}-${hex(4)}-${hex(12)}`,
    },
  };
}

export function nodeName(role: 'master' | 'worker' | 'infra', index: number): string {
  const third = role === 'master' ? 128 : role === 'infra' ? 144 : 160 + Math.floor(index / 250);
  return `ip-10-0-${third}-${(role === 'master' ? 10 : 20) + (index % 250)}.us-east-2.compute.internal`;
}

export async function seedCluster(input: SeedInput): Promise<void> {
  const { client, clock, profile, current } = input;
  const now = clock.timestamp();
  const build = mcoBuildFor(current.version, profile.name);
  await seedNamespacesAndConfigMaps(input);
  const cc = await seedControllerConfig(client, current, build, now, input.shape);
  const configs: MachineConfig[] = [];
  for (const role of ROLES) configs.push(...templateMachineConfigs(role, cc, profile, build), installerSshMachineConfig(role));
  await inBatches(configs, 8, (mc) => client.apply('MachineConfig', mc as MachineConfig & KubeObject));
  const { pools, rendered } = await seedRenderedPools(client, configs, cc, profile, build, input.shape);
  const booted = { pullspec: defaultOsImage(cc, profile), content: input.bootedContent };
  const nodes = await seedNodes(input, rendered, booted, now);
  await seedPoolStatus(client, pools, nodes, now);
  await seedClusterOperator(client, current, pools, now);
  await seedClusterVersion(client, { current, next: input.next, channel: profile.releases.channel }, build, now);
}

/** The namespaces, the reference's own description of itself, and the MCO ConfigMaps the CVO would have written. */
async function seedNamespacesAndConfigMaps(input: SeedInput): Promise<void> {
  const { client, profile, current } = input;
  for (const ns of mcoManifestNamespaces()) await client.apply('Namespace', ns);
  for (const ns of ['openshift-config', 'openshift-config-managed', 'openshift-cluster-version', 'openshift-kube-apiserver', REFERENCE_INFO_NAMESPACE, 'default']) {
    await client.apply('Namespace', { metadata: { name: ns } });
  }
  await client.apply('ConfigMap', {
    metadata: { name: REFERENCE_INFO_CONFIGMAP, namespace: REFERENCE_INFO_NAMESPACE },
    data: {
      timeFactor: String(input.timeFactor),
      clock: input.clock.mode,
      // where the suite says it is working, so the skipping clock does not run ahead of it (mock/http/handlers/client-work.ts)
      clientWorkPath: CLIENT_WORK_PATH,
      profile: profile.name,
      registry: input.registry,
      imageRepo: input.imageRepo,
      seed: String(input.seed),
      faults: input.faults.join(','),
      currentRelease: current.image,
      nextRelease: input.next.image,
    },
  });
  await client.apply('ConfigMap', { metadata: { name: MCO_DEPLOYMENT_CONFIGMAP, namespace: MCO_NAMESPACE }, data: { RELEASE_VERSION: current.version, RELEASE_IMAGE: current.image } });
  await client.apply('ConfigMap', { metadata: { name: OSIMAGEURL_CONFIGMAP, namespace: MCO_NAMESPACE }, data: osImageUrlConfigMapData(current, profile) });
}

/** The ControllerConfig, already completed by the template controller. */
async function seedControllerConfig(client: KubeClient, current: ReleaseInfo, build: McoBuild, now: string, shape: ClusterShape): Promise<ControllerConfig & KubeObject> {
  const cc = await client.apply<ControllerConfig & KubeObject>('ControllerConfig', controllerConfigFor(current, build, shape));
  await client.patchStatus('ControllerConfig', CONTROLLER_CONFIG_NAME, {
    observedGeneration: cc.metadata.generation ?? 1,
    conditions: [
      { type: 'TemplateControllerRunning', status: 'False', reason: '', message: '', lastTransitionTime: now },
      { type: 'TemplateControllerFailing', status: 'False', reason: '', message: '', lastTransitionTime: now },
      { type: 'TemplateControllerCompleted', status: 'True', reason: '', message: `sync completed towards (${cc.metadata.generation ?? 1}) generation using controller version ${build.raw}`, lastTransitionTime: now },
    ],
  });
  return cc;
}

/** The pools (master, worker, and infra when the shape has infra nodes), each pointed at the rendered MachineConfig of what it selects. */
async function seedRenderedPools(
  client: KubeClient,
  configs: MachineConfig[],
  cc: ControllerConfig,
  profile: Profile,
  build: McoBuild,
  shape: ClusterShape,
): Promise<{ pools: Array<MachineConfigPool & KubeObject>; rendered: Map<string, string> }> {
  const pools: Array<MachineConfigPool & KubeObject> = [];
  const rendered = new Map<string, string>();
  for (const template of [masterPool(), workerPool(), ...(shape.infraNodes ? [infraPool()] : [])]) {
    const pool = await client.apply<MachineConfigPool & KubeObject>('MachineConfigPool', template as MachineConfigPool & KubeObject);
    const selected = configs.filter((mc) => selectorMatches(pool.spec.machineConfigSelector, mc.metadata.labels ?? {}));
    const out = generateRenderedMachineConfig({ pool, configs: selected, controllerConfig: cc, mco: profile, build });
    await client.apply('MachineConfig', out.machineConfig as MachineConfig & KubeObject);
    const updated = await client.patch<MachineConfigPool & KubeObject>('MachineConfigPool', pool.metadata.name!, {
      spec: { configuration: { name: out.machineConfig.metadata.name, source: out.sources } },
    });
    rendered.set(pool.metadata.name!, out.machineConfig.metadata.name!);
    pools.push(updated);
  }
  return { pools, rendered };
}

/** The masters and the workers of the shape, done on their pool's rendered config and booted from the release's OS image. */
async function seedNodes(input: SeedInput, rendered: Map<string, string>, booted: { pullspec: string; content: OsImageContent }, now: string): Promise<V1Node[]> {
  const { client, clock } = input;
  const rng = createRng(input.seed);
  const clusterStart = clock.now();
  const nodes: Array<V1Node & KubeObject> = [];
  const { shape } = input;
  for (let i = 0; i < shape.masters; i++) nodes.push(node(nodeName('master', i), 'master', i, rng, rendered.get('master')!, booted, clusterStart, shape));
  for (let i = 0; i < shape.workers; i++) nodes.push(node(nodeName('worker', i), 'worker', i, rng, rendered.get('worker')!, booted, clusterStart, shape));
  for (let i = 0; i < shape.infraNodes; i++) nodes.push(node(nodeName('infra', i), 'infra', i, rng, rendered.get('infra')!, booted, clusterStart, shape));
  const created: V1Node[] = [];
  await inBatches(nodes.map((n, i) => [n, i] as const), 16, async ([n, i]) => {
    await client.apply('Node', n);
    const architecture = n.metadata.labels?.['kubernetes.io/arch'] ?? 'amd64';
    const withStatus = await client.patchStatus<V1Node & KubeObject>('Node', n.metadata.name!, nodeStatus(i, rng, input.bootedContent, now, architecture));
    created.push(withStatus);
  });
  return created;
}

/** Pool status as the node controller would compute it from the seeded nodes (updates `pools` in place). */
async function seedPoolStatus(client: KubeClient, pools: Array<MachineConfigPool & KubeObject>, nodes: V1Node[], now: string): Promise<void> {
  for (const pool of pools) {
    // getPoolsForNode: a master that is also a worker belongs to master
    const members = nodes.filter((n) => poolForNode(n, pools)?.metadata.name === pool.metadata.name);
    const status = calculateStatus(pool, members, now);
    const done = await client.patchStatus<MachineConfigPool & KubeObject>('MachineConfigPool', pool.metadata.name!, { ...status, conditions: [...(status.conditions ?? []), { type: 'RenderDegraded', status: 'False', reason: '', message: '', lastTransitionTime: now }] });
    pool.status = done.status;
  }
}

/** ClusterOperator machine-config settled at the current release. */
async function seedClusterOperator(client: KubeClient, current: ReleaseInfo, pools: MachineConfigPool[], now: string): Promise<void> {
  const versions = [{ name: 'operator', version: current.version }];
  await client.apply('ClusterOperator', { apiVersion: CONFIG_API_VERSION, kind: 'ClusterOperator', metadata: { name: CO_NAME }, spec: {} });
  const extension: Record<string, string> = {};
  for (const pool of pools) extension[pool.metadata.name!] = machineConfigPoolStatus(pool);
  await client.patchStatus('ClusterOperator', CO_NAME, {
    conditions: [
      { type: 'Progressing', status: 'False', reason: '', message: `Cluster version is ${current.version}`, lastTransitionTime: now },
      { type: 'Degraded', status: 'False', reason: '', message: '', lastTransitionTime: now },
      { type: 'Available', status: 'True', reason: 'AsExpected', message: `Cluster has deployed ${goPrintVersions(versions)}`, lastTransitionTime: now },
      ...syncUpgradeableStatus([], pools, now),
    ],
    versions,
    extension,
    relatedObjects: MCO_RELATED_OBJECTS,
  });
}

/** ClusterVersion `version`: installed at the current release, with the next one available in the profile's channel. */
async function seedClusterVersion(client: KubeClient, releases: { current: ReleaseInfo; next: ReleaseInfo; channel: string }, build: McoBuild, now: string): Promise<void> {
  const { current, next } = releases;
  const cv: ClusterVersionObject = {
    apiVersion: CONFIG_API_VERSION,
    kind: 'ClusterVersion',
    metadata: { name: CV_NAME },
    // Unique per cluster: it is what tells one cluster from another (a checkpoint of --phase pre names it).
    spec: { clusterID: randomUUID(), channel: releases.channel },
  };
  await client.apply('ClusterVersion', cv);
  const history = completeHistoryHead(startHistoryEntry([], { version: current.version, image: current.image, verified: false }, now), now);
  const cvConditions = [
    ...completedConditions([], current.version, now),
    { type: 'RetrievedUpdates', status: 'True', reason: '', message: '', lastTransitionTime: now },
    { type: 'ReleaseAccepted', status: 'True', reason: 'PayloadLoaded', message: `Payload loaded version="${current.version}" image="${current.image}" architecture="amd64"`, lastTransitionTime: now },
  ];
  await client.patchStatus('ClusterVersion', CV_NAME, {
    desired: { version: current.version, image: current.image },
    history,
    observedGeneration: 1,
    versionHash: 'reference-' + build.hash.slice(0, 8),
    availableUpdates: [{ version: next.version, image: next.image }],
    conditions: cvConditions,
  });
}
