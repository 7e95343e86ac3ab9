/**
 * What the kube-apiserver operator of OpenShift makes of old kubelets, as the suite understands it from
 * openshift/cluster-kube-apiserver-operator pkg/operator/kubeletversionskewcontroller (release-4.21, release-4.22):
 * an even OpenShift minor supports kubelets up to two Kubernetes minors behind its API server, an odd one one minor;
 * the cluster stays upgradeable only while every kubelet would still be supported by the next minor. This is why a
 * pool kept on a custom image through an upgrade can hold the next upgrade back: its nodes keep the kubelet of the
 * release their image was built on.
 */
import { kubernetesMinorOf } from './version.js';

export type KubeletVerdict = 'synced' | 'behind, supported by the next minor' | 'not supported by the next minor' | 'not supported now' | 'ahead of the API server';

/** How many Kubernetes minors behind its API server an OpenShift minor supports a kubelet. */
export function supportedKubeletLag(openshiftMinor: number): number {
  return openshiftMinor % 2 === 0 ? 2 : 1;
}

/** One kubelet of Kubernetes minor `kubeletMinor` on a cluster at OpenShift 4.`clusterMinor`. */
export function judgeKubelet(clusterMinor: number, kubeletMinor: number): KubeletVerdict {
  const lag = kubernetesMinorOf(clusterMinor) - kubeletMinor;
  if (lag === 0) return 'synced';
  if (lag < 0) return 'ahead of the API server';
  if (lag > supportedKubeletLag(clusterMinor)) return 'not supported now';
  // the next minor's API server is one Kubernetes minor newer
  if (lag + 1 > supportedKubeletLag(clusterMinor + 1)) return 'not supported by the next minor';
  return 'behind, supported by the next minor';
}

export interface ExpectedUpgradeable {
  status: 'True' | 'False' | 'Unknown';
  /** The ClusterOperator's reason: `AsExpected`, or the skew condition's prefixed as library-go's union prefixes it. */
  reason: string;
  /** The nodes behind the verdict (none when the cluster is upgradeable). */
  nodes: string[];
}

/** The most severe verdict wins, as in the operator: not supported now, ahead, then not supported by the next minor. */
export function expectedUpgradeable(clusterMinor: number, kubelets: ReadonlyArray<{ node: string; minor: number }>): ExpectedUpgradeable {
  const by = (verdict: KubeletVerdict) => kubelets.filter((k) => judgeKubelet(clusterMinor, k.minor) === verdict).map((k) => k.node);
  const worst: Array<[KubeletVerdict, ExpectedUpgradeable['status'], string]> = [
    ['not supported now', 'False', 'KubeletMinorVersion_KubeletMinorVersionUnsupported'],
    ['ahead of the API server', 'Unknown', 'KubeletMinorVersion_KubeletMinorVersionAhead'],
    ['not supported by the next minor', 'False', 'KubeletMinorVersion_KubeletMinorVersionUnsupportedNextUpgrade'],
  ];
  for (const [verdict, status, reason] of worst) {
    const nodes = by(verdict);
    if (nodes.length) return { status, reason, nodes };
  }
  return { status: 'True', reason: 'AsExpected', nodes: [] };
}
