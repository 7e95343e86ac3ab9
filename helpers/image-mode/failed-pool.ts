/**
 * An image-mode pool whose rebuild failed, judged as its release shows it (helpers/releases/image-build-failure.ts,
 * the suite's own knowledge, not the reference's): not Updated, and per release either ImageBuildDegraded True with
 * upstream's message naming the pool and the MachineOSBuild (4.21+), or Updating and not Degraded, with no
 * ImageBuildDegraded True (4.18.z-4.20). Meanwhile every node of the pool still runs the build before: Done on its
 * rendered config with desiredImage = currentImage = its image, and booted from it as `rpm-ostree status` says.
 */
import type { ClusterSnapshot } from '../cluster-watcher.js';
import { budgetMs } from '../cluster-waits.js';
import { expectFact } from '../assertions.js';
import { allOf, fails, holds, type Fact } from '../facts/fact.js';
import { nodesOfPool, poolLine } from '../facts/pool.js';
import type { FlowSession } from '../flows.js';
import { readNodes } from '../node-reads.js';
import { nodeChecks, type NodeExpectation } from '../node-probes-expected.js';
import { failedRebuildShows, imageBuildDegradedMessage, type FailedRebuildShows } from '../releases/image-build-failure.js';
import type { ReleaseRules } from '../releases/rules.js';
import { attachText, step } from '../report.js';
import { findCondition, RunIdLabel, type MachineConfigPool } from '../types.js';
import { waitFor } from '../wait.js';
import type { RolledOutBuild } from './flow.js';
import { nodeOnImage } from './rollout-waits.js';

/** Cluster minutes for the pool's conditions to catch up with a build that failed. */
const POOL_CONDITIONS_CLUSTER_MINUTES = 5;

const conditionLine = (pool: MachineConfigPool, type: string): string => {
  const c = findCondition(pool.status?.conditions, type);
  return c ? `${type}=${c.status}${c.reason ? ` (${c.reason})` : ''}${c.message ? ` "${c.message}"` : ''}` : `${type} absent`;
};

/** What the pool must show for machineosbuild/`build`'s failure, as `shows` says. */
export function poolShowsFailedBuild(pool: MachineConfigPool | undefined, name: string, build: string, shows: FailedRebuildShows): Fact {
  if (!pool) return fails(`mcp/${name} does not exist`);
  const is = (type: string) => findCondition(pool.status?.conditions, type)?.status === 'True';
  const notUpdated = is('Updated') ? fails(`mcp/${name} is Updated (${poolLine(pool)}) although its build ${build} failed`) : holds(`mcp/${name} is not Updated`);
  if (shows === 'image-build-degraded') {
    const c = findCondition(pool.status?.conditions, 'ImageBuildDegraded');
    const message = imageBuildDegradedMessage(name, build);
    const degraded =
      c?.status === 'True' && c.reason === 'BuildFailed' && c.message === message
        ? holds(`mcp/${name} ImageBuildDegraded=True (BuildFailed) "${message}"`)
        : fails(`mcp/${name} has ${conditionLine(pool, 'ImageBuildDegraded')}, expected ImageBuildDegraded=True (BuildFailed) "${message}"`);
    return allOf(degraded, notUpdated);
  }
  const updating = is('Updating') ? holds(`mcp/${name} is Updating`) : fails(`mcp/${name} is not Updating (${conditionLine(pool, 'Updating')}), expected it to stay Updating while its build ${build} failed`);
  const notDegraded = is('Degraded') ? fails(`mcp/${name} is Degraded (${conditionLine(pool, 'Degraded')}), expected a failed build to leave it Updating, not Degraded, on this release`) : holds(`mcp/${name} is not Degraded`);
  const noBuildDegraded = is('ImageBuildDegraded') ? fails(`mcp/${name} has ${conditionLine(pool, 'ImageBuildDegraded')}, which this release does not set for a rebuild after a success`) : holds(`mcp/${name} has no ImageBuildDegraded=True`);
  return allOf(updating, notDegraded, noBuildDegraded, notUpdated);
}

/** Waits until the pool shows the failed build as the release `rules` (the cluster's now) does. */
export async function waitForPoolToShowFailedBuild(session: FlowSession, rules: ReleaseRules, pool: string, build: string): Promise<void> {
  const shows = failedRebuildShows(rules);
  const what = shows === 'image-build-degraded' ? `ImageBuildDegraded=True naming machineosbuild/${build}` : 'Updating, not Degraded';
  await step(`mcp/${pool} shows the failed build as OpenShift ${rules.release} does: ${what}, not Updated`, async () => {
    const snap = await waitFor(
      session.waits.watcher,
      {
        what: `mcp/${pool} to show that machineosbuild/${build} failed`,
        expected: `mcp/${pool} on OpenShift ${rules.release}: ${what}; Updated not True`,
        budgetMs: budgetMs(session.waits, POOL_CONDITIONS_CLUSTER_MINUTES),
        caps: session.waits.caps,
        judge: (s: ClusterSnapshot) => {
          const fact = poolShowsFailedBuild(s.pools.get(pool), pool, build, shows);
          return { done: fact.ok, progress: fact.why };
        },
        describe: (s: ClusterSnapshot) => {
          const p = s.pools.get(pool);
          return p ? `mcp/${pool} ${poolLine(p)}; ${['Updating', 'Degraded', 'ImageBuildDegraded'].map((t) => conditionLine(p, t)).join('; ')}` : `mcp/${pool} does not exist`;
        },
      },
      session.waits.progress,
    );
    await attachText(`mcp/${pool} conditions`, JSON.stringify(snap.pools.get(pool)?.status?.conditions ?? [], null, 2));
  }, session.waits.caps);
}

/** Every node of the pool still runs `before` (its rendered config and image) and booted its image. */
export async function checkPoolStillOnBuild(session: FlowSession, pool: string, before: RolledOutBuild, failed: string): Promise<void> {
  const pools = await session.cluster.listMachineConfigPools();
  const p = pools.find((x) => x.metadata.name === pool);
  if (!p) throw new Error(`mcp/${pool} does not exist`);
  const nodes = nodesOfPool(p, pools, await session.cluster.listNodes());
  if (nodes.length === 0) throw new Error(`mcp/${pool} has no nodes`);
  const expectation: NodeExpectation = { image: before.image, why: `image of machineosbuild/${before.build.metadata.name}, which the pool keeps while machineosbuild/${failed} failed` };
  const checks = nodeChecks(expectation);
  const reads = readNodes(session.cluster, session.kubeconfig, nodes, checks.map((c) => c.probe), { [RunIdLabel]: session.target.runId }, session.target.nodeReads);
  try {
    for (const [i, node] of nodes.entries()) {
      const name = node.metadata?.name ?? '?';
      await step(`node ${name} still runs ${before.image} on ${before.rendered} while machineosbuild/${failed} failed`, async () => {
        expectFact(nodeOnImage(node, before.rendered, before.image));
        const read = await reads.reads[i]!;
        await attachText(`node ${name} asked: ${read.asked.how}`, read.asked.output);
        for (const check of checks) expectFact(check.judge(name, read.readings));
      });
    }
  } finally {
    await reads.settle();
  }
}

/** The pool came back: Updated, not Degraded, and no ImageBuildDegraded True left from the failed build. */
export async function checkPoolRecovered(session: FlowSession, pool: string): Promise<void> {
  await step(`mcp/${pool} recovered: Updated, not Degraded, no ImageBuildDegraded=True`, async () => {
    const p = await session.cluster.getMachineConfigPool(pool);
    await attachText(`mcp/${pool} conditions`, JSON.stringify(p.status?.conditions ?? [], null, 2));
    const is = (type: string) => findCondition(p.status?.conditions, type)?.status === 'True';
    expectFact(
      allOf(
        is('Updated') ? holds(`mcp/${pool} is Updated`) : fails(`mcp/${pool} is not Updated (${poolLine(p)})`),
        is('Degraded') ? fails(`mcp/${pool} is still Degraded (${conditionLine(p, 'Degraded')})`) : holds(`mcp/${pool} is not Degraded`),
        is('ImageBuildDegraded') ? fails(`mcp/${pool} still has ${conditionLine(p, 'ImageBuildDegraded')} after its new build succeeded`) : holds(`mcp/${pool} has no ImageBuildDegraded=True`),
      ),
    );
  });
}
