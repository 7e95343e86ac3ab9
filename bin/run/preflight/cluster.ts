/**
 * `--target cluster`, before any spec prepares: the kubeconfig can be read, its server answers and takes its
 * credentials, they may do what the suite will do (helpers/preflight/permissions.ts), the cluster is OpenShift,
 * `--to-image` is a release payload newer than the cluster's, and (when layered images will be pushed) `--image-repo`
 * takes a push. Each failure is one message and its own exit code (exit-codes.ts).
 */
import { Cluster } from '../../../helpers/cluster.js';
import { BadInputError } from '../../../helpers/preflight/bad-input.js';
import { checkImageRepo } from '../../../helpers/preflight/image-repo.js';
import { checkOpenShift, NotOpenShiftError, type OpenShiftFacts } from '../../../helpers/preflight/openshift.js';
import { checkPermissions, MissingPermissionsError } from '../../../helpers/preflight/permissions.js';
import { checkReleaseImage, type ReleaseImage } from '../../../helpers/preflight/release-image.js';
import { classifyApiError } from '../../../lib/kube/errors.js';
import { KubeconfigError, loadKubeConfig } from '../../../lib/kube/kubeconfig.js';
import { loadRegistryCredentials } from '../../../lib/oci/credentials.js';
import { RegistryClient } from '../../../lib/oci/image-files.js';
import { UsageError } from '../usage-error.js';
import { EXIT } from './exit-codes.js';

/** A server that neither answers nor refuses (a dropped SYN) would otherwise hold the run for minutes. */
const ANSWER_WITHIN_MS = 20_000;
const REGISTRY_TIMEOUT_MS = 15_000;

export interface ClusterPreflight {
  cluster: Cluster;
  facts: OpenShiftFacts;
  toImage?: ReleaseImage;
}

export interface PreflightInputs {
  toImage?: string;
  imageRepo?: string;
  pullSecretPath?: string;
  /** Layered images will be built and pushed (disruptive specs run): only then is --image-repo asked for a push. */
  willPush: boolean;
  /** Specs will change the cluster (--allow-disruptive): the user must have every permission of the suite, not only its reads. */
  disruptive?: boolean;
}

export async function preflightCluster(kubeconfigPath: string, inputs: PreflightInputs): Promise<ClusterPreflight> {
  const cluster = connect(kubeconfigPath);
  const facts = await openShiftFacts(cluster, kubeconfigPath, Boolean(inputs.disruptive));
  try {
    const registry = new RegistryClient({ credentials: await loadRegistryCredentials(inputs.pullSecretPath), timeoutMs: REGISTRY_TIMEOUT_MS });
    const toImage = inputs.toImage ? await checkReleaseImage(registry, inputs.toImage, facts.version) : undefined;
    if (inputs.willPush && inputs.imageRepo) await checkImageRepo(registry, inputs.imageRepo);
    return { cluster, facts, toImage };
  } catch (error) {
    throw new UsageError((error as Error).message, EXIT.usage);
  }
}

function connect(kubeconfigPath: string): Cluster {
  try {
    return new Cluster(loadKubeConfig(kubeconfigPath));
  } catch (error) {
    if (error instanceof KubeconfigError) throw new UsageError(error.message, EXIT.kubeconfig);
    throw new UsageError(`cannot read the kubeconfig ${kubeconfigPath}: ${(error as Error).message}`, EXIT.kubeconfig);
  }
}

async function openShiftFacts(cluster: Cluster, kubeconfigPath: string, disruptive: boolean): Promise<OpenShiftFacts> {
  let timer: NodeJS.Timeout | undefined;
  const noAnswer = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error(`no answer within ${ANSWER_WITHIN_MS / 1000} s`), { code: 'ETIMEDOUT' })), ANSWER_WITHIN_MS);
  });
  try {
    // what the user may do first: a missing permission is named before anything else is asked
    return await Promise.race([checkPermissions(cluster.kubeConfig, { disruptive }).then(() => checkOpenShift(cluster)), noAnswer]);
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
