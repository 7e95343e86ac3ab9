/**
 * chai assertions in the vocabulary of the report. Each one fails with the `why` of a fact (helpers/facts), which
 * names the object, what was expected and what the cluster says, quoting the operator's own condition message,
 * because that is what a person acts on.
 */
import { expect } from 'chai';
import type { BootedImage } from './node-probes.js';
import { operatorSettledAt } from './facts/cluster-operator.js';
import { upgradeCompleted } from './facts/cluster-version.js';
import type { Fact } from './facts/fact.js';
import { renderedForRelease, renderedOsImage } from './facts/machine-config.js';
import { nodeBootedImage, nodeDoneOn, nodeHasPackage } from './facts/node.js';
import { poolRolledOut } from './facts/pool.js';
import type { ClusterOperator, ClusterVersion, MachineConfig, MachineConfigPool, Node } from './types.js';
import { maskSecrets } from './secrets.js';

function fail(message: string): never {
  expect.fail(maskSecrets(message));
}

/** Passes when the fact holds; fails with its why (after `context`, when given). */
export function expectFact(fact: Fact, context?: string): void {
  if (!fact.ok) fail(context ? `${context}${fact.why}` : fact.why);
}

export function expectOperatorSettledAt(co: ClusterOperator, version: string): void {
  expectFact(operatorSettledAt(co, version));
}

export function expectUpgradeCompleted(cv: ClusterVersion, version: string): void {
  expectFact(upgradeCompleted(cv, { version }));
}

export function expectPoolRolledOut(pool: MachineConfigPool): void {
  expectFact(poolRolledOut(pool));
}

/** The rendered config the pool rolled out carries the expected OS image; `why` says why that image is expected. */
export function expectRenderedOsImage(pool: MachineConfigPool, rendered: MachineConfig | undefined, expectedImage: string, why: string): void {
  if (!rendered) fail(`mcp/${pool.metadata.name}: its rendered config ${pool.status?.configuration?.name ?? '(none)'} does not exist`);
  const fact = renderedOsImage(rendered, expectedImage);
  if (!fact.ok) fail(`mcp/${pool.metadata.name} ${fact.why} (${why})`);
}

export function expectRenderedForRelease(rendered: MachineConfig, version: string): void {
  expectFact(renderedForRelease(rendered, rendered.metadata.name, version));
}

export function expectNodeOnConfig(node: Node, rendered: string): void {
  expectFact(nodeDoneOn(node, rendered));
}

/** The node booted the image; by digest when the expected pullspec carries one. */
export function expectNodeBootedFrom(nodeName: string, booted: BootedImage, expectedImage: string, why: string): void {
  expectFact(nodeBootedImage(nodeName, booted, expectedImage, why));
}

export function expectPackageInstalled(nodeName: string, pkg: string, nvr: string | undefined, image: string): void {
  expectFact(nodeHasPackage(nodeName, pkg, nvr, image, 'the layered image adds it'));
}
