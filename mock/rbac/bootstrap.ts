/**
 * The roles every kube-apiserver creates at start and that RBAC relies on: `cluster-admin` bound to
 * `system:masters`, and for every authenticated user discovery (`system:discovery`), the public version and health
 * paths (`system:public-info-viewer`) and asking what it may do (`system:basic-user`: self access and rules
 * reviews). Only these; the aggregated user-facing roles (admin, edit, view) are not made.
 */
import type { KubeObject } from '../resources.js';
import { AUTHENTICATED_GROUP, MASTERS_GROUP } from './identity.js';

const RBAC_V1 = 'rbac.authorization.k8s.io/v1';
const bootstrapMeta = (name: string) => ({
  name,
  labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' },
  annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' },
});

export const BOOTSTRAP_CLUSTER_ROLES: KubeObject[] = [
  {
    apiVersion: RBAC_V1, kind: 'ClusterRole', metadata: bootstrapMeta('cluster-admin'),
    rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }, { nonResourceURLs: ['*'], verbs: ['*'] }],
  },
  {
    apiVersion: RBAC_V1, kind: 'ClusterRole', metadata: bootstrapMeta('system:discovery'),
    rules: [{ nonResourceURLs: ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/'], verbs: ['get'] }],
  },
  {
    apiVersion: RBAC_V1, kind: 'ClusterRole', metadata: bootstrapMeta('system:public-info-viewer'),
    rules: [{ nonResourceURLs: ['/healthz', '/livez', '/readyz', '/version', '/version/'], verbs: ['get'] }],
  },
  {
    apiVersion: RBAC_V1, kind: 'ClusterRole', metadata: bootstrapMeta('system:basic-user'),
    rules: [
      { apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'], verbs: ['create'] },
      { apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'], verbs: ['create'] },
    ],
  },
];

const binding = (name: string, group: string): KubeObject => ({
  apiVersion: RBAC_V1, kind: 'ClusterRoleBinding', metadata: bootstrapMeta(name),
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
  subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: group }],
});

export const BOOTSTRAP_CLUSTER_ROLE_BINDINGS: KubeObject[] = [
  binding('cluster-admin', MASTERS_GROUP),
  binding('system:discovery', AUTHENTICATED_GROUP),
  binding('system:public-info-viewer', AUTHENTICATED_GROUP),
  binding('system:basic-user', AUTHENTICATED_GROUP),
];
