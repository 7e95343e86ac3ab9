/**
 * The namespaces the MCO's release manifest creates (install/0000_80_machine-config-operator_00_namespace.yaml at
 * 4.12): its own, and one per on-prem platform for the static pods of the platform's services (keepalived, haproxy,
 * coredns). They exist on every 4.12 cluster, empty off those platforms; the operator lists each in its ClusterOperator
 * relatedObjects, so `oc adm inspect co/machine-config` and must-gather fail on a cluster without them.
 */
import type { KubeObject } from '../../lib/kube/client.js';
import { MCO_NAMESPACE } from '../constants.js';

/** The on-prem platforms' namespaces, in the order the operator lists them. */
export const ON_PREM_INFRA_NAMESPACES: readonly string[] = ['kni', 'openstack', 'ovirt', 'vsphere', 'nutanix'].map((p) => `openshift-${p}-infra`);

/** Labels and annotations the manifest gives every one of these namespaces. */
function manifestNamespace(name: string, extra: { labels: Record<string, string>; annotations: Record<string, string> }): KubeObject {
  return {
    metadata: {
      name,
      annotations: {
        'include.release.openshift.io/self-managed-high-availability': 'true',
        'include.release.openshift.io/single-node-developer': 'true',
        'openshift.io/node-selector': '',
        'workload.openshift.io/allowed': 'management',
        ...extra.annotations,
      },
      labels: {
        name,
        'openshift.io/run-level': '',
        'pod-security.kubernetes.io/enforce': 'privileged',
        'pod-security.kubernetes.io/audit': 'privileged',
        'pod-security.kubernetes.io/warn': 'privileged',
        ...extra.labels,
      },
    },
  };
}

/** The Namespace objects of the manifest: the MCO's (monitored, also on IBM Cloud) and the on-prem ones. */
export function mcoManifestNamespaces(): KubeObject[] {
  return [
    manifestNamespace(MCO_NAMESPACE, { labels: { 'openshift.io/cluster-monitoring': 'true' }, annotations: { 'include.release.openshift.io/ibm-cloud-managed': 'true' } }),
    ...ON_PREM_INFRA_NAMESPACES.map((name) => manifestNamespace(name, { labels: { 'security.openshift.io/scc.podSecurityLabelSync': 'false' }, annotations: {} })),
  ];
}
