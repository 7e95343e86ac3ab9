/**
 * On-cluster image mode as the suite reads and writes it (machineconfiguration.openshift.io/v1, 4.18.z with the
 * Default gate and 4.19+; modern-mco.md §1.2, §1.3): the fields of MachineOSConfig and MachineOSBuild the suite uses,
 * and the names upstream gives the objects a build makes (MCO pkg/controller/build/utils/helpers.go).
 */
import type { ApiObject, Condition, MachineOSConfig } from '../types.js';

export const MCO_NAMESPACE = 'openshift-machine-config-operator';
export const MOSC_API_VERSION = 'machineconfiguration.openshift.io/v1';

/** The node annotations of an image-mode pool (pkg/daemon/constants): set by the node controller and the daemon. */
export const ImageAnnotations = {
  desiredImage: 'machineconfiguration.openshift.io/desiredImage',
  currentImage: 'machineconfiguration.openshift.io/currentImage',
} as const;

/** The MachineOSConfig's annotation naming its current build (set by the build controller). */
export const CURRENT_BUILD_ANNOTATION = 'machineconfiguration.openshift.io/current-machine-os-build';

/** The MachineOSBuild condition types, in the order a build goes through them (printer columns). */
export const BUILD_CONDITIONS = ['Prepared', 'Building', 'Succeeded', 'Failed', 'Interrupted'] as const;

export interface ImageModeConfig extends MachineOSConfig {
  spec?: {
    machineConfigPool?: { name?: string };
    imageBuilder?: { imageBuilderType?: string };
    containerFile?: Array<{ containerfileArch?: string; content?: string }>;
    baseImagePullSecret?: { name?: string };
    renderedImagePushSecret?: { name?: string };
    renderedImagePushSpec?: string;
  };
  status?: {
    conditions?: Condition[];
    observedGeneration?: number;
    currentImagePullSpec?: string;
    machineOSBuild?: { name?: string };
  };
}

export interface MachineOSBuild extends ApiObject {
  spec?: {
    machineConfig?: { name?: string };
    machineOSConfig?: { name?: string };
    renderedImagePushSpec?: string;
  };
  status?: {
    conditions?: Condition[];
    builder?: { imageBuilderType?: string; job?: { name?: string; namespace?: string } };
    buildStart?: string;
    buildEnd?: string;
    digestedImagePushSpec?: string;
  };
}

/** The Job upstream runs a build in: `build-<mosb>` in openshift-machine-config-operator. */
export function buildJobName(mosb: string): string {
  return `build-${mosb}`;
}

/** The build's Job as the build reports it, else the name upstream gives it. */
export function jobOfBuild(mosb: MachineOSBuild): string {
  return mosb.status?.builder?.job?.name ?? buildJobName(mosb.metadata.name ?? '?');
}
