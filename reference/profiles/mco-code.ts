/**
 * The machine-config-operator code the profiles play, one value per upstream commit: how each behaves where the
 * reference's controllers tell them apart. A profile runs one of them on its installed release and, where it says so,
 * another on the release it upgrades to. Facts from ../shared/spec/mco-behaviour.md and the upstream files cited.
 */
import type { McoCode } from './profile.js';

/** Frozen, with the literal types McoCode asks for kept. */
const code = (value: McoCode): McoCode => Object.freeze(value);

/** BUG-B: the last main commit before the fix, the code of the report's nightly (its required-pools logic is BUG-A's). */
export const MCO_BUG_B: McoCode = code({
  upstream: { label: 'BUG-B', commit: 'cad20f7101719838aaa87c066430987303500fa6' },
  operator: {
    configMapKeys: {
      releaseVersion: 'releaseVersion',
      osImageURL: 'osImageURL',
      baseOSContainerImage: 'baseOperatingSystemContainer',
    },
    missingUrlsMessage: 'Missing baseOperatingSystemContainer and osImageURL from configmap',
    availableFalseHasReason: false,
    skipsOverriddenOsImageCheck: false,
    lastPoolConditionWins: false,
  },
  render: {
    annotateOverriddenOsImage: false,
    newFormatImageByDefault: false,
    specHasExtensionsImage: false,
    ignitionSpec: '3.2',
    mergeDefaultsOverwriteAndDedupsKargs: false,
    renderWaitsForRegeneratedConfigs: false,
    apimachinery: '0.25',
  },
  daemon: { osUpdate: { kind: 'inspect-then-legacy' }, layeredImageRefusesLayering: true },
});

/** FIX: the merge of PR #3317 (MCO-289), which release-4.12 branched after; 4.12 GA's code where the reference looks. */
export const MCO_FIX: McoCode = code({
  upstream: { label: 'FIX', commit: '3943ef1d03c1aaf3a02bfdf45d16902ff44449a3' },
  operator: {
    configMapKeys: {
      releaseVersion: 'releaseVersion',
      osImageURL: 'osImageURL',
      baseOSContainerImage: 'baseOSContainerImage',
      baseOSExtensionsContainerImage: 'baseOSExtensionsContainerImage',
    },
    missingUrlsMessage: 'Missing baseOSContainerImage and osImageURL from configmap',
    availableFalseHasReason: true,
    skipsOverriddenOsImageCheck: true,
    lastPoolConditionWins: false,
  },
  render: {
    ...MCO_BUG_B.render,
    annotateOverriddenOsImage: true,
    newFormatImageByDefault: true,
    specHasExtensionsImage: true,
  },
  daemon: { osUpdate: { kind: 'inspect-then-legacy' }, layeredImageRefusesLayering: false },
});

/**
 * release-4.13 at a57ca2912 (the branch's head): FIX's operator and daemon where the reference looks (the same
 * ConfigMap keys, the same default image rule and required-pool check), with the render of 4.13: Ignition up to 3.4,
 * files that overwrite by default, kernel arguments kept once, and configs of an older controller waited for.
 * Its payload names the OS image `rhel-coreos` (install/image-references, 3028a784b "Switch to rhel-coreos (9)").
 */
export const MCO_4_13: McoCode = code({
  ...MCO_FIX,
  upstream: { label: '4.13', commit: 'a57ca291235422f8466ac53496e9d192eecfe1e4' },
  operator: { ...MCO_FIX.operator, lastPoolConditionWins: true },
  render: { ...MCO_FIX.render, ignitionSpec: '3.4', mergeDefaultsOverwriteAndDedupsKargs: true, renderWaitsForRegeneratedConfigs: true, apimachinery: '0.26' },
});
