/**
 * The override MachineConfigs the specs create (one per pool), made with the run label so the leak check finds them.
 * An override says what it sets (the report's `osImageURL`, kernel arguments, extensions, the kernel type, files and
 * units) and its MachineConfig carries exactly that. helpers/flows.ts hands them out with their undo.
 */
import type { Cluster } from './cluster.js';
import { ignitionConfig, type OverrideFile, type OverrideUnit } from './overrides/ignition.js';
import { OverridePoolLabel, RoleLabel, RunIdLabel, type MachineConfig } from './types.js';

export type { OverrideFile, OverrideUnit } from './overrides/ignition.js';

/** One override MachineConfig: its name, the pool whose role label it carries, and what it sets on that pool. */
export interface MachineConfigOverride {
  name: string;
  /** The pool: `machineconfiguration.openshift.io/role`. */
  role: string;
  osImageURL?: string;
  kernelArguments?: string[];
  /** RHCOS extensions by name (`usbguard`, `kernel-devel`, …). */
  extensions?: string[];
  /** 4.12 knows `default` and `realtime`. */
  kernelType?: 'default' | 'realtime';
  /** Written through Ignition (`spec.config.storage.files`). */
  files?: OverrideFile[];
  /** Installed, enabled or disabled through Ignition (`spec.config.systemd.units`). */
  units?: OverrideUnit[];
}

/**
 * The override's MachineConfig: role label, run label, and in `spec` only what the override sets, so an override of
 * the OS image alone is the report's MachineConfig exactly (`spec: { osImageURL }`). The fields go in the order of
 * the MCO's MachineConfigSpec.
 */
export function overrideMachineConfig(override: MachineConfigOverride, runId: string, options: { markPool?: boolean } = {}): MachineConfig {
  const { osImageURL, kernelArguments, extensions, kernelType, files = [], units = [] } = override;
  const spec: NonNullable<MachineConfig['spec']> = {};
  if (osImageURL !== undefined) spec.osImageURL = osImageURL;
  if (files.length || units.length) spec.config = ignitionConfig(files, units);
  if (kernelArguments?.length) spec.kernelArguments = [...kernelArguments];
  if (extensions?.length) spec.extensions = [...extensions];
  if (kernelType !== undefined) spec.kernelType = kernelType;
  if (!Object.keys(spec).length) throw new Error(`override ${override.name} sets nothing: give it an osImageURL, kernelArguments, extensions, a kernelType, files or units`);
  return {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfig',
    metadata: {
      name: override.name,
      // markPool, where a run shares one upgrade over custom pools: those take the worker pool's configs but not its
      // overrides (plan/custom-pools.ts). Otherwise the labels are the report's own.
      labels: { [RoleLabel]: override.role, [RunIdLabel]: runId, ...(options.markPool ? { [OverridePoolLabel]: override.role } : {}) },
    },
    spec,
  };
}

/**
 * Creates one override MachineConfig and returns what the server stored. An MC of the same name left by an earlier run
 * is an error: silently adopting it would test someone else's image.
 */
export async function createOverrideMachineConfig(cluster: Cluster, override: MachineConfigOverride, runId: string, options: { markPool?: boolean } = {}): Promise<MachineConfig> {
  try {
    return await cluster.createMachineConfig(overrideMachineConfig(override, runId, options));
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
export function overridesByPool(overrides: readonly MachineConfigOverride[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const o of overrides) (out[o.role] ??= []).push(o.name);
  return out;
}

/** The pools a set of overrides (or of their ledger changes) touches, each once, in first-seen order. */
export function poolsOf(items: readonly ({ role: string } | { pool: string })[]): string[] {
  return [...new Set(items.map((i) => ('role' in i ? i.role : i.pool)))];
}
