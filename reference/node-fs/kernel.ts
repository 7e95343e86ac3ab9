/**
 * The kernel a node's booted deployment carries, as the node shows it: its release (`uname -r`, the package `kernel`
 * or on the realtime kernel `kernel-rt-core` of the deployment's package database) and its command line
 * (`/proc/cmdline`): what the bootloader entry of an RHCOS deployment carries, then the MachineConfigs' arguments.
 */
import { createHash } from 'node:crypto';
import type { InstalledRpm } from '../releases/os-content.js';
import type { HostOs } from '../kubelet/hosts.js';

/**
 * `uname -r` of the deployment's kernel. RHEL 8's kernel-rt has its own release (`…rt7.183.el8_6`); from RHEL 9.3 it
 * is built from the kernel's source with the kernel's release and says so with a `+rt` suffix
 * (`5.14.0-570.42.2.el9_6.x86_64+rt`).
 */
export function kernelRelease(packages: readonly InstalledRpm[], kernelType: 'default' | 'realtime'): string {
  const kernel = packages.find((r) => r.name === (kernelType === 'realtime' ? 'kernel-rt-core' : 'kernel'));
  if (!kernel) return 'unknown';
  const release = `${kernel.version}-${kernel.release}.${kernel.arch}`;
  return kernelType === 'realtime' && !/\.rt\d/.test(kernel.release) ? `${release}+rt` : release;
}

export function kernelCommandLine(node: string, os: Pick<HostOs, 'booted' | 'deployment'>, release: string): string {
  const { booted, deployment } = os;
  const checksum = createHash('sha256').update(`${booted.pullspec}\0${booted.content.digest}`).digest('hex');
  const root = createHash('sha256').update(node).digest('hex');
  const uuid = `${root.slice(0, 8)}-${root.slice(8, 12)}-${root.slice(12, 16)}-${root.slice(16, 20)}-${root.slice(20, 32)}`;
  const base = [
    `BOOT_IMAGE=(hd0,gpt3)/ostree/rhcos-${checksum}/vmlinuz-${release}`,
    'ignition.platform.id=metal',
    `ostree=/ostree/boot.1/rhcos/${checksum}/0`,
    `root=UUID=${uuid}`,
    'rw',
    'rootflags=prjquota',
    `boot=UUID=${uuid.replace(/^.{8}/, 'b0075ea1')}`,
  ];
  return [...base, ...deployment.kernelArguments].join(' ');
}
