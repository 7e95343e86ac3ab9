/**
 * What leaving image mode leaves behind (QE 77781's revert): once the MachineOSConfig is deleted, the build controller
 * deletes its MachineOSBuilds and their build Jobs (MCO release-4.20 pkg/controller/build/reconciler.go
 * `deleteMachineOSConfig`, `deleteBuilderForMachineOSBuild`), and the daemon, done on the rendered config's OS image,
 * removes the node's currentImage and desiredImage annotations (pkg/daemon/writer.go `SetDone`: an empty image is
 * deleted, not written). A build's name and its Job's start with the MachineOSConfig's name (`<mosc>-<hash>`,
 * `build-<mosb>`), which is how the suite finds them without the MachineOSBuilds.
 */
import { expect } from 'chai';
import type { KubeObject } from '../../lib/kube/client.js';
import { expectFact } from '../assertions.js';
import { nodesOfPool } from '../facts/pool.js';
import type { FlowSession } from '../flows.js';
import { step } from '../report.js';
import { nodeOffImageMode } from './rollout-waits.js';
import { buildJobName, MCO_NAMESPACE, type MachineOSBuild } from './types.js';

/** Nothing of the pool's image mode is left: no image annotation on its nodes, no build or build Job of its config. */
export async function checkImageModeLeftNothing(session: FlowSession, mode: { pool: string; machineOSConfig: string }): Promise<void> {
  await step(`no node of pool ${mode.pool} has a desiredImage or currentImage annotation`, async () => {
    const pools = await session.cluster.listMachineConfigPools();
    const pool = pools.find((p) => p.metadata.name === mode.pool);
    if (!pool) expect.fail(`mcp/${mode.pool} does not exist`);
    for (const node of nodesOfPool(pool, pools, await session.cluster.listNodes())) expectFact(nodeOffImageMode(node));
  });
  await step(`no MachineOSBuild or build Job of machineosconfig/${mode.machineOSConfig} is left`, async () => {
    const builds = (await session.cluster.client.list<MachineOSBuild & KubeObject>('MachineOSBuild')).items.filter((b) => b.spec?.machineOSConfig?.name === mode.machineOSConfig);
    const leftBuilds = builds.map((b) => `machineosbuild/${b.metadata.name}`);
    if (leftBuilds.length) expect.fail(`${leftBuilds.join(', ')} left after machineosconfig/${mode.machineOSConfig} was deleted: expected none (the build controller deletes a deleted MachineOSConfig's builds, and they are owned by it)`);
    const prefix = buildJobName(`${mode.machineOSConfig}-`);
    const jobs = (await session.cluster.client.list('Job', { namespace: MCO_NAMESPACE })).items.filter((j) => j.metadata.name?.startsWith(prefix));
    const leftJobs = jobs.map((j) => `job/${j.metadata.name}`);
    if (leftJobs.length) expect.fail(`${leftJobs.join(', ')} -n ${MCO_NAMESPACE} left after machineosconfig/${mode.machineOSConfig} was deleted: expected no build Job (${prefix}*) of it`);
  });
}
