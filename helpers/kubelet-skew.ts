/**
 * The kubelet skew an upgrade leaves behind, read and judged (releases/kubelet-skew.ts): which nodes run which kubelet,
 * whether each is the one of the OS image its pool was meant to boot, and whether the kube-apiserver ClusterOperator's
 * Upgradeable agrees with the rule. A pool kept on a custom image through an upgrade keeps its image's kubelet; the
 * finding names the nodes that hold the next upgrade back and the way out, so the report says what "the custom image
 * stays" costs.
 */
import { expect } from 'chai';
import { budgetMs } from './cluster-waits.js';
import type { ClusterSnapshot } from './cluster-watcher.js';
import { currentVersion } from './facts/cluster-version.js';
import { nodesOfPool } from './facts/pool.js';
import type { FlowSession } from './flows.js';
import { expectedUpgradeable, judgeKubelet, type ExpectedUpgradeable } from './releases/kubelet-skew.js';
import { kubeletMinor, kubernetesMinorOf, parseOpenShiftVersion } from './releases/version.js';
import { attachText, step } from './report.js';
import { findCondition } from './types.js';
import { waitFor } from './wait.js';

export interface KubeletSkewFinding {
  /** The cluster's version the rule was judged at. */
  version: string;
  expected: ExpectedUpgradeable;
  /** What kube-apiserver reports: `status|reason`. */
  reported: string;
  /** The finding in words, with the way out. */
  summary: string;
}

/** Cluster minutes the kube-apiserver operator gets to agree with the nodes it sees (it resyncs on every node change). */
const OPERATOR_AGREES_WITHIN_MINUTES = 10;

/**
 * Checks that every node of each pool reports the kubelet of the OpenShift minor its pool's OS image belongs to
 * (`kubeletOf`: pool → OpenShift minor of the image's base), then waits for kube-apiserver's Upgradeable to say what the
 * skew rule says for those kubelets, and returns the finding.
 */
export async function checkKubeletSkew(session: FlowSession, kubeletOf: Record<string, number>): Promise<KubeletSkewFinding> {
  const snapshot = session.watcher.snapshot();
  const version = currentVersion(snapshot.clusterVersion) ?? '';
  const minor = parseOpenShiftVersion(version)?.minor;
  if (minor === undefined) expect.fail(`clusterversion/version reports no OpenShift version (${version || 'none'}): the kubelet skew rule needs one`);
  const kubelets: Array<{ node: string; minor: number; pool: string; base: number }> = [];
  await step('every node reports the kubelet of the OS image its pool boots', async () => {
    for (const [role, base] of Object.entries(kubeletOf)) {
      const poolName = session.poolFor(role);
      const pool = snapshot.pools.get(poolName);
      if (!pool) expect.fail(`mcp/${poolName} does not exist`);
      for (const node of nodesOfPool(pool, snapshot.pools.values(), snapshot.nodes.values())) {
        const name = node.metadata?.name ?? '?';
        const reported = node.status?.nodeInfo?.kubeletVersion;
        const got = kubeletMinor(reported);
        expect(got, `node ${name} of pool ${poolName} reports kubelet ${reported ?? '(none)'}, expected v1.${kubernetesMinorOf(base)} (its OS image is built on OpenShift 4.${base})`).to.equal(kubernetesMinorOf(base));
        kubelets.push({ node: name, minor: got!, pool: poolName, base });
      }
    }
  });
  // the operator judges every node of the cluster, the spec's pools or not (a shared upgrade leaves other specs' pools
  // on their images too): what the rule expects is what all of them report
  const checked = new Set(kubelets.map((k) => k.node));
  const others = [...snapshot.nodes.values()]
    .filter((n) => !checked.has(n.metadata?.name ?? ''))
    .flatMap((n) => {
      const other = kubeletMinor(n.status?.nodeInfo?.kubeletVersion);
      // a kubelet that cannot be read is the operator's Unknown; the spec's own pools were checked above
      return other === undefined ? [] : [{ node: n.metadata?.name ?? '?', minor: other, pool: '(another pool)', base: other - 13 }];
    });
  const all = [...kubelets, ...others];
  const expected = expectedUpgradeable(minor, all);
  const summary = describeFinding(version, minor, expected, all);
  await attachText('kubelet skew finding', summary);
  console.log(`    kubelet skew: ${summary}`);
  let reported = '';
  await step(`kube-apiserver is Upgradeable=${expected.status} (${expected.reason}), as the kubelet skew rule says`, async () => {
    await waitFor(
      session.watcher,
      {
        what: 'kube-apiserver to judge the kubelets it sees',
        expected: `clusteroperator/kube-apiserver Upgradeable=${expected.status} reason ${expected.reason}`,
        budgetMs: budgetMs(session.waits, OPERATOR_AGREES_WITHIN_MINUTES),
        caps: session.caps,
        judge: (s: ClusterSnapshot) => {
          const up = findCondition(s.operators.get('kube-apiserver')?.status?.conditions, 'Upgradeable');
          reported = up ? `${up.status}|${up.reason ?? ''}` : '(no Upgradeable condition)';
          const done = up?.status === expected.status && up.reason === expected.reason;
          return { done, progress: `kube-apiserver Upgradeable ${reported.replace('|', ' ')}: ${up?.message ?? ''}` };
        },
      },
      session.waits.progress,
    );
  });
  return { version, expected, reported, summary };
}

function describeFinding(version: string, minor: number, expected: ExpectedUpgradeable, kubelets: ReadonlyArray<{ node: string; minor: number; pool: string; base: number }>): string {
  const held = kubelets.filter((k) => expected.nodes.includes(k.node));
  if (!held.length) {
    const behind = kubelets.filter((k) => judgeKubelet(minor, k.minor) !== 'synced');
    return behind.length
      ? `OpenShift ${version} stays upgradeable: ${behind.length} node(s) run an older kubelet (${[...new Set(behind.map((k) => `v1.${k.minor}`))].join(', ')}) that OpenShift 4.${minor + 1} still supports`
      : `OpenShift ${version}: every kubelet is the release's own (v1.${kubernetesMinorOf(minor)})`;
  }
  const pools = [...new Set(held.map((k) => k.pool))];
  const bases = [...new Set(held.map((k) => `4.${k.base}`))];
  return (
    `OpenShift ${version} is not upgradeable to 4.${minor + 1} (${expected.reason}): nodes ${held.map((k) => k.node).join(', ')} of pool ${pools.join(', ')} ` +
    `run kubelet v1.${held[0]!.minor}, the kubelet of the custom OS image they keep, built on OpenShift ${bases.join(', ')}; ` +
    `OpenShift 4.${minor + 1} supports kubelets ${minor % 2 === 0 ? 'one minor' : 'two minors'} behind its API server. ` +
    `Way out: rebuild the custom image FROM ${version}'s rhel-coreos (oc adm release info --image-for=rhel-coreos) and point the pools at it`
  );
}
