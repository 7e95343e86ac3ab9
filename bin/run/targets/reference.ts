/**
 * `--target reference`: each spec file gets a fresh embedded reference cluster, because a cluster can be upgraded
 * to the next release only once. Clusters are started here, in this process, and stopped with their file; they share
 * one registry holding the releases. With --jobs N, N files run at the same time, each on its own cluster, and
 * their output is printed file by file (output.ts).
 */
import { availableParallelism } from 'node:os';
import { basename } from 'node:path';
import type { ReferenceRegistry } from '../../../reference/index.js';
import { DEFAULT_TIME_FACTOR } from '../../../reference/clock.js';
import { startMocha } from '../mocha.js';
import { clockModeOf, profileOf, type RunOptions } from '../options.js';
import { OrderedOutput, type Lane } from '../output.js';
import { addCounts, formatCounts, NO_TESTS, type Counts } from '../results/counts.js';
import { runPool } from '../schedule/pool.js';
import type { Supervisor } from '../supervisor.js';
import { UsageError } from '../usage-error.js';
import { writeReferenceEnvironment } from '../results/environment.js';
import { requireEngine, specTimeoutMs, type RunConfig } from './common.js';
import { LOOPBACK_ONLY_ENV } from '../../../lib/oci/reachability.js';
import { checkBuildArchitectures, specBuilds } from '../preflight/build-architectures.js';
import { referenceArchNodes } from './reference-nodes.js';

/** The reference's own default seed (reference/index.ts), named here so the run can print it. */
const DEFAULT_SEED = 1;

/** What this command uses of a started reference cluster (docs/architecture.md, reference/). */
interface ReferenceCluster {
  kubeconfigPath: string;
  apiUrl: string;
  timeFactor: number;
  stop(): Promise<void>;
}

/** One spec file per core: a file keeps about one core busy (its mocha child, its cluster's controllers). */
export function defaultJobs(): number {
  return Math.max(1, availableParallelism());
}

export async function runOnReference(files: string[], options: RunOptions, config: RunConfig, supervisor: Supervisor): Promise<Counts> {
  await requireEngine();
  // the nodes' architectures are the shape's: the engine must build each before any cluster starts
  const builds = await checkBuildArchitectures(await specBuilds(files), referenceArchNodes({ topology: options.topology, infraNodes: options.infraNodes, arch: options.arch }));
  if (builds) console.log(builds);
  if (options.oneCluster) return runOnOneReferenceCluster(files, options, config, supervisor);
  const profile = profileOf(options);
  const jobs = Math.min(options.jobs ?? defaultJobs(), files.length);
  const seed = options.seed ?? DEFAULT_SEED;
  console.log(`target: embedded reference cluster, profile ${profile}${options.topology ? `, topology ${options.topology}` : ''}${options.infraNodes ? `, ${options.infraNodes} infra node(s)` : ''}${options.arch ? `, arch ${options.arch}` : ''}${options.disconnected ? ', disconnected' : ''}${options.fault?.length ? `, faults ${options.fault.join(', ')}` : ''}, seed ${seed} (replay with --seed ${seed})`);
  await writeReferenceEnvironment(config.reportsDir, { profile, seed, faults: options.fault ?? [], timeFactor: options.timeFactor, clock: clockModeOf(options) });
  console.log(`disruptive specs run: a reference cluster is made for each spec file and thrown away (${jobs} at a time)`);
  if (options.keepOnFailure) {
    console.log('--keep-on-failure: a failed spec leaves its objects, but its reference cluster still stops with its file; to inspect by hand, use `ocp-e2e cluster up` and --target cluster');
  }
  const registry = await startRegistry(profile, options.arch, options.disconnected);
  await requirePodmanTrust(registry);
  return supervisor.withCluster(registry, async () => {
    const output = new OrderedOutput();
    const counts = await runPool(files, jobs, async (file, index) => {
      const lane = output.lane(index);
      try {
        return await runFile(file, { profile, options, config, registry }, supervisor, lane);
      } finally {
        lane.close();
      }
    }, () => supervisor.interruptedBy !== undefined);
    return counts.reduce(addCounts, NO_TESTS);
  });
}

interface FileRun {
  profile: string;
  options: RunOptions;
  config: RunConfig;
  registry: ReferenceRegistry;
}

async function runFile(file: string, run: FileRun, supervisor: Supervisor, lane: Lane): Promise<Counts> {
  const started = Date.now();
  const seconds = () => ((Date.now() - started) / 1000).toFixed(1);
  // The spec process loads its files (a second of CPU) while the cluster starts, on the other core; it gets its
  // target once the cluster is ready (helpers/mocha/target-handoff.ts).
  const spec = startMocha({
    files: [file],
    reportsDir: run.config.reportsDir,
    phase: run.config.phase,
    grep: run.options.grep,
    junitName: basename(file, '.spec.ts'),
    timeoutMs: specTimeoutMs(run.options.timeFactor ?? DEFAULT_TIME_FACTOR),
  }, supervisor, lane);
  let reference: ReferenceCluster;
  try {
    reference = await startReference(run);
  } catch (error) {
    await spec.cancel();
    throw error;
  }
  return supervisor.withCluster(reference, async () => {
    lane.out(`\n${basename(file)}: reference cluster ${reference.apiUrl} ready in ${seconds()}s (time factor ${reference.timeFactor})\n`);
    const counts = await spec.run(
      { ...run.config, kind: 'reference', kubeconfigPath: reference.kubeconfigPath, allowDisruptive: true, toImages: upgradePath(run.config.toImages, run.registry) },
      // The specs trust the registry through SSL_CERT_FILE, which oc (Go) and lib/oci read. A run on the reference
      // reaches nothing but loopback, so the file is the cluster's CA alone, not `cluster up --env-out`'s system roots
      // with it (--one-cluster keeps those): parsing ~140 roots cost each spec process ~40 ms of CPU and each oc call
      // more. Credentials come from the cluster's pull secret, as on a real cluster.
      { SSL_CERT_FILE: run.registry.registry.files.caFile, ...(run.registry.disconnected ? DISCONNECTED_BASTION : {}) },
    );
    lane.out(`${basename(file)}: ${formatCounts(counts)} in ${seconds()}s wall\n`);
    return counts;
  });
}

/**
 * Podman verifies the reference registry's certificate (dockerd does not, on loopback): when its CA could not be put
 * in any certs.d folder, every build and push would fail inside the specs; say so now, as an environment problem.
 */
async function requirePodmanTrust(registry: ReferenceRegistry): Promise<void> {
  const trust = registry.registry.engineTrust;
  if (trust.installed.length > 0) return; // the engine trusts it, whichever it is: no need to ask which
  const { connectEngine, identifyEngine } = await import('../../../lib/oci/engine.js');
  const id = await identifyEngine(await connectEngine());
  if (id.kind !== 'podman') return;
  await registry.stop();
  throw new UsageError(
    `${id.name} would refuse the reference registry ${registry.registry.address}: its CA could not be installed for podman (` +
      trust.skipped.map((s) => `${s.dir}: ${s.reason}`).join('; ') + '); run as root, or use dockerd',
  );
}

/**
 * The releases the upgrade specs go to: what --to-image gave, else, on a profile whose path has more than one hop
 * (4.20 -> 4.21 -> 4.22), every release after the installed one, so the specs upgrade hop by hop to its end. A one-hop
 * profile leaves it to the cluster's availableUpdates, as on a real cluster.
 */
function upgradePath(given: string[] | undefined, registry: ReferenceRegistry): string[] | undefined {
  if (given?.length) return given;
  const { path } = registry.releases;
  return path.length > 2 ? path.slice(1).map((r) => r.image) : undefined;
}

/**
 * The spec processes of a disconnected run sit on a bastion without a route to quay.io, as QE's do: lib/oci refuses
 * every non-loopback registry before a request (OCP_E2E_LOOPBACK_ONLY), and oc (Go) is sent through a proxy on a
 * loopback port nobody listens on, so it fails as fast (Go never proxies loopback, so the cluster stays reachable).
 * Nothing of theirs leaves the machine.
 */
const DISCONNECTED_BASTION: Record<string, string> = {
  [LOOPBACK_ONLY_ENV]: '1',
  HTTPS_PROXY: 'http://127.0.0.1:9',
  HTTP_PROXY: 'http://127.0.0.1:9',
  NO_PROXY: '127.0.0.1,localhost,::1',
};

/** The registry of the profile's releases, which every cluster of the run pulls from. */
async function startRegistry(profile: string, arch: RunOptions['arch'], disconnected?: boolean): Promise<ReferenceRegistry> {
  try {
    // Loaded here, not at the top: `run --target cluster` never needs the reference's code.
    const { getProfile, startReferenceRegistry } = await import('../../../reference/index.js');
    return await startReferenceRegistry({ releases: getProfile(profile).releases, arch, disconnected });
  } catch (error) {
    throw new UsageError(`cannot start the reference cluster: ${(error as Error).message}`);
  }
}

async function startReference({ profile, options, registry }: FileRun): Promise<ReferenceCluster> {
  try {
    const { startReferenceCluster } = await import('../../../reference/index.js');
    return await startReferenceCluster({ profile, seed: options.seed ?? DEFAULT_SEED, timeFactor: options.timeFactor, clock: clockModeOf(options), faults: options.fault ?? [], registry, topology: options.topology, infraNodes: options.infraNodes, arch: options.arch, disconnected: options.disconnected });
  } catch (error) {
    throw new UsageError(`cannot start the reference cluster: ${(error as Error).message}`);
  }
}

/**
 * `--one-cluster`: one reference cluster for every selected spec, run exactly as `--target cluster` runs them on a
 * real one (the shared upgrade and its pool plan, one-upgrade.ts), so that path is tested at the reference's speed.
 * The cluster gets as many workers as the plan needs; the spec processes reach its registry as a shell does after
 * `cluster up --env-out` (SSL_CERT_FILE, REGISTRY_AUTH_FILE, DOCKER_CONFIG).
 */
async function runOnOneReferenceCluster(files: string[], options: RunOptions, config: RunConfig, supervisor: Supervisor): Promise<Counts> {
  const profile = profileOf(options);
  const seed = options.seed ?? DEFAULT_SEED;
  const { splitBySharing, workersForPlan } = await import('./one-upgrade.js');
  const workers = Math.max(2, workersForPlan(await splitBySharing(files)));
  console.log(`target: one embedded reference cluster for ${files.length} spec file(s), profile ${profile}${options.disconnected ? ', disconnected' : ''}${options.fault?.length ? `, faults ${options.fault.join(', ')}` : ''}, seed ${seed} (replay with --seed ${seed}), ${workers} workers`);
  await writeReferenceEnvironment(config.reportsDir, { profile, seed, faults: options.fault ?? [], timeFactor: options.timeFactor, clock: clockModeOf(options) });
  const registry = await startRegistry(profile, options.arch, options.disconnected);
  await requirePodmanTrust(registry);
  return supervisor.withCluster(registry, async () => {
    let reference;
    try {
      const { startReferenceCluster } = await import('../../../reference/index.js');
      // a compact or single-node cluster has no workers to give the plan: its refusal says what cannot run
      const shape = options.topology && options.topology !== 'ha' ? { topology: options.topology, arch: options.arch } : { workers, infraNodes: options.infraNodes, arch: options.arch };
      reference = await startReferenceCluster({ profile, seed, timeFactor: options.timeFactor, clock: clockModeOf(options), faults: options.fault ?? [], registry, disconnected: options.disconnected, ...shape });
    } catch (error) {
      throw new UsageError(`cannot start the reference cluster: ${(error as Error).message}`);
    }
    return supervisor.withCluster(reference, async () => {
      const files_ = reference.registryFiles;
      Object.assign(process.env, { SSL_CERT_FILE: files_.caBundleFile, REGISTRY_AUTH_FILE: files_.authFile, DOCKER_CONFIG: files_.dockerConfigDir, ...(registry.disconnected ? DISCONNECTED_BASTION : {}) });
      const { runOnCluster } = await import('./cluster.js');
      const toImages = upgradePath(config.toImages, registry);
      const asCluster: RunOptions = { ...options, toImage: toImages, target: 'cluster', kubeconfig: reference.kubeconfigPath, allowDisruptive: true, profile: undefined, fault: undefined, timeFactor: undefined, clock: undefined, seed: undefined, topology: undefined, infraNodes: undefined, arch: undefined, disconnected: undefined, oneCluster: undefined };
      return runOnCluster(files, asCluster, { ...config, toImages, allowDisruptive: true }, supervisor);
    });
  });
}
