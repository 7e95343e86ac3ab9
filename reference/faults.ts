/**
 * Faults as data. A fault breaks one promise of the reference on purpose, so the suite can prove each of its
 * assertions fails when the behaviour it guards is broken (the kill matrix, test/bin/support/kill-matrix.ts).
 *
 * The controllers never ask "is fault X on?". They read one record of deviations, every one off in a correct
 * cluster, at the few points where a broken MCO, daemon or CVO would act differently. A named fault is a set of
 * deviations switched on; several faults combine by switching on the union.
 */

/** The points where the reference can be made to misbehave. `false` everywhere is the real code. */
export interface Deviations {
  /** Template controller: `00-<role>` keeps the osImageURL it already carries when the release changes. */
  templateKeepsPreviousOsImage: boolean;
  /** Render controller: merge in reverse name order, so an early-named MachineConfig's osImageURL wins. */
  renderMergesInReverseOrder: boolean;
  /** Render controller: keep the pool's current rendered osImageURL when no selected MachineConfig overrides it. */
  renderKeepsCurrentOsImage: boolean;
  /**
   * Render controller: announce an overridden osImageURL (event OSImageURLOverridden) on every sync, as every release
   * did before OCPBUGS-62493's fix (release-4.20 e63ae2a62), not only when a new rendered config is made.
   */
  renderRepeatsOverrideEvent: boolean;
  /**
   * Daemon: write the new config and reboot, but never rebase to the config's osImageURL. Such a daemon believes it
   * booted each config, so it skips its booted-image check as well (mcd/daemon.ts bootedImageRefusal).
   */
  daemonSkipsRebase: boolean;
  /** Daemon: carry on with the old OS image when the pull fails, instead of degrading the node (no booted-image check). */
  daemonIgnoresPullErrors: boolean;
  /**
   * Daemon: after the 4.12 tries of a pull (PULL_RETRY_DELAYS_MS), go on retrying it once a cluster minute, whatever
   * the error, until an hour has passed since the first try, and only then degrade the node (OCPBUGS-1761 as reported:
   * pulls that can never succeed are retried as if they might).
   */
  daemonRetriesHopelessPulls: boolean;
  /**
   * Daemon: prepare the extensions repository only when the extensions or the kernel type change, not for an OS-only
   * update, so rpm-ostree cannot re-layer the packages a pool already has (mcd/extensions-repo.ts).
   */
  daemonOmitsExtensionsRepoOnOsUpdate: boolean;
  /** Daemon: rebase to an image that is no OS (neither `ostree.bootable` nor an ostree commit) as if it were one. */
  daemonBootsAnyImage: boolean;
  /**
   * Daemon: stage into the new deployment only the layering the update changes (extensions, kernel type, kernel
   * arguments), so an update that leaves them alone, as an upgrade does, boots a deployment without them.
   */
  daemonLayersOnlyChanges: boolean;
  /**
   * Node: a rebase to another image keeps the /etc of the deployment it leaves whole, every file of it taken for a
   * local change, so what an image put in /etc (files, unit links) outlives the image (kubelet/hosts.ts etcKeptFrom).
   */
  daemonKeepsOldEtc: boolean;
  /**
   * Host: after an update's reboot the machine comes up on the deployment it left (as when ostree-finalize-staged
   * fails to finalize the staged one): the old image and its kernel arguments, extensions and kernel type; the files
   * the daemon wrote stay, being on disk before the reboot. The daemon's booted-image check is what must notice.
   */
  hostBootsPreviousDeployment: boolean;
  /**
   * Operator: Upgradeable=False reason PoolUpdating while any pool updates, as up to 4.18 before OCPBUGS-56517's
   * backport (release-4.18 20fe0757e; main 377a78bb9 dropped it for 4.19).
   */
  operatorSaysPoolUpdating: boolean;
  /** Operator: report the new version as soon as a required pool is Updating, not once the pools are done. */
  /**
   * Fault mcd-loses-rebase-error (OCPBUGS-63734 as reported): the 4.21 daemon with ImageModeStatusReporting on put the
   * MachineConfigNode update's result into the rebase's error, so a failed rebase's reason wraps nil.
   */
  daemonLosesRebaseError: boolean;
  /**
   * Operator: a running machine-os-builder Deployment is left as it is, so after an upgrade the build controller of
   * the old release goes on building (OCPBUGS-56220 before its fix, MCO 3b58bc2ab; image-mode/builder-sync.ts).
   */
  operatorKeepsRunningBuilder: boolean;
  /**
   * Build controller: a build starts FROM the osimageurl ConfigMap's base on every release, as up to 4.21, so on 4.22
   * an osImageURL override on an image-mode pool is not the build's base (image-mode/decisions.ts buildImagesFor).
   */
  buildIgnoresOverrideAsBase: boolean;
  /**
   * Build controller: ImageBuildDegraded is set by the failed build only when no other build of the MachineOSConfig
   * succeeded, as release-4.20 did (OCPBUGS-61114 before its fix, e56dd2516), so a rebuild that fails after an earlier
   * success leaves the pool's ImageBuildDegraded False (image-mode/pool-build-condition.ts).
   */
  buildDegradedSkipsLaterFailures: boolean;
  /**
   * Node controller: an image-mode pool's nodes get the pool's target config beside the MachineOSConfig's image as soon
   * as it names one, not once the build of that config succeeded (OCPBUGS-53408 before MCO 57eee4a69; layered-pool.ts
   * continuesWithoutBuild).
   */
  nodeControllerSkipsBuildWait: boolean;
  /**
   * Build controller: a machine-os-builder that starts while a pool's target config needs a new image deletes that
   * config's MachineOSBuild and makes it again (OCPBUGS-58238 before MCO 35bc4a2b0; image-mode/builder-start.ts).
   */
  builderRemakesTargetBuildOnStart: boolean;
  /**
   * Build controller: the rebuild annotation on a MachineOSConfig is never acted on (no build made again, the
   * annotation left), where every release with the v1 API deletes the current build and makes it again.
   */
  builderIgnoresRebuildAnnotation: boolean;
  /**
   * Daemon: the first pull of each new image of an image-mode node fails (the image is not there yet), the node goes
   * Degraded, and the retry succeeds: a rollout that ends right with a degraded node on the way.
   */
  daemonFailsFirstBuiltImagePull: boolean;
  /**
   * Build controller: a deleted MachineOSConfig's MachineOSBuilds stay (not deleted, and made without the owner
   * reference that would let the garbage collector take them), with their build Jobs.
   */
  builderKeepsDeletedConfigsBuilds: boolean;
  /** Daemon: a change of files only is written without a reboot, whatever the paths (no no-reboot list consulted). */
  daemonWritesFilesWithoutReboot: boolean;
  /**
   * Build controller: every new rendered config of an image-mode pool builds a new image, the rule of 4.18-4.19, on
   * 4.20+ too, where a config that changes none of the image's inputs reuses the last image (decisions.ts).
   */
  builderBuildsEveryConfig: boolean;
  /**
   * Node controller: once a pool's MachineOSConfig is gone, a node already on the pool's rendered config keeps its
   * desiredImage, so it goes on booting the built image instead of the rendered config's OS image.
   */
  nodeControllerKeepsImageOnRevert: boolean;
  /** Fault kas-ignores-kubelet-skew: the kube-apiserver operator reports Upgradeable=True whatever the kubelets. */
  kubeApiServerIgnoresKubeletSkew: boolean;
  operatorReportsVersionEarly: boolean;
  /** CVO: an operator is done once it reports the version, whatever its conditions say. */
  cvoTrustsVersionAlone: boolean;
}

export const NO_DEVIATIONS: Readonly<Deviations> = Object.freeze({
  templateKeepsPreviousOsImage: false,
  renderMergesInReverseOrder: false,
  renderKeepsCurrentOsImage: false,
  renderRepeatsOverrideEvent: false,
  daemonSkipsRebase: false,
  daemonIgnoresPullErrors: false,
  daemonRetriesHopelessPulls: false,
  daemonOmitsExtensionsRepoOnOsUpdate: false,
  daemonBootsAnyImage: false,
  daemonLayersOnlyChanges: false,
  daemonKeepsOldEtc: false,
  hostBootsPreviousDeployment: false,
  daemonLosesRebaseError: false,
  kubeApiServerIgnoresKubeletSkew: false,
  builderIgnoresRebuildAnnotation: false,
  daemonFailsFirstBuiltImagePull: false,
  builderKeepsDeletedConfigsBuilds: false,
  daemonWritesFilesWithoutReboot: false,
  builderBuildsEveryConfig: false,
  nodeControllerKeepsImageOnRevert: false,
  nodeControllerSkipsBuildWait: false,
  builderRemakesTargetBuildOnStart: false,
  operatorKeepsRunningBuilder: false,
  buildDegradedSkipsLaterFailures: false,
  buildIgnoresOverrideAsBase: false,
  operatorReportsVersionEarly: false,
  operatorSaysPoolUpdating: false,
  cvoTrustsVersionAlone: false,
});

interface FaultDefinition {
  /** What breaks, in the words of specs/README.md's kill matrix. */
  what: string;
  /** The deviations the fault switches on. */
  deviates: ReadonlyArray<keyof Deviations>;
}

export const FAULTS = {
  'keep-old-os-on-upgrade': {
    what: "the template controller keeps the previous release's default OS image after an upgrade",
    deviates: ['templateKeepsPreviousOsImage'],
  },
  'render-merge-unsorted': {
    what: 'the render controller merges MachineConfigs in reverse name order, so an early-named override wins',
    deviates: ['renderMergesInReverseOrder'],
  },
  'sticky-override': {
    what: 'the render controller keeps the last custom osImageURL after the override MachineConfig is deleted',
    deviates: ['renderKeepsCurrentOsImage'],
  },
  'render-repeats-override-event': {
    what: "the render controller fires OSImageURLOverridden on every sync of an overridden pool, not once per rendered config (4.20 before OCPBUGS-62493's fix, upstream e63ae2a62): the event's count climbs with every resync",
    deviates: ['renderRepeatsOverrideEvent'],
  },
  'mcd-ignores-pull-errors': {
    what: 'the daemon reports Done even when the OS image cannot be pulled, booting nothing new',
    deviates: ['daemonIgnoresPullErrors'],
  },
  'mcd-retries-unpullable-pulls': {
    what: 'the daemon retries a pull that can never succeed for an hour of cluster time, whatever the error, before the node goes Degraded (OCPBUGS-1761 as reported)',
    deviates: ['daemonRetriesHopelessPulls'],
  },
  'mcd-skips-os-update': {
    what: 'the daemon applies new configs and reboots but never rebases, so nodes keep booting their previous OS image',
    deviates: ['daemonSkipsRebase'],
  },
  'mcd-no-extensions-repo-on-os-update': {
    what: "the daemon prepares no extensions repository for an OS-only update, so a pool with extensions cannot rebase (OCPBUGS-2271, upstream 3943ef1d0 to 343475a)",
    deviates: ['daemonOmitsExtensionsRepoOnOsUpdate'],
  },
  'mcd-boots-non-bootable-image': {
    what: 'the daemon rebases to a container image that is not an OS image (no ostree.bootable label, no ostree commit) and reports Done',
    deviates: ['daemonBootsAnyImage'],
  },
  'mcd-layers-only-changes': {
    what: 'the daemon stages only the extensions, kernel type and kernel arguments an update changes, so after an upgrade a pool boots without the ones it had',
    deviates: ['daemonLayersOnlyChanges'],
  },
  'mcd-keeps-old-etc-on-rebase': {
    what: "a rebase keeps the /etc of the image it leaves, as if all of it were local changes, so a reverted image's /etc files and enabled units stay on the node",
    deviates: ['daemonKeepsOldEtc'],
  },
  'host-boots-previous-deployment': {
    what: "after an update's reboot the node comes up on the deployment it left (as when ostree-finalize-staged fails): 4.18 and later's daemon finds the booted pullspec is not the config's and the node goes Degraded; the commit-label check of 4.12 FIX to 4.18 before OCPBUGS-55770 takes a layered image built FROM the booted base for booted and reports Done",
    deviates: ['hostBootsPreviousDeployment'],
  },
  'mcd-loses-rebase-error': {
    what: "the daemon's failed-rebase reason wraps nil instead of the retry loop's timeout (4.21 with ImageModeStatusReporting before OCPBUGS-63734's fix, upstream 1b9aafd92): 'Failed to update OS to <image> after retries: %!w(<nil>)'",
    deviates: ['daemonLosesRebaseError'],
  },
  'kas-ignores-kubelet-skew': {
    what: 'the kube-apiserver operator reports Upgradeable=True whatever kubelets the nodes run, so a cluster whose overridden pool kept an old kubelet looks ready for the next minor',
    deviates: ['kubeApiServerIgnoresKubeletSkew'],
  },
  'mco-says-pool-updating': {
    what: 'the operator turns Upgradeable=False (PoolUpdating) whenever a pool updates, as 4.18 did before OCPBUGS-56517 (upstream 377a78bb9, backport 20fe0757e): while pools roll the CVO refuses the next minor update unless forced',
    deviates: ['operatorSaysPoolUpdating'],
  },
  'builder-not-restarted-on-upgrade': {
    what: "the operator leaves a running machine-os-builder Deployment alone, so after an upgrade the old release's build controller (and MCO image) builds the image-mode pools' images (OCPBUGS-56220 before its fix, upstream 3b58bc2ab; backports OCPBUGS-57689 to 4.19, OCPBUGS-58067 to 4.18)",
    deviates: ['operatorKeepsRunningBuilder'],
  },
  'build-ignores-override-base': {
    what: "the build controller starts every image-mode build FROM the release's base OS image, as up to 4.21, so on 4.22 an osImageURL override on the pool is not the base of its build (release-4.22 takes the rendered osImageURL since MCO-1972, upstream ec546a10b)",
    deviates: ['buildIgnoresOverrideAsBase'],
  },
  'failed-build-hidden-after-success': {
    what: "the build controller leaves the pool's ImageBuildDegraded False when a build fails after an earlier build of the MachineOSConfig succeeded, as a rebuild on an upgrade does (4.20 before OCPBUGS-61114's fix, upstream e56dd2516): the pool never shows the failed build",
    deviates: ['buildDegradedSkipsLaterFailures'],
  },
  'node-controller-moves-config-before-image': {
    what: "the node controller gives an image-mode pool's nodes the new rendered config beside the MachineOSConfig's old image while that config is still being built, and the new image only after (OCPBUGS-53408 before its fix in 4.19.0, upstream 57eee4a69): the final state looks right, the monitor's record does not",
    deviates: ['nodeControllerSkipsBuildWait'],
  },
  'builder-rebuilds-built-config-on-restart': {
    what: "a machine-os-builder restarted (its node drained) while an image-mode pool rolls out a config that needs a new image deletes that config's MachineOSBuild and makes it again, building it a second time (OCPBUGS-58238: 4.20 development from upstream 97cecaed0 to its fix 35bc4a2b0, in no release)",
    deviates: ['builderRemakesTargetBuildOnStart'],
  },
  'node-degraded-pulling-built-image': {
    what: "an image-mode node's first pull of each newly built image fails as a pull of an image not in the registry (what OCPBUGS-58238's report saw: nodes that could not pull the images a restarted builder had removed), so the node goes Degraded until the daemon's retry boots it: the final state looks right, the monitor's record does not",
    deviates: ['daemonFailsFirstBuiltImagePull'],
  },
  'deleted-config-keeps-builds': {
    what: "a deleted MachineOSConfig's MachineOSBuilds and their build Jobs stay on the cluster: the build controller does not delete them (reconciler.go deleteMachineOSConfig does) and made them without the owner reference to the MachineOSConfig that lets the garbage collector take them",
    deviates: ['builderKeepsDeletedConfigsBuilds'],
  },
  'daemon-writes-files-without-reboot': {
    what: "the daemon writes a change of files only without a reboot whatever the paths, where upstream reboots for every file outside its no-reboot and crio-reload lists (pkg/daemon/update.go calculatePostConfigChangeAction)",
    deviates: ['daemonWritesFilesWithoutReboot'],
  },
  'build-ignores-rebuild-annotation': {
    what: "the build controller never acts on a MachineOSConfig's machineconfiguration.openshift.io/rebuild annotation: no build is made again and the annotation stays (every release with the v1 API rebuilds: reconciler.go rebuildMachineOSConfig)",
    deviates: ['builderIgnoresRebuildAnnotation'],
  },
  'build-on-every-config-change': {
    what: 'the build controller builds a new image for every new rendered config of an image-mode pool, as 4.18-4.19 do, on 4.20+ too, where a change of none of the OS image, kernel type, extensions or kernel arguments reuses the last image (MCO 97cecaed0)',
    deviates: ['builderBuildsEveryConfig'],
  },
  'revert-keeps-built-image': {
    what: "once an image-mode pool's MachineOSConfig is deleted, the node controller leaves its nodes' desiredImage, so they go on booting the built image instead of the rendered config's OS image",
    deviates: ['nodeControllerKeepsImageOnRevert'],
  },
  'cvo-completes-early': {
    what: 'the operator reports its new version as soon as the master pool starts rolling and the CVO completes on the version alone',
    deviates: ['operatorReportsVersionEarly', 'cvoTrustsVersionAlone'],
  },
} as const satisfies Record<string, FaultDefinition>;

export type FaultName = keyof typeof FAULTS;

export interface ActiveFaults {
  /** The names asked for, in order, without repeats. */
  names: FaultName[];
  deviations: Readonly<Deviations>;
}

/** Check the names (an unknown one is an error listing the valid faults) and switch on what they deviate. */
export function resolveFaults(names: readonly string[] = []): ActiveFaults {
  const unknown = names.filter((n) => !Object.hasOwn(FAULTS, n));
  if (unknown.length > 0) {
    const valid = Object.entries(FAULTS)
      .map(([n, fault]) => `  ${n}: ${fault.what}`)
      .join('\n');
    throw new Error(`unknown fault ${unknown.map((n) => `"${n}"`).join(', ')}; valid faults:\n${valid}`);
  }
  const active = [...new Set(names as FaultName[])];
  const deviations: Deviations = { ...NO_DEVIATIONS };
  for (const name of active) for (const key of FAULTS[name].deviates) deviations[key] = true;
  return { names: active, deviations: Object.freeze(deviations) };
}

/** `base` with `more` switched on as well: a profile's own deviations on top of the active faults'. */
export function withDeviations(base: Readonly<Deviations>, more: ReadonlyArray<keyof Deviations>): Readonly<Deviations> {
  if (more.length === 0) return base;
  const deviations: Deviations = { ...base };
  for (const key of more) deviations[key] = true;
  return Object.freeze(deviations);
}
