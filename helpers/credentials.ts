/**
 * The registry credentials of a session: --pull-secret when given (its values registered for masking as it is read),
 * else, for building on top of a release image, the cluster's own pull secret, as QE's layering tests do. The session
 * reads them once and hands them to whatever talks to a registry; nothing here reads the environment.
 */
import { parseDockerConfig, RegistryCredentials } from '../lib/oci/credentials.js';
import type { Cluster } from './cluster.js';
import { loadPullSecret, parsePullSecret } from './secrets.js';

export interface RegistryAccess {
  /** The --pull-secret file, when given (`oc adm release info -a` reads it). */
  pullSecretPath?: string;
  /** Its credentials; empty when no pull secret was given. */
  credentials: RegistryCredentials;
}

/** Reads the pull secret file (registering its secrets for masking); none given means anonymous access. */
export function registryAccess(pullSecretPath: string | undefined): RegistryAccess {
  if (!pullSecretPath) return { credentials: new RegistryCredentials() };
  const secret = loadPullSecret(pullSecretPath);
  return { pullSecretPath, credentials: parseDockerConfig(secret.json, 'the pull secret') };
}

/**
 * Credentials for building on top of a release image and for reading release images: --pull-secret's, completed for
 * the registries it does not name by the cluster's own pull secret (openshift-config/pull-secret), which is what can
 * pull the release's images, as QE's layering tests use it.
 */
export async function buildCredentials(cluster: Cluster, access: RegistryAccess): Promise<RegistryCredentials> {
  const data = await cluster.getSecretData('openshift-config', 'pull-secret').catch(() => undefined);
  const json = data?.['.dockerconfigjson'];
  if (!json) return access.credentials;
  parsePullSecret(json, 'secret openshift-config/pull-secret'); // registers its credentials for masking
  return access.credentials.withFallback(parseDockerConfig(json, 'secret openshift-config/pull-secret'));
}
