/**
 * What the acceptance tests of the reference share: a cluster per test (its own API server and controllers, a test
 * registry storage so a run does not collide with a developer's `cluster up`), a client-node client, bounded waits that
 * report the last state seen, and the layered image of the report built once per run.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildImage } from '../../../lib/oci/build.js';
import { connectEngine } from '../../../lib/oci/engine.js';
import { pushImage } from '../../../lib/oci/push.js';
import { ANN, LABEL, MC_API_VERSION } from '../../../reference/constants.js';
import { baseOsImage, startReferenceCluster, type ReferenceCluster, type ReferenceClusterOptions } from '../../../reference/index.js';
import { KubeClient, type KubeObject } from '../../../lib/kube/client.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
export const TEST_WORK_DIR = path.join(REPO, '.cache', 'reference-tests');

export interface Harness {
  cluster: ReferenceCluster;
  k: KubeClient;
  /** Cluster minutes since the harness started, for messages. */
  elapsed(): string;
}

export async function startHarness(options: ReferenceClusterOptions): Promise<Harness> {
  const cluster = await startReferenceCluster({ workDir: TEST_WORK_DIR, ...options, log: process.env.REFERENCE_LOG ? (l) => console.log(l) : undefined });
  const k = KubeClient.fromFile(cluster.kubeconfigPath);
  const start = cluster.now().getTime();
  return { cluster, k, elapsed: () => `${((cluster.now().getTime() - start) / 60_000).toFixed(0)} cluster minutes` };
}

/** Poll `probe` every 100 ms wall until it returns a value; on timeout, fail with the last state `describe` gives. */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs: number, describe?: () => Promise<string>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      const state = describe ? await describe().catch((e) => `(could not read state: ${(e as Error).message})`) : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError ? `; last error: ${(lastError as Error).message}` : ''}\nlast state:\n${state}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

export interface Obj extends KubeObject {
  spec?: any;
  status?: any;
}

export const cond = (o: Obj | undefined, type: string): { status?: string; reason?: string; message?: string } =>
  (o?.status?.conditions ?? []).find((c: { type: string }) => c.type === type) ?? {};

/** One line per object of what the tests look at: enough to see why a wait did not end. */
export async function describeCluster(k: KubeClient, cluster?: ReferenceCluster): Promise<string> {
  const co = await k.get<Obj>('ClusterOperator', 'machine-config');
  const cv = await k.get<Obj>('ClusterVersion', 'version');
  const pools = await k.list<Obj>('MachineConfigPool');
  const nodes = await k.list<Obj>('Node');
  const lines = [
    `co: version=${co?.status?.versions?.[0]?.version} Available=${cond(co, 'Available').status} Progressing=${cond(co, 'Progressing').status} Degraded=${cond(co, 'Degraded').status} "${cond(co, 'Degraded').message ?? ''}"`,
    `cv: history=${(cv?.status?.history ?? []).map((h: any) => `${h.state}:${h.version}`).join(',')} Progressing="${cond(cv, 'Progressing').message}" Failing=${cond(cv, 'Failing').status} ReleaseAccepted="${cond(cv, 'ReleaseAccepted').message}"`,
    ...pools.items.map((p) => `mcp/${p.metadata.name}: config=${p.status?.configuration?.name} target=${p.spec?.configuration?.name} Updated=${cond(p, 'Updated').status} Updating=${cond(p, 'Updating').status} Degraded=${cond(p, 'Degraded').status} ${p.status?.updatedMachineCount}/${p.status?.machineCount}`),
    ...nodes.items.map((n) => {
      const a = n.metadata.annotations ?? {};
      return `node/${n.metadata.name}: state=${a[ANN.state]} current=${a[ANN.currentConfig]} desired=${a[ANN.desiredConfig]} reason="${a[ANN.reason] ?? ''}" booted=${cluster ? bootedImage(cluster, n) : '?'}`;
    }),
  ];
  return lines.join('\n');
}

/** The image a node's machine booted, read from the simulated machine (the suite asks through a debug pod). */
export function bootedImage(cluster: ReferenceCluster, node: Obj): string {
  return cluster.hostOs(node.metadata.name!).booted.pullspec;
}

/** The packages installed in what the node booted. */
export function bootedPackages(cluster: ReferenceCluster, node: Obj): string[] {
  return cluster.hostOs(node.metadata.name!).booted.content.packages;
}

export function overrideMachineConfig(name: string, role: string, osImageURL: string): Obj {
  return { apiVersion: MC_API_VERSION, kind: 'MachineConfig', metadata: { name, labels: { [LABEL.role]: role } }, spec: { osImageURL } };
}

export async function nodesOfRole(k: KubeClient, role: string): Promise<Obj[]> {
  return (await k.list<Obj>('Node')).items.filter((n) => n.metadata.labels?.[`node-role.kubernetes.io/${role}`] !== undefined);
}

/** The pool is Updated on a rendered config that is not `previous`, and every node of it runs that config. */
export async function poolSettledOnNew(k: KubeClient, pool: string, previous: string | undefined): Promise<Obj | undefined> {
  const p = await k.get<Obj>('MachineConfigPool', pool);
  const config = p?.status?.configuration?.name;
  if (!p || !config || config === previous || config !== p.spec?.configuration?.name) return undefined;
  if (cond(p, 'Updated').status !== 'True') return undefined;
  const nodes = await nodesOfRole(k, pool);
  return nodes.every((n) => n.metadata.annotations?.[ANN.currentConfig] === config && n.metadata.annotations?.[ANN.state] === 'Done') ? p : undefined;
}

export async function requestUpgrade(k: KubeClient, image: string): Promise<void> {
  // what `oc adm upgrade --to-image X --allow-explicit-upgrade --force` writes
  await k.patch('ClusterVersion', 'version', { spec: { desiredUpdate: { version: '', image, force: true } } });
}

/**
 * The layered image per registry address and base image (the engine's layer cache makes a second build nearly free).
 * The base is part of the key: clusters of different profiles share a registry, and an image built FROM another
 * release's base carries that base's commit label (the booted-image check of 4.12 reads it).
 */
const layeredImages = new Map<string, Promise<string>>();

/**
 * The report's layered image (rhel-coreos-8 + zsh) of the current release, pushed to the cluster's registry and
 * returned by digest.
 */
export function customImage(cluster: ReferenceCluster): Promise<string> {
  const key = `${cluster.registry} ${baseOsImage(cluster.releases.current)}`;
  let image = layeredImages.get(key);
  if (!image) {
    image = (async () => {
      const engine = await connectEngine();
      const tag = `${cluster.imageRepo}:reference-tests-54183`;
      await buildImage(engine, {
        contextDir: path.join(REPO, 'images', 'layered-os'),
        containerfile: 'Containerfile.report', // the report's zsh; the reference serves its repositories offline
        buildArgs: { BASE_IMAGE: baseOsImage(cluster.releases.current) },
        tag,
        timeoutMs: 120_000,
        registryConfig: cluster.registryCredentials,
      });
      return (await pushImage(engine, tag, { auth: cluster.registryCredentials, caPems: [cluster.caPem] })).pullspec;
    })();
    layeredImages.set(key, image);
  }
  return image;
}

/** A machine-config-daemon pod whose daemon container runs, once there is one (the exec tests' target). */
export async function runningDaemonPod(h: Harness, timeoutMs = 60_000): Promise<Obj> {
  return waitFor('a Running machine-config-daemon pod', async () => {
    const pods = await h.k.list<Obj>('Pod', { namespace: 'openshift-machine-config-operator' });
    return pods.items.find((p) => p.metadata.name!.startsWith('machine-config-daemon-') && p.status?.containerStatuses?.[0]?.state?.running);
  }, timeoutMs);
}
