/**
 * Can the nodes pull what the suite pushes? The machine-config daemon pulls the layered image with the cluster's pull
 * secret (openshift-config/pull-secret, key .dockerconfigjson), never with the suite's credentials: `--image-repo` must
 * have an entry there (matched as the nodes match it: host, host:port, or a host/path prefix of the repository), or be
 * public. Checked before any spec prepares, so a private repository missing from the pull secret is said at once
 * rather than as a Degraded pool an hour later.
 */
import { classifyApiError } from '../../lib/kube/errors.js';
import { parseDockerConfig, RegistryCredentials } from '../../lib/oci/credentials.js';
import { ImageNotFoundError, RegistryUnauthorizedError } from '../../lib/oci/errors.js';
import { isLoopbackRegistry, parseImageRef } from '../../lib/oci/image-ref.js';
import { RegistryClient } from '../../lib/oci/image-files.js';
import type { Cluster } from '../cluster.js';
import { parsePullSecret } from '../secrets.js';
import { BadInputError } from './bad-input.js';

export const CLUSTER_PULL_SECRET = 'openshift-config/pull-secret';

/** Whether a repository answers a pull without credentials: `public`, `private` (401), or `unknown` (no answer). */
export type AnonymousPull = 'public' | 'private' | 'unknown';
export type AnonymousProbe = (repository: string) => Promise<AnonymousPull>;

/** How to add a registry to the cluster's pull secret: OpenShift's documented way (oc registry login, oc set data). */
export function addToPullSecretHint(host: string): string {
  return (
    `add it to the cluster's pull secret: oc get secret/pull-secret -n openshift-config --template='{{index .data ".dockerconfigjson" | base64decode}}' > pull-secret.json; ` +
    `oc registry login --registry=${host} --auth-basic=USER:PASSWORD --to=pull-secret.json; ` +
    'oc set data secret/pull-secret -n openshift-config --from-file=.dockerconfigjson=pull-secret.json'
  );
}

/**
 * Asks the repository for a manifest without credentials: a 401 means private, a 404 (or a manifest) means anyone may
 * read it. Loopback registries only: the suite sends nothing anywhere else just to learn this.
 */
export async function anonymousPull(repository: string, timeoutMs = 10_000): Promise<AnonymousPull> {
  const { registry } = parseImageRef(repository);
  if (!isLoopbackRegistry(registry)) return 'unknown';
  try {
    await new RegistryClient({ credentials: new RegistryCredentials(), timeoutMs }).manifestDigest(`${repository}:ocp-e2e-anonymous-probe`);
    return 'public';
  } catch (error) {
    if (error instanceof RegistryUnauthorizedError) return 'private';
    if (error instanceof ImageNotFoundError) return 'public';
    return 'unknown';
  }
}

/** The cluster's pull secret as the nodes read it; undefined when there is none. */
async function readClusterPullSecret(cluster: Cluster): Promise<RegistryCredentials | undefined> {
  let data: Record<string, string> | undefined;
  try {
    data = await cluster.getSecretData('openshift-config', 'pull-secret');
  } catch (error) {
    const failure = classifyApiError(error);
    if (failure.kind === 'forbidden') throw new BadInputError(`cannot read the cluster's pull secret ${CLUSTER_PULL_SECRET} (get secrets named pull-secret in openshift-config; deploy/clusterrole.yaml grants it): ${failure.message}`);
    throw error;
  }
  const json = data?.['.dockerconfigjson'];
  if (!json) return undefined;
  try {
    parsePullSecret(json, CLUSTER_PULL_SECRET); // registers its credentials for masking
    return parseDockerConfig(json, `the cluster's pull secret ${CLUSTER_PULL_SECRET}`);
  } catch (error) {
    throw new BadInputError(`${(error as Error).message}: the nodes cannot pull any private image with it; fix the secret (key .dockerconfigjson)`);
  }
}

/**
 * Returns the line to print: the entry the nodes will use, or a warning that they pull without credentials. Throws
 * BadInputError when they cannot pull: no entry and the repository refuses an anonymous pull.
 */
export async function checkNodesCanPull(cluster: Cluster, repository: string, probe: AnonymousProbe = anonymousPull): Promise<string> {
  const { registry } = parseImageRef(repository);
  const secret = await readClusterPullSecret(cluster);
  const key = secret?.keyFor(repository);
  if (key) return `node pulls: the nodes pull ${repository} with the entry for ${key} in the cluster's pull secret ${CLUSTER_PULL_SECRET}`;
  const missing = secret ? `the cluster's pull secret ${CLUSTER_PULL_SECRET} has no entry for ${registry}` : `the cluster has no pull secret ${CLUSTER_PULL_SECRET}`;
  const anonymous = await probe(repository);
  if (anonymous === 'private') {
    throw new BadInputError(`--image-repo ${repository}: the nodes pull the layered image with the cluster's pull secret, and ${missing}, while ${registry} refuses a pull without credentials: ${addToPullSecretHint(registry)}`);
  }
  const readable = anonymous === 'public' ? `${repository} can be read without credentials` : `${repository} must be public`;
  return `node pulls: warning: ${missing}: the nodes pull ${repository} without credentials, so ${readable}; if it is private, ${addToPullSecretHint(registry)}`;
}
