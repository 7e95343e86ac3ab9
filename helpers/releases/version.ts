/**
 * An OpenShift version as ClusterVersion and release payloads write it ("4.21.3", "4.22.0-rc.2",
 * "4.22.0-0.nightly-2026-08-21-101010"): the suite's knowledge of a release is chosen by its minor, and the few facts
 * that changed inside a minor (z-stream backports) are said as such in the table rather than guessed from a patch.
 */
export interface OpenShiftVersion {
  major: number;
  minor: number;
  patch: number;
  /** The pre-release part after the first '-' ("rc.2", "0.nightly-…"), if any. */
  pre?: string;
  /** As given. */
  text: string;
}

const VERSION = /^v?(\d+)\.(\d+)(?:\.(\d+))?(?:-(.+))?$/;

/** The version in `text`, or undefined when it is none (an image pullspec, an empty string). */
export function parseOpenShiftVersion(text: string | undefined): OpenShiftVersion | undefined {
  const m = VERSION.exec((text ?? '').trim());
  if (!m) return undefined;
  return { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3] ?? 0), ...(m[4] ? { pre: m[4] } : {}), text: text!.trim() };
}

/** "4.21" of a version, as tables and messages name a release. */
export function minorName(v: Pick<OpenShiftVersion, 'major' | 'minor'>): string {
  return `${v.major}.${v.minor}`;
}

/**
 * The Kubernetes minor an OpenShift 4 minor ships (4.12 is Kubernetes 1.25, each OpenShift minor one more since): what
 * the kubelet of that release's OS image reports, and what the kube-apiserver operator's skew rule counts in.
 */
export function kubernetesMinorOf(openshiftMinor: number): number {
  return openshiftMinor + 13;
}

/** The Kubernetes minor of a kubelet version as a node reports it ("v1.34.2", "v1.31.14+a1b2c3d"), if it is one. */
export function kubeletMinor(kubeletVersion: string | undefined): number | undefined {
  const m = /^v?1\.(\d+)\./.exec(kubeletVersion ?? '');
  return m ? Number(m[1]) : undefined;
}

/** The minor of an OpenShift 4 version, or an error naming what was given. */
export function openShiftMinor(version: string): number {
  const v = parseOpenShiftVersion(version);
  if (!v) throw new Error(`"${version}" is not an OpenShift version`);
  return v.minor;
}
