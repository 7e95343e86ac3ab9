/**
 * `cluster up --service-account NS/NAME [--cluster-role FILE]`: a ServiceAccount (and its namespace) made with the
 * admin kubeconfig, each ClusterRole of the file applied and bound to it, and a second kubeconfig that authenticates
 * as that account with a token from the TokenRequest API (as `kubectl create token` gets one). The token only ever
 * goes into that file (mode 0600); nothing prints it. Everything goes through the API, so it is the same on any cluster.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { AuthenticationV1TokenRequest, CoreV1Api, KubeConfig, KubernetesObjectApi, type KubernetesObject } from '@kubernetes/client-node';
import { parseAllDocuments, stringify } from 'yaml';

export interface ServiceAccountRequest {
  namespace: string;
  name: string;
  /** Files of ClusterRoles to apply and bind to the account (none: the account has only what every user has). */
  clusterRoleFiles: string[];
  /** Where the account's kubeconfig goes. */
  kubeconfigOut: string;
}

export interface ServiceAccountSetup {
  user: string;
  kubeconfig: string;
  /** The ClusterRoleBindings made, by name, with the role each binds. */
  bindings: { name: string; role: string }[];
}

/** `NS/NAME` of --service-account; both parts must be DNS labels / subdomains as the API wants them. */
export function parseServiceAccount(value: string): { namespace: string; name: string } {
  const m = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?)\/([a-z0-9]([-.a-z0-9]*[a-z0-9])?)$/.exec(value.trim());
  if (!m) throw new Error(`--service-account ${value}: give NAMESPACE/NAME in lowercase letters, digits and dashes, e.g. ocp-e2e/ocp-e2e`);
  return { namespace: m[1]!, name: m[3]! };
}

export async function setUpServiceAccount(adminKubeconfig: string, request: ServiceAccountRequest): Promise<ServiceAccountSetup> {
  const admin = new KubeConfig();
  admin.loadFromFile(adminKubeconfig);
  const objects = KubernetesObjectApi.makeApiClient(admin);
  const { namespace, name } = request;
  const roles = (await Promise.all(request.clusterRoleFiles.map(readClusterRoles))).flat();

  await ensure(objects, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  await ensure(objects, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace } });
  const bindings: ServiceAccountSetup['bindings'] = [];
  for (const role of roles) {
    await applyReplacing(objects, role);
    const binding = bindingFor(role.metadata!.name!, namespace, name);
    await applyReplacing(objects, binding);
    bindings.push({ name: binding.metadata!.name!, role: role.metadata!.name! });
  }
  const token = await requestToken(admin, namespace, name);
  await writeFile(request.kubeconfigOut, serviceAccountKubeconfig(admin, namespace, name, token), { mode: 0o600 });
  return { user: `system:serviceaccount:${namespace}:${name}`, kubeconfig: request.kubeconfigOut, bindings };
}

/** Every document of the file; each must be a ClusterRole (a binding is made here, to this account). */
async function readClusterRoles(file: string): Promise<KubernetesObject[]> {
  const docs = parseAllDocuments(await readFile(file, 'utf8'));
  const roles: KubernetesObject[] = [];
  for (const doc of docs) {
    if (doc.errors.length) throw new Error(`--cluster-role ${file}: not YAML: ${doc.errors[0]!.message}`);
    const obj = doc.toJS() as KubernetesObject | null;
    if (obj === null) continue;
    if (obj.kind !== 'ClusterRole' || !obj.metadata?.name) throw new Error(`--cluster-role ${file}: every document must be a ClusterRole with a name, found ${obj.kind ?? 'no kind'}`);
    roles.push({ ...obj, apiVersion: obj.apiVersion ?? 'rbac.authorization.k8s.io/v1' });
  }
  if (!roles.length) throw new Error(`--cluster-role ${file}: no ClusterRole in it`);
  return roles;
}

/** One binding per role and account; RBAC names are path segments, so the colons are fine (as `system:` names). */
function bindingFor(role: string, namespace: string, account: string): KubernetesObject {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: `${role}:${namespace}:${account}` },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
    subjects: [{ kind: 'ServiceAccount', name: account, namespace }],
  } as KubernetesObject;
}

async function ensure(objects: KubernetesObjectApi, obj: KubernetesObject): Promise<void> {
  try {
    await objects.create(obj);
  } catch (error) {
    if (statusOf(error) !== 409) throw error;
  }
}

/** Created, or replaced when it exists (a role edited between two `cluster up`s of a persistent cluster). */
async function applyReplacing(objects: KubernetesObjectApi, obj: KubernetesObject): Promise<void> {
  try {
    await objects.create(obj);
  } catch (error) {
    if (statusOf(error) !== 409) throw error;
    const current = await objects.read({ apiVersion: obj.apiVersion!, kind: obj.kind!, metadata: { name: obj.metadata!.name! } });
    await objects.replace({ ...obj, metadata: { ...obj.metadata, resourceVersion: current.metadata?.resourceVersion } });
  }
}

async function requestToken(admin: KubeConfig, namespace: string, name: string): Promise<string> {
  const body = new AuthenticationV1TokenRequest();
  // A year of cluster time: the reference's clock runs 600x, so a day of it is 2.4 minutes of wall time, less than a
  // whole suite sharing one upgrade takes (its requests then end in 401). At 600x a year is about 14 hours of wall.
  body.spec = { audiences: [], expirationSeconds: 365 * 86_400 };
  const answer = await admin.makeApiClient(CoreV1Api).createNamespacedServiceAccountToken({ namespace, name, body });
  const token = answer.status?.token;
  if (!token) throw new Error(`the TokenRequest for ServiceAccount ${namespace}/${name} returned no token`);
  return token;
}

/** The admin kubeconfig's cluster (server and CA), with the account as its only user. */
function serviceAccountKubeconfig(admin: KubeConfig, namespace: string, name: string, token: string): string {
  const cluster = admin.getCurrentCluster()!;
  const clusterEntry: Record<string, unknown> = { server: cluster.server };
  if (cluster.caData) clusterEntry['certificate-authority-data'] = cluster.caData;
  if (cluster.caFile) clusterEntry['certificate-authority'] = cluster.caFile;
  if (cluster.skipTLSVerify) clusterEntry['insecure-skip-tls-verify'] = true;
  const user = `system:serviceaccount:${namespace}:${name}`;
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: cluster.name, cluster: clusterEntry }],
    users: [{ name: user, user: { token } }],
    contexts: [{ name: user, context: { cluster: cluster.name, user, namespace } }],
    'current-context': user,
    preferences: {},
  });
}

function statusOf(error: unknown): number | undefined {
  const e = error as { code?: unknown; statusCode?: unknown; response?: { statusCode?: unknown } };
  for (const v of [e?.code, e?.statusCode, e?.response?.statusCode]) if (typeof v === 'number') return v;
  return undefined;
}
