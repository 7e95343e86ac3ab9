/**
 * The report's steps as reusable blocks: "build the custom image of the current release", "override pools with it",
 * "upgrade and wait". Specs compose them inside their phases; each block is a sequence of Allure steps.
 */
import { waitForClusterSettled, waitForPools, waitForUpgrade } from './cluster-waits.js';
import type { ConformanceSession } from './conformance.js';
import { buildLayeredOsImage, removeLocalLayeredImage, type LayeredImage } from './layered-image.js';
import { createOsImageOverrides, type OsImageOverride } from './machineconfigs.js';
import { releaseOsImage } from './release.js';
import { attachText, attachYaml, parameter, step } from './report.js';
import { currentVersion, resolveUpgradeTarget, triggerUpgrade, type TriggeredUpgrade } from './upgrade.js';

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
    const osImage = await releaseOsImage(releaseImage);
    await parameter('current version', version);
    await parameter('current release image', releaseImage);
    await attachText('rhel-coreos-8', osImage);
    return { version, releaseImage, osImage };
  });
}

/** Step 2: the layered image (zsh on top of the base OS image), pushed and referenced by digest. */
export async function buildCustomOsImage(session: ConformanceSession, caseId: string, baseImage: string): Promise<LayeredImage> {
  return step(`build and push the layered OS image FROM ${baseImage}`, async () => {
    const output: string[] = [];
    const image = await buildLayeredOsImage({ cluster: session.cluster, target: session.target, caps: session.caps, caseId, baseImage, onOutput: (l) => output.push(l) });
    session.cleanup.add(`remove the local copies of ${image.tag}`, () => removeLocalLayeredImage(image));
    await attachText('build output', output.join('\n'));
    await attachYaml('layered image', image);
    return image;
  });
}

/** Steps 3-5: create the override MachineConfigs and wait until their pools have rolled out with them. */
export async function overridePools(session: ConformanceSession, overrides: OsImageOverride[]): Promise<void> {
  const pools = [...new Set(overrides.map((o) => o.role))];
  const names = overrides.map((o) => o.name);
  const byPool = mcsByPool(overrides);
  // Registered before the MachineConfigs exist, so LIFO runs it after their deletion: the pools must settle back,
  // or the cluster is left mid-rollout for whatever runs next.
  session.cleanup.add(
    `wait until pools ${pools.join(', ')} settle without ${names.join(', ')}`,
    async () => {
      await waitForPools(session.waits, { pools, sourcesExclude: byPool });
    },
    { settles: true },
  );
  await step(`create MachineConfigs ${names.join(', ')}`, async () => {
    const created = await createOsImageOverrides(session.cluster, session.cleanup, overrides, session.target.runId);
    for (const mc of created) await attachYaml(`${mc.metadata.name}.yaml`, mc);
  });
  await step(`wait until pools ${pools.join(', ')} are updated`, async () => {
    await waitForPools(session.waits, { pools, sourcesInclude: byPool });
  });
}

/** The override MachineConfigs of each pool: `{ worker: ['tc-…-worker'], master: ['tc-…-master'] }`. */
export function mcsByPool(overrides: OsImageOverride[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const o of overrides) (out[o.role] ??= []).push(o.name);
  return out;
}

export interface CompletedUpgrade {
  from: string;
  version: string;
  image: string;
  trigger: TriggeredUpgrade;
}

/** Step 6 and the wait: trigger, record the timeline, wait for ClusterVersion and then for every pool. */
export async function upgradeCluster(session: ConformanceSession, from: string): Promise<CompletedUpgrade> {
  const cv = await session.cluster.getClusterVersion();
  const target = resolveUpgradeTarget(cv, session.target.toImage);
  let version = target.version;
  if (target.image === cv.status?.desired?.image || (version !== undefined && version === from)) {
    throw new Error(`the cluster already runs ${target.image} (${from}): give --to-image a newer release`);
  }
  await parameter('upgrade to', `${target.image} (${target.source})`);
  session.startMonitor(() => version ?? session.watcher.snapshot().clusterVersion?.status?.desired?.version);
  const trigger = await step(`upgrade to ${target.image}`, async () => {
    const t = await triggerUpgrade(session.cluster, session.kubeconfig, target.image);
    console.log(`    upgrade to ${target.image} requested with ${t.method}`);
    await attachText(`upgrade trigger (${t.method})`, `${t.detail}\n\n${t.output}`);
    return t;
  });
  const reached = await step('wait for ClusterVersion to complete the upgrade', () => waitForUpgrade(session.waits, { image: target.image, version }));
  version ??= reached.clusterVersion?.status?.desired?.version;
  if (!version) throw new Error('ClusterVersion completed the upgrade but reports no version in status.desired');
  const pools = [...reached.pools.keys()];
  await step(`wait until pools ${pools.join(', ')} run configs of ${version}`, () => waitForPools(session.waits, { pools, releaseVersion: version }));
  await step(`wait for machine-config and ClusterVersion to settle at ${version}`, () => waitForClusterSettled(session.waits, version!));
  return { from, version, image: target.image, trigger };
}
