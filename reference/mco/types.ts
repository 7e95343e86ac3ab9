/** The slices of the MCO API objects the reference controllers use. Unknown fields are kept as they came. */
import type { V1ObjectMeta } from '@kubernetes/client-node';

export interface Condition {
  type: string;
  status: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface IgnitionFile {
  path: string;
  contents?: { source?: string; [k: string]: unknown };
  mode?: number;
  overwrite?: boolean;
  [k: string]: unknown;
}

export interface IgnitionUnit {
  name: string;
  enabled?: boolean;
  contents?: string;
  [k: string]: unknown;
}

export interface IgnitionConfig {
  ignition?: { version?: string; [k: string]: unknown };
  storage?: { files?: IgnitionFile[]; [k: string]: unknown };
  systemd?: { units?: IgnitionUnit[]; [k: string]: unknown };
  passwd?: { users?: Array<{ name: string; sshAuthorizedKeys?: string[]; [k: string]: unknown }>; [k: string]: unknown };
  [k: string]: unknown;
}

export interface MachineConfigSpec {
  config?: IgnitionConfig | null;
  osImageURL?: string;
  baseOSExtensionsContainerImage?: string;
  kernelArguments?: string[] | null;
  extensions?: string[] | null;
  fips?: boolean;
  kernelType?: string;
}

export interface MachineConfig {
  apiVersion?: string;
  kind?: string;
  metadata: V1ObjectMeta;
  spec: MachineConfigSpec;
}

export interface ObjectReference {
  kind?: string;
  name: string;
  apiVersion?: string;
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] }>;
}

export interface MachineConfigPool {
  apiVersion?: string;
  kind?: string;
  metadata: V1ObjectMeta;
  spec: {
    machineConfigSelector?: LabelSelector;
    nodeSelector?: LabelSelector;
    paused?: boolean;
    maxUnavailable?: number | string;
    configuration?: { name?: string; source?: ObjectReference[] };
  };
  status?: {
    observedGeneration?: number;
    configuration?: { name?: string; source?: ObjectReference[] };
    machineCount?: number;
    updatedMachineCount?: number;
    readyMachineCount?: number;
    unavailableMachineCount?: number;
    degradedMachineCount?: number;
    conditions?: Condition[];
  };
}

export interface ControllerConfig {
  apiVersion?: string;
  kind?: string;
  metadata: V1ObjectMeta;
  spec: {
    osImageURL: string;
    baseOSContainerImage: string;
    baseOSExtensionsContainerImage?: string;
    releaseImage: string;
    [k: string]: unknown;
  };
  status?: { observedGeneration?: number; conditions?: Condition[] };
}
