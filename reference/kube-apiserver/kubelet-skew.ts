/**
 * The kube-apiserver operator's kubelet version skew rule, as openshift/cluster-kube-apiserver-operator
 * pkg/operator/kubeletversionskewcontroller/kubelet_version_skew_controller.go has it (release-4.21 dc1c217c2,
 * release-4.22 9c413cd4d): each node's kubelet minor is compared with the API server's; an even OpenShift minor supports
 * kubelets two minors behind, an odd one one minor behind; the rule is judged for this release and for the next minor
 * (assumed to ship the next Kubernetes minor). The most severe finding gives the condition
 * `KubeletMinorVersionUpgradeable`; library-go's union makes it the ClusterOperator's Upgradeable. 4.22 words its
 * messages "Kubelet version" where earlier releases say "Kubelet minor version" (f6a1c9111, 2026-01-27).
 */
import type { Condition } from '../mco/types.js';

export interface NodeKubelet {
  node: string;
  /** `status.nodeInfo.kubeletVersion`, e.g. `v1.34.0+4d6a4e8`. */
  kubeletVersion: string;
}

/** The texts of the release's controller: 4.22 dropped "minor" from them. */
export type SkewWording = 'minor-version' | 'version';

export const SKEW_CONDITION = 'KubeletMinorVersionUpgradeable';

interface Semver {
  major: number;
  minor: number;
  text: string;
}

/** Go's semver.Parse after TrimPrefix "v", as far as the rule needs it; its String() is the text without the v. */
function parseVersion(text: string): Semver | undefined {
  const m = /^v?(\d+)\.(\d+)\.(\d+)(?:[-+].*)?$/.exec(text);
  return m ? { major: Number(m[1]), minor: Number(m[2]), text: text.replace(/^v/, '') } : undefined;
}

/** minSupportedKubeletSkewForOpenShiftVersion: -2 on an even OpenShift minor, -1 on an odd one. */
function minSupportedSkew(openshiftMinor: number): number {
  return openshiftMinor % 2 === 0 ? -2 : -1;
}

/** nodeKubeletInfos.nodes(): "a", "a and b", "a, b, and c". */
function nodeList(nodes: readonly string[]): string {
  if (nodes.length <= 1) return nodes.join('');
  if (nodes.length === 2) return nodes.join(' and ');
  return [...nodes.slice(0, -1), `and ${nodes[nodes.length - 1]}`].join(', ');
}

interface Finding {
  node: string;
  version: string;
}

/**
 * The `KubeletMinorVersionUpgradeable` condition for the nodes (sorted by name, as the controller lists them), an API
 * server of Kubernetes `apiServerVersion` (e.g. `1.35.0`) and the operator's OpenShift minor.
 */
export function kubeletSkewCondition(nodes: readonly NodeKubelet[], apiServerVersion: string, openshiftMinor: number, wording: SkewWording): Omit<Condition, 'lastTransitionTime'> {
  const api = parseVersion(apiServerVersion);
  if (!api) throw new Error(`kubelet skew: API server version ${apiServerVersion} is not a version`);
  const minSkew = minSupportedSkew(openshiftMinor);
  const minSkewNext = minSupportedSkew(openshiftMinor + 1);
  const unknown: string[] = [];
  const unsupported: Finding[] = [];
  const limit: Finding[] = [];
  const behindOk: Finding[] = [];
  const ahead: Finding[] = [];
  for (const n of [...nodes].sort((a, b) => (a.node < b.node ? -1 : a.node > b.node ? 1 : 0))) {
    const kubelet = parseVersion(n.kubeletVersion);
    if (!kubelet) {
      unknown.push(n.node);
      continue;
    }
    const skew = kubelet.minor - api.minor;
    const found = { node: n.node, version: kubelet.text };
    if (skew === 0) continue;
    if (skew < minSkew) unsupported.push(found);
    else if (skew - 1 < minSkewNext) limit.push(found);
    else if (skew < 0) behindOk.push(found);
    else ahead.push(found);
  }
  const word = wording === 'version' ? 'Kubelet version' : 'Kubelet minor version';
  const words = wording === 'version' ? 'Kubelet versions' : 'Kubelet minor versions';
  const upgrade = wording === 'version' ? 'the next OpenShift version upgrade' : 'the next OpenShift minor version upgrade';
  const unsupportedWord = wording === 'version' ? 'Unsupported Kubelet version' : 'Unsupported kubelet minor version';
  const unsupportedWords = wording === 'version' ? 'Unsupported Kubelet versions' : 'Unsupported kubelet minor versions';
  const by = (found: Finding[], one: string, few: string, many: string): string =>
    found.length === 1 ? one : found.length <= 3 ? few : many;
  if (unsupported.length > 0) {
    const names = nodeList(unsupported.map((f) => f.node));
    return {
      type: SKEW_CONDITION,
      status: 'False',
      reason: 'KubeletMinorVersionUnsupported',
      message: by(
        unsupported,
        `${unsupportedWord} (${unsupported[0]!.version}) on node ${names} is too far behind the target API server version (${api.text}).`,
        `${unsupportedWords} on nodes ${names} are too far behind the target API server version (${api.text}).`,
        `${unsupportedWords} on ${unsupported.length} nodes are too far behind the target API server version (${api.text}).`,
      ),
    };
  }
  if (ahead.length > 0) {
    const names = nodeList(ahead.map((f) => f.node));
    return {
      type: SKEW_CONDITION,
      status: 'Unknown',
      reason: 'KubeletMinorVersionAhead',
      message: by(
        ahead,
        `${unsupportedWord} (${ahead[0]!.version}) on node ${names} is ahead of the target API server version (${api.text}).`,
        `${unsupportedWords} on nodes ${names} are ahead of the target API server version (${api.text}).`,
        `${unsupportedWords} on ${ahead.length} nodes are ahead of the target API server version (${api.text}).`,
      ),
    };
  }
  if (unknown.length > 0) {
    const names = nodeList(unknown);
    const message =
      unknown.length === 1 ? `Unable to determine the kubelet version on node ${names}: cannot parse the kubelet version` : unknown.length <= 3 ? `Unable to determine the kubelet version on nodes ${names}.` : `Unable to determine the kubelet version on ${unknown.length} nodes.`;
    return { type: SKEW_CONDITION, status: 'Unknown', reason: 'KubeletVersionUnknown', message };
  }
  if (limit.length > 0) {
    const names = nodeList(limit.map((f) => f.node));
    return {
      type: SKEW_CONDITION,
      status: 'False',
      reason: 'KubeletMinorVersionUnsupportedNextUpgrade',
      message: by(
        limit,
        `${word} (${limit[0]!.version}) on node ${names} will not be supported in ${upgrade}.`,
        `${words} on nodes ${names} will not be supported in ${upgrade}.`,
        `${words} on ${limit.length} nodes will not be supported in ${upgrade}.`,
      ),
    };
  }
  if (behindOk.length > 0) {
    const names = nodeList(behindOk.map((f) => f.node));
    return {
      type: SKEW_CONDITION,
      status: 'True',
      reason: 'KubeletMinorVersionSupportedNextUpgrade',
      message: by(
        behindOk,
        `${word} (${behindOk[0]!.version}) on node ${names} is behind the expected API server version; nevertheless, it will continue to be supported in ${upgrade}.`,
        `${words} on nodes ${names} are behind the expected API server version; nevertheless, they will continue to be supported in ${upgrade}.`,
        `${words} on ${behindOk.length} nodes are behind the expected API server version; nevertheless, they will continue to be supported in ${upgrade}.`,
      ),
    };
  }
  return { type: SKEW_CONDITION, status: 'True', reason: 'KubeletMinorVersionsSynced', message: 'Kubelet and API server versions are synced.' };
}

/**
 * library-go's UnionClusterCondition for Upgradeable over the operator's one `…Upgradeable` condition: True "AsExpected"
 * with its message prefixed by its type, else its status with the reason `<type prefix>_<reason>`.
 */
export function upgradeableOf(condition: Omit<Condition, 'lastTransitionTime'>): Omit<Condition, 'lastTransitionTime'> {
  const message = `${condition.type}: ${condition.message ?? ''}`;
  if (condition.status === 'True') return { type: 'Upgradeable', status: 'True', reason: 'AsExpected', message };
  return { type: 'Upgradeable', status: condition.status, reason: `${condition.type.slice(0, -'Upgradeable'.length)}_${condition.reason ?? ''}`, message };
}
