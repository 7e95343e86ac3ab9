/**
 * The built-in kinds this server serves, with the columns `kubectl get` shows for them on a real cluster.
 * Only what clients of this project need: Namespace, Node, ConfigMap, Secret, ServiceAccount, Event (core and
 * events.k8s.io), Pod, the apps/v1 workloads (Deployment, ReplicaSet, DaemonSet), batch/v1 Job (builtins-batch.ts),
 * the kinds only stored of builtins-stored.ts and the CustomResourceDefinition kind itself. Columns of priority 1 are
 * the ones `kubectl get -o wide` adds.
 */
import { age, builtin, formatSelector } from './builtin-type.js';
import { batchResourceTypes } from './builtins-batch.js';
import { storedOnlyResourceTypes } from './builtins-stored.js';
import type { KubeObject, PrinterColumn, ResourceType } from './resources.js';

function nodeStatus(node: KubeObject): string {
  const ready = (node.status?.conditions ?? []).find((c: { type: string }) => c.type === 'Ready');
  let text = ready?.status === 'True' ? 'Ready' : ready ? 'NotReady' : 'Unknown';
  if (node.spec?.unschedulable) text += ',SchedulingDisabled';
  return text;
}

function nodeRoles(node: KubeObject): string {
  const roles: string[] = [];
  for (const [key, value] of Object.entries(node.metadata.labels ?? {})) {
    if (key.startsWith('node-role.kubernetes.io/')) roles.push(key.slice('node-role.kubernetes.io/'.length));
    else if (key === 'kubernetes.io/role' && value) roles.push(value);
  }
  return roles.length ? roles.sort().join(',') : '<none>';
}

function involved(event: KubeObject): string {
  const ref = event.involvedObject ?? event.regarding ?? {};
  return `${String(ref.kind ?? '').toLowerCase()}/${ref.name ?? ''}`;
}

function lastSeen(event: KubeObject): string | undefined {
  return event.lastTimestamp ?? event.deprecatedLastTimestamp ?? event.eventTime ?? event.series?.lastObservedTime ?? event.metadata.creationTimestamp;
}

function podReady(pod: KubeObject): string {
  const statuses = (pod.status?.containerStatuses ?? []) as Array<{ ready?: boolean }>;
  const total = (pod.spec?.containers ?? []).length || statuses.length;
  return `${statuses.filter((c) => c.ready).length}/${total}`;
}

interface ContainerState {
  waiting?: { reason?: string };
  running?: object;
  terminated?: { reason?: string; exitCode?: number; signal?: number };
}

/**
 * While a pod initializes, the STATUS of kubectl's pod printer: the first init container not done says `Init:<reason>`
 * (failed or waiting on something other than PodInitializing) or `Init:<done>/<all>`; undefined once all are done.
 */
function initStatus(pod: KubeObject): string | undefined {
  const statuses = (pod.status?.initContainerStatuses ?? []) as Array<{ state?: ContainerState }>;
  const total = (pod.spec?.initContainers ?? []).length;
  for (const [i, s] of statuses.entries()) {
    const { terminated, waiting } = s.state ?? {};
    if (terminated?.exitCode === 0) continue;
    if (terminated) return terminated.reason ? `Init:${terminated.reason}` : terminated.signal ? `Init:Signal:${terminated.signal}` : `Init:ExitCode:${terminated.exitCode ?? 0}`;
    if (waiting?.reason && waiting.reason !== 'PodInitializing') return `Init:${waiting.reason}`;
    return `Init:${i}/${total}`;
  }
  return undefined;
}

/** The STATUS column as kubectl's pod printer computes it: the last container's waiting or terminated reason wins. */
function podStatus(pod: KubeObject): string {
  let reason: string = pod.status?.reason ?? pod.status?.phase ?? 'Pending';
  let running = false;
  const initializing = initStatus(pod);
  const statuses = (initializing ? [] : pod.status?.containerStatuses ?? []) as Array<{ ready?: boolean; state?: ContainerState }>;
  if (initializing) reason = initializing;
  for (const s of [...statuses].reverse()) {
    const state = s.state ?? {};
    if (state.waiting?.reason) reason = state.waiting.reason;
    else if (state.terminated?.reason) reason = state.terminated.reason;
    else if (state.terminated) reason = state.terminated.signal ? `Signal:${state.terminated.signal}` : `ExitCode:${state.terminated.exitCode ?? 0}`;
    else if (state.running && s.ready) running = true;
  }
  if (reason === 'Completed' && running) reason = 'Running';
  if (pod.metadata.deletionTimestamp) reason = pod.status?.reason === 'NodeLost' ? 'Unknown' : 'Terminating';
  return reason;
}

function nodeAddress(node: KubeObject, type: string): string {
  return ((node.status?.addresses ?? []) as Array<{ type: string; address: string }>).find((a) => a.type === type)?.address ?? '<none>';
}

/** CONTAINERS, IMAGES and SELECTOR: the wide columns every workload kind prints. */
const workloadWideColumns: PrinterColumn[] = [
  { name: 'Containers', type: 'string', priority: 1, value: (o) => (o.spec?.template?.spec?.containers ?? []).map((c: { name: string }) => c.name).join(',') },
  { name: 'Images', type: 'string', priority: 1, value: (o) => (o.spec?.template?.spec?.containers ?? []).map((c: { image: string }) => c.image).join(',') },
  { name: 'Selector', type: 'string', priority: 1, value: (o) => formatSelector(o.spec?.selector) },
];

const count = (value: (o: KubeObject) => unknown) => (o: KubeObject) => Number(value(o) ?? 0);

const eventColumns: PrinterColumn[] = [
  { name: 'Last Seen', type: 'date', value: lastSeen },
  { name: 'Type', type: 'string', jsonPath: '.type' },
  { name: 'Reason', type: 'string', jsonPath: '.reason' },
  { name: 'Object', type: 'string', value: involved },
  { name: 'Message', type: 'string', value: (e) => e.message ?? e.note ?? '' },
];

const createdAt: PrinterColumn = { name: 'Created At', type: 'date', format: 'date-time', jsonPath: '.metadata.creationTimestamp', value: (o) => o.metadata.creationTimestamp };

/** USERS, GROUPS and SERVICEACCOUNTS of a binding's subjects, as `kubectl get rolebindings -o wide` prints them. */
function subjects(kind: string) {
  return (b: KubeObject) => ((b.subjects ?? []) as Array<{ kind: string; name: string; namespace?: string }>)
    .filter((s) => s.kind === kind).map((s) => (kind === 'ServiceAccount' ? `${s.namespace ?? ''}/${s.name}` : s.name)).join(', ');
}

const bindingColumns: PrinterColumn[] = [
  { name: 'Role', type: 'string', value: (b) => `${b.roleRef?.kind ?? ''}/${b.roleRef?.name ?? ''}` },
  age,
  { name: 'Users', type: 'string', priority: 1, value: subjects('User') },
  { name: 'Groups', type: 'string', priority: 1, value: subjects('Group') },
  { name: 'ServiceAccounts', type: 'string', priority: 1, value: subjects('ServiceAccount') },
];

/**
 * rbac.authorization.k8s.io/v1 (read by mock/rbac when RBAC is on), the review kinds of authorization.k8s.io/v1 and
 * authentication.k8s.io/v1's SelfSubjectReview, which are only created (answered by http/handlers/access-reviews.ts
 * and self-subject-review.ts, never stored).
 */
function rbacResourceTypes(): ResourceType[] {
  const rbac = 'rbac.authorization.k8s.io';
  const review = (kind: string, plural: string) => builtin({ group: 'authorization.k8s.io', version: 'v1', kind, plural, namespaced: false, verbs: ['create'] });
  // RBAC names are path segments (`system:` names included), as kube-apiserver's ValidateRBACName has them
  const rbacKind = (kind: string, plural: string, namespaced: boolean, columns: PrinterColumn[]) =>
    builtin({ group: rbac, version: 'v1', kind, plural, namespaced, columns, pathSegmentNames: true });
  return [
    rbacKind('ClusterRole', 'clusterroles', false, [createdAt]),
    rbacKind('ClusterRoleBinding', 'clusterrolebindings', false, bindingColumns),
    rbacKind('Role', 'roles', true, [createdAt]),
    rbacKind('RoleBinding', 'rolebindings', true, bindingColumns),
    review('SelfSubjectAccessReview', 'selfsubjectaccessreviews'),
    review('SelfSubjectRulesReview', 'selfsubjectrulesreviews'),
    builtin({ group: 'authentication.k8s.io', version: 'v1', kind: 'SelfSubjectReview', plural: 'selfsubjectreviews', namespaced: false, verbs: ['create'] }),
  ];
}

export function builtinResourceTypes(): ResourceType[] {
  return [
    builtin({
      group: '', version: 'v1', kind: 'Namespace', plural: 'namespaces', namespaced: false, shortNames: ['ns'],
      statusSubresource: true,
      columns: [{ name: 'Status', type: 'string', jsonPath: '.status.phase' }, age],
      onCreate: (ns) => {
        ns.spec = { finalizers: ['kubernetes'], ...(ns.spec ?? {}) };
        ns.status = { phase: 'Active', ...(ns.status ?? {}) };
        ns.metadata.labels = { 'kubernetes.io/metadata.name': ns.metadata.name!, ...(ns.metadata.labels ?? {}) };
      },
    }),
    builtin({
      group: '', version: 'v1', kind: 'Node', plural: 'nodes', namespaced: false, shortNames: ['no'], statusSubresource: true,
      columns: [
        { name: 'Status', type: 'string', value: nodeStatus },
        { name: 'Roles', type: 'string', value: nodeRoles },
        age,
        { name: 'Version', type: 'string', jsonPath: '.status.nodeInfo.kubeletVersion' },
        { name: 'Internal-IP', type: 'string', priority: 1, value: (n) => nodeAddress(n, 'InternalIP') },
        { name: 'External-IP', type: 'string', priority: 1, value: (n) => nodeAddress(n, 'ExternalIP') },
        { name: 'OS-Image', type: 'string', priority: 1, value: (n) => n.status?.nodeInfo?.osImage ?? '<unknown>' },
        { name: 'Kernel-Version', type: 'string', priority: 1, value: (n) => n.status?.nodeInfo?.kernelVersion ?? '<unknown>' },
        { name: 'Container-Runtime', type: 'string', priority: 1, value: (n) => n.status?.nodeInfo?.containerRuntimeVersion ?? '<unknown>' },
      ],
    }),
    builtin({
      group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true, shortNames: ['cm'],
      columns: [{ name: 'Data', type: 'integer', value: (o) => Object.keys(o.data ?? {}).length + Object.keys(o.binaryData ?? {}).length }, age],
    }),
    builtin({
      group: '', version: 'v1', kind: 'Secret', plural: 'secrets', namespaced: true,
      columns: [
        { name: 'Type', type: 'string', jsonPath: '.type' },
        { name: 'Data', type: 'integer', value: (o) => Object.keys(o.data ?? {}).length },
        age,
      ],
      onCreate: (s) => { if (!s.type) s.type = 'Opaque'; },
    }),
    builtin({
      group: '', version: 'v1', kind: 'ServiceAccount', plural: 'serviceaccounts', namespaced: true, shortNames: ['sa'],
      columns: [{ name: 'Secrets', type: 'integer', value: (o) => (o.secrets ?? []).length }, age],
    }),
    builtin({ group: '', version: 'v1', kind: 'Event', plural: 'events', namespaced: true, shortNames: ['ev'], columns: eventColumns, nameColumnLast: true }),
    builtin({
      group: 'events.k8s.io', version: 'v1', kind: 'Event', plural: 'events', namespaced: true, shortNames: ['ev'],
      // Both event APIs are views of one store on a real server; here they share storage without field conversion.
      storageKey: '/events', storageVersion: 'v1', columns: eventColumns, nameColumnLast: true,
    }),
    builtin({
      // The server stores pods; whoever plays the kubelet of a node (the reference's stand-in) runs them.
      group: '', version: 'v1', kind: 'Pod', plural: 'pods', namespaced: true, shortNames: ['po'], categories: ['all'], statusSubresource: true,
      columns: [
        { name: 'Ready', type: 'string', value: podReady },
        { name: 'Status', type: 'string', value: podStatus },
        { name: 'Restarts', type: 'integer', value: (p) => [...(p.status?.initContainerStatuses ?? []), ...(p.status?.containerStatuses ?? [])].reduce((n: number, c: { restartCount?: number }) => n + (c.restartCount ?? 0), 0) },
        age,
        { name: 'IP', type: 'string', priority: 1, value: (p) => p.status?.podIP ?? '<none>' },
        { name: 'Node', type: 'string', priority: 1, value: (p) => p.spec?.nodeName || '<none>' },
        { name: 'Nominated Node', type: 'string', priority: 1, value: (p) => p.status?.nominatedNodeName || '<none>' },
        { name: 'Readiness Gates', type: 'string', priority: 1, value: (p) => (p.spec?.readinessGates ?? []).length ? `${(p.status?.conditions ?? []).filter((c: { type: string; status: string }) => (p.spec.readinessGates as Array<{ conditionType: string }>).some((g) => g.conditionType === c.type) && c.status === 'True').length}/${p.spec.readinessGates.length}` : '<none>' },
      ],
    }),
    builtin({
      group: 'apps', version: 'v1', kind: 'Deployment', plural: 'deployments', namespaced: true, shortNames: ['deploy'], categories: ['all'],
      statusSubresource: true, tracksGeneration: true,
      columns: [
        { name: 'Ready', type: 'string', value: (d) => `${d.status?.readyReplicas ?? 0}/${d.spec?.replicas ?? 1}` },
        { name: 'Up-to-date', type: 'integer', value: count((d) => d.status?.updatedReplicas) },
        { name: 'Available', type: 'integer', value: count((d) => d.status?.availableReplicas) },
        age,
        ...workloadWideColumns,
      ],
    }),
    builtin({
      group: 'apps', version: 'v1', kind: 'ReplicaSet', plural: 'replicasets', namespaced: true, shortNames: ['rs'], categories: ['all'],
      statusSubresource: true, tracksGeneration: true,
      columns: [
        { name: 'Desired', type: 'integer', value: count((r) => r.spec?.replicas ?? 1) },
        { name: 'Current', type: 'integer', value: count((r) => r.status?.replicas) },
        { name: 'Ready', type: 'integer', value: count((r) => r.status?.readyReplicas) },
        age,
        ...workloadWideColumns,
      ],
    }),
    builtin({
      group: 'apps', version: 'v1', kind: 'DaemonSet', plural: 'daemonsets', namespaced: true, shortNames: ['ds'], categories: ['all'],
      statusSubresource: true, tracksGeneration: true,
      columns: [
        { name: 'Desired', type: 'integer', value: count((d) => d.status?.desiredNumberScheduled) },
        { name: 'Current', type: 'integer', value: count((d) => d.status?.currentNumberScheduled) },
        { name: 'Ready', type: 'integer', value: count((d) => d.status?.numberReady) },
        { name: 'Up-to-date', type: 'integer', value: count((d) => d.status?.updatedNumberScheduled) },
        { name: 'Available', type: 'integer', value: count((d) => d.status?.numberAvailable) },
        { name: 'Node Selector', type: 'string', value: (d) => Object.entries(d.spec?.template?.spec?.nodeSelector ?? {}).map(([k, v]) => `${k}=${v}`).join(',') || '<none>' },
        age,
        ...workloadWideColumns,
      ],
    }),
    ...batchResourceTypes(),
    ...rbacResourceTypes(),
    ...storedOnlyResourceTypes(),
    builtin({
      group: 'apiextensions.k8s.io', version: 'v1', kind: 'CustomResourceDefinition', plural: 'customresourcedefinitions',
      namespaced: false, shortNames: ['crd', 'crds'], categories: ['api-extensions'], statusSubresource: true, tracksGeneration: true,
      columns: [{ name: 'Created At', type: 'date', format: 'date-time', jsonPath: '.metadata.creationTimestamp', value: (o) => o.metadata.creationTimestamp }],
    }),
  ];
}
