/**
 * The MachineConfigs the report creates (one per pool, setting `spec.osImageURL`), made with the run label so the
 * leak check finds them. helpers/flows.ts hands them out with their undo.
 */
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
 * Creates one override MachineConfig and returns what the server stored. An MC of the same name left by an earlier run
 * is an error: silently adopting it would test someone else's image.
 */
export async function createOsImageOverride(cluster: Cluster, override: OsImageOverride, runId: string): Promise<MachineConfig> {
  try {
    return await cluster.createMachineConfig(osImageOverrideMachineConfig(override, runId));
  } catch (error) {
    if (/AlreadyExists|HTTP 409/.test((error as Error).message)) {
      throw new Error(
        `MachineConfig ${override.name} already exists (left by an earlier run?): delete it with \`oc delete mc ${override.name}\` and wait for pool ${override.role} to settle`,
      );
    }
    throw error;
  }
}

/** The override MachineConfigs of each pool: `{ worker: ['tc-…-worker'], master: ['tc-…-master'] }`. */
export function overridesByPool(overrides: OsImageOverride[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const o of overrides) (out[o.role] ??= []).push(o.name);
  return out;
}
