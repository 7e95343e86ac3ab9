/**
 * The suite's knowledge of the release a cluster runs, chosen by the version ClusterVersion reports (before an upgrade
 * the starting release, after it the new one). A release newer than the table is read with the newest row and a
 * warning that names what the suite cannot vouch for there; one older than the table is refused before cluster time.
 */
import type { ReleaseRules } from './rules.js';
import { RELEASES } from './table.js';
import { minorName, parseOpenShiftVersion } from './version.js';

export interface KnownRelease {
  rules: ReleaseRules;
  /** The version asked about. */
  version: string;
  /** False where the cluster runs a release newer than the table: its rules are the newest known, read tolerantly. */
  vouched: boolean;
  /** Why the suite cannot vouch for its verdicts here (empty when it can). */
  warning?: string;
}

const OLDEST = RELEASES[0]!;
const NEWEST = RELEASES[RELEASES.length - 1]!;

/** What the newest known release's checks assume, which a later release may have changed. */
const UNVOUCHED = [
  "the daemon's and the operator's texts (read the tolerant way QE's own expressions read them)",
  'where the release OS image is recorded',
  'how generated MachineConfigs take part in the osImageURL merge',
  'the kubelet skew rule for the next minor',
];

export class UnknownReleaseError extends Error {}

export function releaseRules(version: string): KnownRelease {
  const v = parseOpenShiftVersion(version);
  if (!v || v.major !== 4) throw new UnknownReleaseError(`"${version}" is not an OpenShift 4 version: ocp-e2e knows OpenShift ${OLDEST.release} to ${NEWEST.release}`);
  const rules = RELEASES.find((r) => r.minor === v.minor);
  if (rules) return { rules, version, vouched: true };
  if (v.minor < OLDEST.minor) {
    throw new UnknownReleaseError(`OpenShift ${minorName(v)} (${version}) is older than any release ocp-e2e knows (${OLDEST.release} to ${NEWEST.release}): its texts and rules are not in the suite's table`);
  }
  return {
    rules: NEWEST,
    version,
    vouched: false,
    warning:
      `OpenShift ${minorName(v)} (${version}) is newer than the releases ocp-e2e knows (${OLDEST.release} to ${NEWEST.release}): ` +
      `it judges it by ${NEWEST.release}'s rules and cannot vouch for ${UNVOUCHED.join(', ')}`,
  };
}

/** The suite's name of the release `version` is ('4.12', ...), or undefined for none or one the suite does not know. */
export function releaseNameOf(version: string | undefined): string | undefined {
  if (!version) return undefined;
  try {
    return releaseRules(version).rules.release;
  } catch (error) {
    if (error instanceof UnknownReleaseError) return undefined;
    throw error;
  }
}
