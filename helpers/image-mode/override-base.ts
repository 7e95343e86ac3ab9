/**
 * Whether an osImageURL override on an image-mode pool can be judged as the base of the pool's build (QE 88202's
 * premise), by the suite's own table of releases: only where the build starts FROM the rendered config's osImageURL
 * (4.22+). Up to 4.21 the build starts FROM the release's base whatever the override says, and the suite refuses
 * overrides on image-mode pools (conformance.ts poolsReason), so there is nothing of the override to judge.
 *
 * An upgrade spec judges the release it upgrades to, so that release is the one asked about: the last hop of
 * --to-image, else ClusterVersion's availableUpdates[0], its version read from the payload where ClusterVersion does
 * not list it.
 */
import { readReleasePayload } from '../../lib/oci/release-payload.js';
import type { FlowSession } from '../flows.js';
import { suiteRegistryClient } from '../release.js';
import { releaseRules, type KnownRelease } from '../releases/select.js';
import type { ReleaseRules } from '../releases/rules.js';
import { resolveUpgradeTarget } from '../upgrade.js';

/** Why `rules`' builds do not start FROM an override (undefined where they do). */
export function overrideNotBuildBase(rules: ReleaseRules): string | undefined {
  if (rules.imageModeBuildBase === 'rendered-os-image') return undefined;
  return `on OpenShift ${rules.release} an image-mode build starts FROM the release's base OS image whatever an osImageURL override on its pool says (the override is the build's base from 4.22, MCO-1972), and the suite refuses an override on a pool with a MachineOSConfig there: nothing of the override's to judge`;
}

/**
 * The suite's rules of the release the cluster will be upgraded to; undefined when no release is offered (the
 * preflight says so: "needs a release to upgrade to").
 */
export async function releaseUpgradedTo(session: Pick<FlowSession, 'cluster' | 'access' | 'target'>): Promise<KnownRelease | undefined> {
  const cv = await session.cluster.getClusterVersion();
  const explicit = session.target.toImages?.at(-1);
  if (!explicit && !cv.status?.availableUpdates?.[0]?.image) return undefined;
  const target = resolveUpgradeTarget(cv, explicit);
  const version = target.version ?? (await readReleasePayload(await suiteRegistryClient(session.access, session.cluster), target.image)).metadata.version;
  return releaseRules(version);
}

/** The suite's rules of the release ClusterVersion was last asked for (after an upgrade, the one it went to). */
async function releaseAskedFor(cluster: FlowSession['cluster']): Promise<KnownRelease | undefined> {
  const version = (await cluster.getClusterVersion()).status?.desired?.version;
  return version ? releaseRules(version) : undefined;
}

/**
 * Why spec 19 cannot judge the override as a base on this cluster: the release it upgrades to builds FROM the
 * release's base. Asked in the phases that prepare (all, pre) of the release the upgrade will go to, and in post of
 * the one ClusterVersion was upgraded to, so that post skips for the reason pre did rather than find no checkpoint;
 * --phase upgrade follows what pre prepared.
 */
export async function overrideNotBuildBaseAfterUpgrade(session: Pick<FlowSession, 'cluster' | 'access' | 'target'>): Promise<string | undefined> {
  if (session.target.phase === 'upgrade') return undefined;
  const next = session.target.phase === 'post' ? await releaseAskedFor(session.cluster) : await releaseUpgradedTo(session);
  if (!next) return undefined;
  const reason = overrideNotBuildBase(next.rules);
  return reason ? `the upgrade goes to ${next.version}: ${reason}` : undefined;
}
