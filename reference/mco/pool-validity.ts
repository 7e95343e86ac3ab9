/**
 * The operator's check that a pool has fully rolled out its latest configuration (`isMachineConfigPoolConfigurationValid`
 * of pkg/operator/status.go, spec §1.3), with the pool summary its errors end in. Its own module so the differential
 * tests against the upstream code (test/reference/upstream/) exercise exactly what the operator calls.
 */
import { ANN } from '../constants.js';
import type { MachineConfig, MachineConfigPool } from './types.js';
import { isConditionTrue } from './node-status.js';
import { goQuote } from './go-quote.js';

export { goQuote };

/**
 * machineConfigPoolStatus: the one-line summary used in error texts and status.extension. Of two conditions of one
 * type, 4.12 reads the first, release-4.13's GetMachineConfigPoolCondition the last (`lastConditionWins`); the
 * True-checks read the first in both.
 */
export function machineConfigPoolStatus(pool: MachineConfigPool, lastConditionWins = false): string {
  const conditions = pool.status?.conditions;
  // the branch is taken on the first condition of the type; its text comes from the one GetMachineConfigPoolCondition picks
  const textOf = (type: string) => (lastConditionWins ? [...(conditions ?? [])].reverse() : conditions ?? []).find((c) => c.type === type)!;
  if (isConditionTrue(conditions, 'RenderDegraded')) {
    const renderDegraded = textOf('RenderDegraded');
    return `pool is degraded because rendering fails with ${goQuote(renderDegraded.reason ?? '')}: ${goQuote(renderDegraded.message ?? '')}`;
  }
  if (isConditionTrue(conditions, 'NodeDegraded')) {
    const nodeDegraded = textOf('NodeDegraded');
    return `pool is degraded because nodes fail with ${goQuote(nodeDegraded.reason ?? '')}: ${goQuote(nodeDegraded.message ?? '')}`;
  }
  const status = pool.status ?? {};
  if (isConditionTrue(conditions, 'Updated')) {
    return `all ${status.machineCount ?? 0} nodes are at latest configuration ${status.configuration?.name ?? ''}`;
  }
  if (isConditionTrue(conditions, 'Updating')) {
    return `${status.updatedMachineCount ?? 0} (ready ${status.readyMachineCount ?? 0}) out of ${status.machineCount ?? 0} nodes are updating to latest configuration ${pool.spec.configuration?.name ?? ''}`;
  }
  return '<unknown>';
}

export type MachineConfigGetter = (name: string) => MachineConfig;

export function notFoundError(name: string): Error {
  return new Error(`machineconfig.machineconfiguration.openshift.io "${name}" not found`);
}

export interface ValidityInput {
  pool: MachineConfigPool;
  /** The operator's version.Hash. */
  controllerVersion: string;
  releaseVersion: string;
  /** The expected OS image (the configmap value the profile reads). */
  osImageURL: string;
  get: MachineConfigGetter;
  /** FIX: skip row 7 when the rendered MC carries the os-image-url-overridden annotation. */
  skipOverriddenOsImage: boolean;
  /** release-4.13: the pool summary reads the last condition of a type (machineConfigPoolStatus). */
  lastConditionWins?: boolean;
}

/** isMachineConfigPoolConfigurationValid: returns the first failing row's error, or undefined. */
export function isMachineConfigPoolConfigurationValid(input: ValidityInput): Error | undefined {
  const { pool, controllerVersion, releaseVersion, osImageURL, get } = input;
  const name = pool.metadata.name ?? '';
  if (!pool.spec.configuration?.name) {
    return new Error(`configuration spec for pool ${name} is empty: ${machineConfigPoolStatus(pool, input.lastConditionWins)}`);
  }
  const statusName = pool.status?.configuration?.name ?? '';
  if (!statusName) {
    return new Error(`configuration status for pool ${name} is empty: ${machineConfigPoolStatus(pool, input.lastConditionWins)}`);
  }
  const sources = pool.status?.configuration?.source ?? [];
  if (sources.length === 0) {
    return new Error(
      `list of MachineConfigs that were used to generate configuration for pool ${name} is empty: ${machineConfigPoolStatus(pool, input.lastConditionWins)}`,
    );
  }
  let rendered: MachineConfig | undefined;
  for (const mcName of [statusName, ...sources.map((s) => s.name)]) {
    let mc: MachineConfig;
    try {
      mc = get(mcName);
    } catch (error) {
      return error as Error;
    }
    const isRendered = mcName === statusName;
    if (isRendered) rendered = mc;
    const hash = mc.metadata.annotations?.[ANN.generatedByControllerVersion];
    if (hash === undefined) {
      if (isRendered) {
        return new Error(`${mcName} must be created by controller version ${controllerVersion}: ${machineConfigPoolStatus(pool, input.lastConditionWins)}`);
      }
      continue; // user MachineConfigs carry no controller annotation and are not checked
    }
    if (hash !== controllerVersion) {
      return new Error(
        `controller version mismatch for ${mcName} expected ${controllerVersion} has ${hash}: ${machineConfigPoolStatus(pool, input.lastConditionWins)}`,
      );
    }
  }
  const renderedMc = rendered!;
  const actualUrl = renderedMc.spec?.osImageURL ?? '';
  if (actualUrl !== osImageURL) {
    const overridden = renderedMc.metadata.annotations?.[ANN.osImageUrlOverridden] !== undefined;
    if (!(input.skipOverriddenOsImage && overridden)) {
      return new Error(`osImageURL mismatch for ${name} in ${statusName} expected: ${osImageURL} got: ${actualUrl}`);
    }
  }
  const release = renderedMc.metadata.annotations?.[ANN.releaseImageVersion];
  if (release === undefined) {
    return new Error(`Unable to access annotation ${ANN.releaseImageVersion} for ${statusName} expected: ${releaseVersion}`);
  }
  if (release !== releaseVersion) {
    return new Error(`release image version mismatch for ${name} in ${statusName} expected: ${releaseVersion} got: ${release}`);
  }
  return undefined;
}
