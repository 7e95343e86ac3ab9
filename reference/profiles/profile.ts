/**
 * What a profile is: one version of OpenShift's code the reference plays, as data. Its releases (what gets built and
 * installed), the switches where that MCO's behaviour differs from another's, and the upstream commit it stands for.
 * One set of controllers serves every profile; the profile modules next to this file fill it in, index.ts lists them.
 * Facts come from ../shared/spec/mco-behaviour.md §2 and §7.
 */
import type { Deviations } from '../faults.js';
import type { SkewWording } from '../kube-apiserver/kubelet-skew.js';
import { releasePath, type ReleaseSet } from '../releases/release-set.js';

/**
 * The machine-config operator's pod: how it reads the release's OS images and how it judges pools and reports itself.
 * Facts from mco-behaviour.md §2 (BUG-A, BUG-B, FIX, release-4.13).
 */
export interface OperatorCode {
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
  /** FIX: the required-pools check passes a pool whose rendered config says its osImageURL was overridden. */
  skipsOverriddenOsImageCheck: boolean;
  /** release-4.13's GetMachineConfigPoolCondition: of two conditions of one type, the last counts, not the first. */
  lastPoolConditionWins: boolean;
  /**
   * Whether an updating pool makes the operator Upgradeable=False, reason PoolUpdating (pkg/operator/status.go
   * syncUpgradeableStatus): until 4.18; MCO 377a78bb9 dropped it for 4.19, release-4.20 has only DegradedPool and
   * InterruptedBuild.
   */
  upgradeableFalseWhilePoolsUpdate: boolean;
  /** The required-pools loop of `syncRequiredMachineConfigPools` (pkg/operator/sync.go): its budget and texts. */
  requiredPools: RequiredPoolsCode;
}

/**
 * What changed in the operator's required-pools loop after 4.13 (pkg/operator/sync.go at each branch): from 4.14 a
 * budget of 10 minutes per machine of the required pools and "MachineConfigPool" in its texts; from 4.16 a paused
 * required pool ends the loop with an error of its own (not wrapped); from 4.19 the degraded text names the pool's
 * Degraded message.
 */
export interface RequiredPoolsCode {
  /** The loop's budget: a flat 10 minutes, or 10 minutes per machine of the required pools. */
  timeoutPerRequiredMachine: boolean;
  poolNoun: 'pool' | 'MachineConfigPool';
  degradedNamesReason: boolean;
  /** 4.12-4.13's paused text inside the aggregate, or 4.16's two texts returned as they are. */
  pausedTexts: '4.12' | '4.16';
}

/** The controller's template and render controllers: what the templates carry and how a pool's configs merge. */
export interface RenderCode {
  /** FIX: the render controller annotates an overridden rendered MC (the operator's check then skips it). */
  annotateOverriddenOsImage: boolean;
  /** FIX: `UseNewFormatImageByDefault`: the default OS image is `rhel-coreos-8`, not `machine-os-content`. */
  newFormatImageByDefault: boolean;
  /** FIX adds `baseOSExtensionsContainerImage` to the MachineConfig spec (and so to the rendered-name hash). */
  specHasExtensionsImage: boolean;
  /**
   * The newest Ignition spec the render reads. 4.12's IgnParseWrapper reads 3.2, 3.1, 3.0 and 2.x; release-4.13's reads
   * every 3.x up to 3.4 through Ignition's ParseCompatibleVersion, translates down to 3.2, and moves 3.3+
   * `kernelArguments.shouldExist` into the MachineConfig's kernel arguments (pkg/controller/common/helpers.go at a57ca2912).
   */
  ignitionSpec: '3.2' | '3.4';
  /**
   * release-4.13's MergeMachineConfigs: a merged file without `overwrite` gets `overwrite: true`, and each kernel
   * argument is kept once (the first time it appears).
   */
  mergeDefaultsOverwriteAndDedupsKargs: boolean;
  /**
   * release-4.13's generateRenderedMachineConfig: a pool's config that another controller version generated stops its
   * render until that config is regenerated (OCPBUGS-3821).
   */
  renderWaitsForRegeneratedConfigs: boolean;
  /**
   * Whether the template controller writes the release's OS images into `00-<role>`: up to 4.20; release-4.21's
   * pkg/controller/template/render.go leaves them empty (and clears them from existing templates).
   */
  templatesCarryOsImage: boolean;
  /**
   * Whether configs the controller generated take part in the osImageURL merge: up to 4.20; release-4.21's
   * MergeMachineConfigs (pkg/controller/common/helpers.go) skips every config with the generated-by annotation.
   */
  generatedConfigsSetOsImage: boolean;
  /** The k8s.io/apimachinery release the MCO vendors (go.mod): 4.12 has 0.25.1, release-4.13 0.26.10; error texts differ. */
  apimachinery: '0.25' | '0.26';
  /**
   * The OSImageURLOverridden event on the rendered config: on every sync that renders an overridden pool up to 4.19
   * (the branches were never fixed), only when the sync makes a new rendered config from 4.20 (OCPBUGS-62493,
   * e63ae2a62 on release-4.20, 8988ae4b0 on main; pkg/controller/render/render_controller.go).
   */
  overrideEventOnEverySync: boolean;
}

/** 4.16 and later: `rpm-ostree rebase` straight to the image, retried with wait.Backoff (mcd/rebase.ts). */
export interface RebaseWithRetries {
  kind: 'rebase-with-retries';
  firstDelaySeconds: number;
  /** Tries in all (wait.Backoff's Steps). */
  steps: number;
  /** The longest sleep between two tries. */
  capSeconds?: number;
  /** Whether the node's reason keeps the last rpm-ostree error (4.22) or only the timeout (4.16-4.21). */
  reasonCarriesLastError: boolean;
}

/**
 * How the daemon moves a node to a new OS image: 4.12-4.13 inspect it first (podman pull on failure) and take an
 * image without `ostree.bootable` the machine-os-content way (mcd/image-type.ts); 4.16+ rebase with retries.
 */
export type OsUpdatePath = { kind: 'inspect-then-legacy' } | RebaseWithRetries;

/** The machine-config daemon on each node: how it moves a node to a new OS image. */
export interface DaemonCode {
  osUpdate: OsUpdatePath;
  /**
   * The daemon refuses a non-default kernel and extensions on a bootable (layered) OS image, on every update that
   * takes that path: BUG-B's applyLayeredOSChanges (pkg/daemon/update.go at cad20f710), before the extensions
   * container came. 4.12 GA layers both.
   */
  layeredImageRefusesLayering: boolean;
  /**
   * Every node has a MachineConfigNode (machineconfiguration.openshift.io/v1, 4.19 on: the MachineConfigNodes gate in
   * the Default feature set, GA in 4.22) that the operator creates, the node controller points at the node's desired
   * config and the daemon and drain controller move through the update's steps (pkg/upgrademonitor at release-4.20;
   * mcd/machine-config-nodes.ts). None before.
   */
  machineConfigNodes: boolean;
  /**
   * How the daemon, when it starts on a node, judges the booted OS against its config's osImageURL
   * (pkg/daemon/daemon.go `checkOS`; mcd/booted-image.ts).
   */
  bootedImageCheck: BootedImageCheck;
}

/**
 * `checkOS` per release: BUG-B (cad20f710) compares the pullspecs only; FIX (3943ef1d0) to release-4.18 before
 * e6eacd707 also takes an image whose `ostree.commit` label is the booted commit, and names the commit in the
 * mismatch text; release-4.18 (f313997e0) on compares the pullspecs and warns of one that is not a digest.
 */
export type BootedImageCheck = 'pullspec' | 'pullspec-or-commit' | 'pullspec-digest-advised';

/**
 * On-cluster image mode's build controller (machine-os-builder, MCO pkg/controller/build) where releases differ; absent
 * on code without the MachineOSConfig API in its Default feature set (before 4.18.z's backport of the gate, API
 * c86d80652). Facts from ../shared/spec/modern-mco.md §1.3, §1.5, §1.8, §2.1-2.2; reference/mco/image-mode/.
 */
export interface BuildCode {
  /**
   * When a new rendered config gets a new image: 'any-change' (4.18-4.19, reconciler.go updateMachineConfigPool) or
   * 'requires-rebuild' (4.20+, ctrlcommon.RequiresRebuild: osImageURL, kernelType, extensions, kernelArguments; any
   * other change reuses the last image, MCO a4ec776a8).
   */
  rebuildOn: 'any-change' | 'requires-rebuild';
  /**
   * Where the build's base OS image comes from, and the OS-image part of the MachineOSBuild's name hash: the
   * machine-config-osimageurl ConfigMap (4.18-4.21), or the rendered config's osImageURL, extensions image and
   * release-image-version (4.22, MCO ec546a10b "Removes OSImageURLConfig from the build controller").
   */
  baseImageFrom: 'osimageurl-configmap' | 'rendered-config';
  /** Whether the Containerfile template swaps the kernel for the rendered config's kernelType (4.20+; 4.19 extensions only). */
  templateSwapsKernel: boolean;
  /** Pool condition ImageBuildDegraded and Degraded "Custom OS image build failed" on a failed build (4.20+, MCO fff5a045b). */
  poolImageBuildDegraded: boolean;
  /**
   * Which build sets ImageBuildDegraded (image-mode/pool-build-condition.ts): 'failed-build' (4.20: the failed build,
   * unless another build is active or succeeded, so a failure after an earlier success never shows: OCPBUGS-61114), or
   * 'active-build' (4.21+, e56dd2516: the build the MachineOSConfig names, a failed one among them).
   */
  buildDegradedFollows: 'failed-build' | 'active-build';
}

/**
 * The controller's node controller where image mode (on-cluster layering) differs by release
 * (pkg/controller/node/status.go `calculateStatus`; reference/mco/node-status.ts, layered-pool.ts).
 */
export interface NodeControllerCode {
  /**
   * From 4.20 (fff5a045b): a failed MachineOSBuild stops the pool's Updating ("Pool update stopped due to OS image
   * build failure"), the node controller clears ImageBuildDegraded on a new, successful or pending build, and a True
   * ImageBuildDegraded makes the pool Degraded "Custom OS image build failed". 4.18-4.19 have none of it: a failed
   * build only leaves the pool where it stood.
   */
  imageBuildDegraded: boolean;
  /**
   * SetMachineConfigPoolCondition (pkg/apihelpers/apihelpers.go) from release-4.15 on writes a condition whose message
   * changed even when its status and reason did not (so "waiting for … build" replaces "All nodes are updating to …");
   * 4.12-4.14's kept the old message (node-status.ts setPoolCondition).
   */
  refreshesConditionMessages: boolean;
}

/** The kube-apiserver operator of the release: only its kubelet skew rule's texts differ (kube-apiserver/kubelet-skew.ts). */
export interface KubeApiServerOperatorCode {
  skewWording: SkewWording;
}

/**
 * The cluster-version operator of the release, where its Upgradeable condition and precondition differ
 * (cvo/upgradeable.ts; openshift/cluster-version-operator pkg/cvo/upgradeable.go and
 * pkg/payload/precondition/clusterversion/upgradeable.go at release-4.12 da2578c6d, 4.19 842a2ac22, 4.22 9b55234a2).
 */
export interface ClusterVersionOperatorCode {
  /**
   * How the precondition tells an update to another minor: up to 4.18 the minor digits of the last completed version
   * against the target's; from 4.19 the target's semver against `status.desired`'s, a patch retarget going through.
   */
  upgradeablePrecondition: 'completed-minor' | 'desired-semver';
  /** From 4.19 (OTA-861, b6b7345d6): Upgradeable=False reason UpdateInProgress while ClusterVersion is Progressing. */
  notUpgradeableWhileUpdating: boolean;
  /** The words of the messages: "minor versions" up to 4.21, "minor or major versions" from 4.22. */
  versionsNoun: 'minor versions' | 'minor or major versions';
}

/**
 * Where the code of a release differs from another's, grouped by the component that runs it: the MCO's operator,
 * render and daemon, and the neighbours the reference plays beside them.
 */
export interface McoBehaviour {
  operator: OperatorCode;
  render: RenderCode;
  daemon: DaemonCode;
  nodeController: NodeControllerCode;
  kubeApiServerOperator: KubeApiServerOperatorCode;
  clusterVersionOperator: ClusterVersionOperatorCode;
  /** On-cluster image mode; absent where the release has no MachineOSConfig API (then nothing of it runs). */
  build?: BuildCode;
}

/** An MCO's code: the upstream commit it stands for and how it behaves. */
export interface McoCode extends McoBehaviour {
  upstream: UpstreamCommit;
}

/** The upstream machine-config-operator commit a profile models (../shared/upstream/README.md has the oracles built from it). */
export interface UpstreamCommit {
  /** The spec's label for it (mco-behaviour.md, top table). */
  label: string;
  commit: string;
}

export interface Profile extends McoCode {
  name: string;
  /** A few words for `--help`: what code this is. */
  summary: string;
  /** Which code this profile stands for, for humans. */
  description: string;
  /** The releases a cluster of this profile is installed at and upgraded to, and their channel. */
  releases: ReleaseSet;
  /**
   * Deviations (faults.ts) this code has by itself, switched on in every cluster of the profile on top of any fault:
   * a bug of that MCO that the switches above do not describe.
   */
  deviates: ReadonlyArray<keyof Deviations>;
  /**
   * The MCO of the release the cluster upgrades to, where that is other code than the installed release's (a 4.12
   * cluster upgraded to 4.13). Absent: both releases run the profile's own code.
   */
  nextMco?: McoCode;
  /** The MCO of each release after next (`releases.further`), in the same order; absent ones run next's code. */
  furtherMco?: readonly McoCode[];
}

/**
 * The MCO code a component of the given release runs: the code the profile names for that release of its path (next's,
 * or a further one's), else the code of the release before it, down to the profile's own. The operator asks with its
 * RELEASE_VERSION, the controllers with their ControllerConfig's release, the CVO with the payload it applies.
 */
export function mcoAt(profile: Profile, releaseVersion: string | undefined): McoCode {
  const path = releasePath(profile.releases);
  const index = path.findIndex((r) => r.version === releaseVersion);
  const byIndex: Array<McoCode | undefined> = [profile, profile.nextMco, ...(profile.furtherMco ?? [])];
  for (let i = index; i > 0; i--) if (byIndex[i]) return byIndex[i]!;
  return profile;
}

/** A profile module's value, with its name kept as a literal type (the registry's ProfileName is their union). */
export function defineProfile<const Name extends string>(profile: Profile & { name: Name }): Profile & { name: Name } {
  return Object.freeze(profile);
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
