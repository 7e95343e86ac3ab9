/**
 * The operator's pure status logic (spec §1.2, §5): one tick of the required-pools poll and the ClusterOperator
 * conditions. The pool configuration check itself lives in pool-validity.ts.
 */
import { LABEL, MC_GROUP, MCO_NAMESPACE } from '../constants.js';
import type { Condition, MachineConfigPool } from './types.js';
import type { RequiredPoolsCode } from '../profiles/profile.js';
import { getCondition, isConditionTrue } from './node-status.js';
import { ON_PREM_INFRA_NAMESPACES } from './namespaces.js';
import { goQuote, isMachineConfigPoolConfigurationValid, type MachineConfigGetter } from './pool-validity.js';

export {
  goQuote,
  isMachineConfigPoolConfigurationValid,
  machineConfigPoolStatus,
  notFoundError,
  type MachineConfigGetter,
  type ValidityInput,
} from './pool-validity.js';

export function isRequiredPool(pool: MachineConfigPool): boolean {
  return Object.prototype.hasOwnProperty.call(pool.metadata.labels ?? {}, LABEL.requiredForUpgrade);
}

export interface RequiredPoolsTickInput {
  pools: readonly MachineConfigPool[];
  controllerVersion: string;
  releaseVersion: string;
  /** The expected OS image, or the error reading it from the configmap. */
  expectedOsImage: () => string;
  get: MachineConfigGetter;
  skipOverriddenOsImage: boolean;
  lastConditionWins?: boolean;
  /** The release's loop: its texts (4.12's when not given). */
  code?: RequiredPoolsCode;
}

const REQUIRED_POOLS_4_12: RequiredPoolsCode = { timeoutPerRequiredMachine: false, poolNoun: 'pool', degradedNamesReason: false, pausedTexts: '4.12' };

export type RequiredPoolsTick =
  | { kind: 'done' }
  | { kind: 'retry'; lastError?: string; logged?: string }
  | { kind: 'stop'; error: string; lastError: string; /** 4.16+: the error ends the sync as it is, outside the aggregate */ alone?: boolean };

/**
 * One check of the required-pools poll. `retry` keeps `lastError` when it is undefined (the configmap read failure
 * only logs, as upstream does).
 */
export function requiredPoolsTick(input: RequiredPoolsTickInput): RequiredPoolsTick {
  const code = input.code ?? REQUIRED_POOLS_4_12;
  for (const pool of input.pools) {
    const name = pool.metadata.name ?? '';
    const status = pool.status ?? {};
    const conditions = pool.status?.conditions;
    if (isConditionTrue(conditions, 'Degraded')) {
      const reason = code.degradedNamesReason ? `, reason: ${getCondition(conditions, 'Degraded')?.message ?? ''}` : '';
      return {
        kind: 'retry',
        lastError: `error ${code.poolNoun} ${name} is not ready, retrying. Status: (pool degraded: true total: ${status.machineCount ?? 0}, ready ${status.readyMachineCount ?? 0}, updated: ${status.updatedMachineCount ?? 0}, unavailable: ${status.unavailableMachineCount ?? 0}${reason})`,
      };
    }
    if (!isRequiredPool(pool)) continue;
    let osUrl: string;
    try {
      osUrl = input.expectedOsImage();
    } catch (error) {
      return { kind: 'retry', logged: `Error getting configmap osImageURL: ${goQuote((error as Error).message)}` };
    }
    const invalid = isMachineConfigPoolConfigurationValid({
      pool,
      controllerVersion: input.controllerVersion,
      releaseVersion: input.releaseVersion,
      osImageURL: osUrl,
      get: input.get,
      skipOverriddenOsImage: input.skipOverriddenOsImage,
      lastConditionWins: input.lastConditionWins,
    });
    if (invalid) {
      return { kind: 'retry', lastError: `${code.poolNoun} ${name} has not progressed to latest configuration: ${invalid.message}, retrying` };
    }
    const generation = pool.metadata.generation ?? 0;
    if (generation <= (status.observedGeneration ?? 0) && isConditionTrue(conditions, 'Updated')) continue;
    const lastError = `error required ${code.poolNoun} ${name} is not ready, retrying. Status: (total: ${status.machineCount ?? 0}, ready ${status.readyMachineCount ?? 0}, updated: ${status.updatedMachineCount ?? 0}, unavailable: ${status.unavailableMachineCount ?? 0}, degraded: ${status.degradedMachineCount ?? 0})`;
    if (pool.spec.paused && code.pausedTexts === '4.12') {
      return { kind: 'stop', lastError, error: `Required MachineConfigPool '${name}' is paused and can not sync until it is unpaused` };
    }
    if (pool.spec.paused) {
      const error = isConditionTrue(conditions, 'Updated')
        ? `the required MachineConfigPool ${name} was paused with no pending updates; no further syncing will occur until it is unpaused`
        : `error required MachineConfigPool ${name} is paused and cannot sync until it is unpaused`;
      return { kind: 'stop', lastError, error, alone: true };
    }
    return { kind: 'retry', lastError };
  }
  return { kind: 'done' };
}

export const WAIT_TIMEOUT_TEXT = 'timed out waiting for the condition';

/** The error returned when the poll times out: aggregate([ErrWaitTimeout, lastErr]). */
export function requiredPoolsTimeoutError(lastError: string | undefined): string {
  const aggregated = lastError ? `[${WAIT_TIMEOUT_TEXT}, ${lastError}]` : WAIT_TIMEOUT_TEXT;
  return `error during syncRequiredMachineConfigPools: ${aggregated}`;
}

// ---------------------------------------------------------------------------------------------------------------
// ClusterOperator conditions

export interface OperandVersion {
  name: string;
  version: string;
}

/** Go's %v of []OperandVersion, e.g. `[{operator 4.12.0-…}]`. */
export function goPrintVersions(versions: readonly OperandVersion[] | undefined): string {
  return `[${(versions ?? []).map((v) => `{${v.name} ${v.version}}`).join(' ')}]`;
}

/**
 * What the operator lists in ClusterOperator `status.relatedObjects` (syncRelatedObjects, pkg/operator/status.go, the
 * same at BUG-B and FIX), for must-gather: its namespace, the MCO's resources, nodes, and the on-prem infra namespaces.
 */
export const MCO_RELATED_OBJECTS: ReadonlyArray<{ group: string; resource: string; name: string }> = [
  { group: '', resource: 'namespaces', name: MCO_NAMESPACE },
  { group: MC_GROUP, resource: 'machineconfigpools', name: '' },
  { group: MC_GROUP, resource: 'controllerconfigs', name: '' },
  { group: MC_GROUP, resource: 'kubeletconfigs', name: '' },
  { group: MC_GROUP, resource: 'containerruntimeconfigs', name: '' },
  { group: MC_GROUP, resource: 'machineconfigs', name: '' },
  { group: '', resource: 'nodes', name: '' },
  ...ON_PREM_INFRA_NAMESPACES.map((name) => ({ group: '', resource: 'namespaces', name })),
];

export function operatorVersionOf(versions: readonly OperandVersion[] | undefined): string | undefined {
  return versions?.find((v) => v.name === 'operator')?.version;
}

/** library-go SetStatusCondition: lastTransitionTime moves only on a status flip; reason and message are overwritten. */
export function setOperatorCondition(conditions: Condition[], next: Condition, now: string): Condition[] {
  const index = conditions.findIndex((c) => c.type === next.type);
  if (index < 0) return [...conditions, { ...next, lastTransitionTime: now }];
  const current = conditions[index]!;
  const out = [...conditions];
  out[index] = { ...next, lastTransitionTime: current.status === next.status ? current.lastTransitionTime ?? now : now };
  return out;
}

export type SyncTask =
  | 'RenderConfig'
  | 'MachineConfigPools'
  | 'MachineConfigDaemon'
  | 'MachineConfigController'
  | 'MachineConfigServer'
  | 'MachineOSBuilder'
  | 'RequiredPools';

export const SYNC_TASKS: readonly SyncTask[] = [
  'RenderConfig',
  'MachineConfigPools',
  'MachineConfigDaemon',
  'MachineConfigController',
  'MachineConfigServer',
  'RequiredPools',
];

export interface OperatorStatusState {
  conditions: Condition[];
  versions: OperandVersion[];
}

/** syncProgressingStatus at the start of syncAll. Returns whether a version change started (for the event). */
export function syncProgressingStatus(state: OperatorStatusState, operatorVersion: string, now: string): { conditions: Condition[]; started: boolean } {
  const reported = operatorVersionOf(state.versions);
  if (reported === operatorVersion) {
    return {
      conditions: setOperatorCondition(state.conditions, { type: 'Progressing', status: 'False', reason: '', message: `Cluster version is ${operatorVersion}` }, now),
      started: false,
    };
  }
  const wasProgressing = isConditionTrue(state.conditions, 'Progressing');
  return {
    conditions: setOperatorCondition(state.conditions, { type: 'Progressing', status: 'True', reason: '', message: `Working towards ${operatorVersion}` }, now),
    started: !wasProgressing,
  };
}

/** clearDegradedStatus(task): only clears a Degraded whose reason is `<task>Failed`. */
export function clearDegradedStatus(conditions: Condition[], task: SyncTask, now: string): Condition[] {
  const degraded = getCondition(conditions, 'Degraded');
  if (degraded?.status !== 'True' || degraded.reason !== `${task}Failed`) return conditions;
  return setOperatorCondition(conditions, { type: 'Degraded', status: 'False', reason: '', message: '' }, now);
}

export interface SyncError {
  task: SyncTask;
  message: string;
}

/** syncDegradedStatus: on error, Degraded=True `<Task>Failed` and the Progressing message switches to the failure form. */
export function syncDegradedStatus(conditions: Condition[], error: SyncError | undefined, operatorVersion: string, versions: readonly OperandVersion[], now: string): Condition[] {
  if (!error) return conditions;
  const reported = operatorVersionOf(versions);
  const message =
    reported === operatorVersion
      ? `Failed to resync ${operatorVersion} because: ${error.message}`
      : `Unable to apply ${operatorVersion}: ${error.message}`;
  let out = setOperatorCondition(conditions, { type: 'Degraded', status: 'True', reason: `${error.task}Failed`, message }, now);
  const progressing = getCondition(out, 'Progressing');
  out =
    progressing?.status === 'True'
      ? setOperatorCondition(out, { type: 'Progressing', status: 'True', reason: progressing.reason ?? '', message: `Unable to apply ${operatorVersion}` }, now)
      : setOperatorCondition(out, { type: 'Progressing', status: 'False', reason: progressing?.reason ?? '', message: `Error while reconciling ${operatorVersion}` }, now);
  return out;
}

/** syncAvailableStatus: a RequiredPools failure never makes the operator unavailable. */
export function syncAvailableStatus(
  conditions: Condition[],
  error: SyncError | undefined,
  versions: readonly OperandVersion[],
  availableFalseHasReason: boolean,
  now: string,
): Condition[] {
  const printed = goPrintVersions(versions);
  if (error && error.task !== 'RequiredPools') {
    return setOperatorCondition(
      conditions,
      availableFalseHasReason
        ? { type: 'Available', status: 'False', reason: `${error.task}Failed`, message: `Cluster not available for ${printed}: ${error.message}` }
        : { type: 'Available', status: 'False', reason: '', message: `Cluster not available for ${printed}` },
      now,
    );
  }
  return setOperatorCondition(conditions, { type: 'Available', status: 'True', reason: 'AsExpected', message: `Cluster has deployed ${printed}` }, now);
}

/**
 * syncUpgradeableStatus from the pools' conditions. `poolUpdating`: whether an updating pool makes the operator not
 * upgradeable (reason PoolUpdating), as until 4.18 (dropped by MCO 377a78bb9 in 4.19 and backports to 4.16-4.18).
 */
export function syncUpgradeableStatus(conditions: Condition[], pools: readonly MachineConfigPool[], now: string, poolUpdating = true): Condition[] {
  const degraded = pools.some((p) => isConditionTrue(p.status?.conditions, 'Degraded'));
  const updating = pools.some((p) => isConditionTrue(p.status?.conditions, 'Updating'));
  if (degraded) {
    return setOperatorCondition(conditions, {
      type: 'Upgradeable',
      status: 'False',
      reason: 'DegradedPool',
      message: 'One or more machine config pools are degraded, please see `oc get mcp` for further details and resolve before upgrading',
    }, now);
  }
  if (updating && poolUpdating) {
    return setOperatorCondition(conditions, {
      type: 'Upgradeable',
      status: 'False',
      reason: 'PoolUpdating',
      message: 'One or more machine config pools are updating, please see `oc get mcp` for further details',
    }, now);
  }
  return setOperatorCondition(conditions, { type: 'Upgradeable', status: 'True', reason: 'AsExpected', message: '' }, now);
}

/** syncVersion: the version moves to the operator's unless Progressing and Degraded are both True. */
export function syncVersion(conditions: Condition[], versions: OperandVersion[], operatorVersion: string): OperandVersion[] {
  if (isConditionTrue(conditions, 'Progressing') && isConditionTrue(conditions, 'Degraded')) return versions;
  return [{ name: 'operator', version: operatorVersion }];
}
