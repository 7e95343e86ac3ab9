/**
 * Whether a phase may start from what the cluster holds: one message per problem, said so that the person running the
 * pipeline knows what to do next. The run command checks this before any spec starts (exit 2); each spec checks its
 * own checkpoint again when it starts, since another process may have changed the cluster in between.
 */
import { undoText } from '../ledger-changes.js';
import type { RunPhase } from '../target.js';
import type { ClusterVersion } from '../types.js';
import { requestedUpgrade } from '../upgrade.js';
import { CHECKPOINT_FORMAT, CHECKPOINT_NAMESPACE, checkpointName, type Checkpoint } from './format.js';

export interface PhaseStart {
  phase: Exclude<RunPhase, 'all'>;
  specFile: string;
  checkpoint: Checkpoint | undefined;
  suiteVersion: string;
  clusterVersion: ClusterVersion;
  /**
   * --phase upgrade over several specs: the upgrade another spec of this phase ran from this checkpoint's release,
   * which this spec records as its own instead of upgrading again (split-run.ts).
   */
  upgradedByAnotherSpec?: boolean;
}

/** Why the phase cannot start for this spec file, or undefined when it can. */
export function phaseStartProblem(start: PhaseStart): string | undefined {
  const { phase, specFile, checkpoint, suiteVersion, clusterVersion: cv } = start;
  const where = `configmap/${checkpointName(specFile)} -n ${CHECKPOINT_NAMESPACE}`;
  if (phase === 'pre') {
    if (!checkpoint) return undefined;
    const byHand = [...(checkpoint.pending ?? []).flatMap((r) => undoText(r.changes).byHand), `oc delete ${where}`];
    return (
      `${specFile}: --phase pre already ran on this cluster (${where}, written ${checkpoint.createdAt} by run ${checkpoint.runId}${checkpoint.upgrade ? ', upgrade done' : ''}): ` +
      `run --phase post to judge and clean it up, or throw it away by hand: ${byHand.join(' && ')}`
    );
  }
  if (!checkpoint) {
    return `${specFile}: not prepared: no checkpoint on this cluster (no ${where}): its --phase pre failed (that run's report says why) or did not run; run --phase pre first, against the same cluster`;
  }
  if (checkpoint.format !== CHECKPOINT_FORMAT || checkpoint.suiteVersion !== suiteVersion) {
    return `${specFile}: the checkpoint ${where} was written by ocp-e2e ${checkpoint.suiteVersion} (checkpoint format ${checkpoint.format}); this is ocp-e2e ${suiteVersion} (format ${CHECKPOINT_FORMAT}): run every phase of a pipeline with the same suite`;
  }
  const clusterId = cv.spec?.clusterID ?? '';
  if (checkpoint.clusterId !== clusterId) {
    return `${specFile}: the checkpoint ${where} comes from another cluster (clusterID ${checkpoint.clusterId} at ${checkpoint.apiUrl}); this cluster is ${clusterId || 'without a clusterID'}: run --phase pre here first, or point --kubeconfig at that cluster`;
  }
  const requested = requestedUpgrade(cv, checkpoint.from);
  if (phase === 'upgrade') {
    if ((checkpoint.upgrade || requested) && !start.upgradedByAnotherSpec) {
      return `${specFile}: the cluster was already upgraded after --phase pre (from ${checkpoint.from.version} to ${checkpoint.upgrade?.version ?? requested?.image}): go on with --phase post`;
    }
    return undefined;
  }
  if (!checkpoint.upgrade && !requested) {
    return (
      `${specFile}: the cluster was not upgraded after --phase pre: it still runs ${checkpoint.from.version} (${checkpoint.from.image}) and no other release is requested; ` +
      'upgrade it first (oc adm upgrade --to-image <release> --allow-explicit-upgrade --force, or ocp-e2e run --phase upgrade), then run --phase post'
    );
  }
  return undefined;
}
