/**
 * What the checkpoints of other spec files hold on the cluster (their ConfigMap and the MachineConfigs they hand over),
 * in the leak check's words (cleanup.ts leakedObjects): in a pipeline step over many specs these carry the run's label
 * by design, and a spec's leak check must not count them as its own leaks.
 *
 * A spec that is still going (its post phase, its cleanup held back until every spec of the shared upgrade judged it)
 * may have made MachineConfigs since its checkpoint was written: spec 14 makes its rebuilt image's config after the
 * upgrade. The suite names its MachineConfigs `tc-<case>-…`, so every MachineConfig with the case prefix of a config a
 * live checkpoint hands over is that spec's too. An image-mode spec's MachineOSConfig and push Secret are handed over
 * by name (the leak check names a Secret with its namespace, as cleanup.ts does).
 */
import type { Cluster } from '../cluster.js';
import { CHECKPOINT_NAMESPACE, checkpointName, type Checkpoint } from './format.js';
import { listCheckpoints } from './store.js';

/** The leak check's names of what other specs hold: `has` answers for one name. */
export interface HeldObjects {
  has(object: string): boolean;
}

const MACHINE_CONFIG = 'MachineConfig/';
/** `tc-54183-`, `tc-e2e-014-`: the case part of a suite MachineConfig's name. */
const CASE_PREFIX = /^(tc-(?:e2e-)?\d+-)/;

export async function objectsHandedOverByOtherSpecs(cluster: Cluster, specFile: string): Promise<HeldObjects> {
  const checkpoints = await listCheckpoints(cluster).catch(() => new Map<string, Checkpoint>());
  const held = new Set<string>();
  const casePrefixes = new Set<string>();
  for (const [file, checkpoint] of checkpoints) {
    if (file === specFile) continue;
    held.add(`ConfigMap/${checkpointName(file)} -n ${CHECKPOINT_NAMESPACE}`);
    for (const change of checkpoint.pending.flatMap((r) => r.changes)) {
      // an image-mode spec hands over its MachineOSConfig and push secret (named after its pool, not its case)
      if (change.kind === 'MachineOSConfig') held.add(`MachineOSConfig/${change.name}`);
      if (change.kind === 'Secret') held.add(`Secret/${change.name} -n ${change.namespace}`);
      if (change.kind !== 'MachineConfig') continue;
      held.add(`${MACHINE_CONFIG}${change.name}`);
      const prefix = CASE_PREFIX.exec(change.name)?.[1];
      if (prefix) casePrefixes.add(prefix);
    }
  }
  return {
    has: (object) => held.has(object) || (object.startsWith(MACHINE_CONFIG) && [...casePrefixes].some((p) => object.slice(MACHINE_CONFIG.length).startsWith(p))),
  };
}
