/**
 * The report's steps as reusable blocks: "find the release's OS image", "build the custom image", "override pools
 * with it", "upgrade and wait". Specs compose them inside their phases; each block is a sequence of Allure steps.
 * Whatever changes the cluster registers its undo with the session and hands back a handle (as MCO's test helpers
 * return the delete of what they apply), so a spec never orders cleanups itself.
 */
import { expect } from 'chai';
import { PoolDegradedError, waitForClusterSettled, waitForPools, waitForUpgrade, type PoolExpectation } from './cluster-waits.js';
import type { ClusterSnapshot, ClusterWatcher } from './cluster-watcher.js';
import type { Cluster } from './cluster.js';
import { clockOf, formatTargetDuration, type TargetCapabilities } from './capabilities.js';
import type { WaitContext } from './cluster-waits.js';
import { currentVersion } from './facts/cluster-version.js';
import type { DegradedNode } from './facts/diagnoses.js';
import { identifyEngine, type Engine } from '../lib/oci/engine.js';
import { imageRepository } from './images/repository.js';
import { archNodeOf, architecturesOf } from './build-architectures.js';
import { buildCredentials, type RegistryAccess } from './credentials.js';
import { buildLayeredOsImage, DEFAULT_LAYERED_OS, pushedLayeredOsImage, userRecipe, type LayeredImage, type LayeredImageRecipe } from './layered-image.js';
import type { Ledger, LedgerEntry } from './ledger.js';
import { createOverrideMachineConfig, overridesByPool, poolsOf, type MachineConfigOverride } from './machineconfigs.js';
import { inheritingPools } from './facts/pool.js';
import { isSuiteCustomPool } from './plan/custom-pools.js';
import { UpgradeRecorder, type UpgradeRecording } from './monitor/record.js';
import { keepRecording } from './monitor/recording-file.js';
import type { ExpectedFile } from './facts/node.js';
import { extensionsImageOfBase, osReleaseOf, releaseExtensionsImage, releaseOsImage, suiteRegistryClient } from './release.js';
import { attachText, attachYaml, parameter, step } from './report.js';
import { reportUpgradeInvariants, verdictSummary } from './report/invariant-steps.js';
import type { TargetConfig } from './target.js';
import type { KnownRelease } from './releases/select.js';
import { requestedUpgrade, resolveUpgradeTarget, triggerUpgrade, type UpgradeTarget } from './upgrade.js';
import { splitLeftOutPools } from './upgrade-left-pools.js';

/**
 * What the flows need of the conformance session (helpers/conformance.ts implements it). Said here, so that the
 * session may run flows (the upgrade of a split run's phase) without an import circle.
 */
export interface FlowSession {
  readonly cluster: Cluster;
  readonly caps: TargetCapabilities;
  readonly watcher: ClusterWatcher;
  readonly waits: WaitContext;
  readonly target: TargetConfig;
  readonly access: RegistryAccess;
  readonly kubeconfig: string;
  /** Where every change to the cluster is recorded with its undo (helpers/ledger.ts). */
  readonly ledger: Ledger;
  engine(): Promise<Engine>;
  onFailure(hook: () => Promise<Record<string, unknown>>): void;
  /** The pool a spec's role uses in this run (a custom one where many specs share an upgrade). */
  poolFor(role: string): string;
  /** The suite's rules for the release the cluster runs now (helpers/releases/). */
  release(): KnownRelease;
  /** The architectures of the nodes that boot the spec's layered image (helpers/build-architectures.ts). */
  buildArchitectures?(): string[];
  /** The run whose objects this process answers for: pre's, when post took them over (default: this run). */
  objectsRunId?(): string;
}

export interface StartingPoint {
  version: string;
  releaseImage: string;
  /** The base OS image of the current release (rhel-coreos-8 on 4.12, rhel-coreos from 4.13). */
  osImage: string;
}

/** The release's own names for its base OS and extensions images, as the steps say them (the suite's table). */
function releaseTags(session: FlowSession): { base: string; extensions: string } {
  const { payload } = session.release().rules;
  return { base: payload.baseOsTag, extensions: payload.extensionsTag };
}

/** Step 1: where the cluster is, and its release's base OS image. */
export async function findStartingPoint(session: FlowSession): Promise<StartingPoint> {
  const tags = releaseTags(session);
  return step(`find ${tags.base} of the current release`, async () => {
    const cv = await session.cluster.getClusterVersion();
    const version = currentVersion(cv);
    const releaseImage = cv.status?.desired?.image;
    if (!version || !releaseImage) throw new Error('clusterversion/version reports no current release (status.desired.image / history)');
    const osImage = await releaseOsImage(session.access, releaseImage, session.cluster);
    await parameter('current version', version);
    await parameter('current release image', releaseImage);
    await attachText(tags.base, osImage);
    return { version, releaseImage, osImage };
  });
}

/** The release an upgrade goes to, and the OS of its base image. */
export interface UpgradeTargetOs {
  releaseImage: string;
  /** Its version when ClusterVersion lists it. */
  version?: string;
  /** Its base OS image (rhel-coreos-8; rhel-coreos from 4.13). */
  osImage: string;
  /** That image's os-release, as every node booting a build on it shows it. */
  osRelease: ExpectedFile;
}

/**
 * The release the upgrade will go to (--to-image, the last hop of a path, else ClusterVersion's availableUpdates[0]) and
 * its base OS image: what a layered image is rebuilt on before the upgrade, so the pool is on the new release's OS once
 * it is done.
 */
export async function findUpgradeTargetOs(session: FlowSession): Promise<UpgradeTargetOs> {
  return step('find the base OS image of the release to upgrade to', async () => {
    const target = resolveUpgradeTarget(await session.cluster.getClusterVersion(), session.target.toImages?.at(-1));
    const osImage = await releaseOsImage(session.access, target.image, session.cluster);
    const osRelease = await osReleaseOf(session.access, session.cluster, osImage);
    await parameter('release to upgrade to', `${target.image} (${target.source})`);
    await attachText('its base OS image', osImage);
    await attachText(`its ${osRelease.path}`, osRelease.contents ?? '');
    return { releaseImage: target.image, version: target.version, osImage, osRelease };
  });
}

/**
 * The extensions image (rhel-coreos-8-extensions) of a release: a package repository in a container image, which every
 * cluster of that release can pull and which is not an OS image (no `ostree.bootable`, no ostree commit).
 */
export async function findReleaseExtensionsImage(session: FlowSession, releaseImage: string): Promise<string> {
  const { extensions } = releaseTags(session);
  return step(`find ${extensions} of ${releaseImage}`, async () => {
    const image = await releaseExtensionsImage(session.access, releaseImage, session.cluster);
    await attachText(extensions, image);
    return image;
  });
}

export interface CustomOsImageOptions {
  /** What to layer; default the run's --containerfile, else images/layered-os/Containerfile. */
  recipe?: LayeredImageRecipe;
  /** The release whose base OS image `baseImage` is, when the cluster does not run it (yet): its extensions image goes with the base. */
  releaseImage?: string;
  /** The architectures to build for; default those of the spec's own pools (session.buildArchitectures). */
  architectures?: string[];
}

/** What the run layers: its --containerfile and --build-arg when given, else images/layered-os/Containerfile. */
function runRecipe(session: FlowSession): LayeredImageRecipe {
  return session.target.containerfile ? userRecipe(session.target.containerfile, session.target.buildArgs ?? {}) : { ...DEFAULT_LAYERED_OS, buildArgs: session.target.buildArgs ?? {} };
}

/**
 * Step 2: the layered image on top of the base OS image, pushed and referenced by digest. What is layered is the
 * recipe's (a Containerfile and its build arguments): the run's --containerfile and --build-arg when given, else
 * images/layered-os/Containerfile (a package of the release's extensions image, a file and an enabled unit). The
 * image's `checks` are what its Containerfile declares every node must show.
 */
export async function buildCustomOsImage(session: FlowSession, caseId: string, baseImage: string, options: CustomOsImageOptions = {}): Promise<LayeredImage> {
  // the nodes boot an image of their own architecture: one build per architecture, an index over several
  const architectures = options.architectures ?? session.buildArchitectures?.();
  const forArchitectures = architectures?.length ? ` for ${architectures.map((a) => `linux/${a}`).join(', ')}` : '';
  return step(`build and push the layered OS image FROM ${baseImage}${forArchitectures}`, async () => {
    const output: string[] = [];
    const engine = await session.engine();
    await parameter('container engine', (await identifyEngine(engine)).name);
    if (architectures?.length) await parameter('architectures', architectures.join(', '));
    const image = await buildLayeredOsImage({
      engine,
      repository: imageRepository(session.target, session.caps),
      credentials: await buildCredentials(session.cluster, session.access),
      runId: session.target.runId,
      caseId,
      baseImage,
      // asked only when the Containerfile takes EXTENSIONS_IMAGE: the extensions image of the base image's release
      extensionsImage: () =>
        options.releaseImage ? releaseExtensionsImage(session.access, options.releaseImage, session.cluster) : extensionsImageOfBase(session.access, session.cluster, baseImage),
      recipe: options.recipe ?? runRecipe(session),
      // FROM where the nodes pull the base: a mirror of it on a disconnected cluster
      registry: await suiteRegistryClient(session.access, session.cluster),
      ...(architectures?.length ? { architectures } : {}),
      onOutput: (l) => output.push(l),
      onProgress: (l) => console.log(`    ${l}`),
    });
    // the engine holds the image of each architecture (an index is the registry's alone)
    for (const local of image.platforms && image.platforms.length > 1 ? image.platforms : [image]) session.ledger.record({ kind: 'image', tag: local.tag, pullspec: local.pullspec });
    await attachText('build output', output.join('\n'));
    await attachYaml('layered image', image);
    return image;
  });
}

/** The case part of the tag of the suite's layered image that specs share (`<run-id>-suite`). */
const SUITE_IMAGE_CASE = 'suite';

/**
 * The suite's layered image of the release (the run's --containerfile, else images/layered-os/Containerfile) FROM
 * `baseImage`, the same image for every spec of the run that declares pool image `suite` (pool-plan.ts) while a shared
 * upgrade's plan puts them on one pool. The first spec builds and pushes it (its undo removes the engine's tag, as for
 * any layered image; the pushed image stays for the others); the others take it as the registry holds it under the
 * run's tag, never building it again (another build could push another digest under that tag). Without a plan the spec builds its own, tagged with its case:
 * the spec files of a per-file run build at the same time, and two pushes of one tag race (the registry then serves
 * another digest than the one the engine pushed).
 */
export async function suiteLayeredOsImage(session: FlowSession, caseId: string, baseImage: string): Promise<LayeredImage> {
  if (!session.target.poolPlan) return buildCustomOsImage(session, caseId, baseImage);
  const repository = imageRepository(session.target, session.caps);
  // every node's architecture, not the spec's pools': specs that share the image may put it on different pools
  const architectures = session.buildArchitectures ? [...architecturesOf([...session.watcher.snapshot().nodes.values()].map(archNodeOf)).keys()] : [];
  const pushed = await pushedLayeredOsImage({
    repository,
    runId: session.target.runId,
    caseId: SUITE_IMAGE_CASE,
    credentials: await buildCredentials(session.cluster, session.access),
    baseImage,
    recipe: runRecipe(session),
    ...(architectures.length ? { architectures } : {}),
  });
  if (pushed) return step(`take the suite's layered OS image ${pushed.pullspec}, pushed for this run by an earlier spec`, async () => pushed);
  return buildCustomOsImage(session, SUITE_IMAGE_CASE, baseImage, architectures.length ? { architectures } : {});
}

/** What a pool override left when a node could not reach its config. */
export interface DegradedRollout {
  pool: string;
  /** The degraded nodes: where each was moving, that config's osImageURL, and why it failed. */
  nodes: DegradedNode[];
  /** The wait's failure text, as a person reads it. */
  message: string;
  /**
   * From the creation of the first override MachineConfig to the wait's first sight of a node of the pool reported
   * degraded (by its daemon, or by the pool), on the target's clock (cluster time: the reference's server time, the
   * wall clock on a real cluster) and on the wall; `text` says both ("8m42s cluster time (0.3s wall)"). Undefined for
   * overrides this process did not create.
   */
  reportedAfter?: { targetMs: number; wallMs: number; text: string };
  /** What the wait last saw of the pool before a node was reported degraded (its progress line). */
  lastSeenBefore: string;
}

/** How soon after its MachineConfigs were created a pool must report the node that cannot reach them, and why. */
export interface DegradedBound {
  clusterMinutes: number;
  /** Where the bound comes from, for the failure text. */
  why: string;
}

/** Override MachineConfigs on the cluster, with what can be done to them; their undo is their ledger entry's. */
export interface PoolOverride {
  readonly overrides: MachineConfigOverride[];
  readonly pools: string[];
  /** Waits until the pools have rolled out configs rendered with the overrides. */
  rolledOut(): Promise<ClusterSnapshot>;
  /**
   * The pools must not roll the overrides out: a node must report that it cannot, and the wait must stop on it.
   * `because` says why it cannot ("cannot be pulled"). Returns the degraded nodes. With `bound`, a wait that ends
   * without a degraded node says how long it has been since the MachineConfigs were created, against the bound (the
   * caller judges the span of a node reported degraded, `reportedAfter`).
   */
  expectDegradedNode(because: string, bound?: DegradedBound): Promise<DegradedRollout>;
  /**
   * Runs the overrides' registered undo now: deletes them, points degraded nodes back and waits until the pools roll
   * out without them; with `settledAt`, then also until the pools run configs of that release and machine-config and
   * ClusterVersion are settled at it. The cleanup then has nothing left to do.
   */
  remove(options?: { settledAt?: string }): Promise<void>;
  /** In a checkpoint the handle is its overrides and the ledger entry of their MachineConfigs (split-phases.ts). */
  toJSON(): { $poolOverride: number; overrides: MachineConfigOverride[] };
}

/** Steps 3-4: creates the override MachineConfigs (not waiting for them), each recorded in the ledger as it exists. */
export async function applyOverrides(session: FlowSession, asked: MachineConfigOverride[]): Promise<PoolOverride> {
  // a role is the spec's word; the pool is the run's (its own, or the custom pool a shared upgrade gave it)
  const overrides = asked.map((o) => ({ ...o, role: session.poolFor(o.role) }));
  const list = overrides.map((o) => o.name).join(', ');
  // Only what this run created is ever deleted: an MC of the same name left by someone else is not ours to remove.
  let entry: LedgerEntry | undefined;
  // When the first exists, on the target's clock as every budget and span of the suite, asked of the target then.
  let appliedAt: { targetMs: number; wallMs: number } | undefined;
  await step(`create MachineConfigs ${list}`, async () => {
    for (const override of overrides) {
      const mc = await createOverrideMachineConfig(session.cluster, override, session.target.runId, { markPool: session.target.poolPlan !== undefined });
      appliedAt ??= await clockOf(session.waits.caps).readNow();
      // One ledger entry for all of them, undone together: recorded with the first, and each added as it exists.
      const change = { kind: 'MachineConfig', name: override.name, pool: override.role } as const;
      if (entry) entry.add(change);
      else entry = session.ledger.record(change);
      await attachYaml(`${mc.metadata.name}.yaml`, mc);
    }
  });
  return poolOverride(session, overrides, entry, appliedAt);
}

/**
 * The handle on overrides an earlier process created (`--phase pre`, read from its checkpoint): nothing is created.
 * `entry` is their ledger entry when this process took their undo over (post); without one (`--phase upgrade`) the
 * handle only looks.
 */
export function adoptOverrides(session: FlowSession, overrides: MachineConfigOverride[], entry: LedgerEntry | undefined): PoolOverride {
  return poolOverride(session, overrides, entry);
}

/** `appliedAt`: when this process created the overrides, on the target's clock and the wall (epoch ms). */
function poolOverride(session: FlowSession, overrides: MachineConfigOverride[], entry: LedgerEntry | undefined, appliedAt?: { targetMs: number; wallMs: number }): PoolOverride {
  // a pool that takes an overridden role's configs too (an infra pool takes worker's) rolls the override with it
  // (not the suite's own custom pools: their selectors leave the suite's worker overrides out)
  const inheritors = inheritingPools(poolsOf(overrides), [...session.watcher.snapshot().pools.values()].filter((p) => !isSuiteCustomPool(p)));
  const pools = [...poolsOf(overrides), ...inheritors.keys()];
  const byPool = overridesByPool(overrides);
  for (const [pool, role] of inheritors) byPool[pool] = byPool[role]!;
  const withThem: PoolExpectation = { pools, rendered: Object.fromEntries(pools.map((p) => [p, { with: byPool[p] }])) };
  const asStep = (description: string, body: () => Promise<void>) => step(description, body, session.waits.caps);
  return {
    overrides,
    pools,
    toJSON: () => ({ $poolOverride: entry?.id ?? -1, overrides }),
    rolledOut: () => step(`wait until pools ${pools.join(', ')} are updated`, () => waitForPools(session.waits, withThem), session.waits.caps),
    expectDegradedNode: (because, bound) =>
      step(`wait for pools ${pools.join(', ')}: a node must report it cannot move to the override`, async () => {
        const error = await waitForPools(session.waits, withThem).then(
          () => undefined,
          (e: unknown) => e,
        );
        if (error === undefined) {
          const images = [...new Set(overrides.map((o) => o.osImageURL).filter((i) => i !== undefined))].join(', ');
          expect.fail(`pool ${pools.join(', ')} rolled out ${images || 'the overrides'}, which ${because}, without reporting a degraded node: the error was hidden`);
        }
        if (!(error instanceof PoolDegradedError)) {
          const now = await clockOf(session.waits.caps).readNow();
          const since = bound && appliedAt ? sinceApplied(session, appliedAt, now.wallMs, now.targetMs) : undefined;
          const within = bound && since ? `no node of pool ${pools.join(', ')} was reported degraded in the ${since.text} since MachineConfigs ${overrides.map((o) => o.name).join(', ')} were created, against a bound of ${bound.clusterMinutes}m cluster time (${bound.why}); ` : '';
          expect.fail(`${within}expected the wait to stop on a degraded pool, got: ${(error as Error).message}`);
        }
        await attachText('failure text', error.message);
        const reportedAfter = appliedAt ? sinceApplied(session, appliedAt, error.firstDegraded.wallMs, error.firstDegraded.targetMs) : undefined;
        if (reportedAfter) {
          console.log(`    a node of pool ${error.pool} was reported degraded ${reportedAfter.text} after the MachineConfigs were created`);
          await parameter('MachineConfigs created → a node reported degraded', reportedAfter.text);
        }
        return { pool: error.pool, nodes: error.nodes, message: error.message, reportedAfter, lastSeenBefore: error.firstDegraded.lastSeenBefore };
      }, session.waits.caps),
    remove: async (options = {}) => {
      if (!entry) throw new Error(`MachineConfigs ${overrides.map((o) => o.name).join(', ')} are not this process's to delete (in a split run, --phase post deletes them)`);
      await entry.undoNow(asStep);
      if (options.settledAt) {
        const version = options.settledAt;
        await step(`wait until pools ${pools.join(', ')} run configs of ${version}`, () => waitForPools(session.waits, { pools, releaseVersion: version }), session.waits.caps);
        // The operator checks the master pool's last rolled-out sources, which named the deleted MachineConfig until
        // the rollout finished, and the CVO relays that as Failing: give both their next sync to clear it.
        await step(`wait for machine-config and ClusterVersion to settle at ${version}`, () => waitForClusterSettled(session.waits, version), session.waits.caps);
      }
    },
  };
}

/** The span from `from` to a moment, on both clocks. */
function sinceApplied(session: FlowSession, from: { targetMs: number; wallMs: number }, wallMs: number, targetMs: number): { targetMs: number; wallMs: number; text: string } {
  const span = { targetMs: targetMs - from.targetMs, wallMs: wallMs - from.wallMs };
  return { ...span, text: formatTargetDuration(span.targetMs, span.wallMs, session.waits.caps.timeFactor) };
}

/** Steps 3-5: create the override MachineConfigs and wait until their pools have rolled out with them. */
export async function overridePools(session: FlowSession, overrides: MachineConfigOverride[]): Promise<PoolOverride> {
  const override = await applyOverrides(session, overrides);
  await override.rolledOut();
  return override;
}

export interface UpgradeHop {
  from: string;
  version: string;
  image: string;
  /**
   * What the upgrade's monitor recorded from the trigger to the settled cluster, as JSON-able data (a split run's
   * checkpoint carries it to --phase post); the check phase judges it (checks.ts checkUpgradeInvariants).
   */
  recording: UpgradeRecording;
}

/** An upgrade from `from` to `version`: one hop, or the last of a path with the ones before it. */
export interface CompletedUpgrade extends UpgradeHop {
  /** On an upgrade path (--to-image given more than once), the hops before the last, oldest first, each recorded. */
  earlierHops?: UpgradeHop[];
}

/**
 * Step 6 and the waits: record the upgrade, trigger it, wait for ClusterVersion, every pool, and the operator. Given an
 * upgrade path (4.20 -> 4.21 -> 4.22), one hop at a time: each hop completes and settles before the next is asked
 * for, as the update graph allows only the next release and the CVO refuses a minor update while one is in progress.
 */
export async function upgradeCluster(session: FlowSession, from: string): Promise<CompletedUpgrade> {
  const path = session.target.toImages ?? [];
  if (path.length <= 1) return upgradeOneHop(session, from, path[0]);
  const hops: UpgradeHop[] = [];
  for (const [index, image] of path.entries()) {
    const at = hops.at(-1)?.version ?? from;
    hops.push(await step(`hop ${index + 1} of ${path.length}: from ${at} to ${image}`, () => upgradeOneHop(session, at, image)));
  }
  return { ...hops.at(-1)!, from, earlierHops: hops.slice(0, -1) };
}

async function upgradeOneHop(session: FlowSession, from: string, toImage: string | undefined): Promise<UpgradeHop> {
  const cv = await session.cluster.getClusterVersion();
  const target = resolveUpgradeTarget(cv, toImage);
  if (target.image === cv.status?.desired?.image || (target.version !== undefined && target.version === from)) {
    throw new Error(`the cluster already runs ${target.image} (${from}): give --to-image a newer release`);
  }
  await parameter('upgrade to', `${target.image} (${target.source})`);
  return followUpgrade(session, from, target, () =>
    step(`upgrade to ${target.image}`, async () => {
      const t = await triggerUpgrade(session.cluster, session.kubeconfig, target.image);
      console.log(`    upgrade to ${target.image} requested with ${t.method}`);
      await attachText(`upgrade trigger (${t.method})`, `${t.detail}\n\n${t.output}`);
    }),
  );
}

/**
 * `--phase post` when the pipeline's own step upgraded the cluster (`oc adm upgrade` by a person or CI's tooling):
 * the upgrade ClusterVersion was asked for since `from`, followed from wherever it is now to the settled cluster.
 */
export async function followUpgradeStartedElsewhere(session: FlowSession, from: { version: string; image: string }): Promise<CompletedUpgrade> {
  const cv = await session.cluster.getClusterVersion();
  const target = requestedUpgrade(cv, from);
  if (!target) throw new Error(`the cluster was not upgraded: it runs ${from.version} (${from.image}) and ClusterVersion asks for no other release`);
  await parameter('upgrade to', `${target.image} (${target.source})`);
  console.log(`    following the upgrade to ${target.image} requested outside this run (ClusterVersion at ${currentVersion(cv) ?? 'unknown'})`);
  return followUpgrade(session, from.version, target, undefined);
}

/** Records from now, runs `trigger` (when this run starts the upgrade), then waits for ClusterVersion, every pool, and the operator. */
async function followUpgrade(session: FlowSession, from: string, target: UpgradeTarget, trigger: (() => Promise<void>) | undefined): Promise<UpgradeHop> {
  // restarts are polled from the events: every second on the reference, every 15 s on a real cluster (a big list)
  const events = { list: () => session.cluster.listEvents(), intervalMs: session.caps.isReference ? 1000 : 15_000 };
  const recorder = new UpgradeRecorder(session.watcher, session.caps, { image: target.image, version: target.version }, { events });
  // Whatever fails the test later, the recording goes with its artefacts.
  session.onFailure(async () => ({ 'upgrade-recording': recorder.stop() }));
  try {
    await trigger?.();
    const reached = await step('wait for ClusterVersion to complete the upgrade', () => waitForUpgrade(session.waits, target), session.waits.caps);
    const version = target.version ?? reached.clusterVersion?.status?.desired?.version;
    if (!version) throw new Error('ClusterVersion completed the upgrade but reports no version in status.desired');
    // a pool a spec left out (its image-mode rebuild fails by design) is that spec's to judge after the upgrade
    const { judged, leftOut } = splitLeftOutPools(reached.pools.values());
    for (const { pool, why } of leftOut) console.log(`    pool ${pool.metadata.name} is left out of the upgrade's waits: ${why}`);
    const pools = judged.map((p) => p.metadata.name!);
    await step(`wait until pools ${pools.join(', ')} run configs of ${version}`, () => waitForPools(session.waits, { pools, releaseVersion: version }), session.waits.caps);
    await step(`wait for machine-config and ClusterVersion to settle at ${version}`, () => waitForClusterSettled(session.waits, version), session.waits.caps);
    return { from, version, image: target.image, recording: await recorder.finish() };
  } catch (error) {
    // An upgrade that did not complete has no check phase to judge it: its failure report judges and shows the
    // invariants, once. A completed upgrade returned above and is judged by the check phase (checkUpgradeInvariants).
    session.onFailure(async () => ({ 'upgrade-invariants': verdictSummary((await reportUpgradeInvariants(recorder.stop())).invariants) }));
    throw error;
  } finally {
    await keepRecording(session.target.reportsDir, await recorder.finish());
  }
}
