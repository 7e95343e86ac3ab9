/**
 * Behaviour profiles. A profile is data plus a few booleans the controllers consult; there is one set of controllers
 * for every profile (faults, which break behaviour on purpose, are in faults.ts). Facts come from
 * ../shared/spec/mco-behaviour.md §2 and §7.
 */

export type ProfileName = '4.12-ga' | '4.12-nightly-2022-09-08';

export interface Profile {
  name: ProfileName;
  /** Which code this profile stands for, for humans. */
  description: string;
  /** FIX: the render controller annotates an overridden rendered MC and the operator then skips the URL check. */
  annotateOverriddenOsImage: boolean;
  /** FIX: `UseNewFormatImageByDefault`: the default OS image is `rhel-coreos-8`, not `machine-os-content`. */
  newFormatImageByDefault: boolean;
  /** FIX adds `baseOSExtensionsContainerImage` to the MachineConfig spec (and so to the rendered-name hash). */
  specHasExtensionsImage: boolean;
  /** Keys of the machine-config-osimageurl ConfigMap. */
  configMapKeys: {
    releaseVersion: 'releaseVersion';
    osImageURL: 'osImageURL';
    baseOSContainerImage: string;
    /** Absent at BUG (commented out upstream). */
    baseOSExtensionsContainerImage?: string;
  };
  /** Error when neither URL key is present. */
  missingUrlsMessage: string;
  /** BUG-A reports Available=False without the reason text; BUG-B and later append it. */
  availableFalseHasReason: boolean;
}

export const PROFILES: Record<ProfileName, Profile> = {
  '4.12-ga': {
    name: '4.12-ga',
    description: 'OpenShift 4.12 GA machine-config-operator (contains the fix of PR #3317, MCO-289)',
    annotateOverriddenOsImage: true,
    newFormatImageByDefault: true,
    specHasExtensionsImage: true,
    configMapKeys: {
      releaseVersion: 'releaseVersion',
      osImageURL: 'osImageURL',
      baseOSContainerImage: 'baseOSContainerImage',
      baseOSExtensionsContainerImage: 'baseOSExtensionsContainerImage',
    },
    missingUrlsMessage: 'Missing baseOSContainerImage and osImageURL from configmap',
    availableFalseHasReason: true,
  },
  '4.12-nightly-2022-09-08': {
    name: '4.12-nightly-2022-09-08',
    description: 'machine-config-operator of the 2022-09-08 nightly (BUG-A): osImageURL check fails on an override',
    annotateOverriddenOsImage: false,
    newFormatImageByDefault: false,
    specHasExtensionsImage: false,
    configMapKeys: {
      releaseVersion: 'releaseVersion',
      osImageURL: 'osImageURL',
      baseOSContainerImage: 'baseOperatingSystemContainer',
    },
    missingUrlsMessage: 'Missing baseOperatingSystemContainer and osImageURL from configmap',
    availableFalseHasReason: false,
  },
};

export const DEFAULT_PROFILE: ProfileName = '4.12-ga';

export function getProfile(name: string | undefined): Profile {
  const key = (name ?? DEFAULT_PROFILE) as ProfileName;
  const profile = PROFILES[key];
  if (!profile) {
    throw new Error(`unknown profile "${name}"; valid profiles: ${Object.keys(PROFILES).join(', ')}`);
  }
  return profile;
}

/**
 * The MCO build identity per release: `version.Hash` (git sha the render and operator compare) and `version.Raw`.
 * Real releases carry different MCO commits; the reference derives stable stand-ins from the release version and the
 * profile, so an upgrade changes the controller hash exactly like a real one does.
 */
export interface McoBuild {
  releaseVersion: string;
  hash: string;
  raw: string;
}
