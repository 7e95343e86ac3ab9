/**
 * chai assertions in the vocabulary of the report. Each failure message says which object, what was expected and what
 * the cluster says, quoting the operator's own condition message, because that is what a person acts on.
 */
import { expect } from 'chai';
import type { BootedImage } from './node-os.js';
import { viewNode, viewPool } from './pools.js';
import { findCondition, RenderedAnnotations, type ClusterOperator, type ClusterVersion, type MachineConfig, type MachineConfigPool, type Node } from './types.js';
import { maskSecrets } from './secrets.js';

function fail(message: string): never {
  expect.fail(maskSecrets(message));
}

function quote(text: string | undefined): string {
  return text ? `"${text}"` : '(no message)';
}

/** Available=True, Degraded=False, Progressing=False and `versions[operator]` at the expected version. */
export function expectOperatorHealthyAt(co: ClusterOperator, version: string): void {
  const name = `clusteroperator/${co.metadata.name}`;
  const c = co.status?.conditions;
  const degraded = findCondition(c, 'Degraded');
  if (degraded?.status !== 'False') {
    fail(`${name} is Degraded=${degraded?.status ?? 'unset'} (reason ${degraded?.reason || 'none'}): ${quote(degraded?.message)}`);
  }
  const available = findCondition(c, 'Available');
  if (available?.status !== 'True') fail(`${name} is Available=${available?.status ?? 'unset'}: ${quote(available?.message)}`);
  const operatorVersion = co.status?.versions?.find((v) => v.name === 'operator')?.version;
  if (operatorVersion !== version) {
    const progressing = findCondition(c, 'Progressing');
    fail(`${name} reports version ${operatorVersion ?? 'none'}, expected ${version}; Progressing=${progressing?.status ?? 'unset'}: ${quote(progressing?.message)}`);
  }
  const progressing = findCondition(c, 'Progressing');
  if (progressing?.status === 'True') fail(`${name} is still Progressing: ${quote(progressing.message)}`);
}

/** history[0] is Completed for the version, and the ClusterVersion is not failing. */
export function expectHistoryCompleted(cv: ClusterVersion, version: string): void {
  const head = cv.status?.history?.[0];
  if (!head) fail('clusterversion/version has no update history');
  if (head.version !== version || head.state !== 'Completed') {
    const progressing = findCondition(cv.status?.conditions, 'Progressing');
    fail(
      `clusterversion/version history[0] is ${head.state} ${head.version ?? head.image}, expected Completed ${version}; Progressing: ${quote(progressing?.message)}`,
    );
  }
  const failing = findCondition(cv.status?.conditions, 'Failing');
  if (failing?.status === 'True') fail(`clusterversion/version is Failing: ${quote(failing.message)}`);
}

/** Updated=True, Updating=False, Degraded=False, every machine updated; otherwise the pool's own words. */
export function expectPoolUpdated(pool: MachineConfigPool): void {
  const v = viewPool(pool);
  if (v.degraded) {
    fail(`mcp/${v.name} is Degraded: ${quote(v.nodeDegradedMessage ?? v.renderDegradedMessage)}`);
  }
  if (!v.updated || v.updating || v.updatedMachineCount !== v.machineCount) {
    const updating = findCondition(pool.status?.conditions, 'Updating');
    fail(`mcp/${v.name} is not updated: Updated=${v.updated} Updating=${v.updating}, ${v.updatedMachineCount}/${v.machineCount} machines updated: ${quote(updating?.message)}`);
  }
}

/** The rendered MachineConfig the pool rolled out carries the expected OS image. */
export function expectRenderedOsImage(pool: MachineConfigPool, rendered: MachineConfig | undefined, expectedImage: string, why: string): void {
  const name = pool.status?.configuration?.name;
  if (!rendered) fail(`mcp/${pool.metadata.name}: its rendered config ${name ?? '(none)'} does not exist`);
  const actual = rendered.spec?.osImageURL;
  if (actual !== expectedImage) {
    fail(`mcp/${pool.metadata.name} rendered config ${rendered.metadata.name} has osImageURL ${actual ?? '(empty)'}, expected ${expectedImage} (${why})`);
  }
}

/** The rendered config was made for the release (annotation release-image-version). */
export function expectRenderedForRelease(rendered: MachineConfig, version: string): void {
  const actual = rendered.metadata.annotations?.[RenderedAnnotations.releaseImageVersion];
  if (actual !== version) fail(`rendered config ${rendered.metadata.name} is for release ${actual ?? '(not annotated)'}, expected ${version}`);
}

/** The node is done on the rendered config. */
export function expectNodeOnConfig(node: Node, rendered: string): void {
  const n = viewNode(node);
  if (n.current !== rendered || n.desired !== rendered || n.state !== 'Done') {
    fail(`node ${n.name} is on ${n.current ?? '(none)'} (desired ${n.desired ?? '(none)'}, state ${n.state ?? 'unset'}${n.reason ? `: ${quote(n.reason)}` : ''}), expected Done on ${rendered}`);
  }
}

/** The node booted the image; by digest when the expected pullspec carries one. */
export function expectNodeBootedFrom(nodeName: string, booted: BootedImage, expectedImage: string, why: string): void {
  const expectedDigest = /@(sha256:[0-9a-f]{64})$/.exec(expectedImage)?.[1];
  const ok = expectedDigest ? booted.digest === expectedDigest || booted.image.endsWith(`@${expectedDigest}`) : booted.image === expectedImage;
  if (!ok) {
    fail(`node ${nodeName} booted ${booted.image}${booted.digest ? ` (digest ${booted.digest})` : ''} according to ${booted.source}, expected ${expectedImage} (${why})`);
  }
}

export function expectPackageInstalled(nodeName: string, pkg: string, nvr: string | undefined, image: string): void {
  if (!nvr) fail(`node ${nodeName}: package ${pkg} is not installed in the booted image ${image}; the layered image adds it`);
}
