/**
 * Steps the reference's acceptance and fault tests both take, on top of cluster.ts: a cluster for the length of one
 * test body, and waiting until ClusterVersion's history says an upgrade completed.
 */
import type { ReferenceClusterOptions } from '../../../reference/index.js';
import { describeCluster, startHarness, waitFor, type Harness, type Obj } from './cluster.js';

/** Runs `body` on a cluster of its own, stopped whatever the body does. */
export async function withCluster(options: ReferenceClusterOptions, body: (h: Harness) => Promise<void>): Promise<void> {
  const h = await startHarness(options);
  try {
    await body(h);
  } finally {
    await h.cluster.stop();
  }
}

/** Waits until the newest history entry of ClusterVersion is `version`, Completed; on timeout prints the cluster. */
export async function upgradeCompleted(h: Harness, version: string, timeoutMs: number): Promise<void> {
  await waitFor(`history Completed at ${version}`, async () => {
    const head = (await h.k.get<Obj>('ClusterVersion', 'version'))?.status?.history?.[0];
    return head?.state === 'Completed' && head.version === version;
  }, timeoutMs, () => describeCluster(h.k, h.cluster));
}
