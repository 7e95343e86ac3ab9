/** The MCO build a release carries: `version.Hash` and `version.Raw`, stable stand-ins derived from the release. */
import { createHash } from 'node:crypto';
import type { McoBuild } from '../profiles.js';

export function mcoBuildFor(releaseVersion: string, profileName: string): McoBuild {
  const hash = createHash('sha1').update(`machine-config-operator\0${profileName}\0${releaseVersion}`).digest('hex');
  // Real version.Raw looks like "v4.12.0-202209071524.p0.g85e8c14.assembly.stream-dirty"; keep the short sha in it.
  const stamp = releaseVersion.match(/(\d{4})-(\d{2})-(\d{2})-(\d{4})/);
  const build = stamp ? `${stamp[1]}${stamp[2]}${stamp[3]}${stamp[4]}` : '000000000000';
  const base = releaseVersion.split('-')[0] ?? releaseVersion;
  return { releaseVersion, hash, raw: `v${base}-${build}.p0.g${hash.slice(0, 7)}.assembly.stream` };
}
