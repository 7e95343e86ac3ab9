/**
 * The MachineConfigs the report creates (one per pool, setting `spec.osImageURL`), made with the run label so the
 * leak check finds them, and registered for cleanup the moment they exist.
 */
import type { Cleanup } from './cleanup.js';
import type { Cluster } from './cluster.js';
import { RoleLabel, RunIdLabel, type MachineConfig } from './types.js';

export interface OsImageOverride {
  name: string;
  role: string;
  osImageURL: string;
}

/** The report's MachineConfig: role label, `spec.osImageURL`, nothing else (plus the suite's run label). */
export function osImageOverrideMachineConfig(override: OsImageOverride, runId: string): MachineConfig {
  return {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfig',
    metadata: {
      name: override.name,
      labels: { [RoleLabel]: override.role, [RunIdLabel]: runId },
    },
    spec: { osImageURL: override.osImageURL },
  };
}

/**
 * Creates the override MCs and registers their deletion (LIFO, idempotent). Returns what the server stored.
 * An MC of the same name left by an earlier run is an error: silently adopting it would test someone else's image.
 */
export async function createOsImageOverrides(
  cluster: Cluster,
  cleanup: Cleanup,
  overrides: OsImageOverride[],
  runId: string,
): Promise<MachineConfig[]> {
  const created: MachineConfig[] = [];
  for (const override of overrides) {
    const mc = osImageOverrideMachineConfig(override, runId);
    try {
      created.push(await cluster.createMachineConfig(mc));
    } catch (error) {
      if (/AlreadyExists|HTTP 409/.test((error as Error).message)) {
        throw new Error(
          `MachineConfig ${override.name} already exists (left by an earlier run?): delete it with \`oc delete mc ${override.name}\` and wait for pool ${override.role} to settle`,
        );
      }
      throw error;
    }
    cleanup.add(`delete MachineConfig ${override.name}`, async () => {
      await cluster.deleteMachineConfig(override.name);
    });
  }
  return created;
}
