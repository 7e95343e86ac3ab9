/**
 * The push secret a MachineOSConfig names (renderedImagePushSecret): a kubernetes.io/dockerconfigjson Secret in
 * openshift-machine-config-operator holding the run's credentials for the push repository only (the run's auth file
 * completed by the cluster's pull secret, helpers/credentials.ts), never the rest of the user's file. Its values are
 * registered for masking as they are read.
 */
import type { KubeObject } from '../../lib/kube/client.js';
import { RegistryCredentials } from '../../lib/oci/credentials.js';
import { RunIdLabel } from '../types.js';
import { MCO_NAMESPACE } from './types.js';

/** The credentials of `credentials` that answer for `pushSpec`, as a one-entry docker config; throws when none does. */
export function pushCredentialsFor(credentials: RegistryCredentials, pushSpec: string): RegistryCredentials {
  const key = credentials.keyFor(pushSpec);
  const auth = key === undefined ? undefined : credentials.authFor(pushSpec);
  if (key === undefined || !auth) {
    const hosts = credentials.hosts();
    throw new Error(
      `no registry credentials for ${pushSpec.replace(/:[^/:]+$/, '')}: the image-mode build pushes there with the MachineOSConfig's push secret, made from the run's credentials (--pull-secret, completed by the cluster's pull secret), which hold ${hosts.length ? hosts.join(', ') : 'no registry'}`,
    );
  }
  return new RegistryCredentials([[key, auth]]);
}

/** The Secret object (data base64-encoded as the API wants it), labelled with the run so the leak check finds it. */
export function pushSecretObject(name: string, credentials: RegistryCredentials, runId: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'kubernetes.io/dockerconfigjson',
    metadata: { name, namespace: MCO_NAMESPACE, labels: { [RunIdLabel]: runId } },
    data: { '.dockerconfigjson': Buffer.from(credentials.toDockerConfigJson()).toString('base64') },
  } as KubeObject;
}
