/**
 * Judging an image-mode pool after a build rolled out (modern-mco.md §1.7; QE's ValidateSuccessfulMOSC): the
 * MachineOSConfig points at the build (status.currentImagePullSpec = the build's digestedImagePushSpec), and every
 * node of the pool is Done on the build's rendered config with desiredImage = currentImage = that image, and boots it
 * as `rpm-ostree status` says, with the content its Containerfile layered. The rendered config's osImageURL is the
 * release's base, not what such a node boots, so it is not judged here. Each assertion is its own Allure step.
 */
import { expect } from 'chai';
import { expectFact } from '../assertions.js';
import { nodesOfPool } from '../facts/pool.js';
import type { FlowSession } from '../flows.js';
import { readNodes } from '../node-reads.js';
import { describeNodeExpectation, nodeChecks, type NodeExpectation } from '../node-probes-expected.js';
import { attachText, attachYaml, step } from '../report.js';
import { RunIdLabel } from '../types.js';
import { builtFrom, imageLabels } from './built-image.js';
import { readMachineOSConfig, type RolledOutBuild } from './flow.js';
import { nodeOnImage } from './rollout-waits.js';
import { CURRENT_BUILD_ANNOTATION } from './types.js';

export interface ImageModePoolExpectation extends Omit<NodeExpectation, 'image' | 'why'> {
  pool: string;
  machineOSConfig: string;
  rolledOut: RolledOutBuild;
  /** The base OS image the build must be labelled as built FROM (the release's, per modern-mco.md §1.5). */
  base?: string;
}

export async function checkImageModePool(session: FlowSession, e: ImageModePoolExpectation): Promise<void> {
  const { build, image, rendered } = e.rolledOut;
  const name = build.metadata.name ?? '?';
  await step(`machineosconfig/${e.machineOSConfig} points at machineosbuild/${name} (${image})`, async () => {
    const mosc = await readMachineOSConfig(session, e.machineOSConfig);
    await attachYaml(`machineosconfig-${e.machineOSConfig}.yaml`, mosc);
    expect(mosc.status?.currentImagePullSpec, `machineosconfig/${e.machineOSConfig} status.currentImagePullSpec (the image of its current build ${name})`).to.equal(image);
    const current = mosc.metadata.annotations?.[CURRENT_BUILD_ANNOTATION];
    expect(current, `machineosconfig/${e.machineOSConfig} annotation ${CURRENT_BUILD_ANNOTATION}`).to.equal(name);
  });
  if (e.base) {
    await step(`the image of machineosbuild/${name} was built FROM ${e.base}`, async () => {
      const labels = await imageLabels(session.access, session.cluster, image);
      await attachYaml('image labels', labels);
      expectFact(builtFrom(image, labels, { base: e.base!, rendered, pool: e.pool }));
    });
  }
  const pools = await session.cluster.listMachineConfigPools();
  const pool = pools.find((p) => p.metadata.name === e.pool);
  if (!pool) expect.fail(`mcp/${e.pool} does not exist`);
  expect(pool.spec?.configuration?.name, `mcp/${e.pool} targets the rendered config machineosbuild/${name} was built for`).to.equal(rendered);
  const nodes = nodesOfPool(pool, pools, await session.cluster.listNodes());
  expect(nodes.length, `mcp/${e.pool} has no nodes`).to.be.greaterThan(0);
  const expectation: NodeExpectation = { ...e, image, why: `image of machineosbuild/${name}, the current build of machineosconfig/${e.machineOSConfig}` };
  const checks = nodeChecks(expectation);
  const reads = readNodes(session.cluster, session.kubeconfig, nodes, checks.map((c) => c.probe), { [RunIdLabel]: session.target.runId }, session.target.nodeReads);
  try {
    for (const [i, node] of nodes.entries()) {
      const nodeName = node.metadata?.name ?? '?';
      await step(`node ${nodeName} is Done on ${rendered} with currentImage ${image} and booted it${describeNodeExpectation(expectation)}`, async () => {
        expectFact(nodeOnImage(node, rendered, image));
        const read = await reads.reads[i]!;
        await attachText(`node ${nodeName} asked: ${read.asked.how}`, read.asked.output);
        for (const check of checks) expectFact(check.judge(nodeName, read.readings));
      });
    }
  } finally {
    await reads.settle();
  }
}
