/**
 * The names and marks of on-cluster image mode, as upstream spells them (MCO release-4.20
 * pkg/controller/build/constants/constants.go, pkg/controller/build/utils/helpers.go,
 * pkg/controller/common/constants.go): the annotations a user and the controller set, the labels on a
 * MachineOSBuild and its ephemeral objects, and the per-build object names (`<prefix>-<mosb>`).
 */

/** On a MachineOSConfig: the MachineOSBuild whose image the pool runs (set by the build controller). */
export const CURRENT_MOSB_ANNOTATION = 'machineconfiguration.openshift.io/current-machine-os-build';
/** On a MachineOSConfig: set by a user to build the current config again; the controller removes it. */
export const REBUILD_ANNOTATION = 'machineconfiguration.openshift.io/rebuild';
/** On a MachineOSBuild: the push secret its build used (the image pruner reads it). */
export const PUSH_SECRET_ANNOTATION = 'machineconfiguration.openshift.io/rendered-image-push-secret';

export const TARGET_POOL_LABEL = 'machineconfiguration.openshift.io/target-machine-config-pool';
export const RENDERED_MC_LABEL = 'machineconfiguration.openshift.io/rendered-machine-config';
export const MOSC_LABEL = 'machineconfiguration.openshift.io/machine-os-config';
export const MOSB_LABEL = 'machineconfiguration.openshift.io/machine-os-build';
export const EPHEMERAL_LABEL = 'machineconfiguration.openshift.io/ephemeral-build-object';
export const ON_CLUSTER_LAYERING_LABEL = 'machineconfiguration.openshift.io/on-cluster-layering';

/** The copy of openshift-config/pull-secret the operator keeps while a pool is layered (ctrlcommon.GlobalPullSecretCopyName). */
export const GLOBAL_PULL_SECRET_COPY = 'global-pull-secret-copy';
/** The build controller's Deployment (manifests/machineosbuilder/deployment.yaml). */
export const MACHINE_OS_BUILDER = 'machine-os-builder';

/** The Job that builds a MachineOSBuild's image. */
export const buildJobName = (mosb: string): string => `build-${mosb}`;
/** The ConfigMap the build's second container writes the pushed digest into (key `digest`). */
export const digestConfigMapName = (mosb: string): string => `digest-${mosb}`;
export const containerfileConfigMapName = (mosb: string): string => `containerfile-${mosb}`;
export const machineConfigConfigMapName = (mosb: string): string => `mc-${mosb}`;
/** The base image pull secret, canonicalised for the build. */
export const basePullSecretName = (mosb: string): string => `base-${mosb}`;
/** The push secret, canonicalised for the build. */
export const finalPushSecretName = (mosb: string): string => `final-${mosb}`;
