/**
 * Checks made of several assertions that more than one spec needs: "the upgrade completed" and "every node of this
 * pool runs this image". Each assertion is its own Allure step, so the report shows which one failed.
 */
import {
  expectHistoryCompleted,
  expectNodeBootedFrom,
  expectNodeOnConfig,
  expectOperatorHealthyAt,
  expectPackageInstalled,
  expectPoolUpdated,
  expectRenderedForRelease,
  expectRenderedOsImage,
} from './assertions.js';
import type { ConformanceSession } from './conformance.js';
import { readBootedImage, readInstalledPackage } from './node-os.js';
import { nodesOfPool } from './pools.js';
import { attachYaml, step } from './report.js';
import { attachTimelineChart } from './report/timeline-attachment.js';
import { expect } from 'chai';

/** machine-config CO healthy at the version, ClusterVersion history Completed at it, every pool updated. */
export async function checkUpgradeCompleted(session: ConformanceSession, version: string): Promise<void> {
  const { cluster } = session;
  await step(`clusteroperator/machine-config is Available, not Degraded, at ${version}`, async () => {
    const co = await cluster.getClusterOperator('machine-config');
    await attachYaml('clusteroperator-machine-config.yaml', co);
    expectOperatorHealthyAt(co, version);
  });
  await step(`clusterversion/version history is Completed at ${version}`, async () => {
    const cv = await cluster.getClusterVersion();
    await attachYaml('clusterversion.yaml', cv);
    expectHistoryCompleted(cv, version);
  });
  await step('every MachineConfigPool is updated', async () => {
    const pools = await cluster.listMachineConfigPools();
    await attachYaml('machineconfigpools.yaml', pools);
    expect(pools.length, 'the cluster has no MachineConfigPools').to.be.greaterThan(0);
    for (const pool of pools) expectPoolUpdated(pool);
  });
}

/** The monitor's invariants over the upgrade it recorded; attaches the timeline either way. */
export async function checkUpgradeInvariants(session: ConformanceSession): Promise<void> {
  const monitor = session.monitor;
  if (!monitor) throw new Error('no upgrade monitor was started: call session.startMonitor() before triggering the upgrade');
  monitor.stop();
  const results = monitor.judge();
  await attachYaml('upgrade-timeline.yaml', monitor.timeline);
  await attachTimelineChart({ timeline: monitor.timeline, invariants: results, timeFactor: session.caps.timeFactor });
  await attachYaml('upgrade-invariants.yaml', results);
  for (const r of results) {
    await step(`invariant: ${r.name}`, async () => {
      if (!r.passed) expect.fail(`invariant broken: ${r.name}: ${r.detail}`);
    });
  }
}

export interface PoolImageExpectation {
  pool: string;
  /** The pullspec every node of the pool must have booted, and the pool's rendered config must carry. */
  image: string;
  /** Why this image is expected, for failure messages ("custom image of tc-54183-...", "new release's rhel-coreos-8"). */
  why: string;
  /** A package the image must contain (the layered image adds zsh). */
  package?: string;
  /** After an upgrade: the rendered config must be the one made for this release. */
  releaseVersion?: string;
}

/** The pool's rendered config carries the image; every node is Done on that config, booted from it (+ package). */
export async function checkPoolRunsImage(session: ConformanceSession, expectation: PoolImageExpectation): Promise<void> {
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
  });
  const nodes = nodesOfPool(pool, pools, await cluster.listNodes());
  expect(nodes.length, `mcp/${expectation.pool} has no nodes`).to.be.greaterThan(0);
  for (const node of nodes) {
    const name = node.metadata?.name ?? '?';
    await step(`node ${name} is on ${renderedName} and booted ${expectation.image}${expectation.package ? ` with ${expectation.package}` : ''}`, async () => {
      expectNodeOnConfig(node, renderedName);
      const booted = await readBootedImage(node, session.kubeconfig);
      expectNodeBootedFrom(name, booted, expectation.image, expectation.why);
      if (expectation.package) {
        const nvr = await readInstalledPackage(node, session.kubeconfig, expectation.package);
        expectPackageInstalled(name, expectation.package, nvr, booted.image);
      }
    });
  }
}
