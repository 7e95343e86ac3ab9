/**
 * How the build program plays upstream's Containerfile on the reference's stand-in OS images (busybox-based, see
 * images/README.md): the steps whose tools the stand-in has run as upstream writes them (the `extract` stage's
 * base64/gunzip, `rpm-ostree install` from the extensions repository, `ostree container commit`, the tmpfiles lines,
 * the labels and the user's content); the steps whose tools it lacks are played by the program for real:
 *  - Ignition's live-apply (`ignition-apply … --ignore-unsupported`): the rendered config's files and units are laid
 *    out by the program in the build context and copied into the image, with the modes Ignition gives them, and the
 *    enabled units enabled with the stand-in's offline `systemctl enable`: what the node-fs model reads from an image
 *    is then what Ignition would have written;
 *  - `RUN --mount=type=bind,from=<extensions image>` and a bash heredoc (BuildKit features that a Docker-compatible
 *    API's classic build does not have): the extensions repository is copied from the image with `COPY --from`, used,
 *    and removed in the same way the template removes its repo file;
 *  - `update-ca-trust` (absent from the stand-in): the bundle is copied into the anchors folder as upstream does,
 *    with no trust store to regenerate;
 *  - the kernel swap's `dnf shell` (absent): the swap is written as the stand-in's `rpm-ostree install` of the new
 *    kernel's packages, which the extensions repository carries (kernel-rt-*).
 */
import { gzipSync } from 'node:zlib';
import { nodeConfigOf } from '../../mcd/node-config.js';
import type { MachineConfig } from '../types.js';
import { extractStage, imageLabels, KERNEL_PACKAGES, type ContainerfileInputs } from './containerfile.js';

/** Where the program lays out the config's files in the context (copied to / in stage `configs`). */
const IGNITION_ROOT = 'ignition-root';
const EXTENSIONS_MOUNT = '/tmp/mco-extensions/os-extensions-content';
const USER_CA_BUNDLE = 'openshift-config-user-ca-bundle.crt';

/** What the `mc-<mosb>` ConfigMap holds: the rendered config as gzipped JSON, base64-encoded. */
export function machineConfigArchive(mc: MachineConfig): string {
  return gzipSync(JSON.stringify(mc)).toString('base64');
}

export interface PlayableBuild {
  containerfile: string;
  /** Context files: path → content (and the modes the build gives them in RUN chmod lines). */
  files: Record<string, string | Buffer>;
}

/** A value quoted for sh. */
const shQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** The Containerfile and context the engine builds, for the same inputs as renderContainerfile. */
export function playableBuild(i: ContainerfileInputs, mc: MachineConfig, userCaBundle = ''): PlayableBuild {
  const config = nodeConfigOf(mc);
  const files: Record<string, string | Buffer> = {
    'machineconfig/machineconfig.json.gz': machineConfigArchive(mc),
    [USER_CA_BUNDLE]: userCaBundle,
  };
  const lines = [...extractStage(i.baseOSImage), '', `FROM ${i.baseOSImage} AS configs`, 'COPY --from=extract /etc/machine-config-daemon/currentconfig /etc/machine-config-daemon/currentconfig'];
  // ignition-apply's part: files with their modes, units into /etc/systemd/system, then the enabled ones enabled
  const chmods: string[] = [];
  for (const f of config.files) {
    files[`${IGNITION_ROOT}${f.path}`] = f.contents;
    chmods.push(`chmod ${f.mode.toString(8)} ${shQuote(f.path)}`);
  }
  for (const u of config.units) if (u.contents !== undefined) files[`${IGNITION_ROOT}/etc/systemd/system/${u.name}`] = u.contents;
  if (Object.keys(files).some((p) => p.startsWith(`${IGNITION_ROOT}/`))) lines.push(`COPY ${IGNITION_ROOT}/ /`);
  const enable = config.units.filter((u) => u.enabled === true).map((u) => u.name);
  const setup = [...chmods, ...(enable.length ? [`systemctl enable ${enable.map(shQuote).join(' ')}`] : [])];
  lines.push(`RUN ${[...setup, 'ostree container commit'].join(' && \\\n\t')}`);
  if (i.extensionsImage) lines.push(...extensionsSteps(i));
  lines.push(
    '',
    'RUN test ! -f /usr/lib/tmpfiles.d/usbguard.conf || rm /usr/lib/tmpfiles.d/usbguard.conf',
    // a real RHCOS has /usr/lib/tmpfiles.d; the stand-in OS may not, and printf would fail on it where buildah does not
    `RUN mkdir -p /usr/lib/tmpfiles.d && printf 'd /var/log/usbguard 0755 root root -\\nd /var/lib/ipsec 0700 root root -\\nd /var/lib/ipsec/nss 0700 root root -\\n' > /usr/lib/tmpfiles.d/usbguard_ipsec.conf`,
    '',
    `COPY ./${USER_CA_BUNDLE} /etc/pki/ca-trust/source/anchors/${USER_CA_BUNDLE}`,
    '',
    ...Object.entries(imageLabels(i)).map(([k, v]) => `LABEL ${k}=${v}`),
    '',
    ...(i.userContainerfile ? [i.userContainerfile] : []),
    '',
  );
  return { containerfile: lines.join('\n'), files };
}

function extensionsSteps(i: ContainerfileInputs): string[] {
  const repo = ['[coreos-extensions]', 'enabled=1', 'metadata_expire=1m', `baseurl=${EXTENSIONS_MOUNT}/usr/share/rpm-ostree/extensions/`, 'gpgcheck=0', 'skip_if_unavailable=False'].join('\\n');
  const swap = i.swapsKernel && i.kernelType && i.kernelType !== 'default' ? [...(i.kernelPackages[i.kernelType] ?? [])] : [];
  const packages = [...i.extensionsPackages, ...swap];
  const script = [
    'set -eu',
    `printf '${repo}\\n' > /etc/yum.repos.d/coreos-extensions.repo`,
    'chmod 644 /etc/yum.repos.d/coreos-extensions.repo',
    ...(i.extensionsPackages.length ? [`echo "Installing extension packages: ${i.extensionsPackages.join(' ')}"`] : []),
    ...(swap.length ? [`echo "Swapping the kernel for '${i.kernelType}': ${swap.join(' ')}"`] : []),
    ...(packages.length ? [`rpm-ostree install ${packages.join(' ')}`] : []),
    'rm /etc/yum.repos.d/coreos-extensions.repo',
    `rm -rf /tmp/mco-extensions`,
  ];
  return [
    `COPY --from=${i.extensionsImage} /usr/share/rpm-ostree/extensions/ ${EXTENSIONS_MOUNT}/usr/share/rpm-ostree/extensions/`,
    `RUN ${script.join(' && \\\n\t')}`,
    'RUN ostree container commit',
  ];
}

/**
 * The template's inputs read back from the Containerfile the controller stored (`containerfile-<mosb>`): its labels
 * and the user's content after them, as the build program is given nothing else; the packages come from the config.
 */
export function inputsFromStored(stored: string, mc: MachineConfig, images: { baseOSImage: string; extensionsImage: string }, extensionPackages: (ext: string) => readonly string[]): ContainerfileInputs {
  const label = (key: string): string => new RegExp(`^LABEL ${key}=(.*)$`, 'm').exec(stored)?.[1] ?? '';
  const lastLabel = stored.indexOf('\n', stored.indexOf('LABEL baseOSContainerImage='));
  return {
    ...images,
    extensionsPackages: (mc.spec.extensions ?? []).flatMap(extensionPackages),
    kernelType: mc.spec.kernelType ?? '',
    kernelPackages: KERNEL_PACKAGES,
    machineConfig: label('machineconfig'),
    pool: label('machineconfigpool'),
    userContainerfile: lastLabel < 0 ? '' : stored.slice(lastLabel + 1).trim(),
    swapsKernel: stored.includes('installKernelPkgs='),
  };
}
