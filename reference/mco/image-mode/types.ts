/**
 * The slices of the on-cluster image mode objects the reference reads and writes (machineconfiguration.openshift.io/v1
 * MachineOSConfig and MachineOSBuild; ../shared/spec/modern-mco.md §1.2-1.3). Unknown fields are kept as they came.
 */
import type { KubeObject } from '../../../lib/kube/client.js';
import type { Condition } from '../types.js';

export interface ContainerfileEntry {
  containerfileArch?: 'ARM64' | 'AMD64' | 'PPC64LE' | 'S390X' | 'NoArch';
  content: string;
}

export interface MachineOSConfigSpec {
  machineConfigPool: { name: string };
  imageBuilder?: { imageBuilderType?: string };
  baseImagePullSecret?: { name: string };
  renderedImagePushSecret: { name: string };
  renderedImagePushSpec: string;
  containerFile?: ContainerfileEntry[];
  [k: string]: unknown;
}

export interface MachineOSConfig extends KubeObject {
  spec: MachineOSConfigSpec;
  status?: {
    conditions?: Condition[];
    observedGeneration?: number;
    currentImagePullSpec?: string;
    machineOSBuild?: { group?: string; resource?: string; namespace?: string; name: string };
  };
}

export interface MachineOSBuild extends KubeObject {
  spec: {
    machineConfig: { name: string };
    machineOSConfig: { name: string };
    renderedImagePushSpec: string;
  };
  status?: {
    conditions?: Condition[];
    builder?: { imageBuilderType: 'Job'; job?: { group: string; resource: string; namespace: string; name: string } };
    relatedObjects?: Array<{ group: string; resource: string; namespace: string; name: string }>;
    buildStart?: string;
    buildEnd?: string;
    digestedImagePushSpec?: string;
  };
}
