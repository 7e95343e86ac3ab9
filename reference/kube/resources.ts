/** Where each kind the reference controllers use lives in the API. */
export type Kind =
  | 'Node'
  | 'Namespace'
  | 'ConfigMap'
  | 'MachineConfig'
  | 'MachineConfigPool'
  | 'ControllerConfig'
  | 'ClusterOperator'
  | 'ClusterVersion';

export interface ResourceInfo {
  kind: Kind;
  apiVersion: string;
  group: string; // '' for the core group
  version: string;
  plural: string;
  namespaced: boolean;
}

const core = (kind: Kind, plural: string, namespaced: boolean): ResourceInfo => ({ kind, apiVersion: 'v1', group: '', version: 'v1', plural, namespaced });
const custom = (kind: Kind, group: string, plural: string): ResourceInfo => ({ kind, apiVersion: `${group}/v1`, group, version: 'v1', plural, namespaced: false });

export const RESOURCES: Record<Kind, ResourceInfo> = {
  Node: core('Node', 'nodes', false),
  Namespace: core('Namespace', 'namespaces', false),
  ConfigMap: core('ConfigMap', 'configmaps', true),
  MachineConfig: custom('MachineConfig', 'machineconfiguration.openshift.io', 'machineconfigs'),
  MachineConfigPool: custom('MachineConfigPool', 'machineconfiguration.openshift.io', 'machineconfigpools'),
  ControllerConfig: custom('ControllerConfig', 'machineconfiguration.openshift.io', 'controllerconfigs'),
  ClusterOperator: custom('ClusterOperator', 'config.openshift.io', 'clusteroperators'),
  ClusterVersion: custom('ClusterVersion', 'config.openshift.io', 'clusterversions'),
};

/** The collection path, as a watch or list uses it. */
export function collectionPath(info: ResourceInfo, namespace?: string): string {
  const base = info.group === '' ? `/api/${info.version}` : `/apis/${info.group}/${info.version}`;
  const ns = info.namespaced && namespace ? `/namespaces/${namespace}` : '';
  return `${base}${ns}/${info.plural}`;
}
