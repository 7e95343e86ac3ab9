/**
 * The pods a node's drain evicts in the reference. Upstream's drain controller drains as `oc adm drain` does
 * (MCO release-4.20 pkg/controller/drain/drain_controller.go: IgnoreAllDaemonSets, DeleteEmptyDirData): every pod on
 * the node but the DaemonSets' goes, and its ReplicaSet makes it again on a node that is not cordoned. Here only the
 * pods whose process the reference runs from its Pod object are evicted: machine-os-builder's (components.ts
 * BuilderRollout restarts the build controller when its pod changes, as the kubelet starts a pod's container). The
 * other components run from the cluster's start whatever their Pod objects say, so evicting those would rename pods
 * and change nothing they do.
 */
import type { KubeClient, KubeObject } from '../../lib/kube/client.js';
import { MCO_NAMESPACE } from '../constants.js';
import { MACHINE_OS_BUILDER } from '../mco/image-mode/names.js';

type Pod = KubeObject & { spec?: { nodeName?: string } };

/** Evicts the node's pods a drain takes away here; returns their names. */
export async function evictForDrain(client: Pick<KubeClient, 'list' | 'delete'>, node: string): Promise<string[]> {
  const pods = (await client.list<Pod>('Pod', { namespace: MCO_NAMESPACE, labelSelector: `k8s-app=${MACHINE_OS_BUILDER}` })).items;
  const here = pods.filter((p) => p.spec?.nodeName === node && !p.metadata.deletionTimestamp);
  for (const pod of here) await client.delete('Pod', pod.metadata.name!, MCO_NAMESPACE);
  return here.map((p) => p.metadata.name!);
}
