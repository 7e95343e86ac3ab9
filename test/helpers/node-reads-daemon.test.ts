/**
 * Node reads through the node's machine-config-daemon pod (helpers/daemon-exec.ts, --node-reads auto|daemon), on a
 * reference cluster: the same probes answer the same through the daemon's /rootfs as through a debug pod's /host, and
 * where the daemon cannot be asked, auto reads the node with a debug pod and says why while daemon mode fails naming
 * the pod.
 */
import { expect } from 'chai';
import { Cluster } from '../../helpers/cluster.js';
import { daemonPodsByNode, execInDaemon } from '../../helpers/daemon-exec.js';
import { readNode } from '../../helpers/node-os.js';
import { bootedImageProbe, fileProbe, kernelArgumentsProbe, type NodeProbe } from '../../helpers/node-probes.js';
import { readNodes } from '../../helpers/node-reads.js';
import type { Node } from '../../helpers/types.js';
import { type Harness, startHarness, waitFor } from '../reference/support/cluster.js';

const PROBES: ReadonlyArray<NodeProbe<unknown>> = [bootedImageProbe, kernelArgumentsProbe, fileProbe('/etc/os-release')];

describe('node reads through the machine-config-daemon pod, on the reference', function () {
  this.timeout(120_000);
  let h: Harness;
  let cluster: Cluster;
  let nodes: Node[];

  before(async () => {
    h = await startHarness({ profile: '4.12-ga' });
    cluster = new Cluster(h.k.kubeConfig);
    nodes = (await cluster.listNodes()) as Node[];
    await waitFor('a ready daemon on every node', async () => (await daemonPodsByNode(h.k.kubeConfig)).size === nodes.length, 60_000);
  });
  after(async () => h?.cluster.stop());

  it('lists one ready daemon pod per node', async () => {
    const byNode = await daemonPodsByNode(h.k.kubeConfig);
    expect([...byNode.keys()].sort()).to.deep.equal(nodes.map((n) => n.metadata!.name!).sort());
    for (const pod of byNode.values()) expect(pod).to.match(/^machine-config-daemon-[a-z0-9]{5}$/);
  });

  it('daemon mode reads every node through its daemon, with the answers a debug pod gives', async () => {
    const byDaemon = readNodes(cluster, h.cluster.kubeconfigPath, nodes, PROBES, {}, 'daemon');
    const byDebugPod = readNodes(cluster, h.cluster.kubeconfigPath, nodes, PROBES, {}, 'debug');
    for (const [i, node] of nodes.entries()) {
      const name = node.metadata!.name!;
      const [daemon, debug] = [await byDaemon.reads[i]!, await byDebugPod.reads[i]!];
      expect(daemon.asked.how).to.match(new RegExp(`^exec in openshift-machine-config-operator/machine-config-daemon-[a-z0-9]{5} \\(container machine-config-daemon\\) on node ${name.replace(/\./g, '\\.')}: chroot /rootfs sh -c `));
      expect(debug.asked.how).to.match(/^(oc debug node\/|debug pod )/);
      expect(daemon.readings.source).to.equal('daemon exec');
      for (const probe of PROBES) {
        const [a, b] = [daemon.readings.get(probe), debug.readings.get(probe)] as Array<Record<string, unknown>>;
        // the same answers; only the way of asking differs
        expect({ ...a, source: undefined }, `${name}: ${probe.name}`).to.deep.equal({ ...b, source: undefined });
      }
      expect((daemon.readings.get(bootedImageProbe) as { image: string }).image).to.match(/@sha256:[0-9a-f]{64}$/);
      expect(daemon.readings.get(PROBES[2]!) as { exists: boolean; contents?: string }, 'the booted image\'s os-release, read through /rootfs').to.deep.include({ exists: true });
      expect((daemon.readings.get(PROBES[2]!) as { contents?: string }).contents).to.match(/Red Hat Enterprise Linux CoreOS/);
    }
  });

  it('an exec reports the command\'s exit code and output, and one into a pod that is not there is refused naming it', async () => {
    const pod = (await daemonPodsByNode(h.k.kubeConfig)).values().next().value!;
    const r = await execInDaemon(h.k.kubeConfig, pod, ['chroot', '/rootfs', 'sh', '-c', 'echo out; echo err >&2; exit 3']);
    expect(r).to.deep.include({ exitCode: 3, pod: `openshift-machine-config-operator/${pod}` });
    expect(r.output.split('\n').sort().join(',')).to.equal(',err,out');
    let refused: Error | undefined;
    await execInDaemon(h.k.kubeConfig, 'machine-config-daemon-gone', ['true']).catch((e: Error) => (refused = e));
    expect(refused?.message).to.match(/^cannot exec in openshift-machine-config-operator\/machine-config-daemon-gone: /);
  });

  it('auto falls back to a debug pod where the daemon cannot be asked and says why; daemon mode fails naming the pod', async () => {
    const node = nodes[0]!;
    const name = node.metadata!.name!;
    const gone = await readNode(cluster, h.cluster.kubeconfigPath, node, PROBES, {}, { mode: 'auto', daemonPod: 'machine-config-daemon-gone' });
    expect(gone.asked.how).to.match(/^(oc debug node\/|debug pod ).* \(a debug pod: the daemon exec failed \(cannot exec in openshift-machine-config-operator\/machine-config-daemon-gone: .*\)\)$/);
    expect(gone.readings.source).to.not.equal('daemon exec');
    const none = await readNode(cluster, h.cluster.kubeconfigPath, node, PROBES, {}, { mode: 'auto' });
    expect(none.asked.how).to.match(new RegExp(`\\(a debug pod: no ready machine-config-daemon pod on node ${name.replace(/\./g, '\\.')}\\)$`));
    let failed: Error | undefined;
    await readNode(cluster, h.cluster.kubeconfigPath, node, PROBES, {}, { mode: 'daemon', daemonPod: 'machine-config-daemon-gone' }).catch((e: Error) => (failed = e));
    expect(failed?.message).to.match(new RegExp(`^node ${name.replace(/\./g, '\\.')}: exec in openshift-machine-config-operator/machine-config-daemon-gone \\(container machine-config-daemon\\) on node \\S+: cannot exec in `));
    await readNode(cluster, h.cluster.kubeconfigPath, node, PROBES, {}, { mode: 'daemon' }).catch((e: Error) => (failed = e));
    expect(failed?.message).to.equal(`node ${name}: no ready machine-config-daemon pod runs on it in openshift-machine-config-operator, and --node-reads daemon reads nodes only through it`);
  });
});
