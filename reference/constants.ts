/**
 * Names, keys and fixed values shared by the reference controllers. Strings here are the ones OpenShift 4.12 uses
 * (see ../shared/spec/mco-behaviour.md); keeping them in one place makes a typo a compile error instead of a silent
 * mismatch between two controllers.
 */

export const MCO_NAMESPACE = 'openshift-machine-config-operator';
export const CO_NAME = 'machine-config';
export const CV_NAME = 'version';
export const CONTROLLER_CONFIG_NAME = 'machine-config-controller';
export const OSIMAGEURL_CONFIGMAP = 'machine-config-osimageurl';
/**
 * Stand-in for the MCO Deployment: the CVO writes the release version it deploys into this ConfigMap, and the
 * simulated operator reads its RELEASE_VERSION from it, as the real pod reads its environment.
 */
export const MCO_DEPLOYMENT_CONFIGMAP = 'machine-config-operator-deployment';
export const REFERENCE_INFO_NAMESPACE = 'kube-system';
export const REFERENCE_INFO_CONFIGMAP = 'ocp-e2e-reference-cluster';

export const MC_GROUP = 'machineconfiguration.openshift.io';
export const MC_API_VERSION = 'machineconfiguration.openshift.io/v1';
export const CONFIG_GROUP = 'config.openshift.io';
export const CONFIG_API_VERSION = 'config.openshift.io/v1';

export const ANN = {
  generatedByControllerVersion: 'machineconfiguration.openshift.io/generated-by-controller-version',
  releaseImageVersion: 'machineconfiguration.openshift.io/release-image-version',
  generatedByVersion: 'machineconfiguration.openshift.io/generated-by-version',
  osImageUrlOverridden: 'machineconfiguration.openshift.io/os-image-url-overridden',
  currentConfig: 'machineconfiguration.openshift.io/currentConfig',
  desiredConfig: 'machineconfiguration.openshift.io/desiredConfig',
  state: 'machineconfiguration.openshift.io/state',
  reason: 'machineconfiguration.openshift.io/reason',
  desiredDrain: 'machineconfiguration.openshift.io/desiredDrain',
  lastAppliedDrain: 'machineconfiguration.openshift.io/lastAppliedDrain',
  controlPlaneTopology: 'machineconfiguration.openshift.io/controlPlaneTopology',
  /** Image mode (4.18.z, 4.19+): the OS image the node controller points a layered pool's node at, and the one it booted. */
  desiredImage: 'machineconfiguration.openshift.io/desiredImage',
  currentImage: 'machineconfiguration.openshift.io/currentImage',
} as const;

export const LABEL = {
  role: 'machineconfiguration.openshift.io/role',
  requiredForUpgrade: 'operator.machineconfiguration.openshift.io/required-for-upgrade',
  mcoBuiltIn: 'machineconfiguration.openshift.io/mco-built-in',
  poolSelectorPrefix: 'pools.operator.machineconfiguration.openshift.io/',
  nodeRolePrefix: 'node-role.kubernetes.io/',
  zone: 'topology.kubernetes.io/zone',
} as const;

export type NodeState = 'Working' | 'Done' | 'Degraded' | 'Unreconcilable';

/** Time constants of the real code, in cluster milliseconds. */
export const MINUTE = 60_000;
export const REQUIRED_POOLS_POLL_MS = 1_000;
/** The required-pools loop: 10 minutes in all to 4.13, 10 minutes per machine of the required pools from 4.14. */
export const REQUIRED_POOLS_TIMEOUT_MS = 10 * MINUTE;
export const CONTROLLER_CONFIG_WAIT_MS = 5 * MINUTE;
export const CVO_DEGRADED_INTERVAL_MS = 40 * MINUTE;
