/**
 * What a node reports of the OS it booted (`status.nodeInfo`): the kubelet's, CRI-O's and the kernel's versions are
 * those of the OS image's packages, so a node that keeps a custom image through an upgrade keeps reporting its old
 * kubelet, as on a real cluster (the kube-apiserver operator's kubelet skew rule reads exactly that).
 *
 * The kubelet of OpenShift 4.N is Kubernetes 1.(N+13) (4.12: v1.25; 4.22: v1.35), built from openshift/kubernetes,
 * whose `kubelet --version` carries the build's commit (`v1.25.0+4d6a4e8`); the reference takes the Kubernetes minor
 * from the image's OPENSHIFT_VERSION and the commit from its openshift-hyperkube package's release
 * (`…p0.g4d6a4e8.assembly…`). CRI-O reports `cri-o://<version>-<release>` of its package.
 */
import type { OsImageContent } from '../context.js';
import { kernelRelease } from '../node-fs/kernel.js';
import type { InstalledRpm } from '../releases/os-content.js';

/** The node's architecture as rpm names it (the reference's nodes are amd64). */
const RPM_ARCH = 'x86_64';

/** An installed package by name, from the image's `name-version-release` list (names may hold dashes, versions not). */
function installed(content: Pick<OsImageContent, 'packages'>, name: string): InstalledRpm | undefined {
  const entry = content.packages.find((p) => p.startsWith(`${name}-`) && /^[^-]+-[^-]+$/.test(p.slice(name.length + 1)));
  if (!entry) return undefined;
  const [version, release] = entry.slice(name.length + 1).split('-') as [string, string];
  return { name, version, release, arch: RPM_ARCH };
}

export interface RuntimeVersions {
  kubeletVersion: string;
  kubeProxyVersion: string;
  containerRuntimeVersion: string;
  kernelVersion: string;
}

export function runtimeVersionsOf(content: Pick<OsImageContent, 'osRelease' | 'packages'>, kernelType: 'default' | 'realtime' = 'default'): RuntimeVersions {
  const minor = /^4\.(\d+)\./.exec(content.osRelease.OPENSHIFT_VERSION ?? content.osRelease.VERSION ?? '')?.[1];
  const hyperkube = installed(content, 'openshift-hyperkube');
  const commit = /\.g([0-9a-f]{7,})\./.exec(hyperkube?.release ?? '')?.[1];
  const kubelet = minor ? `v1.${Number(minor) + 13}.0${commit ? `+${commit}` : ''}` : 'unknown';
  const crio = installed(content, 'cri-o');
  return {
    kubeletVersion: kubelet,
    kubeProxyVersion: kubelet,
    containerRuntimeVersion: crio ? `cri-o://${crio.version}-${crio.release}` : 'unknown',
    // a realtime kernel layered as an extension is not among the image's packages: then the image's kernel is named
    kernelVersion: kernelRelease([installed(content, 'kernel'), installed(content, 'kernel-rt-core')].filter((r) => r !== undefined), installed(content, 'kernel-rt-core') ? kernelType : 'default'),
  };
}
