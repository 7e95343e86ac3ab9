/**
 * The in-cluster config of a pod (its ServiceAccount's token, the cluster CA and KUBERNETES_SERVICE_HOST/PORT) as a
 * kubeconfig file, for programs that take a kubeconfig path and hand it on to child processes and to `oc`. The file
 * names the token and CA files instead of copying them: client-go (`oc`) re-reads `tokenFile` as the kubelet
 * rotates it; client-node reads `token-file` once per process, which the projected token's lifetime covers.
 */
import { existsSync, readFileSync } from 'node:fs';
import { isIPv6 } from 'node:net';
import { join } from 'node:path';
import { stringify } from 'yaml';

/** Where the kubelet mounts a pod's ServiceAccount credentials. */
export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

export interface InClusterSource {
  env: NodeJS.ProcessEnv;
  /** Default SERVICE_ACCOUNT_DIR (tests point it elsewhere). */
  serviceAccountDir?: string;
}

/** The kubeconfig text of the in-cluster config, or undefined when this is not a pod with a ServiceAccount token. */
export function inClusterKubeconfig({ env, serviceAccountDir = SERVICE_ACCOUNT_DIR }: InClusterSource): string | undefined {
  const host = env.KUBERNETES_SERVICE_HOST?.trim();
  const port = env.KUBERNETES_SERVICE_PORT?.trim();
  const tokenFile = join(serviceAccountDir, 'token');
  const caFile = join(serviceAccountDir, 'ca.crt');
  if (!host || !port || !existsSync(tokenFile)) return undefined;
  const namespaceFile = join(serviceAccountDir, 'namespace');
  const namespace = existsSync(namespaceFile) ? readFileSync(namespaceFile, 'utf8').trim() : 'default';
  const cluster: Record<string, unknown> = { server: `https://${isIPv6(host) ? `[${host}]` : host}:${port}` };
  if (existsSync(caFile)) cluster['certificate-authority'] = caFile;
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'in-cluster', cluster }],
    // tokenFile is client-go's key, token-file client-node's; each ignores the other's
    users: [{ name: 'service-account', user: { tokenFile, 'token-file': tokenFile } }],
    contexts: [{ name: 'in-cluster', context: { cluster: 'in-cluster', user: 'service-account', namespace } }],
    'current-context': 'in-cluster',
  });
}
