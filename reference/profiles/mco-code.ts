/**
 * The machine-config-operator code the profiles play, one value per upstream commit: how each behaves where the
 * reference's controllers tell them apart. A profile runs one of them on its installed release and, where it says so,
 * another on the release it upgrades to. Facts from ../shared/spec/mco-behaviour.md and the upstream files cited.
 */
import type { ClusterVersionOperatorCode, McoCode, RequiredPoolsCode } from './profile.js';

/** 4.12-4.13's required-pools loop (pkg/operator/sync.go): a flat 10 minutes, "pool" in its texts. */
const REQUIRED_POOLS_4_12: RequiredPoolsCode = { timeoutPerRequiredMachine: false, poolNoun: 'pool', degradedNamesReason: false, pausedTexts: '4.12' };

/** The CVO of 4.12-4.18 (release-4.12 da2578c6d; the same rule and words through release-4.18 f72d7e2c7). */
const CVO_4_12: ClusterVersionOperatorCode = { upgradeablePrecondition: 'completed-minor', notUpgradeableWhileUpdating: false, versionsNoun: 'minor versions' };

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
    requiredPools: REQUIRED_POOLS_4_12,
    upgradeableFalseWhilePoolsUpdate: true,
  },
  render: {
    annotateOverriddenOsImage: false,
    newFormatImageByDefault: false,
    specHasExtensionsImage: false,
    ignitionSpec: '3.2',
    mergeDefaultsOverwriteAndDedupsKargs: false,
    renderWaitsForRegeneratedConfigs: false,
    templatesCarryOsImage: true,
    generatedConfigsSetOsImage: true,
    apimachinery: '0.25',
    overrideEventOnEverySync: true,
  },
  // checkOS compares the pullspecs only (pkg/daemon/daemon.go at cad20f710)
  daemon: { osUpdate: { kind: 'inspect-then-legacy' }, layeredImageRefusesLayering: true, machineConfigNodes: false, bootedImageCheck: 'pullspec' },
  nodeController: { imageBuildDegraded: false, refreshesConditionMessages: false },
  // the kube-apiserver operator's texts said "Kubelet minor version" until 4.22 (cluster-kube-apiserver-operator f6a1c9111)
  kubeApiServerOperator: { skewWording: 'minor-version' },
  clusterVersionOperator: CVO_4_12,
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
    requiredPools: REQUIRED_POOLS_4_12,
    upgradeableFalseWhilePoolsUpdate: true,
  },
  render: {
    ...MCO_BUG_B.render,
    annotateOverriddenOsImage: true,
    newFormatImageByDefault: true,
    specHasExtensionsImage: true,
  },
  // checkOS also takes an image whose ostree.commit label is the booted commit (pkg/daemon/daemon.go at 3943ef1d0; the
  // same at release-4.13 a57ca2912, which MCO_4_13 inherits)
  daemon: { osUpdate: { kind: 'inspect-then-legacy' }, layeredImageRefusesLayering: false, machineConfigNodes: false, bootedImageCheck: 'pullspec-or-commit' },
  nodeController: { imageBuildDegraded: false, refreshesConditionMessages: false },
  kubeApiServerOperator: { skewWording: 'minor-version' },
  clusterVersionOperator: CVO_4_12,
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

/**
 * release-4.18 at f313997e0 (the branch's head in August 2026): 4.13's render, and what 4.14-4.16 changed elsewhere:
 * every OS update an `rpm-ostree rebase`, retried 5 times 5 s doubling, the node's reason only "Failed to update OS to
 * … after retries: timed out waiting for the condition" (pkg/daemon/update.go; mcd/rebase.ts); the required-pools
 * loop's budget of 10 minutes per required machine, "MachineConfigPool" in its texts and 4.16's paused texts
 * (pkg/operator/sync.go); no PoolUpdating reason (pkg/operator/status.go, after the OCPBUGS-56517 backport); the
 * booted-image check without the ostree.commit rule (pkg/daemon/daemon.go, after the OCPBUGS-55770 backport).
 * MachineConfigNodes are TechPreview here.
 */
export const MCO_4_18: McoCode = code({
  ...MCO_4_13,
  upstream: { label: '4.18', commit: 'f313997e0ba83edd79b1d0091e85d6e25c793274' },
  operator: {
    ...MCO_4_13.operator,
    requiredPools: { timeoutPerRequiredMachine: true, poolNoun: 'MachineConfigPool', degradedNamesReason: false, pausedTexts: '4.16' },
    upgradeableFalseWhilePoolsUpdate: false,
  },
  daemon: {
    ...MCO_4_13.daemon,
    osUpdate: { kind: 'rebase-with-retries', firstDelaySeconds: 5, steps: 5, reasonCarriesLastError: false },
    // OCPBUGS-55770's backport (e6eacd707, merged 033e1dc48 on 2025-05-19): checkOS compares the pullspecs only and
    // warns of one that is not a digest; the same on every later branch
    bootedImageCheck: 'pullspec-digest-advised',
  },
  // SetMachineConfigPoolCondition compares the message too from release-4.15 (pkg/apihelpers/apihelpers.go)
  nodeController: { ...MCO_4_13.nodeController, refreshesConditionMessages: true },
  // the OnClusterBuild gate in the Default feature set by the July 2025 backport (API c86d80652): the build controller
  // of release-4.18 rebuilds on every rendered change and takes its base from the osimageurl ConfigMap
  // (pkg/controller/build/reconciler.go, buildrequest/machineosbuild.go `objectsForHash` at f313997e0)
  build: { rebuildOn: 'any-change', baseImageFrom: 'osimageurl-configmap', templateSwapsKernel: false, poolImageBuildDegraded: false, buildDegradedFollows: 'failed-build' },
});

/**
 * release-4.19 at 1a6905d98: the degraded-pool text of the required-pools loop names the pool's Degraded message
 * (pkg/operator/sync.go), and every node has a MachineConfigNode (the gate in the Default feature set).
 */
export const MCO_4_19: McoCode = code({
  ...MCO_4_18,
  upstream: { label: '4.19', commit: '1a6905d980fd4c4f3869492b98cb696f09a46cff' },
  operator: { ...MCO_4_18.operator, requiredPools: { ...MCO_4_18.operator.requiredPools, degradedNamesReason: true } },
  daemon: { ...MCO_4_18.daemon, machineConfigNodes: true },
  // cluster-version-operator release-4.19 (842a2ac22): the precondition compares semver with status.desired, and an
  // update in progress makes the cluster not upgradeable (OTA-861)
  clusterVersionOperator: { ...MCO_4_18.clusterVersionOperator, upgradeablePrecondition: 'desired-semver', notUpgradeableWhileUpdating: true },
});

/**
 * release-4.20 at afed09939: the same as 4.19 where the reference looks, but for the OSImageURLOverridden event, fired
 * only for a new rendered config (OCPBUGS-62493, e63ae2a62).
 */
export const MCO_4_20: McoCode = code({
  ...MCO_4_19,
  upstream: { label: '4.20', commit: 'afed09939d80d86cafd38e9f733cc49ed16af092' },
  render: { ...MCO_4_19.render, overrideEventOnEverySync: false },
  // a failed image build stops and degrades its pool (fff5a045b, pkg/controller/node/status.go)
  nodeController: { ...MCO_4_19.nodeController, imageBuildDegraded: true },
  // RequiresRebuild and the reuse of the last image (MCO-1580/1581, a4ec776a8), the kernel swap in the Containerfile
  // template and the pool's ImageBuildDegraded condition (fff5a045b): pkg/controller/build/reconciler.go
  // `reconcilePoolChange`, pkg/controller/common/helpers.go `RequiresRebuild` at afed09939
  build: { rebuildOn: 'requires-rebuild', baseImageFrom: 'osimageurl-configmap', templateSwapsKernel: true, poolImageBuildDegraded: true, buildDegradedFollows: 'failed-build' },
});

/**
 * release-4.21 at db84d8368: the templates carry no OS images and the merge skips every generated config's
 * (pkg/controller/template/render.go, pkg/controller/common/helpers.go `MergeMachineConfigs`), so only a user's
 * config overrides the ControllerConfig's image, whatever its name.
 */
export const MCO_4_21: McoCode = code({
  ...MCO_4_20,
  upstream: { label: '4.21', commit: 'db84d8368ef78e50f3bc0961dcf2b27a7975e053' },
  render: { ...MCO_4_20.render, templatesCarryOsImage: false, generatedConfigsSetOsImage: false },
  // ImageBuildDegraded follows the build the MachineOSConfig names, so a rebuild that fails after a success shows
  // (OCPBUGS-61114, e56dd2516 merged 661e30e32: pkg/controller/build/reconciler.go `updateImageBuildDegradedCondition`)
  build: { ...MCO_4_20.build!, buildDegradedFollows: 'active-build' },
});

/**
 * release-4.22 at 9027c94cd: the rebase retried 7 times, 10 s doubling to at most 60 s, and the node's reason keeps the
 * last rpm-ostree error again (OCPBUGS-112614, merged 2026-08-21).
 */
export const MCO_4_22: McoCode = code({
  ...MCO_4_21,
  upstream: { label: '4.22', commit: '9027c94cde45f82a2421b49fca261e9e20ce6310' },
  daemon: {
    ...MCO_4_21.daemon,
    osUpdate: { kind: 'rebase-with-retries', firstDelaySeconds: 10, steps: 7, capSeconds: 60, reasonCarriesLastError: true },
  },
  // cluster-kube-apiserver-operator release-4.22 (9c413cd4d): "Kubelet version (…) … in the next OpenShift version upgrade"
  kubeApiServerOperator: { skewWording: 'version' },
  // cluster-version-operator release-4.22 (9b55234a2): "should not be upgraded between minor or major versions"
  clusterVersionOperator: { ...MCO_4_21.clusterVersionOperator, versionsNoun: 'minor or major versions' },
  // MCO-1972 (ec546a10b, 2026-04-08): the build's base and the name hash come from the rendered config, not the
  // osimageurl ConfigMap (pkg/controller/build/buildrequest/machineosbuild.go `objectsForHash` at 9027c94cd)
  build: { ...MCO_4_21.build!, baseImageFrom: 'rendered-config' },
});
