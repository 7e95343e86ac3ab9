/**
 * Namespaced kinds every kube-apiserver serves that nothing in this project acts on: Endpoints, EndpointSlice,
 * NetworkPolicy, PersistentVolumeClaim and PodDisruptionBudget. They are stored and listed like any object, with the
 * columns kubectl 1.25's printers give them, because clients read them in every namespace they inspect (`oc adm
 * inspect`, must-gather) and a server without them makes those clients skip part of what they gather. No controller
 * fills them in (no endpoints controller, no volume binding, no disruption budget counting).
 */
import { age, builtin, formatSelector } from './builtin-type.js';
import type { KubeObject, ResourceType } from './resources.js';

/** kubectl's list of at most three entries, then ` + N more...`; `none` when there is no entry. */
function firstThree(entries: string[], none: string): string {
  if (!entries.length) return none;
  return entries.slice(0, 3).join(',') + (entries.length > 3 ? ` + ${entries.length - 3} more...` : '');
}

interface EndpointSubset {
  addresses?: Array<{ ip: string }>;
  ports?: Array<{ port: number }>;
}

/** ENDPOINTS of an Endpoints object: `ip:port` for every port of every ready address of every subset. */
function endpointsColumn(o: KubeObject): string {
  const entries: string[] = [];
  for (const subset of (o.subsets ?? []) as EndpointSubset[]) {
    const addresses = subset.addresses ?? [];
    if (!subset.ports?.length) entries.push(...addresses.map((a) => a.ip));
    else for (const port of subset.ports) entries.push(...addresses.map((a) => `${a.ip}:${port.port}`));
  }
  return firstThree(entries, '<none>');
}

const ACCESS_MODES: Record<string, string> = { ReadWriteOnce: 'RWO', ReadOnlyMany: 'ROX', ReadWriteMany: 'RWX', ReadWriteOncePod: 'RWOP' };

/** A value of an intstr field (`minAvailable: 2`, `maxUnavailable: 10%`), `N/A` when unset. */
const intOrString = (value: unknown): string => (value === undefined || value === null ? 'N/A' : String(value));

export function storedOnlyResourceTypes(): ResourceType[] {
  return [
    builtin({
      group: '', version: 'v1', kind: 'Endpoints', plural: 'endpoints', singular: 'endpoints', listKind: 'EndpointsList', namespaced: true, shortNames: ['ep'],
      columns: [{ name: 'Endpoints', type: 'string', value: endpointsColumn }, age],
    }),
    builtin({
      group: 'discovery.k8s.io', version: 'v1', kind: 'EndpointSlice', plural: 'endpointslices', namespaced: true,
      columns: [
        { name: 'AddressType', type: 'string', jsonPath: '.addressType' },
        { name: 'Ports', type: 'string', value: (o) => firstThree(((o.ports ?? []) as Array<{ port?: number }>).map((p) => (p.port === undefined ? '<unset>' : String(p.port))), '<unset>') },
        { name: 'Endpoints', type: 'string', value: (o) => firstThree(((o.endpoints ?? []) as Array<{ addresses?: string[] }>).flatMap((e) => e.addresses ?? []), '<unset>') },
        age,
      ],
    }),
    builtin({
      group: 'networking.k8s.io', version: 'v1', kind: 'NetworkPolicy', plural: 'networkpolicies', namespaced: true, shortNames: ['netpol'],
      columns: [{ name: 'Pod-Selector', type: 'string', value: (o) => formatSelector(o.spec?.podSelector) }, age],
    }),
    builtin({
      group: '', version: 'v1', kind: 'PersistentVolumeClaim', plural: 'persistentvolumeclaims', namespaced: true, shortNames: ['pvc'], statusSubresource: true,
      columns: [
        { name: 'Status', type: 'string', value: (o) => (o.metadata.deletionTimestamp ? 'Terminating' : o.status?.phase ?? 'Pending') },
        { name: 'Volume', type: 'string', value: (o) => o.spec?.volumeName ?? '' },
        { name: 'Capacity', type: 'string', value: (o) => (o.spec?.volumeName ? o.status?.capacity?.storage ?? '' : '') },
        { name: 'Access Modes', type: 'string', value: (o) => ((o.status?.accessModes ?? []) as string[]).map((m) => ACCESS_MODES[m] ?? m).join(',') },
        { name: 'StorageClass', type: 'string', value: (o) => o.spec?.storageClassName ?? o.metadata.annotations?.['volume.beta.kubernetes.io/storage-class'] ?? '' },
        age,
        { name: 'VolumeMode', type: 'string', priority: 1, value: (o) => o.spec?.volumeMode ?? '<unset>' },
      ],
    }),
    builtin({
      group: 'policy', version: 'v1', kind: 'PodDisruptionBudget', plural: 'poddisruptionbudgets', namespaced: true, shortNames: ['pdb'], statusSubresource: true,
      columns: [
        { name: 'Min Available', type: 'string', value: (o) => intOrString(o.spec?.minAvailable) },
        { name: 'Max Unavailable', type: 'string', value: (o) => intOrString(o.spec?.maxUnavailable) },
        { name: 'Allowed Disruptions', type: 'integer', value: (o) => Number(o.status?.disruptionsAllowed ?? 0) },
        age,
      ],
    }),
  ];
}
