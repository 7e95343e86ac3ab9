/**
 * What the fuzz tests aim at: the paths of the kinds they write to, a valid object of each to mutate, the names of
 * the objects created before the fuzzing starts, and a namespaced custom resource with a status subresource (the
 * project's CRDs are all cluster-scoped), so every kind of path is there: built-in and custom, cluster-scoped and
 * namespaced, with and without status.
 */
export const MC = '/apis/machineconfiguration.openshift.io/v1/machineconfigs';
export const MCP = '/apis/machineconfiguration.openshift.io/v1/machineconfigpools';
export const CO = '/apis/config.openshift.io/v1/clusteroperators';
export const CV = '/apis/config.openshift.io/v1/clusterversions';
export const CM = '/api/v1/namespaces/fuzz/configmaps';
export const NODES = '/api/v1/nodes';
export const NS = '/api/v1/namespaces';
export const CRD = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
export const PODS = '/api/v1/namespaces/fuzz/pods';
export const WIDGETS = '/apis/fuzz.example.com/v1/namespaces/fuzz/widgets';

/** The CRD of WIDGETS: namespaced, a status subresource, a spec that keeps whatever it is given (deep documents reach every walk). */
export const WIDGET_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.fuzz.example.com' },
  spec: {
    group: 'fuzz.example.com', scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [{
      name: 'v1', served: true, storage: true, subresources: { status: {} },
      schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } } },
    }],
  },
};

/** Collections the fuzzer aims at, with a valid object of each to mutate. */
export const COLLECTIONS: Array<{ path: string; valid: (name: string) => Record<string, unknown> }> = [
  { path: MC, valid: (name) => ({ apiVersion: 'machineconfiguration.openshift.io/v1', kind: 'MachineConfig', metadata: { name, labels: { 'machineconfiguration.openshift.io/role': 'worker' } }, spec: { osImageURL: 'quay.io/x/os@sha256:' + 'ab'.repeat(32), config: { ignition: { version: '3.2.0' } } } }) },
  { path: MCP, valid: (name) => ({ apiVersion: 'machineconfiguration.openshift.io/v1', kind: 'MachineConfigPool', metadata: { name }, spec: { machineConfigSelector: { matchLabels: { 'machineconfiguration.openshift.io/role': name } }, nodeSelector: { matchLabels: { [`node-role.kubernetes.io/${name}`]: '' } }, paused: false } }) },
  { path: CO, valid: (name) => ({ apiVersion: 'config.openshift.io/v1', kind: 'ClusterOperator', metadata: { name }, spec: {} }) },
  { path: CV, valid: (name) => ({ apiVersion: 'config.openshift.io/v1', kind: 'ClusterVersion', metadata: { name }, spec: { clusterID: '11111111-2222-3333-4444-555555555555', desiredUpdate: { version: '', image: 'r/release:1', force: true } } }) },
  { path: CM, valid: (name) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'fuzz' }, data: { a: '1', b: 'two' } }) },
  { path: NODES, valid: (name) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'node-role.kubernetes.io/worker': '' }, annotations: { a: 'b' } }, spec: { unschedulable: false } }) },
  { path: PODS, valid: (name) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'fuzz' }, spec: { containers: [{ name: 'c', image: 'quay.io/x/y:1' }] } }) },
  { path: WIDGETS, valid: (name) => ({ apiVersion: 'fuzz.example.com/v1', kind: 'Widget', metadata: { name, namespace: 'fuzz' }, spec: { size: 1, parts: ['a', 'b'] } }) },
  { path: NS, valid: (name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }) },
  { path: CRD, valid: (name) => ({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `${name}s.fuzz.example.com` }, spec: { group: 'fuzz.example.com', scope: 'Namespaced', names: { plural: `${name}s`, kind: 'Fz' + name.replace(/[^a-z0-9]/g, '') }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer', minimum: 0 } } } } } } }] } }) },
];

/** Names of objects the fuzz test creates before it starts, so updates and patches reach real objects. */
export const SEEDED_NAMES = ['fz-a', 'fz-b', 'fz-c'];
