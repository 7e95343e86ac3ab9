/**
 * The registry credentials of a run, one story for every pull and push the suite makes:
 *
 * - one auth file, chosen once by the `run` command (lib/oci/auth-file.ts: --pull-secret, else $REGISTRY_AUTH_FILE,
 *   podman's auth.json, docker's config.json) and handed to the spec processes by path (TargetEnv.pullSecret), so the
 *   preflight, the build and the push read the same file and no spec process looks for one itself;
 * - for pulling the release's images (the payload, the base OS image the layered image is built on), that file
 *   completed, for the registries it lacks, by the cluster's own pull secret (openshift-config/pull-secret), as QE's
 *   layering tests do; the push uses the same credentials, so the preflight's push check asks with them too;
 * - the nodes pull the layered image with the cluster's pull secret alone (helpers/preflight/node-pull.ts checks it).
 *
 * Every secret is registered for masking as it is read.
 */
import { chooseAuthFile } from '../lib/oci/auth-file.js';
import { CredentialsFileError, parseDockerConfig, RegistryCredentials } from '../lib/oci/credentials.js';
import type { Cluster } from './cluster.js';
import { loadPullSecret, parsePullSecret, registerCredentials } from './secrets.js';

export interface RegistryAccess {
  /** The auth file of the run, when there is one (`oc adm release info -a` reads it). */
  pullSecretPath?: string;
  /** Its credentials; empty when there is no file. */
  credentials: RegistryCredentials;
}

/** The run's access and why that file: what the run prints at its start. */
export interface ResolvedAccess extends RegistryAccess {
  /** `--pull-secret`, `REGISTRY_AUTH_FILE`, ... (lib/oci/auth-file.ts); undefined when no file was found. */
  source?: string;
}

export class CredentialsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CredentialsError';
  }
}

/**
 * Reads an auth file as a spec process and the run both read it: its credential helpers run, its secrets registered.
 * `strict`: a file with nothing in it is wrong (it was given, not found).
 */
function readAccessFile(file: string, strict: boolean, env: NodeJS.ProcessEnv): RegistryCredentials {
  let credentials: RegistryCredentials;
  try {
    const secret = loadPullSecret(file, { allowEmpty: !strict });
    credentials = parseDockerConfig(secret.json, file, { allowEmpty: !strict, credentialHelpers: env });
  } catch (error) {
    throw new CredentialsError(error instanceof CredentialsFileError ? error.message : (error as Error).message);
  }
  registerCredentials(credentials);
  return credentials;
}

/** The run's credentials, chosen once (lib/oci/auth-file.ts). Throws CredentialsError for a file that cannot be used. */
export function resolveRegistryAccess(given: string | undefined, env: NodeJS.ProcessEnv = process.env): ResolvedAccess {
  const choice = chooseAuthFile(given, env);
  if (!choice) return { credentials: new RegistryCredentials() };
  return { pullSecretPath: choice.path, source: choice.source, credentials: readAccessFile(choice.path, choice.source === '--pull-secret', env) };
}

/**
 * The start line of a run (hosts only, never a secret), then one line per credential that could not be read:
 * `registry credentials: /root/.docker/config.json (REGISTRY_AUTH_FILE) for quay.io, 127.0.0.1:5000`.
 */
export function describeRegistryAccess(access: ResolvedAccess): string[] {
  if (!access.pullSecretPath) {
    return ['registry credentials: none (no --pull-secret, and no $REGISTRY_AUTH_FILE, podman auth.json or docker config.json found): registries are asked anonymously, or with the cluster\'s pull secret where it has an entry'];
  }
  const hosts = access.credentials.hosts();
  const line = `registry credentials: ${access.pullSecretPath} (${access.source}) for ${hosts.length ? hosts.join(', ') : 'no registry'}`;
  return [line, ...access.credentials.problems.map((p) => `registry credentials: warning: ${p}`)];
}

/** A spec process's access: the file the run chose (TargetEnv.pullSecret), read as the run read it; none is anonymous. */
export function registryAccess(pullSecretPath: string | undefined, env: NodeJS.ProcessEnv = process.env): RegistryAccess {
  if (!pullSecretPath) return { credentials: new RegistryCredentials() };
  return { pullSecretPath, credentials: readAccessFile(pullSecretPath, false, env) };
}

/**
 * The cluster's pull secret (openshift-config/pull-secret, key .dockerconfigjson), its secrets registered; undefined
 * when it cannot be read (absent, or no permission) or holds nothing usable.
 */
export async function clusterPullSecret(cluster: Cluster): Promise<RegistryCredentials | undefined> {
  const data = await cluster.getSecretData('openshift-config', 'pull-secret').catch(() => undefined);
  const json = data?.['.dockerconfigjson'];
  if (!json) return undefined;
  try {
    parsePullSecret(json, 'openshift-config/pull-secret'); // registers its credentials for masking
    return parseDockerConfig(json, 'secret openshift-config/pull-secret');
  } catch {
    return undefined;
  }
}

/**
 * Credentials for building on top of a release image, for reading release images and for the push: the run's file,
 * completed for the registries it does not name by the cluster's own pull secret, which is what can pull the
 * release's images, as QE's layering tests use it.
 */
export async function buildCredentials(cluster: Cluster, access: RegistryAccess): Promise<RegistryCredentials> {
  const ofCluster = await clusterPullSecret(cluster);
  return ofCluster ? access.credentials.withFallback(ofCluster) : access.credentials;
}
