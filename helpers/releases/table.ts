/**
 * The suite's table of releases: each minor is the one before it plus what changed, with the upstream source of every
 * change (MCO = openshift/machine-config-operator at `release-4.<N>`; API = openshift/api; their dates are merge dates).
 * The facts were gathered for the suite from those branches; the reference cluster keeps its own model of them.
 */
import type { ReleaseRules } from './rules.js';

type Change = Partial<{ [K in keyof ReleaseRules]: ReleaseRules[K] extends object ? Partial<ReleaseRules[K]> : ReleaseRules[K] }>;

/** 4.12: the bug report's release (the starting point every later row changes). */
const R4_12: ReleaseRules = {
  release: '4.12',
  minor: 12,
  payload: {
    // MCO release-4.12:install/image-references
    baseOsTag: 'rhel-coreos-8',
    extensionsTag: 'rhel-coreos-8-extensions',
    osTags: ['rhel-coreos-8', 'rhel-coreos-8-extensions', 'machine-os-content'],
  },
  // MCO release-4.12:pkg/controller/template/render.go writes the base image into 00-<role>; common/helpers.go
  // MergeMachineConfigs takes the last non-empty osImageURL in name order; render/render_controller.go
  // syncGeneratedMachineConfig fires OSImageURLOverridden before it looks the rendered config up, so on every sync
  render: { templatesCarryOsImage: true, generatedConfigsInOsImageMerge: true, overrideEvent: 'every-sync' },
  // MCO release-4.12:pkg/daemon/update.go applyOSChanges -> IsBootableImage, applyLegacyOSChanges; daemon.go checkOS
  daemon: { failedRebase: ['inspect-then-legacy'], bootedImageCheck: 'pullspec-or-commit' },
  // MCO release-4.12:pkg/operator/sync.go syncRequiredMachineConfigPools (wait.Poll 1s, 10m); status.go syncUpgradeableStatus
  operator: { requiredPoolsTimeout: { minutes: 10, perRequiredMachine: false }, requiredPoolsNoun: 'pool', requiredPoolsNameReason: false, stopsOnAnyDegradedPool: false, poolUpdatingReason: 'yes' },
  nodes: { machineConfigNodes: 'none' },
  imageMode: 'none',
  imageModeBuildBase: 'release-base',
  // MCO release-4.18 and release-4.19 pkg/controller/build/reconciler.go updateMachineConfigPool: a new MachineOSBuild
  // (a new name, so a build) for every new rendered config of a pool with a MachineOSConfig
  imageModeNewImageOn: 'every-rendered-config',
};

const CHANGES: Change[] = [
  // 4.13: the base OS tag renamed (MCO 3028a784b "Switch to rhel-coreos (9)", 2023-01-12)
  { release: '4.13', minor: 13, payload: { baseOsTag: 'rhel-coreos', extensionsTag: 'rhel-coreos-extensions', osTags: ['rhel-coreos', 'rhel-coreos-extensions', 'machine-os-content'] } },
  // 4.14: the legacy OS update path removed (MCO 85b297c1a): every update is an rpm-ostree rebase; the required-pools
  // loop's budget is 10 minutes per machine of the required pools and its texts say "MachineConfigPool" (release-4.14
  // pkg/operator/sync.go)
  {
    release: '4.14',
    minor: 14,
    daemon: { failedRebase: ['rebase-error'] },
    operator: { requiredPoolsTimeout: { minutes: 10, perRequiredMachine: true }, requiredPoolsNoun: 'MachineConfigPool' },
  },
  // 4.15: machine-os-content dropped from the payload (MCO a82a03408)
  { release: '4.15', minor: 15, payload: { osTags: ['rhel-coreos', 'rhel-coreos-extensions'] } },
  // 4.16: rebases retried, the reason keeps only the retry timeout (OCPBUGS-43406 workaround, release-4.16
  // pkg/daemon/update.go); PoolUpdating dropped from Upgradeable by a backport (OCPBUGS-57423, 2025-10-24);
  // MachineConfigNode and on-cluster builds behind TechPreview gates (API release-4.16 features/features.go)
  {
    release: '4.16',
    minor: 16,
    daemon: { failedRebase: ['retries-timeout'] },
    operator: { poolUpdatingReason: 'maybe' },
    nodes: { machineConfigNodes: 'gated' },
    imageMode: 'gated',
  },
  { release: '4.17', minor: 17 },
  // 4.18: exact booted-image comparison backported (OCPBUGS-56217, 2025-05-19); OnClusterBuild moved to the Default
  // feature set by a backport (API c86d80652, 2025-07-11)
  { release: '4.18', minor: 18, daemon: { bootedImageCheck: 'changed-in-z-stream' }, imageMode: 'default-from-z' },
  // 4.19: exact booted-image comparison before GA (OCPBUGS-56136, 2025-05-14); the degraded-pool text names the
  // pool's reason (release-4.19 pkg/operator/sync.go); PoolUpdating gone (MCO 377a78bb9); MachineConfigNode v1 and
  // image mode GA (API release-4.19 machineconfiguration/v1)
  {
    release: '4.19',
    minor: 19,
    daemon: { bootedImageCheck: 'exact-pullspec' },
    operator: { requiredPoolsNameReason: true, poolUpdatingReason: 'no' },
    nodes: { machineConfigNodes: 'v1' },
    imageMode: 'ga',
  },
  // 4.20: any Degraded pool stops the required-pools loop (release-4.20 pkg/operator/sync.go); OSImageURLOverridden
  // only for a new rendered config (OCPBUGS-62493: main 8988ae4b0 2025-10-07, release-4.20 e63ae2a62 2025-10-15, not
  // backported further). An image-mode pool builds only for a change of the OS image, kernel type, extensions or
  // kernel arguments, and reuses the last image otherwise (MCO 97cecaed0, 2025-03-28; release-4.20
  // pkg/controller/build/reconciler.go reconcilePoolChange, reuseImageForNewMOSB, pkg/controller/common/helpers.go
  // RequiresRebuild; not in release-4.19 or release-4.18)
  { release: '4.20', minor: 20, operator: { stopsOnAnyDegradedPool: true }, render: { overrideEvent: 'once-per-rendered-config' }, imageModeNewImageOn: 'image-inputs-change' },
  // 4.21: templates carry no osImageURL and generated configs leave the merge (release-4.21
  // pkg/controller/template/render.go, pkg/controller/common/helpers.go); RHEL 10 images in the payload (MCO 0e931a686)
  {
    release: '4.21',
    minor: 21,
    payload: { osTags: ['rhel-coreos', 'rhel-coreos-extensions', 'rhel-coreos-10', 'rhel-coreos-10-extensions'] },
    render: { templatesCarryOsImage: false, generatedConfigsInOsImageMerge: false },
  },
  // 4.22: from 2026-08-21 (OCPBUGS-112614) the reason carries the last rpm-ostree error again; earlier 4.22.z do not.
  // An image-mode build starts FROM the rendered config's osImageURL, not the osimageurl ConfigMap's base (MCO-1972,
  // ec546a10b "removes OSImageURLConfig from buildrequest module": release-4.22 pkg/controller/build/buildrequest/buildrequest.go)
  { release: '4.22', minor: 22, daemon: { failedRebase: ['retries-timeout', 'retries-last-error'] }, imageModeBuildBase: 'rendered-os-image' },
];

function extend(base: ReleaseRules, change: Change): ReleaseRules {
  return {
    ...base,
    ...(change.release ? { release: change.release } : {}),
    ...(change.minor !== undefined ? { minor: change.minor } : {}),
    ...(change.imageMode ? { imageMode: change.imageMode } : {}),
    ...(change.imageModeBuildBase ? { imageModeBuildBase: change.imageModeBuildBase } : {}),
    ...(change.imageModeNewImageOn ? { imageModeNewImageOn: change.imageModeNewImageOn } : {}),
    payload: { ...base.payload, ...change.payload },
    render: { ...base.render, ...change.render },
    daemon: { ...base.daemon, ...change.daemon },
    operator: { ...base.operator, ...change.operator },
    nodes: { ...base.nodes, ...change.nodes },
  };
}

/** Every release the suite knows, oldest first: 4.12 to 4.22. */
export const RELEASES: readonly ReleaseRules[] = CHANGES.reduce<ReleaseRules[]>((all, change) => [...all, extend(all[all.length - 1]!, change)], [R4_12]);
