/**
 * What a profile says about its releases, before anything is built: each release's version and the tag names its
 * payload gives its OS images, and the channel they are served in. `ensureReleases` turns such a set into real images;
 * the pullspecs it returns are `ReleaseInfo` (release-info.ts).
 */

/**
 * The OS images of one release payload, by the tag name image-references gives them. 4.12 names the base OS
 * `rhel-coreos-8`, 4.13 and later `rhel-coreos`; `machine-os-content` is the old-format image (gone in 4.13) and the
 * extensions image is optional. Only the images named here exist in the payload.
 */
export interface OsImageTags {
  /** The base OS image the nodes boot (`rhel-coreos-8`, `rhel-coreos`). */
  base: string;
  /** The old-format OS image, e.g. `machine-os-content`; absent when the release has none. */
  machineOsContent?: string;
  /** The extensions image, e.g. `rhel-coreos-8-extensions`; absent when the release has none. */
  extensions?: string;
  /**
   * A second OS stream the payload carries beside the first, with the RHEL it is built on: 4.21's `rhel-coreos-10` and
   * `rhel-coreos-10-extensions` (MCO 0e931a686, install/image-references), which pools pick with `osImageStream`.
   */
  secondStream?: { base: string; extensions?: string; rhel: RhelStream };
}

/**
 * Which RHEL a release's RHCOS is built on: 4.12's is RHEL 8.6, 4.13's RHEL 9.2, 4.18's RHEL 9.4, 4.19-4.22's RHEL 9.6, and 4.21's
 * second stream RHEL 10.1 (each with its own os-release, kernel and packages: images/rhcos-like).
 */
export type RhelStream = '8.6' | '9.2' | '9.4' | '9.6' | '10.1';

export interface ReleaseDefinition {
  version: string;
  osImageTags: OsImageTags;
  /** The RHEL of the release's OS images; 8.6 when not given. */
  rhel?: RhelStream;
}

/**
 * A cluster's update path: the release it is installed at, the one it can be upgraded to, and any it can go on to
 * from there, one hop at a time (4.20 -> 4.21 -> 4.22, the EUS path, has `further: [4.22]`).
 */
export interface ReleaseSet {
  /** The update channel the releases are served in (ClusterVersion `spec.channel`). */
  channel: string;
  current: ReleaseDefinition;
  next: ReleaseDefinition;
  /** The releases after next, in the order the path reaches them; each updates only from the one before it. */
  further?: readonly ReleaseDefinition[];
}

/** Every release of the set in path order: current, next, then the further ones. */
export function releasePath(set: ReleaseSet): ReleaseDefinition[] {
  return [set.current, set.next, ...(set.further ?? [])];
}

/** The same releases with their payloads naming the OS images differently (e.g. a 4.13-style `rhel-coreos`). */
export function withOsImageTags(set: ReleaseSet, osImageTags: OsImageTags): ReleaseSet {
  const retag = (r: ReleaseDefinition): ReleaseDefinition => ({ ...r, osImageTags });
  return { ...set, current: retag(set.current), next: retag(set.next), ...(set.further ? { further: set.further.map(retag) } : {}) };
}

/** Versions a release says it can be updated from (release-metadata `previous`): the release before it on the path. */
export function previousVersions(set: ReleaseSet, version: string): string[] {
  const path = releasePath(set);
  const index = path.findIndex((r) => r.version === version);
  return index > 0 ? [path[index - 1]!.version] : [];
}

/** Whether two sets would make the same images (a registry built for one serves the other). */
export function sameReleases(a: ReleaseSet, b: ReleaseSet): boolean {
  const key = (s: ReleaseSet) => JSON.stringify(releasePath(s).map((r) => [r.version, r.osImageTags, r.rhel ?? '8.6']));
  return key(a) === key(b);
}
