/**
 * What one OpenShift minor does that the specs judge, grouped by the component that does it. The suite keeps this
 * knowledge itself, written from the MCO's and its neighbours' release branches (sources in table.ts), apart from the
 * reference cluster's profiles: where the two disagree, one of them misreads upstream, and a spec run shows it.
 */

/**
 * How the daemon words a failed move to a new OS image (the node's `machineconfiguration.openshift.io/reason`):
 * - `inspect-then-legacy` (4.12-4.13): the image is inspected first ("Error checking type of update image: …" when it
 *   cannot be pulled); one without `ostree.bootable` goes the machine-os-content way and fails in `ostree refs`;
 * - `rebase-error` (4.14-4.15): every update is an `rpm-ostree rebase`, its stderr in the reason;
 * - `retries-timeout` (4.16-4.21): retried, and the reason keeps only the retry loop's timeout, the same for an image
 *   that cannot be pulled and one that cannot boot: the rpm-ostree error is in the daemon's log alone;
 * - `retries-last-error` (4.22): retried longer, and the reason carries the last rpm-ostree error again.
 */
export type FailedRebaseWording = 'inspect-then-legacy' | 'rebase-error' | 'retries-timeout' | 'retries-last-error';

/** What the daemon compares to decide a node booted its config's image. */
export type BootedImageCheck =
  /** the pullspec, or the image's `ostree.commit` label against the booted commit (a tag and a digest of one image agree) */
  | 'pullspec-or-commit'
  /** the pullspec string exactly (OCPBUGS-55770) */
  | 'exact-pullspec'
  /** changed inside the minor by a z-stream backport: which one a cluster runs depends on its patch */
  | 'changed-in-z-stream';

export interface ReleaseRules {
  /** "4.21". */
  release: string;
  minor: number;
  payload: {
    /** The tag of the release's base OS image, the one an override is built FROM. */
    baseOsTag: string;
    extensionsTag: string;
    /** Every OS image tag the payload carries. */
    osTags: readonly string[];
  };
  render: {
    /** Whether `00-<role>` carries the release's OS image (where a 4.12-era reader finds it). */
    templatesCarryOsImage: boolean;
    /** Whether the osImageURL of MCO-generated configs (the templates) takes part in the merge, so an override named before them loses. */
    generatedConfigsInOsImageMerge: boolean;
    /**
     * When the render controller announces an override (event OSImageURLOverridden on the rendered config): on every
     * sync of the pool, or once, when the rendered config is made (OCPBUGS-62493).
     */
    overrideEvent: 'every-sync' | 'once-per-rendered-config';
  };
  daemon: {
    /** The wordings a node of this release may write (two where a z-stream changed it), oldest first. */
    failedRebase: readonly FailedRebaseWording[];
    bootedImageCheck: BootedImageCheck;
  };
  operator: {
    /** Budget of the required-pools loop: flat, or per machine of the required pools. */
    requiredPoolsTimeout: { minutes: number; perRequiredMachine: boolean };
    /** The noun its messages use for a pool ("pool" to 4.13, "MachineConfigPool" from 4.14). */
    requiredPoolsNoun: 'pool' | 'MachineConfigPool';
    /** Whether the degraded-pool message ends with the pool's reason (4.19+). */
    requiredPoolsNameReason: boolean;
    /** Whether any Degraded pool, required or not, stops the loop (4.20+). */
    stopsOnAnyDegradedPool: boolean;
    /** Whether Upgradeable=False reason PoolUpdating can appear (`maybe`: dropped by a z-stream backport). */
    poolUpdatingReason: 'yes' | 'maybe' | 'no';
  };
  nodes: {
    /** The MachineConfigNode API a cluster of this release serves by default. */
    machineConfigNodes: 'none' | 'gated' | 'v1';
  };
  /** On-cluster image mode (MachineOSConfig) in the Default feature set. */
  imageMode: 'none' | 'gated' | 'default-from-z' | 'ga';
  /**
   * What an image-mode build starts FROM (modern-mco.md §2.4):
   * - `release-base` (to 4.21): the release's base OS image (the osimageurl ConfigMap's); an osImageURL override on the
   *   pool changes the rendered config, so it forces a build, but is not its base;
   * - `rendered-os-image` (4.22): the pool's rendered osImageURL, so an override becomes the build's base (QE 88202).
   */
  imageModeBuildBase: 'release-base' | 'rendered-os-image';
  /**
   * Which new rendered configs of an image-mode pool get a new image:
   * - `every-rendered-config` (4.18-4.19): any, a file as well as an OS image;
   * - `image-inputs-change` (4.20+): only a change of the OS image, kernel type, extensions or kernel arguments; any
   *   other reuses the last image through a MachineOSBuild of its own, marked Succeeded without a build.
   */
  imageModeNewImageOn: 'every-rendered-config' | 'image-inputs-change';
}
