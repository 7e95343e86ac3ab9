/**
 * The Containerfile of an on-cluster build, as upstream's template renders it (MCO release-4.20 and release-4.22
 * pkg/controller/build/buildrequest/assets/Containerfile.on-cluster-build-template, the file unchanged 4.20 → 4.22;
 * release-4.19's has the extensions step without the kernel swap; modern-mco.md §1.5): the rendered MachineConfig
 * extracted in stage `extract`, applied by Ignition in stage `configs`, the extensions installed from the release's
 * extensions image, the usbguard/ipsec tmpfiles and the user CA bundle, three labels, then the user's NoArch
 * Containerfile verbatim (users start it with `FROM configs AS final`). This text is what the build controller stores
 * in `containerfile-<mosb>`; the build program plays it on the reference's stand-in OS (build-context.ts).
 */
import type { ContainerfileEntry } from './types.js';

export interface ContainerfileInputs {
  baseOSImage: string;
  /** Empty when the release has no extensions image: the extensions step is left out. */
  extensionsImage: string;
  /** The packages of the rendered config's extensions. */
  extensionsPackages: readonly string[];
  /** The rendered config's kernelType, where the release's template swaps kernels ('' or 'default' otherwise). */
  kernelType: string;
  /** Each kernel type's packages (ctrlcommon's kernel package table). */
  kernelPackages: Readonly<Record<string, readonly string[]>>;
  machineConfig: string;
  pool: string;
  /** The user's NoArch content, '' when none. */
  userContainerfile: string;
  /** Whether the release's template swaps the kernel (BuildCode.templateSwapsKernel). */
  swapsKernel: boolean;
}

/** Only the NoArch entry is used: `newBuildRequest` takes the first one ("only support noArch for now"). */
export function userContainerfileOf(entries: readonly ContainerfileEntry[] | undefined): string {
  return (entries ?? []).find((e) => (e.containerfileArch ?? 'NoArch') === 'NoArch')?.content ?? '';
}

/**
 * Kernel packages per kernel type (MCO release-4.20 pkg/controller/common/helpers.go `GetPackagesForSupportedKernelType`);
 * the default kernel gives no swap at all (buildrequestopts.go `getKernelPackages`).
 */
export const KERNEL_PACKAGES: Readonly<Record<string, readonly string[]>> = {
  default: ['kernel', 'kernel-core', 'kernel-modules', 'kernel-modules-core', 'kernel-modules-extra'],
  realtime: ['kernel-rt-core', 'kernel-rt-modules', 'kernel-rt-modules-extra', 'kernel-rt-kvm'],
  '64k-pages': ['kernel-64k-core', 'kernel-64k-modules', 'kernel-64k-modules-core', 'kernel-64k-modules-extra'],
};

export function extractStage(base: string): string[] {
  return [
    `FROM ${base} AS extract`,
    'COPY ./machineconfig/machineconfig.json.gz /tmp/machineconfig.json.gz',
    'RUN mkdir -p /etc/machine-config-daemon && \\',
    '\tcat /tmp/machineconfig.json.gz | base64 -d | gunzip - > /etc/machine-config-daemon/currentconfig',
  ];
}

function kernelSwapScript(i: ContainerfileInputs): string[] {
  if (!i.swapsKernel || !i.kernelType || i.kernelType === 'default' || !i.kernelPackages[i.kernelType]) return [];
  const list = (type: string): string => (i.kernelPackages[type] ?? []).join(' ');
  const branch = (test: string, type: string, label: string): string[] => [
    `${test}`,
    `\tif [[ "${i.kernelType}" != "${type}" ]]; then`,
    `\t\techo "Base Image has ${label} kernel, new KernelType is '${i.kernelType}'"`,
    `\t\tkernelOldPkgs="${list(type)}"`,
    '\tfi',
  ];
  return [
    'kernelOldPkgs=""',
    ...branch('if rpm -q kernel-rt-core > /dev/null 2>&1; then', 'realtime', 'RT'),
    ...branch('elif rpm -q kernel-64k-core > /dev/null 2>&1; then', '64k-pages', '64k-pages'),
    ...branch('elif rpm -q kernel > /dev/null 2>&1; then', 'default', 'Default'),
    'else',
    `\techo "Error: Unknown base kernel type. Unable to perform the kernel swap to '${i.kernelType}'"`,
    '\texit 1;',
    'fi',
    'if [ -n "$kernelOldPkgs" ]; then',
    `\tinstallKernelPkgs="${list(i.kernelType)}"`,
    '\t(echo "remove $kernelOldPkgs"; echo "install $installKernelPkgs"; echo run) | dnf -y shell',
    'fi',
  ];
}

function extensionsStep(i: ContainerfileInputs): string[] {
  if (!i.extensionsImage) return [];
  const install = i.extensionsPackages.length
    ? [`extensions="${i.extensionsPackages.join(' ')}"`, 'echo "Installing extension packages: $extensions"', 'rpm-ostree install $extensions']
    : [];
  return [
    `RUN --mount=type=bind,from=${i.extensionsImage},source=/,target=/tmp/mco-extensions/os-extensions-content,bind-propagation=rshared,z \\`,
    "    bash <<'EOF'",
    'set -xeuo pipefail',
    'cat > /etc/yum.repos.d/coreos-extensions.repo <<REPO',
    '[coreos-extensions]',
    'enabled=1',
    'metadata_expire=1m',
    'baseurl=/tmp/mco-extensions/os-extensions-content/usr/share/rpm-ostree/extensions/',
    'gpgcheck=0',
    'skip_if_unavailable=False',
    'REPO',
    'chmod 644 /etc/yum.repos.d/coreos-extensions.repo',
    ...install,
    ...kernelSwapScript(i),
    'rm /etc/yum.repos.d/coreos-extensions.repo',
    'EOF',
    'RUN ostree container commit',
  ];
}

/** The labels every built image carries: which rendered config, pool and base it was built from. */
export function imageLabels(i: Pick<ContainerfileInputs, 'machineConfig' | 'pool' | 'baseOSImage'>): Record<string, string> {
  return { machineconfig: i.machineConfig, machineconfigpool: i.pool, baseOSContainerImage: i.baseOSImage };
}

/** The template rendered: the text a user reads in `containerfile-<mosb>`. */
export function renderContainerfile(i: ContainerfileInputs): string {
  const labels = Object.entries(imageLabels(i)).map(([k, v]) => `LABEL ${k}=${v}`);
  return [
    ...extractStage(i.baseOSImage),
    '',
    `FROM ${i.baseOSImage} AS configs`,
    'COPY --from=extract /etc/machine-config-daemon/currentconfig /etc/machine-config-daemon/currentconfig',
    'RUN container="oci" exec -a ignition-apply /usr/lib/dracut/modules.d/30ignition/ignition --ignore-unsupported <(cat /etc/machine-config-daemon/currentconfig | jq \'.spec.config\') && \\',
    '\tostree container commit',
    ...extensionsStep(i),
    '',
    'RUN test ! -f /usr/lib/tmpfiles.d/usbguard.conf || rm /usr/lib/tmpfiles.d/usbguard.conf',
    'RUN echo -e "d /var/log/usbguard 0755 root root -\\nd /var/lib/ipsec 0700 root root -\\nd /var/lib/ipsec/nss 0700 root root -" > /usr/lib/tmpfiles.d/usbguard_ipsec.conf',
    '',
    'COPY ./openshift-config-user-ca-bundle.crt /etc/pki/ca-trust/source/anchors/openshift-config-user-ca-bundle.crt',
    'RUN update-ca-trust',
    '',
    ...labels,
    '',
    ...(i.userContainerfile ? [i.userContainerfile] : []),
    '',
  ].join('\n');
}
