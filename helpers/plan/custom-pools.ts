/**
 * The custom pools of a pool plan (pool-plan.ts) on the cluster: a MachineConfigPool that takes the worker
 * MachineConfigs and its own, and one worker node labelled into it, as the MCO's own e2e tests make them (the node
 * keeps its worker label; the MCO puts a node in a custom pool over worker). What this creates it returns the undo of:
 * the node back to the worker pool's config, then the pool deleted, so nothing is left and no node is left between
 * pools.
 */
import type { Cluster } from '../cluster.js';
import { waitForPools, type WaitContext } from '../cluster-waits.js';
import type { MachineConfigPool } from '../types.js';
import { OverridePoolLabel, RoleLabel } from '../types.js';
import type { CustomPool } from './pool-plan.js';

const MCP_API_VERSION = 'machineconfiguration.openshift.io/v1';
/** Marks the suite's custom pools, so a later phase and the leak check find them. */
export const CUSTOM_POOL_LABEL = 'ocp-e2e.io/custom-pool';
/**
 * The run that planned the pool. Not the run-id label: a later phase's specs leak-check the objects of pre's run id,
 * and these pools are the run's, not any spec's, removed by the run after the last phase.
 */
const PLAN_RUN_ANNOTATION = 'ocp-e2e.io/planned-by-run';

export const nodeRoleLabel = (pool: string): string => `node-role.kubernetes.io/${pool}`;

/** Whether a pool is one of the suite's custom pools, which by their selector never take the suite's worker overrides. */
export const isSuiteCustomPool = (pool: MachineConfigPool): boolean => pool.metadata.labels?.[CUSTOM_POOL_LABEL] === 'true';

export function customPoolObject(pool: CustomPool, runId: string): MachineConfigPool {
  return {
    apiVersion: MCP_API_VERSION,
    kind: 'MachineConfigPool',
    metadata: { name: pool.name, labels: { [CUSTOM_POOL_LABEL]: 'true' }, annotations: { [PLAN_RUN_ANNOTATION]: runId } },
    spec: {
      // the worker pool's configs and its own, but not the suite's overrides of the worker pool: a custom pool is
      // another spec's, and a pool inherits every worker MachineConfig otherwise (the last by name would win)
      machineConfigSelector: {
        matchExpressions: [
          { key: RoleLabel, operator: 'In', values: ['worker', pool.name] },
          { key: OverridePoolLabel, operator: 'NotIn', values: ['worker'] },
        ],
      },
      nodeSelector: { matchLabels: { [nodeRoleLabel(pool.name)]: '' } },
    },
  } as MachineConfigPool;
}

export interface CustomPoolsHandle {
  pools: CustomPool[];
  /** Moves the nodes back to the worker pool, waits for them to run its config, deletes the pools. */
  remove(): Promise<void>;
}

/**
 * Creates the pools and moves their nodes in, waiting until each pool has rolled out on its node. On a failure part
 * way, what was created is removed before the error goes on.
 */
export async function createCustomPools(cluster: Cluster, waits: WaitContext, pools: CustomPool[], runId: string, log: (line: string) => void): Promise<CustomPoolsHandle> {
  const created: CustomPool[] = [];
  const handle: CustomPoolsHandle = { pools: created, remove: () => removeCustomPools(cluster, waits, created, log) };
  try {
    for (const pool of pools) {
      await cluster.client.create('MachineConfigPool', customPoolObject(pool, runId));
      created.push(pool);
      await cluster.client.patch('Node', pool.node, { metadata: { labels: { [nodeRoleLabel(pool.name)]: '' } } });
      log(`custom pool ${pool.name} created with node ${pool.node}`);
    }
    if (created.length) await waitForPools(waits, { pools: created.map((p) => p.name) });
  } catch (error) {
    await handle.remove().catch((e: unknown) => log(`could not remove the custom pools after a failure: ${(e as Error).message}`));
    throw error;
  }
  return handle;
}

/** The undo of createCustomPools; also what a later phase runs on the pools a plan left (found by their label). */
export async function removeCustomPools(cluster: Cluster, waits: WaitContext, pools: CustomPool[], log: (line: string) => void): Promise<void> {
  if (!pools.length) return;
  for (const pool of pools) await cluster.client.patch('Node', pool.node, { metadata: { labels: { [nodeRoleLabel(pool.name)]: null } } });
  // the nodes go back to the worker pool's config before their pools go: a pool deleted with a node in it leaves the
  // node's desired config pointing at a rendered config nobody owns any more
  await waitForPools(waits, { pools: ['worker'] });
  for (const pool of pools) {
    await cluster.client.delete('MachineConfigPool', pool.name);
    log(`custom pool ${pool.name} removed; node ${pool.node} is back in pool worker`);
  }
}

/** The suite's custom pools on the cluster now, with the node of each (for a later phase and the leak check). */
export async function listCustomPools(cluster: Cluster): Promise<CustomPool[]> {
  const [pools, nodes] = await Promise.all([cluster.listMachineConfigPools(), cluster.listNodes()]);
  return pools
    .filter((p) => p.metadata.labels?.[CUSTOM_POOL_LABEL] === 'true')
    .map((p) => {
      const name = p.metadata.name ?? '';
      return { name, node: nodes.find((n) => n.metadata?.labels?.[nodeRoleLabel(name)] !== undefined)?.metadata?.name ?? '' };
    });
}
