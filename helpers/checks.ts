/**
 * Checks made of several assertions that more than one spec needs: "the upgrade completed" and "every node of this
 * pool runs this image". Each assertion is its own Allure step, so the report shows which one failed.
 */
import { expect } from 'chai';
import {
  expectFact,
  expectNodeOnConfig,
  expectOperatorSettledAt,
  expectPoolRolledOut,
  expectRenderedForRelease,
  expectRenderedOsImage,
  expectUpgradeCompleted,
} from './assertions.js';
import type { ConformanceSession } from './conformance.js';
import { inheritingPools, nodesOfPool } from './facts/pool.js';
import { nodeArchitectureOf } from './build-architectures.js';
import { isSuiteCustomPool } from './plan/custom-pools.js';
import type { CompletedUpgrade } from './flows.js';
import { readNodes } from './node-reads.js';
import { describeNodeExpectation, nodeChecks, type NodeExpectation } from './node-probes-expected.js';
import { attachText, attachYaml, step } from './report.js';
import { checkOverrideAnnouncedOnce } from './override-announcement.js';
import { RenderedAnnotations, RunIdLabel } from './types.js';
import { reportUpgradeInvariants } from './report/invariant-steps.js';
import { splitLeftOutPools } from './upgrade-left-pools.js';

/** machine-config settled at the version, ClusterVersion done with the upgrade to it, every pool rolled out. */
export async function checkUpgradeCompleted(session: ConformanceSession, version: string): Promise<void> {
  const { cluster } = session;
  await step(`clusteroperator/machine-config is Available, not Degraded, not Progressing, at ${version}`, async () => {
    const co = await cluster.getClusterOperator('machine-config');
    await attachYaml('clusteroperator-machine-config.yaml', co);
    expectOperatorSettledAt(co, version);
  });
  await step(`clusterversion/version completed the upgrade to ${version}`, async () => {
    const cv = await cluster.getClusterVersion();
    await attachYaml('clusterversion.yaml', cv);
    expectUpgradeCompleted(cv, version);
  });
  await step('every MachineConfigPool has rolled out its config', async () => {
    const pools = await cluster.listMachineConfigPools();
    await attachYaml('machineconfigpools.yaml', pools);
    expect(pools.length, 'the cluster has no MachineConfigPools').to.be.greaterThan(0);
    // a pool another spec left out of the upgrade is judged by that spec (helpers/upgrade-left-pools.ts)
    const { judged, leftOut } = splitLeftOutPools(pools);
    for (const { pool, why } of leftOut) await attachText(`pool ${pool.metadata.name} left out`, why);
    for (const pool of judged) expectPoolRolledOut(pool);
  });
}

/**
 * The monitor's invariants over what it recorded during a completed upgrade, judged and reported here once (an upgrade
 * that did not complete has no check phase: its flow reports them); attaches the recording and its chart either way.
 */
export async function checkUpgradeInvariants(upgrade: CompletedUpgrade): Promise<void> {
  // every hop of a path is an upgrade of its own: each is judged, the first broken invariant fails the check
  const broken = [];
  for (const hop of [...(upgrade.earlierHops ?? []), upgrade]) broken.push(...(await reportUpgradeInvariants(hop.recording)).broken);
  if (broken.length) throw broken[0];
}

/**
 * What every node of the pool must show (NodeExpectation: the booted image, which the pool's rendered config must
 * carry too, and packages, kernel arguments, kernel type, files, units), and why.
 */
export interface PoolImageExpectation extends NodeExpectation {
  pool: string;
  /** After an upgrade: the rendered config must be the one made for this release. */
  releaseVersion?: string;
}

/** The pool's rendered config carries the image; every node is Done on that config and shows what is expected. */
export async function checkPoolRunsImage(session: ConformanceSession, asked: PoolImageExpectation): Promise<void> {
  const expectation = { ...asked, pool: session.poolFor(asked.pool) };
  await judgePoolRunsImage(session, expectation);
  // a pool that takes this pool's configs too (an infra pool takes worker's) must show the same, where it has nodes
  const pools = await session.cluster.listMachineConfigPools();
  for (const [inheritor] of inheritingPools([expectation.pool], pools.filter((p) => !isSuiteCustomPool(p)))) {
    if (session.poolHasNodes(inheritor)) await judgePoolRunsImage(session, { ...expectation, pool: inheritor, why: `${expectation.why}, taken by pool ${inheritor} from ${expectation.pool}` });
  }
}

async function judgePoolRunsImage(session: ConformanceSession, expectation: PoolImageExpectation): Promise<void> {
  const { cluster } = session;
  const pools = await cluster.listMachineConfigPools();
  const pool = pools.find((p) => p.metadata.name === expectation.pool);
  if (!pool) expect.fail(`mcp/${expectation.pool} does not exist`);
  const renderedName = pool.status?.configuration?.name ?? '';
  await step(`mcp/${expectation.pool} rendered config carries ${expectation.image}`, async () => {
    const rendered = renderedName ? await cluster.getMachineConfig(renderedName) : undefined;
    if (rendered) await attachYaml(`${renderedName}.yaml`, rendered);
    expectRenderedOsImage(pool, rendered, expectation.image, expectation.why);
    if (expectation.releaseVersion) expectRenderedForRelease(rendered!, expectation.releaseVersion);
    if (rendered?.metadata?.annotations?.[RenderedAnnotations.osImageUrlOverridden] === 'true') {
      // a release newer than the table is not judged on it: the suite cannot vouch for its rules
      const known = session.release();
      await checkOverrideAnnouncedOnce(cluster, renderedName, known.vouched ? known.rules : undefined);
    }
  });
  const nodes = nodesOfPool(pool, pools, await cluster.listNodes());
  expect(nodes.length, `mcp/${expectation.pool} has no nodes`).to.be.greaterThan(0);
  // an image built per architecture: each node is compared with its own architecture's image
  const architectures = new Map(nodes.map((n) => [n.metadata?.name ?? '?', nodeArchitectureOf(n)]));
  const checks = nodeChecks(expectation.platforms?.length ? { ...expectation, architectureOf: (name) => architectures.get(name) ?? 'amd64' } : expectation);
  // one command on each node (in its daemon pod, or a debug pod) answers every probe; the pool's nodes are read at
  // once and judged in order
  const nodeReads = readNodes(cluster, session.kubeconfig, nodes, checks.map((c) => c.probe), { [RunIdLabel]: session.target.runId }, session.target.nodeReads);
  try {
    for (const [i, node] of nodes.entries()) {
      const name = node.metadata?.name ?? '?';
      const own = expectation.platforms?.length ? ` (its ${architectures.get(name)} image)` : '';
      await step(`node ${name} is on ${renderedName} and booted ${expectation.image}${own}${describeNodeExpectation(expectation)}`, async () => {
        expectNodeOnConfig(node, renderedName);
        const read = await nodeReads.reads[i]!;
        await attachText(`node ${name} asked: ${read.asked.how}`, read.asked.output);
        for (const check of checks) expectFact(check.judge(name, read.readings));
      });
    }
  } finally {
    await nodeReads.settle();
  }
}
