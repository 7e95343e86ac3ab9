/** ClusterVersion: the release the cluster runs, the one it is moving to, and whether the move is over. */
import { findCondition, type ClusterVersion, type Release, type UpdateHistoryEntry } from '../types.js';
import { fails, holds, quote, type Fact } from './fact.js';

/** A release named by its image, its version, or both (an explicit --to-image learns its version only later). */
export interface ReleaseTarget {
  image?: string;
  version?: string;
}

function isTarget(r: Release | UpdateHistoryEntry | undefined, target: ReleaseTarget): boolean {
  if (!r) return false;
  return (target.image !== undefined && r.image === target.image) || (target.version !== undefined && r.version === target.version);
}

function describeTarget(target: ReleaseTarget): string {
  return target.version ?? target.image ?? '(no release)';
}

/** The version the cluster runs: the newest Completed history entry, like the VERSION column of `oc get clusterversion`. */
export function currentVersion(cv: ClusterVersion | undefined): string | undefined {
  return cv?.status?.history?.find((h) => h.state === 'Completed')?.version ?? cv?.status?.desired?.version;
}

/**
 * origin's "Reached": desired is the target, history[0] is Completed for it, and ClusterVersion is Available, not
 * Progressing and not Failing. The one meaning of "the upgrade completed" in this suite.
 */
export function upgradeCompleted(cv: ClusterVersion | undefined, target: ReleaseTarget): Fact {
  if (!cv) return fails('clusterversion/version not found');
  const head = cv.status?.history?.[0];
  const c = cv.status?.conditions;
  const progressing = findCondition(c, 'Progressing');
  const wanted = describeTarget(target);
  if (!head) return fails('clusterversion/version has no update history');
  if (!isTarget(cv.status?.desired, target) || !isTarget(head, target) || head.state !== 'Completed') {
    return fails(`clusterversion/version history[0] is ${head.state} ${head.version ?? head.image}, expected Completed ${wanted}; Progressing: ${quote(progressing?.message)}`);
  }
  const failing = findCondition(c, 'Failing');
  if (failing?.status === 'True') return fails(`clusterversion/version is Failing: ${quote(failing.message)}`);
  const available = findCondition(c, 'Available');
  if (available?.status !== 'True') return fails(`clusterversion/version is Available=${available?.status ?? 'unset'}: ${quote(available?.message)}`);
  if (progressing?.status === 'True') return fails(`clusterversion/version is still Progressing: ${quote(progressing.message)}`);
  return holds(`clusterversion/version completed the upgrade to ${wanted}`);
}

/** Not in the middle of an update: a fair starting point for a spec. */
export function clusterVersionIdle(cv: ClusterVersion | undefined): Fact {
  if (!cv) return fails('clusterversion/version not found; is this an OpenShift cluster?');
  const progressing = findCondition(cv.status?.conditions, 'Progressing');
  if (progressing?.status === 'True') return fails(`ClusterVersion is progressing ("${progressing.message ?? ''}")`);
  return holds(`ClusterVersion is at ${currentVersion(cv) ?? 'unknown'} and not progressing`);
}

/** One line for timelines and wait messages. */
export function clusterVersionLine(cv: ClusterVersion): string {
  const h = cv.status?.history?.[0];
  const cond = (t: string) => findCondition(cv.status?.conditions, t);
  const progressing = cond('Progressing');
  return `desired=${cv.status?.desired?.version ?? '-'} history[0]=${h ? `${h.state} ${h.version ?? h.image}` : '-'} Available=${cond('Available')?.status ?? '-'} Failing=${cond('Failing')?.status ?? '-'} Progressing=${progressing?.status ?? '-'}: ${progressing?.message ?? ''}`;
}
