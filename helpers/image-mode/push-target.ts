/**
 * Where an image-mode pool's builds are pushed (the MachineOSConfig's renderedImagePushSpec) and with which secret.
 * The build replaces the tag with each build's name, so the tag only has to exist (the CRD's CEL asks for one): the
 * run's and case's, as the suite's own images are tagged.
 *   - `--image-repo`, else the reference cluster's registry (its info ConfigMap's imageRepo): the push secret is made
 *     from the run's credentials for that repository (push-secret.ts);
 *   - else a real cluster's internal registry, where its Service exists, as the docs' example pushes
 *     (`image-registry.openshift-image-registry.svc:5000/<namespace>/<name>:<tag>`), with the dockercfg secret
 *     OpenShift gives the `builder` ServiceAccount of openshift-machine-config-operator, which may push there.
 */
import { CoreV1Api } from '@kubernetes/client-node';
import { isNotFound } from '../../lib/kube/errors.js';
import type { TargetCapabilities } from '../capabilities.js';
import type { Cluster } from '../cluster.js';
import { runImageTag, withoutTag } from '../images/naming.js';
import { MCO_NAMESPACE } from './types.js';

export const INTERNAL_REGISTRY = 'image-registry.openshift-image-registry.svc:5000';
/** The repository of the suite's image-mode builds in the internal registry. */
export const INTERNAL_REPOSITORY = `${INTERNAL_REGISTRY}/${MCO_NAMESPACE}/ocp-e2e-image-mode`;

export type PushTarget =
  /** Pushed with the run's credentials for the repository: the suite makes the secret. */
  | { pushSpec: string; source: '--image-repo' | 'reference registry'; secret: 'from run credentials' }
  /** Pushed with a secret the cluster already holds (the builder ServiceAccount's dockercfg). */
  | { pushSpec: string; source: 'internal registry'; secret: { existing: string } };

export class PushTargetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PushTargetError';
  }
}

/** The push spec and its secret for a pool's builds in this run. */
export async function imageModePushTarget(
  cluster: Cluster,
  target: { imageRepo?: string; runId: string },
  caps: Pick<TargetCapabilities, 'imageRepo' | 'isReference'>,
  caseId: string,
): Promise<PushTarget> {
  if (target.imageRepo) return { pushSpec: runImageTag(withoutTag(target.imageRepo), target.runId, caseId), source: '--image-repo', secret: 'from run credentials' };
  if (caps.isReference && caps.imageRepo) return { pushSpec: runImageTag(withoutTag(caps.imageRepo), target.runId, caseId), source: 'reference registry', secret: 'from run credentials' };
  const core = cluster.kubeConfig.makeApiClient(CoreV1Api);
  const service = await core.readNamespacedService({ name: 'image-registry', namespace: 'openshift-image-registry' }).catch((e: unknown) => {
    if (isNotFound(e)) return undefined;
    throw e;
  });
  if (!service) {
    throw new PushTargetError(
      'no push target for the image-mode build: pass --image-repo <registry>/<namespace>/<name> (a repository the nodes can pull from, with push credentials in --pull-secret); the cluster has no internal registry (no service image-registry in openshift-image-registry)',
    );
  }
  return { pushSpec: runImageTag(INTERNAL_REPOSITORY, target.runId, caseId), source: 'internal registry', secret: { existing: await builderDockercfgSecret(cluster) } };
}

/** The dockercfg secret OpenShift made for ServiceAccount `builder` in openshift-machine-config-operator. */
export async function builderDockercfgSecret(cluster: Cluster): Promise<string> {
  const core = cluster.kubeConfig.makeApiClient(CoreV1Api);
  const sa = await core.readNamespacedServiceAccount({ name: 'builder', namespace: MCO_NAMESPACE }).catch((e: unknown) => {
    if (isNotFound(e)) return undefined;
    throw e;
  });
  const names = [...(sa?.imagePullSecrets ?? []), ...(sa?.secrets ?? [])].map((s) => s.name ?? '');
  const secret = names.find((n) => n.startsWith('builder-dockercfg-'));
  if (!secret) {
    throw new PushTargetError(
      `cannot push to the internal registry: serviceaccount/builder -n ${MCO_NAMESPACE} ${sa ? 'has no builder-dockercfg-* secret' : 'does not exist'} (is the image registry's openshift-controller-manager part enabled?); pass --image-repo instead`,
    );
  }
  return secret;
}
