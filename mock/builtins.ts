/**
 * The built-in kinds this server serves, with the columns `kubectl get` shows for them on a real cluster.
 * Only what clients of this project need: Namespace, Node, ConfigMap, Secret, ServiceAccount, Event (core and
 * events.k8s.io) and the CustomResourceDefinition kind itself.
 */
import { ALL_VERBS, type KubeObject, type PrinterColumn, type ResourceType } from './resources.js';

const age: PrinterColumn = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp', description: 'Time since creation' };

function builtin(p: Partial<ResourceType> & Pick<ResourceType, 'group' | 'version' | 'kind' | 'plural' | 'namespaced'>): ResourceType {
  return {
    listKind: `${p.kind}List`,
    singular: p.kind.toLowerCase(),
    shortNames: [],
    categories: [],
    statusSubresource: false,
    builtin: true,
    tracksGeneration: false,
    columns: [age],
    storageKey: `${p.group}/${p.plural}`,
    storageVersion: p.version,
    verbs: ALL_VERBS,
    ...p,
  };
}

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

const eventColumns: PrinterColumn[] = [
  { name: 'Last Seen', type: 'date', value: lastSeen },
  { name: 'Type', type: 'string', jsonPath: '.type' },
  { name: 'Reason', type: 'string', jsonPath: '.reason' },
  { name: 'Object', type: 'string', value: involved },
  { name: 'Message', type: 'string', value: (e) => e.message ?? e.note ?? '' },
];

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
      // Served so that `kubectl describe node` (which lists the node's pods) works; nothing runs them.
      group: '', version: 'v1', kind: 'Pod', plural: 'pods', namespaced: true, shortNames: ['po'], categories: ['all'], statusSubresource: true,
      columns: [
        { name: 'Ready', type: 'string', value: podReady },
        { name: 'Status', type: 'string', value: (p) => p.metadata.deletionTimestamp ? 'Terminating' : p.status?.reason ?? p.status?.phase ?? 'Pending' },
        { name: 'Restarts', type: 'integer', value: (p) => (p.status?.containerStatuses ?? []).reduce((n: number, c: { restartCount?: number }) => n + (c.restartCount ?? 0), 0) },
        age,
      ],
    }),
    builtin({
      group: 'apiextensions.k8s.io', version: 'v1', kind: 'CustomResourceDefinition', plural: 'customresourcedefinitions',
      namespaced: false, shortNames: ['crd', 'crds'], categories: ['api-extensions'], statusSubresource: true, tracksGeneration: true,
      columns: [{ name: 'Created At', type: 'date', format: 'date-time', jsonPath: '.metadata.creationTimestamp', value: (o) => o.metadata.creationTimestamp }],
    }),
  ];
}
