/**
 * Where each kind the project reads or writes lives in the API: group, version, plural, scope. Coordinates only; what
 * a kind means (what makes a pool "updated", an operator "settled") belongs to the suite or the reference model.
 */
export interface KindRef {
  kind: string;
  group: string; // '' for the core group
  version: string;
  plural: string;
  namespaced: boolean;
}

const core = <K extends string>(kind: K, plural: string, namespaced: boolean) =>
  ({ kind, group: '', version: 'v1', plural, namespaced }) as const;
const apps = <K extends string>(kind: K, plural: string) =>
  ({ kind, group: 'apps', version: 'v1', plural, namespaced: true }) as const;
const clusterScoped = <K extends string>(kind: K, group: string, plural: string) =>
  ({ kind, group, version: 'v1', plural, namespaced: false }) as const;

export const KINDS = {
  Node: core('Node', 'nodes', false),
  Namespace: core('Namespace', 'namespaces', false),
  ConfigMap: core('ConfigMap', 'configmaps', true),
  Secret: core('Secret', 'secrets', true),
  Event: core('Event', 'events', true),
  Pod: core('Pod', 'pods', true),
  Deployment: apps('Deployment', 'deployments'),
  ReplicaSet: apps('ReplicaSet', 'replicasets'),
  DaemonSet: apps('DaemonSet', 'daemonsets'),
  Job: { kind: 'Job', group: 'batch', version: 'v1', plural: 'jobs', namespaced: true },
  MachineConfig: clusterScoped('MachineConfig', 'machineconfiguration.openshift.io', 'machineconfigs'),
  MachineConfigPool: clusterScoped('MachineConfigPool', 'machineconfiguration.openshift.io', 'machineconfigpools'),
  ControllerConfig: clusterScoped('ControllerConfig', 'machineconfiguration.openshift.io', 'controllerconfigs'),
  ClusterOperator: clusterScoped('ClusterOperator', 'config.openshift.io', 'clusteroperators'),
  ClusterVersion: clusterScoped('ClusterVersion', 'config.openshift.io', 'clusterversions'),
  MachineConfigNode: clusterScoped('MachineConfigNode', 'machineconfiguration.openshift.io', 'machineconfignodes'),
  MachineOSConfig: clusterScoped('MachineOSConfig', 'machineconfiguration.openshift.io', 'machineosconfigs'),
  MachineOSBuild: clusterScoped('MachineOSBuild', 'machineconfiguration.openshift.io', 'machineosbuilds'),
  // a disconnected cluster's mirror sets: IDMS and ITMS from 4.13, ICSP (operator.openshift.io/v1alpha1) before and beside them
  ImageDigestMirrorSet: clusterScoped('ImageDigestMirrorSet', 'config.openshift.io', 'imagedigestmirrorsets'),
  ImageTagMirrorSet: clusterScoped('ImageTagMirrorSet', 'config.openshift.io', 'imagetagmirrorsets'),
  ImageContentSourcePolicy: { kind: 'ImageContentSourcePolicy', group: 'operator.openshift.io', version: 'v1alpha1', plural: 'imagecontentsourcepolicies', namespaced: false },
  CustomResourceDefinition: clusterScoped('CustomResourceDefinition', 'apiextensions.k8s.io', 'customresourcedefinitions'),
} as const satisfies Record<string, KindRef>;

export type Kind = keyof typeof KINDS;

/** `v1` for the core group, `<group>/<version>` otherwise: what an object's apiVersion says. */
export function apiVersionOf(ref: KindRef): string {
  return ref.group ? `${ref.group}/${ref.version}` : ref.version;
}

/** The collection path a list or watch uses; a namespaced kind without a namespace means all namespaces. */
export function collectionPath(ref: KindRef, namespace?: string): string {
  const base = ref.group ? `/apis/${ref.group}/${ref.version}` : `/api/${ref.version}`;
  const ns = ref.namespaced && namespace ? `/namespaces/${namespace}` : '';
  return `${base}${ns}/${ref.plural}`;
}
