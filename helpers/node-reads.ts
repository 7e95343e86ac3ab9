/**
 * Reading the nodes of a pool at once. Each read is an exec into the node's daemon or a debug pod (node-os.ts), which
 * mostly waits: for the exec's round trip, or for a debug pod to be scheduled and started and `oc` to start. One
 * after another, a 5-node reference cluster spent 1.4 s of spec 1's 1.5 s check in debug pods. At most
 * NODE_READS_AT_ONCE are in flight: on a real cluster of a hundred workers that bounds the debug pods (and namespaces)
 * alive at once, and on a 2-core machine it keeps both cores busy while others wait.
 *
 * The answers are judged in node order, as before, by whoever awaits them. When the caller stops early (a node
 * failed its check), `settle` keeps reads that had not begun from starting and waits for the ones under way, so
 * no debug pod is still being made when the spec's cleanup runs.
 */
import pLimit from 'p-limit';
import type { Cluster } from './cluster.js';
import { daemonPodsByNode } from './daemon-exec.js';
import { readNode, type NodeRead } from './node-os.js';
import type { NodeProbe } from './node-probes.js';
import type { NodeReadMode } from './target.js';
import type { Node } from './types.js';

export const NODE_READS_AT_ONCE = 4;

export interface NodeReads {
  /** The read of `nodes[i]`, in the order given. */
  readonly reads: ReadonlyArray<Promise<NodeRead>>;
  /** Cancels the reads not yet begun and resolves once none is in flight. */
  settle(): Promise<void>;
}

/** How one node is read; readNode unless a test gives another. */
export type ReadOneNode = (node: Node) => Promise<NodeRead>;

/**
 * Reads `nodes` in the way `mode` asks (helpers/target.ts). Unless it is debug, the daemon pods are listed once for
 * all the reads; a list that fails leaves auto with debug pods and fails daemon mode's reads with the list's error.
 */
export function readNodes(
  cluster: Cluster,
  kubeconfig: string,
  nodes: ReadonlyArray<Node>,
  probes: ReadonlyArray<NodeProbe<unknown>>,
  labels: Record<string, string> = {},
  mode: NodeReadMode = 'auto',
): NodeReads {
  const daemons: Promise<Map<string, string>> = mode === 'debug' ? Promise.resolve(new Map()) : daemonPodsByNode(cluster.kubeConfig);
  daemons.catch(() => undefined);
  return readEach(nodes, async (node) => {
    let daemonPods: Map<string, string>;
    try {
      daemonPods = await daemons;
    } catch (error) {
      if (mode === 'daemon') throw new Error(`node ${node.metadata?.name ?? '?'}: cannot find its machine-config-daemon pod: ${(error as Error).message}`);
      daemonPods = new Map();
    }
    return readNode(cluster, kubeconfig, node, probes, labels, { mode, daemonPod: daemonPods.get(node.metadata?.name ?? '') });
  });
}

/** The fan-out itself, over any reader (exported for the tests). */
export function readEach(nodes: ReadonlyArray<Node>, readOne: ReadOneNode): NodeReads {
  const limit = pLimit(NODE_READS_AT_ONCE);
  let cancelled = false;
  const reads = nodes.map((node) =>
    limit(() => {
      if (cancelled) throw new Error(`node ${node.metadata?.name ?? '?'} was not read: the check had already failed`);
      return readOne(node);
    }),
  );
  // A read whose caller stopped before awaiting it must not become an unhandled rejection.
  for (const read of reads) read.catch(() => undefined);
  return {
    reads,
    async settle() {
      cancelled = true;
      await Promise.allSettled(reads);
    },
  };
}
