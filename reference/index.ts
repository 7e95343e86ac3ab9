/**
 * The reference OpenShift cluster: the mock API server with the OpenShift CRDs on a compressed clock, a local OCI
 * registry holding the two releases as real images, a cluster seeded "installed and settled", and the MCO (template,
 * render and node controllers, operator), the machine-config daemons and the CVO running against it through the API.
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
import { startApiServer, type FaultConfig, type RunningApiServer } from '../mock/index.js';
import { connectEngine } from '../lib/oci/engine.js';
import { startLocalRegistry, type LocalRegistry } from '../lib/oci/local-registry.js';
import { RegistryClient } from '../lib/oci/registry-client.js';
import { ClusterClock } from './clock.js';
import type { Controller, ControllerContext, ReleaseImages } from './context.js';
import { OPENSHIFT_EXTRA_PRINTER_COLUMNS, openShiftCrds } from './crds/index.js';
import { ClusterVersionOperator } from './cvo/cvo.js';
import { registryImageReader } from './images.js';
import { KubeClient } from './kube/client.js';
import { InformerFactory } from './kube/informer.js';
import { DaemonSet } from './mcd/daemon.js';
import { NodeController } from './mco/node-controller.js';
import { Operator } from './mco/operator.js';
import { RenderController } from './mco/render-controller.js';
import { TemplateController } from './mco/template-controller.js';
import { Faults, getProfile, type ProfileName } from './profiles.js';
import { ensureReleases, type ReleaseInfo } from './releases/index.js';
import { seedCluster } from './seed.js';
import { acquireWorkDir } from './workdir.js';

export { FAULTS, PROFILES, type FaultName, type ProfileName } from './profiles.js';
export { CURRENT_VERSION, NEXT_VERSION } from './constants.js';

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
}

export interface ReferenceCluster {
  kubeconfigPath: string;
  apiUrl: string;
  /** `127.0.0.1:PORT` of the local registry holding the releases. */
  registry: string;
  /** Where layered images built against this cluster may be pushed. */
  imageRepo: string;
  releases: { current: ReleaseInfo; next: ReleaseInfo };
  timeFactor: number;
  profile: ProfileName;
  seed: number;
  faults: string[];
  /** Cluster time now. */
  now(): Date;
  /** Replace the API server's fault injection (see `apiFaults`). */
  setApiFaults(faults: FaultConfig): void;
  /** Ends every open watch of the API server, as its restart would (new faults apply only to new requests). */
  dropApiWatches(): void;
  /** Stops controllers, API server and registry; leaves no process behind. Safe to call twice. */
  stop(): Promise<void>;
}

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

export async function startReferenceCluster(options: ReferenceClusterOptions = {}): Promise<ReferenceCluster> {
  const profile = getProfile(options.profile);
  const faults = new Faults(options.faults ?? []);
  const timeFactor = options.timeFactor ?? 600;
  const seed = options.seed ?? 1;
  const workers = options.workers ?? 2;
  if (!Number.isInteger(workers) || workers < 0) throw new Error(`workers must be a non-negative integer, got ${workers}`);
  const say = options.log ?? (() => undefined);
  const clock = new ClusterClock({ factor: timeFactor });

  const cleanups: Array<() => Promise<unknown>> = [];
  const cleanup = async (): Promise<void> => {
    for (const fn of cleanups.splice(0).reverse()) await fn().catch((e) => say(`stop: ${(e as Error).message}`));
  };
  try {
    const work = await acquireWorkDir(path.resolve(options.workDir ?? path.join(REPO_ROOT, '.cache', 'reference')));
    cleanups.push(() => work.release());
    const workDir = work.path;
    if (work.private) say(`registry storage ${workDir} (the shared one is in use by another cluster)`);
    let kubeconfigPath = options.kubeconfigPath;
    if (!kubeconfigPath) {
      const dir = await mkdtemp(path.join(tmpdir(), 'ocp-e2e-reference-'));
      cleanups.push(() => rm(dir, { recursive: true, force: true }));
      kubeconfigPath = path.join(dir, 'kubeconfig');
    }

    const registry: LocalRegistry = await startLocalRegistry({ storageDir: path.join(workDir, 'registry') });
    cleanups.push(() => registry.stop());
    say(`registry ${registry.address} (${registry.kind})`);
    const engine = await connectEngine().catch(() => undefined); // needed only when the release images must be built
    const built = await ensureReleases({ engine, registry: registry.address, log: say });
    const releases = { current: built.current, next: built.next };
    say(`releases ready in ${(built.durationMs / 1000).toFixed(1)} s${built.built.length ? ` (built ${built.built.length} images)` : ' (cached)'}`);

    // The extra columns keep `oc get co`'s MESSAGE even after someone applies the upstream CRDs over ours.
    const api: RunningApiServer = await startApiServer({
      crds: openShiftCrds(),
      extraPrinterColumns: OPENSHIFT_EXTRA_PRINTER_COLUMNS,
      now: () => clock.now(),
      faults: options.apiFaults,
    });
    cleanups.push(() => api.close());
    await api.writeKubeconfig(kubeconfigPath);
    say(`API server ${api.url}`);

    const images = registryImageReader(new RegistryClient());
    const current = releaseImages(releases.current);
    const next = releaseImages(releases.next);
    const defaultImage = profile.newFormatImageByDefault ? current.rhelCoreos8 : current.machineOsContent;
    const bootedContent = await images.readOsImage(defaultImage);

    const abort = new AbortController();
    // every sleeping daemon and poll listens to this one signal: a thousand nodes mean a thousand listeners
    setMaxListeners(0, abort.signal);
    const log = (component: string, line: string): void => say(`[${clock.timestamp()}] ${component}: ${line}`);
    const client = KubeClient.fromFile(kubeconfigPath, { signal: abort.signal, log: (l) => log('client', l) });
    const imageRepo = `${registry.address}/ocp-e2e/layered-os`;
    await seedCluster({ client, clock, profile, current, next, bootedContent, registry: registry.address, imageRepo, timeFactor, seed, workers, faults: faults.list() });
    say(`cluster seeded: 3 masters, ${workers} workers at ${current.version}`);

    const informers = new InformerFactory(client, (l) => log('informer', l));
    const ctx: ControllerContext = { client, informers, clock, profile, faults, seed, images, log, signal: abort.signal };
    const controllers: Controller[] = [
      new TemplateController(ctx),
      new RenderController(ctx),
      new NodeController(ctx),
      new Operator(ctx),
      new DaemonSet(ctx),
      new ClusterVersionOperator(ctx, { graph: [current, { ...next, previous: releases.next.previous?.length ? releases.next.previous : [current.version] }] }),
    ];
    for (const c of controllers) c.setup();
    cleanups.push(async () => {
      abort.abort();
      await Promise.allSettled(controllers.map((c) => c.stop()));
      await informers.stopAll();
    });
    await informers.startAll();
    for (const c of controllers) c.start();
    if (options.apiFaults) api.setFaults(options.apiFaults);
    say('controllers running');

    let stopped: Promise<void> | undefined;
    return {
      kubeconfigPath,
      apiUrl: api.url,
      registry: registry.address,
      imageRepo,
      releases,
      timeFactor,
      profile: profile.name,
      seed,
      faults: faults.list(),
      now: () => clock.now(),
      setApiFaults: (f: FaultConfig) => api.setFaults(f),
      dropApiWatches: () => api.dropWatches(),
      stop: () => (stopped ??= cleanup()),
    };
  } catch (error) {
    await cleanup();
    throw error;
  }
}

function releaseImages(info: ReleaseInfo): ReleaseImages {
  return { version: info.version, image: info.image, rhelCoreos8: info.rhelCoreos8, machineOsContent: info.machineOsContent, extensions: info.extensions };
}
