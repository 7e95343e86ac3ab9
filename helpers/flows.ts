/**
 * The report's steps as reusable blocks: "find the release's OS image", "build the custom image", "override pools
 * with it", "upgrade and wait". Specs compose them inside their phases; each block is a sequence of Allure steps.
 * Whatever changes the cluster registers its undo with the session and hands back a handle (as MCO's test helpers
 * return the delete of what they apply), so a spec never orders cleanups itself.
 */
import { expect } from 'chai';
import { PoolDegradedError, waitForClusterSettled, waitForPools, waitForUpgrade, type PoolExpectation } from './cluster-waits.js';
import type { ClusterSnapshot } from './cluster-watcher.js';
import type { ConformanceSession } from './conformance.js';
import { currentVersion } from './facts/cluster-version.js';
import type { DegradedNode } from './facts/diagnoses.js';
import { identifyEngine } from '../lib/oci/engine.js';
import { imageRepository } from './images/repository.js';
import type { Registered, UndoAction } from './cleanup.js';
import { buildCredentials } from './credentials.js';
import { buildLayeredOsImage, removeLocalLayeredImage, type LayeredImage } from './layered-image.js';
import { createOsImageOverride, overridesByPool, type OsImageOverride } from './machineconfigs.js';
import { UpgradeRecorder, type UpgradeRecording } from './monitor/record.js';
import { keepRecording } from './monitor/recording-file.js';
import { recoverDegradedNodes } from './recovery.js';
import { releaseOsImage } from './release.js';
import { attachText, attachYaml, parameter, step } from './report.js';
import { reportUpgradeInvariants, verdictSummary } from './report/invariant-steps.js';
import { resolveUpgradeTarget, triggerUpgrade, type UpgradeTarget } from './upgrade.js';
import type { ClusterVersion } from './types.js';

export interface StartingPoint {
  version: string;
  releaseImage: string;
  /** rhel-coreos-8 of the current release. */
  osImage: string;
}

/** Step 1: where the cluster is, and its release's base OS image. */
export async function findStartingPoint(session: ConformanceSession): Promise<StartingPoint> {
  return step('find rhel-coreos-8 of the current release', async () => {
    const cv = await session.cluster.getClusterVersion();
    const version = currentVersion(cv);
    const releaseImage = cv.status?.desired?.image;
    if (!version || !releaseImage) throw new Error('clusterversion/version reports no current release (status.desired.image / history)');
    const osImage = await releaseOsImage(session.access, releaseImage, session.cluster);
    await parameter('current version', version);
    await parameter('current release image', releaseImage);
    await attachText('rhel-coreos-8', osImage);
    return { version, releaseImage, osImage };
  });
}

/** The base OS image (rhel-coreos-8) of a release, e.g. the one an upgrade went to. */
export async function findReleaseOsImage(session: ConformanceSession, releaseImage: string): Promise<string> {
  return step(`find rhel-coreos-8 of ${releaseImage}`, async () => {
    const osImage = await releaseOsImage(session.access, releaseImage, session.cluster);
    await attachText('rhel-coreos-8', osImage);
    return osImage;
  });
}

/** Step 2: the layered image (zsh on top of the base OS image), pushed and referenced by digest. */
export async function buildCustomOsImage(session: ConformanceSession, caseId: string, baseImage: string): Promise<LayeredImage> {
  return step(`build and push the layered OS image FROM ${baseImage}`, async () => {
    const output: string[] = [];
    const engine = await session.engine();
    await parameter('container engine', (await identifyEngine(engine)).name);
    const image = await buildLayeredOsImage({
      engine,
      repository: imageRepository(session.target, session.caps),
      credentials: await buildCredentials(session.cluster, session.access),
      runId: session.target.runId,
      caseId,
      baseImage,
      onOutput: (l) => output.push(l),
      onProgress: (l) => console.log(`    ${l}`),
    });
    session.cleanup.add({
      description: `remove the local copies of ${image.tag}`,
      undo: () => removeLocalLayeredImage(engine, image),
      byHand: [`docker rmi ${image.tag} ${image.pullspec}   # or podman rmi`],
    });
    session.split.pushedImages.push(image.pullspec);
    await attachText('build output', output.join('\n'));
    await attachYaml('layered image', image);
    return image;
  });
}

/** What a pool override left when a node could not reach its config. */
export interface DegradedRollout {
  pool: string;
  /** The degraded nodes: where each was moving, that config's osImageURL, and why it failed. */
  nodes: DegradedNode[];
  /** The wait's failure text, as a person reads it. */
  message: string;
}

/** Override MachineConfigs on the cluster, with what can be done to them; their undo is registered once. */
export interface PoolOverride {
  readonly overrides: OsImageOverride[];
  readonly pools: string[];
  /** Waits until the pools have rolled out configs rendered with the overrides. */
  rolledOut(): Promise<ClusterSnapshot>;
  /**
   * The pools must not roll the overrides out: a node must report that it cannot, and the wait must stop on it.
   * `because` says why it cannot ("cannot be pulled"). Returns the degraded nodes.
   */
  expectDegradedNode(because: string): Promise<DegradedRollout>;
  /**
   * Deletes the overrides and waits until the pools roll out without them; with `settledAt`, rendered for that release
   * and with machine-config and ClusterVersion settled at it. The cleanup then has nothing left to do.
   */
  remove(options?: { settledAt?: string }): Promise<void>;
  /** In a checkpoint the handle is a reference to its overrides (split-phases.ts). */
  toJSON(): { $poolOverride: number };
}

/** Steps 3-4: creates the override MachineConfigs (not waiting for them) and registers their one undo. */
export async function applyOverrides(session: ConformanceSession, overrides: OsImageOverride[]): Promise<PoolOverride> {
  const list = overrides.map((o) => o.name).join(', ');
  // Only what this run created is ever deleted: an MC of the same name left by someone else is not ours to remove.
  const created: string[] = [];
  const undo = overrideUndo(session, overrides, created);
  let registered: Registered | undefined;
  await step(`create MachineConfigs ${list}`, async () => {
    for (const override of overrides) {
      const mc = await createOsImageOverride(session.cluster, override, session.target.runId);
      created.push(override.name);
      // One undo for all of them, registered the moment the first exists; it reads `created` when it runs.
      registered ??= session.cleanup.add(undo);
      await attachYaml(`${mc.metadata.name}.yaml`, mc);
    }
  });
  return overrideHandle(session, overrides, created, registered);
}

/**
 * The handle on overrides an earlier process created (`--phase pre`, read from its checkpoint): nothing is created,
 * and with `takeOver` their undo is registered here, so this process deletes them and settles the pools at its end.
 */
export function adoptOverrides(session: ConformanceSession, overrides: OsImageOverride[], options: { takeOver: boolean }): PoolOverride {
  const created = overrides.map((o) => o.name);
  const registered = options.takeOver ? session.cleanup.add(overrideUndo(session, overrides, created)) : undefined;
  return overrideHandle(session, overrides, created, registered);
}

/** Deleting the overrides of `created` (read when it runs), then pointing degraded nodes back and settling the pools. */
function overrideUndo(session: ConformanceSession, overrides: OsImageOverride[], created: string[]): UndoAction {
  const pools = [...new Set(overrides.map((o) => o.role))];
  const byPool = overridesByPool(overrides);
  // A node that could not reach the override's config stays degraded after its deletion (MCO will not move it):
  // point it back first, then the pools can settle.
  const settle = async () => {
    for (const pool of pools) {
      const nodes = await recoverDegradedNodes(session.cluster, session.waits, pool, byPool[pool]!);
      if (nodes.length) console.log(`    recovered degraded nodes: ${nodes.join(', ')}`);
    }
    await waitForPools(session.waits, withoutOverrides(overrides));
  };
  return {
    get description() {
      return `delete MachineConfigs ${created.join(', ')}`;
    },
    undo: () => deleteOverrides(session, created),
    get byHand() {
      return [`oc delete machineconfig ${created.join(' ')}`];
    },
    settle: {
      description: `wait until pools ${pools.join(', ')} settle without them`,
      run: settle,
      byHand: [`oc get mcp ${pools.join(' ')} -w   # until UPDATED=True, UPDATING=False, DEGRADED=False on every pool`],
    },
  };
}

async function deleteOverrides(session: ConformanceSession, names: string[]): Promise<void> {
  for (const name of names) await session.cluster.deleteMachineConfig(name);
}

function withoutOverrides(overrides: OsImageOverride[]): PoolExpectation {
  const pools = [...new Set(overrides.map((o) => o.role))];
  const byPool = overridesByPool(overrides);
  return { pools, rendered: Object.fromEntries(pools.map((p) => [p, { without: byPool[p] }])) };
}

function overrideHandle(session: ConformanceSession, overrides: OsImageOverride[], created: string[], registered: Registered | undefined): PoolOverride {
  const pools = [...new Set(overrides.map((o) => o.role))];
  const byPool = overridesByPool(overrides);
  const list = overrides.map((o) => o.name).join(', ');
  const withThem: PoolExpectation = { pools, rendered: Object.fromEntries(pools.map((p) => [p, { with: byPool[p] }])) };
  // Held by the session while on the cluster: a split run's checkpoint names them, and hands their undo to post.
  const held = session.split.holdOverrides(overrides, () => registered?.dismiss());
  return {
    overrides,
    pools,
    toJSON: () => ({ $poolOverride: held.index }),
    rolledOut: () => step(`wait until pools ${pools.join(', ')} are updated`, () => waitForPools(session.waits, withThem), session.waits.caps),
    expectDegradedNode: (because) =>
      step(`wait for pools ${pools.join(', ')}: a node must report it cannot move to the override`, async () => {
        const error = await waitForPools(session.waits, withThem).then(
          () => undefined,
          (e: unknown) => e,
        );
        if (error === undefined) {
          const images = [...new Set(overrides.map((o) => o.osImageURL))].join(', ');
          expect.fail(`pool ${pools.join(', ')} rolled out ${images}, which ${because}, without reporting a degraded node: the error was hidden`);
        }
        if (!(error instanceof PoolDegradedError)) expect.fail(`expected the wait to stop on a degraded pool, got: ${(error as Error).message}`);
        await attachText('failure text', error.message);
        return { pool: error.pool, nodes: error.nodes, message: error.message };
      }, session.waits.caps),
    remove: async (options = {}) => {
      await step(`delete MachineConfigs ${list}`, () => deleteOverrides(session, created));
      await step(
        `wait until pools ${pools.join(', ')} roll out without the overrides`,
        () => waitForPools(session.waits, { ...withoutOverrides(overrides), releaseVersion: options.settledAt }),
        session.waits.caps,
      );
      if (options.settledAt) {
        const version = options.settledAt;
        // The operator checks the master pool's last rolled-out sources, which named the deleted MachineConfig until
        // the rollout finished, and the CVO relays that as Failing: give both their next sync to clear it.
        await step(`wait for machine-config and ClusterVersion to settle at ${version}`, () => waitForClusterSettled(session.waits, version), session.waits.caps);
      }
      registered?.dismiss();
      held.release();
    },
  };
}

/** Steps 3-5: create the override MachineConfigs and wait until their pools have rolled out with them. */
export async function overridePools(session: ConformanceSession, overrides: OsImageOverride[]): Promise<PoolOverride> {
  const override = await applyOverrides(session, overrides);
  await override.rolledOut();
  return override;
}

export interface CompletedUpgrade {
  from: string;
  version: string;
  image: string;
  /**
   * What the upgrade's monitor recorded from the trigger to the settled cluster, as JSON-able data (a split run's
   * checkpoint carries it to --phase post); the check phase judges it (checks.ts checkUpgradeInvariants).
   */
  recording: UpgradeRecording;
}

/** Step 6 and the waits: record the upgrade, trigger it, wait for ClusterVersion, every pool, and the operator. */
export async function upgradeCluster(session: ConformanceSession, from: string): Promise<CompletedUpgrade> {
  const cv = await session.cluster.getClusterVersion();
  const target = resolveUpgradeTarget(cv, session.target.toImage);
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
export async function followUpgradeStartedElsewhere(session: ConformanceSession, from: { version: string; image: string }): Promise<CompletedUpgrade> {
  const cv = await session.cluster.getClusterVersion();
  const target = requestedUpgrade(cv, from);
  await parameter('upgrade to', `${target.image} (${target.source})`);
  console.log(`    following the upgrade to ${target.image} requested outside this run (ClusterVersion at ${currentVersion(cv) ?? 'unknown'})`);
  return followUpgrade(session, from.version, target, undefined);
}

/** The upgrade someone asked ClusterVersion for since `from`; an error when nobody did. */
function requestedUpgrade(cv: ClusterVersion, from: { version: string; image: string }): UpgradeTarget {
  const image = cv.spec?.desiredUpdate?.image || cv.status?.desired?.image;
  if (!image || image === from.image) {
    throw new Error(`the cluster was not upgraded: it runs ${from.version} (${from.image}) and ClusterVersion asks for no other release`);
  }
  const version = cv.status?.desired?.image === image ? cv.status.desired.version : cv.spec?.desiredUpdate?.version || cv.status?.availableUpdates?.find((u) => u.image === image)?.version;
  return { image, version: version || undefined, source: 'requested outside this run' };
}

/** Records from now, runs `trigger` (when this run starts the upgrade), then waits for ClusterVersion, every pool, and the operator. */
async function followUpgrade(session: ConformanceSession, from: string, target: UpgradeTarget, trigger: (() => Promise<void>) | undefined): Promise<CompletedUpgrade> {
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
    const pools = [...reached.pools.keys()];
    await step(`wait until pools ${pools.join(', ')} run configs of ${version}`, () => waitForPools(session.waits, { pools, releaseVersion: version }), session.waits.caps);
    await step(`wait for machine-config and ClusterVersion to settle at ${version}`, () => waitForClusterSettled(session.waits, version), session.waits.caps);
    return { from, version, image: target.image, recording: recorder.stop() };
  } catch (error) {
    // An upgrade that did not complete has no check phase to judge it: its failure report judges and shows the
    // invariants, once. A completed upgrade returned above and is judged by the check phase (checkUpgradeInvariants).
    session.onFailure(async () => ({ 'upgrade-invariants': verdictSummary((await reportUpgradeInvariants(recorder.stop())).invariants) }));
    throw error;
  } finally {
    await keepRecording(session.target.reportsDir, recorder.stop());
  }
}
