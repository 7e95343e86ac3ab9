/**
 * Starting an upgrade the way the report does: `oc adm upgrade --to-image X --allow-explicit-upgrade --force` when
 * `oc` is installed, otherwise the very merge patch that command sends to clusterversion/version. The caller learns
 * which way was taken, because a report should say so.
 */
import { CliError, hasCli, oc } from './cli.js';
import { retryTransientCli } from './cli-transient.js';
import type { Cluster } from './cluster.js';
import { currentVersion } from './facts/cluster-version.js';
import type { ClusterVersion, Release } from './types.js';

export interface UpgradeTarget {
  image: string;
  /** Known when the target came from availableUpdates; otherwise learned from ClusterVersion once accepted. */
  version?: string;
  source: 'explicit --to-image' | 'availableUpdates[0]' | 'requested outside this run';
}

/** The release to upgrade to: the explicit image, else the cluster's first available update. */
export function resolveUpgradeTarget(cv: ClusterVersion, explicitImage?: string): UpgradeTarget {
  if (explicitImage) {
    const known = cv.status?.availableUpdates?.find((u) => u.image === explicitImage);
    return { image: explicitImage, version: known?.version, source: 'explicit --to-image' };
  }
  const first: Release | undefined = cv.status?.availableUpdates?.[0];
  if (!first?.image) {
    throw new Error(
      `ClusterVersion lists no availableUpdates (current ${currentVersion(cv) ?? 'unknown'}): pass --to-image <release image> to say what to upgrade to`,
    );
  }
  return { image: first.image, version: first.version, source: 'availableUpdates[0]' };
}

/**
 * The upgrade someone asked ClusterVersion for since the cluster ran `from` (an `oc adm upgrade` outside this run, or a
 * split run's own --phase upgrade), or undefined when nobody did: the one meaning of "upgraded since" that a split
 * run's start checks and its post phase share.
 */
export function requestedUpgrade(cv: ClusterVersion, from: { image: string }): UpgradeTarget | undefined {
  const image = cv.spec?.desiredUpdate?.image || cv.status?.desired?.image;
  if (!image || image === from.image) return undefined;
  const version = cv.status?.desired?.image === image ? cv.status.desired.version : cv.spec?.desiredUpdate?.version || cv.status?.availableUpdates?.find((u) => u.image === image)?.version;
  return { image, version: version || undefined, source: 'requested outside this run' };
}

export function upgradePatch(image: string): Record<string, unknown> {
  // The fields have no omitempty in the API: an explicit-image upgrade sends an empty version.
  return { spec: { desiredUpdate: { version: '', image, force: true } } };
}

export interface TriggeredUpgrade {
  method: 'oc adm upgrade' | 'merge patch of clusterversion/version';
  /** The command line or the patch, for the report. */
  detail: string;
  output: string;
}

export async function triggerUpgrade(cluster: Cluster, kubeconfig: string, image: string): Promise<TriggeredUpgrade> {
  if (await hasCli('oc')) {
    const args = ['adm', 'upgrade', `--to-image=${image}`, '--allow-explicit-upgrade', '--force'];
    // Setting the same desiredUpdate twice is harmless, so a run that a passing API error failed is run again: the
    // report's command must not fail an upgrade test because one request of it met a 500.
    const { result: r, attempts } = await retryTransientCli(() => oc(args, { kubeconfig, timeoutMs: 120_000, allowFailure: true }));
    if (r.exitCode !== 0) throw new CliError(r, attempts);
    const retried = attempts > 1 ? `\n(run ${attempts} times: the earlier runs met passing API errors)` : '';
    return { method: 'oc adm upgrade', detail: r.command, output: `${r.stdout}\n${r.stderr}${retried}`.trim() };
  }
  const patch = upgradePatch(image);
  const cv = await cluster.patchClusterVersion(patch);
  return {
    method: 'merge patch of clusterversion/version',
    detail: JSON.stringify(patch),
    output: `desiredUpdate is now ${JSON.stringify(cv.spec?.desiredUpdate ?? null)}`,
  };
}
