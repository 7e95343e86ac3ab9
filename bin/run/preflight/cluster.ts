/**
 * `--target cluster`, before any spec prepares: the kubeconfig can be read, its server answers and takes its
 * credentials, they may do what the suite will do (helpers/preflight/permissions.ts), the cluster is OpenShift,
 * `--to-image` is a release payload newer than the cluster's, and (when layered images will be pushed) `--image-repo`
 * takes a push and the nodes can pull from it (helpers/preflight/node-pull.ts). Registries are asked with the
 * credentials the specs will use (helpers/credentials.ts: the run's auth file, completed by the cluster's pull
 * secret). Each failure is one message and its own exit code (exit-codes.ts).
 */
import { Cluster } from '../../../helpers/cluster.js';
import { BadInputError } from '../../../helpers/preflight/bad-input.js';
import { buildCredentials, CredentialsError, resolveRegistryAccess, type RegistryAccess, type ResolvedAccess } from '../../../helpers/credentials.js';
import { checkImageRepo } from '../../../helpers/preflight/image-repo.js';
import { checkNodesCanPull } from '../../../helpers/preflight/node-pull.js';
import { checkOpenShift, NotOpenShiftError, type OpenShiftFacts } from '../../../helpers/preflight/openshift.js';
import { checkPermissions, MissingPermissionsError } from '../../../helpers/preflight/permissions.js';
import { checkReleaseImage, type ReleaseImage } from '../../../helpers/preflight/release-image.js';
import type { NodeReadMode } from '../../../helpers/target.js';
import { classifyApiError } from '../../../lib/kube/errors.js';
import { KubeconfigError, loadKubeConfig } from '../../../lib/kube/kubeconfig.js';
import { MirroredRegistryClient } from '../../../lib/oci/mirrored-pull.js';
import { suiteMirrorSets } from '../../../helpers/mirror-sets.js';
import { UsageError } from '../usage-error.js';
import { EXIT } from './exit-codes.js';

/** A server that neither answers nor refuses (a dropped SYN) would otherwise hold the run for minutes. */
const ANSWER_WITHIN_MS = 20_000;
const REGISTRY_TIMEOUT_MS = 15_000;

export interface ClusterPreflight {
  cluster: Cluster;
  facts: OpenShiftFacts;
  /** The upgrade path given, each hop's release read from its payload. */
  toImages: ReleaseImage[];
  /** Lines to print: how the nodes will pull the layered image (or a warning that they pull without credentials). */
  notes: string[];
}

export interface PreflightInputs {
  /** --to-image, hop by hop. */
  toImages?: readonly string[];
  imageRepo?: string;
  /** The run's registry credentials, resolved once (helpers/credentials.ts resolveRegistryAccess). */
  access: ResolvedAccess;
  /** Layered images will be built and pushed (disruptive specs run): only then is --image-repo asked for a push. */
  willPush: boolean;
  /** Specs will change the cluster (--allow-disruptive): the user must have every permission of the suite, not only its reads. */
  disruptive?: boolean;
  /** How the checks will read nodes: the permissions of that way are asked (default auto: both ways). */
  nodeReads?: NodeReadMode;
  /** --idms-file and --icsp-file (absolute paths, checked): the mirror sets to pull through instead of the cluster's. */
  mirrorFiles?: string[];
}

export async function preflightCluster(kubeconfigPath: string, inputs: PreflightInputs): Promise<ClusterPreflight> {
  const cluster = connect(kubeconfigPath);
  const facts = await openShiftFacts(cluster, kubeconfigPath, { disruptive: Boolean(inputs.disruptive), nodeReads: inputs.nodeReads ?? 'auto' });
  try {
    // the credentials the specs pull and push with: the run's file, completed by the cluster's pull secret
    // through the mirror sets the nodes follow (or the user's files): a disconnected cluster's release is read where they pull it
    const mirrors = await suiteMirrorSets(cluster, inputs.mirrorFiles ?? []);
    const registry = new MirroredRegistryClient({ credentials: await buildCredentials(cluster, inputs.access), timeoutMs: REGISTRY_TIMEOUT_MS, mirrors });
    // each hop must be newer than the release before it on the path
    const toImages: ReleaseImage[] = [];
    for (const image of inputs.toImages ?? []) toImages.push(await checkReleaseImage(registry, image, toImages.at(-1)?.version ?? facts.version, toImages.length > 0));
    if (inputs.willPush && inputs.imageRepo) await checkImageRepo(registry, inputs.imageRepo);
    return { cluster, facts, toImages, notes: inputs.willPush && inputs.imageRepo ? [await nodePull(cluster, inputs.imageRepo)] : [] };
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`${(error as Error).message}${credentialsUsed(inputs.access)}`, EXIT.usage);
  }
}

/** The nodes pull with the cluster's pull secret, not with the run's credentials: its refusal says nothing of those. */
async function nodePull(cluster: Cluster, imageRepo: string): Promise<string> {
  try {
    return await checkNodesCanPull(cluster, imageRepo);
  } catch (error) {
    throw new UsageError((error as Error).message, EXIT.usage);
  }
}

/**
 * The run's registry credentials (--pull-secret, else the first auth file found), read once, before any cluster
 * time: a file that is not a usable auth file is exit 2, one message.
 */
export function resolveCredentials(pullSecretPath: string | undefined, env: NodeJS.ProcessEnv = process.env): ResolvedAccess {
  try {
    return resolveRegistryAccess(pullSecretPath, env);
  } catch (error) {
    if (error instanceof CredentialsError) throw new UsageError(`registry credentials: ${error.message}`, EXIT.usage);
    throw error;
  }
}

/** Which file the registries were asked with, for a registry's refusal: hosts only, never a secret. */
function credentialsUsed(access: RegistryAccess & { source?: string }): string {
  if (!access.pullSecretPath) return ' (no registry credentials file was found: --pull-secret, $REGISTRY_AUTH_FILE, podman auth.json, docker config.json)';
  return ` (registry credentials: ${access.pullSecretPath} (${access.source ?? '--pull-secret'}) for ${access.credentials.hosts().join(', ') || 'no registry'})`;
}

function connect(kubeconfigPath: string): Cluster {
  try {
    return new Cluster(loadKubeConfig(kubeconfigPath));
  } catch (error) {
    if (error instanceof KubeconfigError) throw new UsageError(error.message, EXIT.kubeconfig);
    throw new UsageError(`cannot read the kubeconfig ${kubeconfigPath}: ${(error as Error).message}`, EXIT.kubeconfig);
  }
}

async function openShiftFacts(cluster: Cluster, kubeconfigPath: string, asked: { disruptive: boolean; nodeReads: NodeReadMode }): Promise<OpenShiftFacts> {
  let timer: NodeJS.Timeout | undefined;
  const noAnswer = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error(`no answer within ${ANSWER_WITHIN_MS / 1000} s`), { code: 'ETIMEDOUT' })), ANSWER_WITHIN_MS);
  });
  try {
    // what the user may do first: a missing permission is named before anything else is asked
    return await Promise.race([checkPermissions(cluster.kubeConfig, asked).then(() => checkOpenShift(cluster)), noAnswer]);
  } catch (error) {
    throw classify(error, cluster.apiUrl, kubeconfigPath);
  } finally {
    clearTimeout(timer);
  }
}

function classify(error: unknown, apiUrl: string, kubeconfigPath: string): UsageError {
  if (error instanceof NotOpenShiftError || error instanceof BadInputError) return new UsageError(error.message, EXIT.usage);
  if (error instanceof MissingPermissionsError) return new UsageError(`the server ${apiUrl} does not let the credentials of ${kubeconfigPath} do what the suite will do. ${error.message}`, EXIT.credentials);
  const failure = classifyApiError(error);
  const message = (error as Error).message;
  switch (failure.kind) {
    case 'unreachable':
      return new UsageError(`cannot reach the server ${apiUrl} (kubeconfig ${kubeconfigPath}): ${failure.message}`, EXIT.unreachable);
    case 'unauthorized':
      return new UsageError(`the server ${apiUrl} refused the credentials of the kubeconfig ${kubeconfigPath}: ${message}`, EXIT.credentials);
    case 'forbidden':
      return new UsageError(`the server ${apiUrl} does not let the credentials of ${kubeconfigPath} read the cluster: ${message}`, EXIT.credentials);
    default:
      return new UsageError(`the server ${apiUrl} answered, but not as a Kubernetes API server the suite can use: ${message}`, EXIT.unreachable);
  }
}
