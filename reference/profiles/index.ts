/**
 * The registry of profiles: every profile the reference can play, and the default. Adding a profile is writing its
 * module next to this file and listing it here; the command line, its help and the reference read this list.
 */
import ga from './4.12-ga.js';
import nightly from './4.12-nightly-2022-09-08.js';
import to413 from './4.12-to-4.13.js';
import to419 from './4.18-to-4.19.js';
import to421 from './4.20-to-4.21.js';
import to422 from './4.21-to-4.22.js';
import eus422 from './4.20-to-4.22.js';
import type { Profile } from './profile.js';

const ALL = [ga, nightly, to413, to419, to421, to422, eus422] as const;

export type ProfileName = (typeof ALL)[number]['name'];
/** A profile of this registry: its name is one of ProfileName. */
export type KnownProfile = Profile & { name: ProfileName };

export const PROFILES: Readonly<Record<ProfileName, KnownProfile>> = Object.freeze(Object.fromEntries(ALL.map((p) => [p.name, p])) as Record<ProfileName, KnownProfile>);

/** Profile names in the order the help lists them. */
export const PROFILE_NAMES: readonly ProfileName[] = ALL.map((p) => p.name);

/** The profile when none is asked for: the fixed code. */
export const DEFAULT_PROFILE: ProfileName = ga.name;

/** The profile of the bug report's own code, which its examples reproduce. */
export const REPORT_PROFILE: ProfileName = nightly.name;

export function getProfile(name: string | undefined): KnownProfile {
  const key = name ?? DEFAULT_PROFILE;
  if (!Object.hasOwn(PROFILES, key)) throw new Error(`unknown profile "${name}"; valid profiles: ${PROFILE_NAMES.join(', ')}`);
  return PROFILES[key as ProfileName];
}

export { mcoAt, type Profile, type McoBehaviour, type McoBuild, type McoCode, type UpstreamCommit } from './profile.js';
