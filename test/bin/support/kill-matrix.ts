/**
 * The kill matrix: for every spec, a reference fault (or the buggy profile) that breaks exactly the behaviour the spec
 * guards, and what the failure must say. test/bin/kill-matrix.test.ts runs every row, and fails when a spec file
 * has none; specs/README.md shows it.
 */
export interface KillRow {
  /** The spec file in specs/ the row breaks. */
  file: string;
  spec: string;
  /** --grep selecting the spec. */
  grep: string;
  fault?: string;
  /** The profile whose bug the spec catches; with a fault, the profile the fault is played on (default 4.12-ga). */
  profile?: string;
  /** What the failure output must contain: the phase and the diagnosis. */
  expect: RegExp[];
}

export const KILL_MATRIX: KillRow[] = [
  {
    file: '01-upgrade-custom-os-image-both-pools.spec.ts',
    spec: '01 upgrade with custom osImage in master and worker pools (54183)',
    grep: '54183',
    profile: '4.12-nightly-2022-09-08',
    expect: [/\[phase upgrade\]/, /osImageURL mismatch for master in rendered-master-/],
  },
  {
    file: '01-upgrade-custom-os-image-both-pools.spec.ts',
    spec: '01 upgrade with custom osImage in master and worker pools (54183)',
    grep: '54183',
    fault: 'cvo-completes-early',
    expect: [/\[phase check\]/, /master pool is updated before ClusterVersion reports the new version/],
  },
  {
    file: '01-upgrade-custom-os-image-both-pools.spec.ts',
    spec: '01 upgrade with custom osImage in master and worker pools (54183)',
    grep: '54183',
    fault: 'mcd-skips-os-update',
    expect: [/\[phase check\]/, /node \S+ booted \S+ \(digest sha256:\w+\) according to (?:daemon exec|oc debug|debug pod), expected \S+layered-os@sha256:\w+/],
  },
  {
    file: '02-upgrade-custom-os-image-worker-only.spec.ts',
    spec: '02 custom osImage in the worker pool only (E2E-002)',
    grep: 'E2E-002',
    fault: 'keep-old-os-on-upgrade',
    expect: [/\[phase check\]/, /MachineConfig 00-master gives master pools \S+, which is none of the OS images of release \S+:4\.12\.0-0\.nightly-2022-09-12-152748 .*; it is rhel-coreos-8 of 4\.12\.0-0\.nightly-2022-09-08-002336, a release this cluster ran before/],
  },
  {
    file: '03-upgrade-without-override.spec.ts',
    spec: '03 upgrade without override (E2E-003)',
    grep: 'E2E-003',
    fault: 'keep-old-os-on-upgrade',
    expect: [/\[phase check\]/, /MachineConfig 00-master gives master pools \S+, which is none of the OS images of release \S+:4\.12\.0-0\.nightly-2022-09-12-152748 .*; it is rhel-coreos-8 of 4\.12\.0-0\.nightly-2022-09-08-002336, a release this cluster ran before/],
  },
  {
    file: '04-early-named-override-has-no-effect.spec.ts',
    spec: '04 override named before the templates has no effect (E2E-004)',
    grep: 'E2E-004',
    fault: 'render-merge-unsorted',
    expect: [/\[phase check\]/, /mcp\/worker rendered config rendered-worker-\w+ has osImageURL \S+layered-os@sha256:\w+, expected .*sorts before the templates, so its osImageURL must lose/],
  },
  {
    file: '05-remove-override-after-upgrade.spec.ts',
    spec: '05 deleting the overrides after the upgrade (E2E-005)',
    grep: 'E2E-005',
    fault: 'sticky-override',
    expect: [/\[phase check\]/, /mcp\/master rendered config rendered-master-\w+ has osImageURL \S+layered-os@sha256:\w+, expected .*the override was deleted\)/],
  },
  {
    file: '06-unpullable-custom-image.spec.ts',
    spec: '06 unpullable custom osImage (E2E-006)',
    grep: 'E2E-006',
    fault: 'mcd-ignores-pull-errors',
    expect: [/\[phase check\]/, /pool worker rolled out \S+, which cannot be pulled, without reporting a degraded node: the error was hidden/],
  },
  {
    file: '06-unpullable-custom-image.spec.ts',
    spec: '06 unpullable custom osImage (E2E-006)',
    grep: 'E2E-006',
    fault: 'mcd-retries-unpullable-pulls',
    expect: [/\[phase check\]/, /node \S+ of pool worker was reported degraded (?:[6-9]\d|\d{3,})m\d\ds cluster time \([\d.]+s wall\) after MachineConfig tc-e2e-006-unpullable-os-image-worker was created, more than the bound of 20m cluster time \(.*\); last seen before it: worker \d\/2 updated, node \S+ updating/],
  },
  {
    file: '07-upgrade-with-extension.spec.ts',
    spec: '07 upgrade with an extension and no custom osImage (E2E-007)',
    grep: 'E2E-007',
    fault: 'mcd-no-extensions-repo-on-os-update',
    expect: [/\[phase upgrade\]/, /node \S+ degraded: failed to update OS to \S+ : error running rpm-ostree rebase --experimental ostree-unverified-registry:\S+: error: No enabled repositories/],
  },
  {
    file: '08-not-bootable-custom-image.spec.ts',
    spec: '08 not bootable custom osImage (54052)',
    grep: '54052',
    fault: 'mcd-boots-non-bootable-image',
    expect: [/\[phase check\]/, /pool worker rolled out \S+, which is not bootable, without reporting a degraded node: the error was hidden/],
  },
  {
    file: '09-custom-os-image-with-extension.spec.ts',
    spec: '09 a custom osImage with an extension, upgraded (54909)',
    grep: '54909',
    fault: 'mcd-layers-only-changes',
    expect: [/\[phase check\]/, /node \S+: package krb5-workstation is not installed in the booted image \S+layered-os@sha256:\w+/],
  },
  {
    file: '09-custom-os-image-with-extension.spec.ts',
    spec: '09 a custom osImage with an extension, upgraded (54909)',
    grep: '54909',
    profile: '4.12-nightly-2022-09-08',
    expect: [/\[phase prepare\]/, /is reporting: "Extensions are not currently supported with layered images, but extensions were supplied: kerberos"/],
  },
  {
    file: '10-custom-os-image-with-realtime-kernel.spec.ts',
    spec: '10 a custom osImage with the realtime kernel, upgraded (54915)',
    grep: '54915',
    fault: 'mcd-layers-only-changes',
    expect: [/\[phase check\]/, /node \S+ runs kernel \S+ \(default\), expected the realtime kernel/],
  },
  {
    file: '10-custom-os-image-with-realtime-kernel.spec.ts',
    spec: '10 a custom osImage with the realtime kernel, upgraded (54915)',
    grep: '54915',
    profile: '4.12-nightly-2022-09-08',
    expect: [/\[phase prepare\]/, /is reporting: "Non-default kernels are not currently supported for layered images\. \(old: default new realtime\)"/],
  },
  {
    file: '11-custom-os-image-with-kernel-arguments.spec.ts',
    spec: '11 a custom osImage with kernel arguments, upgraded (E2E-011)',
    grep: 'E2E-011',
    fault: 'mcd-layers-only-changes',
    expect: [/\[phase check\]/, /node \S+ booted without kernel arguments nosmt ocp-e2e\.layered=1/],
  },
  {
    file: '12-custom-os-image-changes-etc-usr-rpm.spec.ts',
    spec: '12 a custom osImage that changes /etc, /usr and the RPMs, upgraded, then reverted (54085)',
    grep: '54085',
    fault: 'mcd-keeps-old-etc-on-rebase',
    expect: [/\[phase check\]/, /node \S+ still has \/etc\/tc-54085\.txt \(mode 05400, holding "Test case 54085 test file\\n"\) \(rhel-coreos-8 of 4\.12\.0-0\.nightly-2022-09-12-152748; tc-54085-update-os-image-worker was deleted\)/],
  },
  {
    file: '02-upgrade-custom-os-image-worker-only.spec.ts',
    spec: '02 custom osImage in the worker pool only (E2E-002), upgraded to 4.13',
    grep: 'E2E-002',
    profile: '4.12-to-4.13',
    fault: 'keep-old-os-on-upgrade',
    expect: [/\[phase check\]/, /MachineConfig 00-master gives master pools \S+, which is none of the OS images of release \S+:4\.13\.0 \(rhel-coreos \S+, machine-os-content \S+\); it is rhel-coreos-8 of 4\.12\.0, a release this cluster ran before/],
  },
  {
    file: '13-custom-os-image-rebuilt-on-next-release.spec.ts',
    spec: "13 a custom osImage rebuilt on the next release's base, upgraded (E2E-013), 4.12 to 4.13",
    grep: 'E2E-013',
    profile: '4.12-to-4.13',
    fault: 'mcd-skips-os-update',
    expect: [/\[phase prepare\]/, /node \S+ booted \S+ \(digest sha256:\w+\) according to (?:daemon exec|oc debug|debug pod), expected \S+layered-os@sha256:\w+ \(custom image on \S+, the base of 4\.13\.0\)/],
  },
  {
    file: '06-unpullable-custom-image.spec.ts',
    spec: '06 unpullable custom osImage (E2E-006) on the 4.21 daemon',
    grep: 'E2E-006',
    profile: '4.21-to-4.22',
    fault: 'mcd-loses-rebase-error',
    expect: [/\[phase check\]/, /the failure must show the image cannot be pulled; read from node \S+'s reason, which is no failed update to \S+ in the words of OpenShift 4\.21 \(4\.21\.0\): Failed to update OS to \S+ after retries: %!w\(<nil>\)/],
  },
  {
    file: '02-upgrade-custom-os-image-worker-only.spec.ts',
    spec: '02 upgrade with custom osImage in the worker pool (E2E-002), 4.20 to 4.21',
    grep: 'E2E-002',
    profile: '4.20-to-4.21',
    fault: 'render-repeats-override-event',
    expect: [/\[phase check\]/, /the render controller announced the override of rendered-worker-[0-9a-f]+ \d+ times \(event OSImageURLOverridden\); OpenShift 4\.21 announces it once, when the rendered config is made \(OCPBUGS-62493\)/],
  },
  {
    file: '02-upgrade-custom-os-image-worker-only.spec.ts',
    spec: '02 upgrade with custom osImage in the worker pool (E2E-002), 4.20 to 4.22 over 4.21',
    grep: 'E2E-002',
    profile: '4.20-to-4.22',
    fault: 'render-repeats-override-event',
    expect: [/\[phase check\]/, /the render controller announced the override of rendered-worker-[0-9a-f]+ \d+ times \(event OSImageURLOverridden\); OpenShift 4\.22 announces it once/],
  },
  {
    file: '01-upgrade-custom-os-image-both-pools.spec.ts',
    spec: '01 upgrade with custom osImage in master and worker pools (54183), 4.18 to 4.19',
    grep: '54183',
    profile: '4.18-to-4.19',
    fault: 'mco-says-pool-updating',
    expect: [/\[phase check\]/, /invariant broken: machine-config does not turn Upgradeable=False because pools are updating/, /machine-config said Upgradeable=False PoolUpdating \(One or more machine config pools are updating, please see `oc get mcp` for further details\) from .* during the upgrade to 4\.19\.0; OpenShift 4\.19 dropped that reason/],
  },
  {
    file: '14-kubelet-skew-after-upgrade-with-override.spec.ts',
    spec: '14 the kubelet a custom osImage keeps through an upgrade (E2E-014), 4.21 to 4.22',
    grep: 'E2E-014',
    profile: '4.21-to-4.22',
    fault: 'kas-ignores-kubelet-skew',
    expect: [/\[phase check\]/, /waiting for kube-apiserver to judge the kubelets it sees/, /expected: clusteroperator\/kube-apiserver Upgradeable=False reason KubeletMinorVersion_KubeletMinorVersionUnsupportedNextUpgrade/, /last observed: kube-apiserver Upgradeable True AsExpected/],
  },
  {
    file: '15-image-mode-pool-keeps-custom-image-through-upgrade.spec.ts',
    spec: '15 an image-mode pool through an upgrade (E2E-015), 4.20 to 4.21',
    grep: 'E2E-015',
    profile: '4.20-to-4.21',
    fault: 'builder-not-restarted-on-upgrade',
    expect: [/\[phase check\]/, /machine-os-builder was not restarted on the upgrade to 4\.21\.0: pod machine-os-builder-\S+ runs \S+:4\.20\.0, not \S+:4\.21\.0 \(the machine-config-operator image of 4\.21\.0\), so machineosbuild\/ocp-e2e-15-[0-9a-f]+ was made by the old release's build controller \(OCPBUGS-56220/],
  },
  {
    file: '15-image-mode-pool-keeps-custom-image-through-upgrade.spec.ts',
    spec: '15 an image-mode pool through an upgrade (E2E-015), 4.20 to 4.21, config before its image',
    grep: 'E2E-015',
    profile: '4.20-to-4.21',
    fault: 'node-controller-moves-config-before-image',
    expect: [/\[phase check\]/, /node \S+ was told rendered config rendered-ocp-e2e-15-[0-9a-f]+ together with image \S+@sha256:[0-9a-f]+ at \+\d+m\d+s of the upgrade, an image not built for that config: \S+ is the image of machineosbuild\/ocp-e2e-15-[0-9a-f]+ \(rendered config rendered-ocp-e2e-15-[0-9a-f]+\); it should have had the image of machineosbuild\/ocp-e2e-15-[0-9a-f]+, .*\(OCPBUGS-53408/],
  },
  {
    file: '15-image-mode-pool-keeps-custom-image-through-upgrade.spec.ts',
    spec: '15 an image-mode pool through an upgrade (E2E-015), 4.20 to 4.21, a restarted builder builds again',
    grep: 'E2E-015',
    profile: '4.20-to-4.21',
    fault: 'builder-rebuilds-built-config-on-restart',
    expect: [/\[phase check\]/, /rendered config rendered-ocp-e2e-15-[0-9a-f]+ of pool ocp-e2e-15 was built \d+ times by machineosbuild\/ocp-e2e-15-[0-9a-f]+ during the upgrade, expected once: machineosbuild\/ocp-e2e-15-[0-9a-f]+ \(uid [0-9a-f-]+, .*; then machineosbuild\/ocp-e2e-15-[0-9a-f]+ \(uid [0-9a-f-]+, .*\(OCPBUGS-58238/],
  },
  {
    file: '15-image-mode-pool-keeps-custom-image-through-upgrade.spec.ts',
    spec: '15 an image-mode pool through an upgrade (E2E-015), 4.20 to 4.21, a node degraded on the way',
    grep: 'E2E-015',
    profile: '4.20-to-4.21',
    fault: 'node-degraded-pulling-built-image',
    expect: [/\[phase check\]/, /mcp\/ocp-e2e-15 was NodeDegraded from \+\d+m\d+s to \+\d+m\d+s of the upgrade \(1 nodes are reporting degraded status on sync\): "Node \S+ is reporting: "Failed to update OS to \S+layered-os@sha256:[0-9a-f]+ after retries: timed out waiting for the condition""; expected an image-mode pool never to have a degraded node or a failed build through an upgrade/],
  },
  {
    file: '16-image-mode-build-fails-during-upgrade.spec.ts',
    spec: '16 an image-mode build that fails during an upgrade (E2E-016), 4.20 to 4.21',
    grep: 'E2E-016',
    profile: '4.20-to-4.21',
    fault: 'failed-build-hidden-after-success',
    expect: [/\[phase check\]/, /waiting for mcp\/ocp-e2e-16 to show that machineosbuild\/ocp-e2e-16-[0-9a-f]+ failed/, /expected: mcp\/ocp-e2e-16 on OpenShift 4\.21: ImageBuildDegraded=True naming machineosbuild\/ocp-e2e-16-[0-9a-f]+/, /last observed: .*ImageBuildDegraded=False \(Building\)/],
  },
  {
    file: '17-image-mode-pool-rebuilt-and-reverted.spec.ts',
    spec: '17 rebuild and revert of an image-mode pool (E2E-017), 4.20, the rebuild annotation ignored',
    grep: 'E2E-017',
    profile: '4.20-to-4.21',
    fault: 'build-ignores-rebuild-annotation',
    expect: [/\[phase check\] the rebuild annotation builds the same config again/, /waiting for the MachineOSBuild of pool ocp-e2e-17/, /last observed: no MachineOSBuild of MachineOSConfig ocp-e2e-17 for rendered-ocp-e2e-17-\w+ other than the one of uid [0-9a-f-]+ \(builds: ocp-e2e-17-[0-9a-f]+\)/],
  },
  {
    file: '17-image-mode-pool-rebuilt-and-reverted.spec.ts',
    spec: '17 rebuild and revert of an image-mode pool (E2E-017), 4.20, the revert keeps the built image',
    grep: 'E2E-017',
    profile: '4.20-to-4.21',
    fault: 'revert-keeps-built-image',
    expect: [/\[phase check\] deleting the MachineOSConfig takes the pool back/, /waiting for pool ocp-e2e-17 to leave image mode/, /node \S+: current=rendered-ocp-e2e-17-\w+ desired=rendered-ocp-e2e-17-\w+ state=Done desiredImage=\S+layered-os@sha256:\w+ currentImage=\S+layered-os@sha256:\w+/],
  },
  {
    file: '17-image-mode-pool-rebuilt-and-reverted.spec.ts',
    spec: '17 rebuild and revert of an image-mode pool (E2E-017), 4.20, a deleted MachineOSConfig keeps its builds',
    grep: 'E2E-017',
    profile: '4.20-to-4.21',
    fault: 'deleted-config-keeps-builds',
    expect: [/\[phase check\] deleting the MachineOSConfig takes the pool back to the release's OS image and leaves nothing failed: machineosbuild\/ocp-e2e-17-[0-9a-f]+ left after machineosconfig\/ocp-e2e-17 was deleted: expected none/],
  },
  {
    file: '18-image-mode-reuses-image-on-file-change.spec.ts',
    spec: '18 a config change that needs no new image (E2E-018), 4.20',
    grep: 'E2E-018',
    profile: '4.20-to-4.21',
    fault: 'build-on-every-config-change',
    expect: [/\[phase check\]/, /machineosbuild\/ocp-e2e-18-[0-9a-f]+ of rendered-ocp-e2e-18-\w+ ran build job build-ocp-e2e-18-[0-9a-f]+ and gave the pool image \S+layered-os@sha256:\w+; expected it to reuse \S+layered-os@sha256:\w+, the image of machineosbuild\/ocp-e2e-18-[0-9a-f]+, without a build job \(on OpenShift 4\.20 only a change of the OS image, kernel type, extensions or kernel arguments builds a new image/],
  },
  {
    file: '18-image-mode-reuses-image-on-file-change.spec.ts',
    spec: '18 a config change that needs no new image (E2E-018), 4.20, the file written without a reboot',
    grep: 'E2E-018',
    profile: '4.20-to-4.21',
    fault: 'daemon-writes-files-without-reboot',
    expect: [/\[phase check\]/, /node \S+'s status\.nodeInfo\.bootID, [0-9a-f-]+ before the change \(the daemon reboots for \/etc\/ocp-e2e\/e2e-018\.conf, a file outside its no-reboot lists\)/],
  },
  {
    file: '19-image-mode-pool-with-os-image-override.spec.ts',
    spec: '19 an osImageURL override on an image-mode pool (E2E-019), 4.21 to 4.22',
    grep: 'E2E-019',
    profile: '4.21-to-4.22',
    fault: 'build-ignores-override-base',
    expect: [/\[phase check\]/, /image \S+layered-os@sha256:\w+ is labelled baseOSContainerImage=\S+ocp-v4\.0-art-dev@sha256:\w+ \(expected \S+layered-os@sha256:\w+\)/],
  },
];

/** The switches of a row, as `ocp-e2e run` takes them: the profile first, then the fault. */
export function rowSwitches(row: KillRow): string[] {
  return [...(row.profile ? ['--profile', row.profile] : []), ...(row.fault ? ['--fault', row.fault] : [])];
}

/** The spec files (names in specs/) that no row of `rows` breaks: a spec nothing can make fail proves nothing. */
export function specsWithoutRow(specFiles: readonly string[], rows: readonly KillRow[] = KILL_MATRIX): string[] {
  const covered = new Set(rows.map((row) => row.file));
  return specFiles.filter((file) => !covered.has(file));
}
