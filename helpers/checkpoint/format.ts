/**
 * The checkpoint an upgrade spec leaves between the processes of a QE upgrade pipeline: `--phase pre` writes it once
 * its prepare has passed, `--phase upgrade` adds the upgrade it ran, `--phase post` reads it (on whatever machine it
 * runs), judges, cleans up and deletes it. It is plain JSON: everything a later process needs to go on, and nothing it
 * could only have in memory.
 */
import type { LedgerRecord } from '../ledger-changes.js';
import type { UpgradeRecording } from '../monitor/record.js';

/**
 * Bumped when a field changes meaning: a checkpoint of another format is refused, not guessed at. Format 2: what pre
 * left is its ledger's pending records (`pending`), no longer the override groups and pushed images of format 1.
 */
export const CHECKPOINT_FORMAT = 2;
/** The suite's namespace on the cluster; it holds nothing but checkpoints. */
export const CHECKPOINT_NAMESPACE = 'ocp-e2e';
/** Label on every checkpoint ConfigMap, so they can be listed (and found by hand: `oc get cm -n ocp-e2e -l …`). */
export const CHECKPOINT_LABEL = 'ocp-e2e.io/checkpoint';
export const CHECKPOINT_KEY = 'checkpoint.json';

export interface CheckpointUpgrade {
  from: string;
  version: string;
  image: string;
  /** What `--phase upgrade` recorded from its trigger to the settled cluster (the timeline may be cut to its end). */
  recording: UpgradeRecording;
  finishedAt: string;
}

export interface Checkpoint {
  format: number;
  suiteVersion: string;
  /** ClusterVersion spec.clusterID of the cluster the pre phase ran on. */
  clusterId: string;
  apiUrl: string;
  /** The spec file (its base name) and the test's full title in the pre phase. */
  specFile: string;
  title: string;
  /** The run of the pre phase: its objects carry this run id label. */
  runId: string;
  createdAt: string;
  /** The release the cluster ran when the pre phase prepared. */
  from: { version: string; image: string };
  /**
   * What the spec's prepare phase returned; an override handle is stored as `{ $poolOverride: id, overrides }`, its
   * overrides and the id of the record of `pending` that holds their MachineConfigs.
   */
  prepared: unknown;
  /**
   * What the pre phase changed on the cluster and left for post to judge and undo: the pending part of its ledger that
   * lives on the cluster, oldest first, each record a kind of change as data (helpers/ledger-changes.ts), from which
   * post rebuilds the undo. (Pre's local image copies are its own to remove; pushed images stay in their repository.)
   */
  pending: LedgerRecord[];
  upgrade?: CheckpointUpgrade;
}

/** The ConfigMap name of a spec file's checkpoint: `01-upgrade-….spec.ts` → `ocp-e2e-checkpoint-01-upgrade-…`. */
export function checkpointName(specFile: string): string {
  const stem = specFile.replace(/^.*\//, '').replace(/\.spec\.[cm]?[jt]s$/, '');
  return `ocp-e2e-checkpoint-${stem.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '')}`.slice(0, 253);
}
