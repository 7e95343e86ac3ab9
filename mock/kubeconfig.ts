/** The kubeconfig that points kubectl, oc and client-node at a running mock API server. */
import { stringify } from 'yaml';

export interface KubeconfigInput { url: string; token: string; caPem?: string; name?: string }

export function renderKubeconfig({ url, token, caPem, name = 'ocp-e2e-mock' }: KubeconfigInput): string {
  const cluster: Record<string, unknown> = { server: url };
  if (caPem) cluster['certificate-authority-data'] = Buffer.from(caPem).toString('base64');
  // client-node refuses plain http:// unless the cluster entry says TLS verification is off (field notes §3).
  else cluster['insecure-skip-tls-verify'] = true;
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster }],
    users: [{ name: `${name}-admin`, user: { token } }],
    contexts: [{ name, context: { cluster: name, user: `${name}-admin`, namespace: 'default' } }],
    'current-context': name,
    preferences: {},
  });
}
