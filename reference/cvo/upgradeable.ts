/**
 * The CVO's Upgradeable condition and the precondition that reads it (openshift/cluster-version-operator, files cited
 * per release in reference/README.md): ClusterVersion says Upgradeable=False when a ClusterOperator does (or, from
 * 4.19, while an update is in progress), and an update to another minor is refused while it does, unless forced.
 * Pure functions: the CVO (cvo.ts) feeds them its informers' objects and writes what they return.
 */
import semver from 'semver';
import type { ClusterVersionOperatorCode } from '../profiles/profile.js';
import type { Condition } from '../mco/types.js';
import { getCondition } from '../mco/node-status.js';
import { setOperatorCondition } from '../mco/operator-status.js';

/** What the checks read: every ClusterOperator's Upgradeable and ClusterVersion's own Progressing. */
export interface UpgradeableInputs {
  operators: ReadonlyArray<{ name: string; conditions?: readonly Condition[] }>;
  clusterVersionConditions: readonly Condition[];
}

/** `pkg/internal/constants.go`: the per-check condition types kept beside Upgradeable when more than one fails. */
const CLUSTER_OPERATORS_TYPE = 'UpgradeableClusterOperators';
const UPDATE_IN_PROGRESS_TYPE = 'UpgradeableUpgradeInProgress';

/**
 * `setUpgradeableConditions` (pkg/cvo/upgradeable.go): the failing checks' conditions, sorted by type. One failing
 * check becomes Upgradeable=False with its reason and message; several keep their own types beside an Upgradeable of
 * reason MultipleReasons; none leaves no Upgradeable condition at all.
 */
export function upgradeableConditions(code: ClusterVersionOperatorCode, inputs: UpgradeableInputs): Condition[] {
  const failing: Condition[] = [];
  const operators = clusterOperatorsCheck(code, inputs.operators);
  if (operators) failing.push(operators);
  if (code.notUpgradeableWhileUpdating && getCondition(inputs.clusterVersionConditions, 'Progressing')?.status === 'True') {
    // upstream gives this check's own condition status True (upgradeInProgressUpgradeable.Check); only its presence counts
    failing.push({ type: UPDATE_IN_PROGRESS_TYPE, status: 'True', reason: 'UpdateInProgress', message: 'An update is already in progress and the details are in the Progressing condition' });
  }
  if (failing.length === 0) return [];
  if (failing.length === 1) return [{ type: 'Upgradeable', status: 'False', reason: failing[0]!.reason, message: failing[0]!.message }];
  const reasons = failing.map((c) => c.reason).join(',');
  const messages = failing.map((c) => c.message).join('\n* ');
  const all = [...failing, { type: 'Upgradeable', status: 'False', reason: 'MultipleReasons', message: `Cluster should not be upgraded between ${code.versionsNoun} for multiple reasons: ${reasons}\n* ${messages}` }];
  return all.sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
}

/** `clusterOperatorsUpgradeable.Check`: every ClusterOperator whose Upgradeable is False, by name. */
function clusterOperatorsCheck(code: ClusterVersionOperatorCode, operators: UpgradeableInputs['operators']): Condition | undefined {
  const notUp = operators
    .map((o) => ({ name: o.name, condition: getCondition(o.conditions, 'Upgradeable') }))
    .filter((o): o is { name: string; condition: Condition } => o.condition?.status === 'False')
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)); // the lister lists by name
  if (notUp.length === 0) return undefined;
  const noun = code.versionsNoun;
  if (notUp.length === 1) {
    const [one] = notUp;
    return { type: CLUSTER_OPERATORS_TYPE, status: 'False', reason: one!.condition.reason, message: `Cluster operator ${one!.name} should not be upgraded between ${noun}: ${one!.condition.message ?? ''}` };
  }
  const lines = notUp.map((o) => `Cluster operator ${o.name} should not be upgraded between ${noun}: ${o.condition.reason ?? ''}: ${o.condition.message ?? ''}`);
  return { type: CLUSTER_OPERATORS_TYPE, status: 'False', reason: 'ClusterOperatorsNotUpgradeable', message: `Multiple cluster operators should not be upgraded between ${noun}:\n* ${lines.join('\n* ')}` };
}

/**
 * ClusterVersion's conditions with the computed Upgradeable ones (`upgradeable.NeedsUpdate`): each set as resourcemerge
 * sets a condition (its transition time moves only when its status does), the Upgradeable ones no longer computed
 * removed.
 */
export function withUpgradeableConditions(conditions: readonly Condition[], computed: readonly Condition[], now: string): Condition[] {
  let out = conditions.filter((c) => !c.type.startsWith('Upgradeable') || computed.some((n) => n.type === c.type));
  for (const c of computed) out = setOperatorCondition(out, c, now);
  return out;
}

/** A failed precondition (`precondition.Error`): a warning does not block even unforced. */
export interface PreconditionFailure {
  reason: string;
  message: string;
  warning: boolean;
}

const PRECONDITION_NAME = 'ClusterVersionUpgradeable';

/**
 * `pkg/payload/precondition/clusterversion/upgradeable.go` Run: with Upgradeable=False, an update to another minor is
 * refused. Up to 4.18 "another minor" compares the minor digits of the last completed version and the target's; from
 * 4.19 the target's semver against `status.desired`, where a retarget within the minor of a minor update still in
 * progress is let through with a warning.
 */
export function upgradeablePrecondition(
  code: ClusterVersionOperatorCode,
  cv: { conditions: readonly Condition[]; desiredVersion?: string; history: ReadonlyArray<{ state: string; version: string }> },
  targetVersion: string,
): PreconditionFailure | undefined {
  const up = getCondition(cv.conditions, 'Upgradeable');
  if (!up || up.status !== 'False') return undefined;
  const blocked: PreconditionFailure = { reason: up.reason ?? '', message: up.message ?? '', warning: false };
  if (code.upgradeablePrecondition === 'completed-minor') {
    if (cv.history.length === 0) return undefined;
    const minorOf = (v: string) => v.split('.')[1] ?? '';
    return minorOf(completedVersion(cv.history)) === minorOf(targetVersion) ? undefined : blocked;
  }
  const current = semver.parse(cv.desiredVersion ?? '');
  const target = semver.parse(targetVersion);
  if (!current) return { reason: 'InvalidCurrentVersion', message: `invalid current version ${JSON.stringify(cv.desiredVersion ?? '')}`, warning: true };
  if (!target) return { reason: 'InvalidDesiredVersion', message: `invalid desired version ${JSON.stringify(targetVersion)}`, warning: false };
  const patchOnly = target.major === current.major && target.minor === current.minor;
  if (!patchOnly && semver.gt(target, current)) return blocked;
  const completed = semver.parse(completedVersion(cv.history));
  const progressing = getCondition(cv.conditions, 'Progressing')?.status === 'True';
  if (patchOnly && completed && progressing && (completed.major < current.major || (completed.major === current.major && completed.minor < current.minor))) {
    const kind = completed.major < current.major ? 'Major' : 'Minor';
    return { reason: `${kind}VersionClusterUpdateInProgress`, message: `Retarget to ${targetVersion} while a ${kind.toLowerCase()} version update from ${completed.version} to ${current.version} is in progress`, warning: true };
  }
  return undefined;
}

/**
 * `precondition.Summarize` and the sync worker: a blocking failure unforced refuses the payload (ReleaseAccepted=False,
 * reason PreconditionChecks); forced, or only a warning, it is accepted and the text becomes the entry's acceptedRisks.
 */
export function summarizePrecondition(failure: PreconditionFailure, force: boolean, payload: { version: string; image: string }): { blocks: true; message: string } | { blocks: false; risk: string } {
  let message = `Precondition "${PRECONDITION_NAME}" failed because of "${failure.reason}": ${failure.message}`;
  if (failure.warning) return { blocks: false, risk: message };
  if (force) {
    message = `Forced through blocking failures: ${message}`;
    return { blocks: false, risk: message };
  }
  return { blocks: true, message: `Preconditions failed for payload loaded version="${payload.version}" image="${payload.image}": ${message}` };
}

/** `GetCurrentVersion`: the newest Completed entry, else the oldest entry (the installed release). */
function completedVersion(history: ReadonlyArray<{ state: string; version: string }>): string {
  return history.find((h) => h.state === 'Completed')?.version ?? history.at(-1)?.version ?? '';
}
