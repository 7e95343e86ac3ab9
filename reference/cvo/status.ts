/**
 * The CVO's pure status logic (spec §6): history, the ClusterOperator health check and the conditions with their
 * exact messages.
 */
import type { Condition } from '../mco/types.js';
import { getCondition } from '../mco/node-status.js';
import { operatorVersionOf, setOperatorCondition, type OperandVersion } from '../mco/operator-status.js';
import { CVO_DEGRADED_INTERVAL_MS } from '../constants.js';

export interface HistoryEntry {
  state: 'Partial' | 'Completed';
  version: string;
  image: string;
  startedTime: string;
  completionTime: string | null;
  verified: boolean;
  acceptedRisks?: string;
}

export const MAX_HISTORY = 100;

/** A new desired release: prepend a Partial entry and close the previous head. */
export function startHistoryEntry(history: readonly HistoryEntry[], entry: Omit<HistoryEntry, 'state' | 'startedTime' | 'completionTime'>, now: string): HistoryEntry[] {
  const previous = history.map((h, i) => (i === 0 && h.completionTime == null ? { ...h, completionTime: now } : h));
  const head: HistoryEntry = { state: 'Partial', startedTime: now, completionTime: null, ...entry };
  return [head, ...previous].slice(0, MAX_HISTORY);
}

export function completeHistoryHead(history: readonly HistoryEntry[], now: string): HistoryEntry[] {
  if (history.length === 0 || history[0]!.state === 'Completed') return [...history];
  return [{ ...history[0]!, state: 'Completed', completionTime: now }, ...history.slice(1)];
}

/** The VERSION column of `oc get clusterversion`: the newest Completed entry. */
export function lastCompletedVersion(history: readonly HistoryEntry[]): string | undefined {
  return history.find((h) => h.state === 'Completed')?.version;
}

export type OperatorHealth =
  | { kind: 'ok' }
  | { kind: 'ClusterOperatorNotAvailable'; message: string }
  | { kind: 'ClusterOperatorDegraded'; message: string }
  | { kind: 'ClusterOperatorUpdating'; message: string };

export interface ClusterOperatorView {
  name: string;
  conditions?: Condition[];
  versions?: OperandVersion[];
}

/** checkOperatorHealth for a ClusterOperator manifest expecting `operator: expectedVersion`. */
export function checkOperatorHealth(co: ClusterOperatorView | undefined, name: string, expectedVersion: string): OperatorHealth {
  const available = getCondition(co?.conditions, 'Available')?.status;
  if (!co || available !== 'True') return { kind: 'ClusterOperatorNotAvailable', message: `Cluster operator ${name} is not available` };
  if (getCondition(co.conditions, 'Degraded')?.status !== 'False') {
    return { kind: 'ClusterOperatorDegraded', message: `Cluster operator ${name} is degraded` };
  }
  if (operatorVersionOf(co.versions) !== expectedVersion) {
    return { kind: 'ClusterOperatorUpdating', message: `Cluster operator ${name} is updating versions` };
  }
  return { kind: 'ok' };
}

export interface Progress {
  done: number;
  total: number;
}

/** `%d of %d done (%.0f%% complete)`. */
export function progressText(progress: Progress): string {
  const percent = progress.total > 0 ? Math.round((100 * progress.done) / progress.total) : 0;
  return `${progress.done} of ${progress.total} done (${percent}% complete)`;
}

export interface UpdatingStatusInput {
  conditions: Condition[];
  version: string;
  health: OperatorHealth;
  operatorName: string;
  progress: Progress;
  /** Cluster ms since the CVO first processed this ClusterOperator manifest in this update. */
  waitedMs: number;
  now: string;
}

/** Conditions while an update is in progress (syncStatus + convertErrorToProgressing). */
export function updatingConditions(input: UpdatingStatusInput): Condition[] {
  const { version, health, operatorName: name, progress, now } = input;
  let c = input.conditions;
  const working = `Working towards ${version}: ${progressText(progress)}`;
  switch (health.kind) {
    case 'ok':
      c = setOperatorCondition(c, { type: 'Failing', status: 'False', reason: '', message: '' }, now);
      c = setOperatorCondition(c, { type: 'Progressing', status: 'True', reason: '', message: working }, now);
      break;
    case 'ClusterOperatorUpdating':
      c = setOperatorCondition(c, { type: 'Failing', status: 'False', reason: '', message: '' }, now);
      c = setOperatorCondition(c, { type: 'Progressing', status: 'True', reason: 'ClusterOperatorUpdating', message: `${working}, waiting on ${name}` }, now);
      break;
    case 'ClusterOperatorDegraded':
      if (input.waitedMs < CVO_DEGRADED_INTERVAL_MS) {
        c = setOperatorCondition(c, { type: 'Failing', status: 'False', reason: '', message: '' }, now);
        c = setOperatorCondition(c, { type: 'Progressing', status: 'True', reason: 'ClusterOperatorDegraded', message: `${working}, waiting up to 40 minutes on ${name}` }, now);
      } else {
        c = setOperatorCondition(c, { type: 'Failing', status: 'True', reason: 'ClusterOperatorDegraded', message: health.message }, now);
        c = setOperatorCondition(c, { type: 'Progressing', status: 'True', reason: 'ClusterOperatorDegraded', message: `Unable to apply ${version}: wait has exceeded 40 minutes for these operators: ${name}` }, now);
      }
      break;
    case 'ClusterOperatorNotAvailable':
      c = setOperatorCondition(c, { type: 'Failing', status: 'True', reason: 'ClusterOperatorNotAvailable', message: health.message }, now);
      c = setOperatorCondition(c, { type: 'Progressing', status: 'True', reason: 'ClusterOperatorNotAvailable', message: `Unable to apply ${version}: the cluster operator ${name} is not available` }, now);
      break;
  }
  return c;
}

/** Conditions once the release is fully applied and the operators are healthy. */
export function completedConditions(conditions: Condition[], version: string, now: string): Condition[] {
  let c = setOperatorCondition(conditions, { type: 'Available', status: 'True', reason: '', message: `Done applying ${version}` }, now);
  c = setOperatorCondition(c, { type: 'Failing', status: 'False', reason: '', message: '' }, now);
  c = setOperatorCondition(c, { type: 'Progressing', status: 'False', reason: '', message: `Cluster version is ${version}` }, now);
  return c;
}

/** Conditions while reconciling a completed release (no update running). */
export function reconcilingConditions(conditions: Condition[], version: string, health: OperatorHealth, name: string, now: string): Condition[] {
  if (health.kind === 'ok' || health.kind === 'ClusterOperatorUpdating') return completedConditions(conditions, version, now);
  const summary = health.kind === 'ClusterOperatorDegraded' ? `the cluster operator ${name} is degraded` : `the cluster operator ${name} is not available`;
  let c = setOperatorCondition(conditions, { type: 'Failing', status: 'True', reason: health.kind, message: health.message }, now);
  c = setOperatorCondition(c, { type: 'Progressing', status: 'False', reason: health.kind, message: `Error while reconciling ${version}: ${summary}` }, now);
  return c;
}
