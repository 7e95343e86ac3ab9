/**
 * The suite's words for API failures: lib/kube classifies and retries; this adds what the person running the suite
 * should check (log in again, the permissions of deploy/clusterrole.yaml, is this OpenShift at all) and masks any registered secret.
 */
import { KubeApiError, type ApiFailure } from '../lib/kube/errors.js';
import { maskSecrets } from './secrets.js';

/** What the user should check for a failure that will not go away by retrying. */
function hint(failure: ApiFailure, what: string): string {
  switch (failure.kind) {
    case 'unauthorized':
      return 'the kubeconfig credentials were refused: log in again (oc login) or point --kubeconfig at a fresh kubeconfig';
    case 'forbidden':
      return 'the kubeconfig user may not do this: the suite needs the permissions of deploy/clusterrole.yaml (or cluster-admin)';
    case 'not-found':
      return /list|watch/.test(what)
        ? 'the API server does not serve this kind: is this an OpenShift cluster (machineconfiguration.openshift.io, config.openshift.io)?'
        : 'the object does not exist';
    case 'invalid':
      return failure.code === 422 ? 'the server rejected the object as invalid' : '';
    default:
      return '';
  }
}

export class ClusterApiError extends KubeApiError {
  constructor(what: string, failure: ApiFailure, attempts: number) {
    super(what, failure, attempts, hint(failure, what));
    this.name = 'ClusterApiError';
    this.message = maskSecrets(this.message);
  }
}

/** The `errorFor` of the suite's client: every failure it reports carries the hint. */
export const clusterApiError = (what: string, failure: ApiFailure, attempts: number): Error => new ClusterApiError(what, failure, attempts);
