/**
 * The slices of the OpenShift API objects the suite reads and writes. Only the fields the suite uses are typed; every
 * object keeps the rest of what the server sent, so artefacts and attachments show the object unabridged.
 */
import type { V1Node, V1ObjectMeta } from '@kubernetes/client-node';

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown' | string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

export interface ApiObject {
  apiVersion?: string;
  kind?: string;
  metadata: V1ObjectMeta;
  [key: string]: unknown;
}

export interface Release {
  version?: string;
  image?: string;
}

export interface UpdateHistoryEntry {
  state: 'Completed' | 'Partial' | string;
  version?: string;
  image?: string;
  startedTime?: string;
  completionTime?: string | null;
  verified?: boolean;
  acceptedRisks?: string;
}

export interface ClusterVersion extends ApiObject {
  spec?: { clusterID?: string; desiredUpdate?: { version?: string; image?: string; force?: boolean } | null };
  status?: {
    desired?: Release;
    history?: UpdateHistoryEntry[];
    observedGeneration?: number;
    availableUpdates?: Release[] | null;
    conditions?: Condition[];
  };
}

export interface ClusterOperator extends ApiObject {
  status?: {
    conditions?: Condition[];
    versions?: { name: string; version: string }[];
    extension?: Record<string, unknown> | null;
  };
}

export interface MachineConfig extends ApiObject {
  spec?: {
    osImageURL?: string;
    config?: Record<string, unknown>;
    kernelArguments?: string[];
    extensions?: string[];
    kernelType?: string;
    [key: string]: unknown;
  };
}

/** The MCO's ControllerConfig: what the operator hands its controller, the release's OS images among it. */
export interface ControllerConfig extends ApiObject {
  spec?: {
    /** The release's base OS image (rhel-coreos-8 in 4.12, rhel-coreos since): what a pool without an override gets. */
    baseOSContainerImage?: string;
    baseOSExtensionsContainerImage?: string;
    osImageURL?: string;
    releaseImage?: string;
    [key: string]: unknown;
  };
}

export interface PoolConfiguration {
  name?: string;
  source?: { kind?: string; name: string; apiVersion?: string }[];
}

/** A Kubernetes label selector: labels that must match, and the In/NotIn/Exists/DoesNotExist expressions. */
export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] }>;
}

/** On-cluster image mode for one pool (machineconfiguration.openshift.io/v1): the MCO builds and rolls out its image. */
export interface MachineOSConfig extends ApiObject {
  spec?: { machineConfigPool?: { name?: string } };
}

export interface MachineConfigPool extends ApiObject {
  spec?: {
    machineConfigSelector?: LabelSelector;
    nodeSelector?: { matchLabels?: Record<string, string> };
    paused?: boolean;
    maxUnavailable?: number | string;
    configuration?: PoolConfiguration;
  };
  status?: {
    observedGeneration?: number;
    configuration?: PoolConfiguration;
    machineCount?: number;
    updatedMachineCount?: number;
    readyMachineCount?: number;
    unavailableMachineCount?: number;
    degradedMachineCount?: number;
    conditions?: Condition[];
  };
}

export type Node = V1Node;

/** The node annotations the machine-config daemon maintains (4.12 names). */
export const NodeAnnotations = {
  currentConfig: 'machineconfiguration.openshift.io/currentConfig',
  desiredConfig: 'machineconfiguration.openshift.io/desiredConfig',
  state: 'machineconfiguration.openshift.io/state',
  reason: 'machineconfiguration.openshift.io/reason',
} as const;

export const RenderedAnnotations = {
  releaseImageVersion: 'machineconfiguration.openshift.io/release-image-version',
  controllerVersion: 'machineconfiguration.openshift.io/generated-by-controller-version',
  osImageUrlOverridden: 'machineconfiguration.openshift.io/os-image-url-overridden',
} as const;

export const RoleLabel = 'machineconfiguration.openshift.io/role';

/** Every object the suite creates carries this label with the run id; the leak check lists by it. */
export const RunIdLabel = 'ocp-e2e.io/run-id';
/** The pool an override MachineConfig of the suite is for (the role label's value, said once more to be selectable). */
export const OverridePoolLabel = 'ocp-e2e.io/override-pool';
/** Marks the namespace the checkpoint store created (and so may remove once it holds no checkpoint). */
export const CHECKPOINT_NAMESPACE_LABEL = { key: 'ocp-e2e.io/purpose', value: 'checkpoints' } as const;

export function findCondition(conditions: Condition[] | undefined, type: string): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

export function conditionIs(conditions: Condition[] | undefined, type: string, status: 'True' | 'False'): boolean {
  return findCondition(conditions, type)?.status === status;
}
