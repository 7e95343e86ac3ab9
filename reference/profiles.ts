/**
 * Behaviour profiles and fault switches. A profile is data plus a few booleans the controllers consult; there is one
 * set of controllers for every profile. Facts come from ../shared/spec/mco-behaviour.md §2 and §7.
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
 * Faults break one promise of the reference on purpose, so the suite can prove each of its assertions fails when the
 * behaviour it guards is broken (the kill matrix).
 */
export const FAULTS = {
  'keep-old-os-on-upgrade': "the template controller keeps the previous release's default OS image after an upgrade",
  'render-merge-unsorted': 'the render controller merges MachineConfigs in reverse name order, so an early-named override wins',
  'sticky-override': 'the render controller keeps the last custom osImageURL after the override MachineConfig is deleted',
  'mcd-ignores-pull-errors': 'the daemon reports Done even when the OS image cannot be pulled, booting nothing new',
  'mcd-skips-os-update': 'the daemon applies new configs and reboots but never rebases, so nodes keep booting their previous OS image',
  'cvo-completes-early':
    'the operator reports its new version as soon as the master pool starts rolling and the CVO completes on the version alone',
} as const;

export type FaultName = keyof typeof FAULTS;

export class Faults {
  private readonly active: ReadonlySet<FaultName>;
  constructor(names: readonly string[] = []) {
    const unknown = names.filter((n) => !(n in FAULTS));
    if (unknown.length > 0) {
      const valid = Object.entries(FAULTS)
        .map(([n, what]) => `  ${n}: ${what}`)
        .join('\n');
      throw new Error(`unknown fault ${unknown.map((n) => `"${n}"`).join(', ')}; valid faults:\n${valid}`);
    }
    this.active = new Set(names as FaultName[]);
  }
  has(name: FaultName): boolean {
    return this.active.has(name);
  }
  list(): FaultName[] {
    return [...this.active];
  }
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
