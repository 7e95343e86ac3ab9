/**
 * What the checkpoints of other spec files hold on the cluster (their ConfigMap and the MachineConfigs they hand over),
 * in the leak check's words (cleanup.ts leakedObjects): in a pipeline step over many specs these carry the run's label
 * by design, and a spec's leak check must not count them as its own leaks.
 */
import type { Cluster } from '../cluster.js';
import { CHECKPOINT_NAMESPACE, checkpointName, type Checkpoint } from './format.js';
import { listCheckpoints } from './store.js';

export async function objectsHandedOverByOtherSpecs(cluster: Cluster, specFile: string): Promise<Set<string>> {
  const checkpoints = await listCheckpoints(cluster).catch(() => new Map<string, Checkpoint>());
  const held = new Set<string>();
  for (const [file, checkpoint] of checkpoints) {
    if (file === specFile) continue;
    held.add(`ConfigMap/${checkpointName(file)} -n ${CHECKPOINT_NAMESPACE}`);
    for (const change of checkpoint.pending.flatMap((r) => r.changes)) if (change.kind === 'MachineConfig') held.add(`MachineConfig/${change.name}`);
  }
  return held;
}
