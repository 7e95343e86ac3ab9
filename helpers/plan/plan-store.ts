/**
 * A pool plan kept on the cluster between the phases of a pipeline (`--phase pre`, later `--phase upgrade` and
 * `--phase post`, perhaps from other machines): a ConfigMap beside the checkpoints. Pre writes it with the pools it
 * made; the later phases give every spec the same pools; the run that ends post removes it with the pools.
 */
import { CHECKPOINT_NAMESPACE } from '../checkpoint/format.js';
import type { Cluster } from '../cluster.js';
import { CHECKPOINT_NAMESPACE_LABEL } from '../types.js';
import type { PoolPlan } from './pool-plan.js';

export const PLAN_CONFIGMAP = 'ocp-e2e-pool-plan';
const PLAN_KEY = 'plan.json';

export async function writePoolPlan(cluster: Cluster, plan: PoolPlan, runId: string): Promise<void> {
  await cluster.ensureNamespace(CHECKPOINT_NAMESPACE, { [CHECKPOINT_NAMESPACE_LABEL.key]: CHECKPOINT_NAMESPACE_LABEL.value });
  await cluster.writeConfigMap({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: PLAN_CONFIGMAP, namespace: CHECKPOINT_NAMESPACE, annotations: { 'ocp-e2e.io/planned-by-run': runId } },
    data: { [PLAN_KEY]: JSON.stringify(plan) },
  });
}

/** The plan pre left, or undefined when there is none (a pipeline of one spec, or post already removed it). */
export async function readPoolPlan(cluster: Cluster): Promise<PoolPlan | undefined> {
  const cm = await cluster.getConfigMap(CHECKPOINT_NAMESPACE, PLAN_CONFIGMAP).catch(() => undefined);
  const text = cm?.data?.[PLAN_KEY];
  if (!text) return undefined;
  try {
    return JSON.parse(text) as PoolPlan;
  } catch {
    throw new Error(`configmap ${CHECKPOINT_NAMESPACE}/${PLAN_CONFIGMAP} does not hold a pool plan (${PLAN_KEY} is not JSON): delete it and start again with --phase pre`);
  }
}

export async function deletePoolPlan(cluster: Cluster): Promise<void> {
  await cluster.client.delete('ConfigMap', PLAN_CONFIGMAP, CHECKPOINT_NAMESPACE);
}
