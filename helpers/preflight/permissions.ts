/**
 * What the suite does on a cluster, as RBAC permissions, and the check, before any spec prepares, that the
 * kubeconfig's user has each of them: one SelfSubjectAccessReview per verb, so a missing permission stops the run at
 * once, with every missing one named (user, verb, resource and group, scope), instead of failing a spec an hour in.
 *
 * SUITE_PERMISSIONS is the one list; deploy/clusterrole.yaml grants exactly it (test/bin/rbac-suite.test.ts checks
 * that they agree, and, from an audit of a run, that every rule is used and every request the suite made is allowed).
 * It was read off audits of the suite on the reference cluster (`cluster up --audit-log`), with and without `oc`,
 * passing and failing (failure artefacts), whole and split into phases; `use` of the privileged SCC is what real
 * OpenShift's admission asks for the node debug pods, which the reference (it has no SCC admission) cannot record.
 */
import { AuthenticationV1Api, AuthorizationV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { classifyApiError, KubeApiError } from '../../lib/kube/errors.js';
import { withRetry } from '../../lib/kube/retry.js';
import { clusterApiError } from '../api-errors.js';
import type { NodeReadMode } from '../target.js';

export interface SuitePermission {
  /** API group ('' for the core group). */
  group: string;
  /** The resource as RBAC names it, `resource` or `resource/subresource`. */
  resource: string;
  verbs: string[];
  /** The role's rule is limited to these object names (absent: any name). */
  resourceNames?: string[];
  /** Where the suite uses it: a namespace, or '' for cluster-scoped kinds and for namespaces it cannot know (generated names). */
  namespace: string;
  /** Needed only by runs that change the cluster (`--allow-disruptive`); a read-only run checks the others. */
  disruptive: boolean;
  /** Which step needs it and why. */
  why: string;
  /**
   * Needed only when nodes are read this way (`--node-reads`, helpers/node-os.ts): `daemon`, an exec into the node's
   * machine-config-daemon pod; `debug`, a debug pod. auto may use both. Absent: whatever the reads.
   */
  nodeReads?: 'daemon' | 'debug';
}

const MCO_GROUP = 'machineconfiguration.openshift.io';
const CONFIG_GROUP = 'config.openshift.io';

/** The suite's needs, in the order of deploy/clusterrole.yaml (entries of one group and resource are one rule there). */
export const SUITE_PERMISSIONS: readonly SuitePermission[] = [
  { group: CONFIG_GROUP, resource: 'clusterversions', verbs: ['get', 'list', 'watch'], namespace: '', disruptive: false, why: 'the preflight reads the cluster\'s version; the upgrade monitor watches ClusterVersion' },
  { group: CONFIG_GROUP, resource: 'clusterversions', verbs: ['patch'], namespace: '', disruptive: true, why: 'the upgrade step sets spec.desiredUpdate (the write oc adm upgrade --to-image makes)' },
  { group: CONFIG_GROUP, resource: 'clusteroperators', verbs: ['get', 'list', 'watch'], namespace: '', disruptive: true, why: 'the monitor watches the operators (machine-config Degraded); checks and failure artefacts read them' },
  { group: CONFIG_GROUP, resource: 'imagedigestmirrorsets', verbs: ['list'], namespace: '', disruptive: false, why: 'release reads and the layered build follow the cluster\'s mirror sets (a disconnected cluster\'s; 4.13+)' },
  { group: CONFIG_GROUP, resource: 'imagetagmirrorsets', verbs: ['list'], namespace: '', disruptive: false, why: 'release reads by tag follow the cluster\'s tag mirrors (4.13+)' },
  { group: 'operator.openshift.io', resource: 'imagecontentsourcepolicies', verbs: ['list'], namespace: '', disruptive: false, why: 'release reads and the layered build follow the cluster\'s ImageContentSourcePolicies (4.12\'s mirror sets)' },
  { group: MCO_GROUP, resource: 'machineconfigpools', verbs: ['list', 'watch'], namespace: '', disruptive: false, why: 'the preflight finds the master and worker pools; waits and the monitor watch them roll out' },
  { group: MCO_GROUP, resource: 'machineconfigpools', verbs: ['create', 'delete'], namespace: '', disruptive: true, why: 'several upgrade specs sharing one upgrade get custom pools of one worker each (the plan), removed at the end' },
  { group: MCO_GROUP, resource: 'machineconfigs', verbs: ['get', 'list', 'watch'], namespace: '', disruptive: false, why: 'the rendered configs are judged; the leak check lists the run\'s own MachineConfigs' },
  { group: MCO_GROUP, resource: 'machineconfigs', verbs: ['create', 'delete'], namespace: '', disruptive: true, why: 'the osImageURL overrides of the pools, created by prepare and deleted by cleanup' },
  { group: MCO_GROUP, resource: 'machineosconfigs', verbs: ['list'], namespace: '', disruptive: true, why: 'a spec that would override a pool looks for a MachineOSConfig on it first (on-cluster image mode); failure artefacts keep them' },
  { group: MCO_GROUP, resource: 'machineosconfigs', verbs: ['get', 'watch', 'create', 'delete'], namespace: '', disruptive: true, why: 'an image-mode spec (E2E-015, E2E-017, E2E-018) puts its pool in image mode with a MachineOSConfig, follows it and reads its status, and deletes it (E2E-017 as its revert step, the others in cleanup)' },
  { group: MCO_GROUP, resource: 'machineosconfigs', verbs: ['patch'], namespace: '', disruptive: true, why: 'E2E-017 asks for a rebuild with the machineconfiguration.openshift.io/rebuild annotation on its MachineOSConfig' },
  { group: MCO_GROUP, resource: 'machineconfignodes', verbs: ['list'], namespace: '', disruptive: true, why: 'failure artefacts keep the MachineConfigNodes (4.19+)' },
  { group: MCO_GROUP, resource: 'machineosbuilds', verbs: ['list', 'watch'], namespace: '', disruptive: true, why: 'an image-mode spec waits for the MachineOSBuild of its pool\'s rendered config; failure artefacts keep the MachineOSBuilds' },
  { group: 'batch', resource: 'jobs', verbs: ['get', 'list'], namespace: 'openshift-machine-config-operator', disruptive: true, why: 'a failed image build is read from its Job build-<mosb> (its Failed condition; its pods\' image-build log through pods/log); failure artefacts keep the build Jobs' },
  { group: '', resource: 'nodes', verbs: ['get', 'list', 'watch'], namespace: '', disruptive: false, why: 'the preflight counts nodes by role; the monitor watches them; oc debug node reads the node' },
  { group: '', resource: 'nodes', verbs: ['patch'], namespace: '', disruptive: true, why: 'a node left degraded by an unpullable image is pointed back at its current config (spec E2E-006 cleanup); a worker is labelled into a custom pool of the plan and back' },
  { group: '', resource: 'events', verbs: ['list'], namespace: '', disruptive: true, why: 'component restarts during the upgrade are read from events; failure artefacts keep them' },
  { group: '', resource: 'namespaces', verbs: ['get'], namespace: '', disruptive: true, why: 'oc checks that its current namespace exists; the checkpoint store looks for ocp-e2e' },
  { group: '', resource: 'namespaces', verbs: ['list'], namespace: '', disruptive: true, why: 'the leak check at the end of each spec looks for debug namespaces of the run (its run-id label) left behind' },
  { group: '', resource: 'namespaces', verbs: ['create', 'delete'], namespace: '', disruptive: true, nodeReads: 'debug', why: 'oc debug node (and the suite without oc) runs each node read in a temporary namespace openshift-debug-*, deleted after' },
  { group: '', resource: 'pods', verbs: ['create'], namespace: '', disruptive: true, nodeReads: 'debug', why: 'the privileged debug pod of each node read, in its generated namespace' },
  { group: '', resource: 'pods', verbs: ['get', 'list', 'watch', 'delete'], namespace: '', disruptive: true, why: 'the debug pod is watched (oc) or read (no oc) until it ends, then deleted; node reads list the machine-config daemons; failure artefacts list the MCO pods' },
  { group: '', resource: 'pods/log', verbs: ['get'], namespace: '', disruptive: true, why: 'the debug pod\'s output is its log; failure artefacts read the MCO operator, controller, daemon and machine-os-builder logs; a failed image build\'s step is read from its pod\'s image-build log in openshift-machine-config-operator' },
  { group: '', resource: 'pods/exec', verbs: ['get', 'create'], namespace: 'openshift-machine-config-operator', disruptive: true, nodeReads: 'daemon', why: 'node reads exec into the node\'s machine-config-daemon (chroot /rootfs) as the MCO\'s e2e tests do: a WebSocket exec is a get on 4.12 (Kubernetes 1.25), and newer servers also ask create' },
  { group: 'security.openshift.io', resource: 'securitycontextconstraints', verbs: ['use'], resourceNames: ['privileged'], namespace: '', disruptive: true, nodeReads: 'debug', why: 'OpenShift admits the privileged, host-PID, host-network debug pod only for a user that may use SCC privileged' },
  { group: 'image.openshift.io', resource: 'imagestreams', verbs: ['get'], resourceNames: ['tools'], namespace: 'openshift', disruptive: true, nodeReads: 'debug', why: 'oc debug node takes its image from the imagestream openshift/tools' },
  { group: '', resource: 'configmaps', verbs: ['get'], namespace: 'kube-system', disruptive: false, why: 'the suite asks whether it runs on the reference (kube-system/ocp-e2e-reference-cluster: time factor, registry); a real cluster answers 404' },
  { group: '', resource: 'configmaps', verbs: ['get', 'list', 'create', 'update', 'delete'], namespace: 'ocp-e2e', disruptive: true, why: 'split runs (--phase pre|upgrade|post) keep their checkpoint as a ConfigMap in the namespace ocp-e2e; the leak check lists the run\'s own' },
  { group: '', resource: 'secrets', verbs: ['get'], resourceNames: ['pull-secret'], namespace: 'openshift-config', disruptive: true, why: 'the preflight checks that the nodes can pull from --image-repo with the cluster\'s pull secret; it completes the run\'s credentials to pull the release\'s base OS image for the layered build' },
  { group: '', resource: 'secrets', verbs: ['create', 'delete', 'list'], namespace: 'openshift-machine-config-operator', disruptive: true, why: 'an image-mode spec\'s push secret (the run\'s credentials for --image-repo only), where the MCO reads it, deleted in cleanup; the leak check lists the run\'s own there' },
];

/** The hint every missing-permission message ends with. */
export const ROLE_HINT = 'deploy/clusterrole.yaml grants exactly what the suite needs: bind it to this user (deploy/clusterrolebinding.yaml does, for the ServiceAccount ocp-e2e/ocp-e2e; see deploy/README.md)';

export interface MissingPermission {
  verb: string;
  group: string;
  resource: string;
  namespace: string;
  name?: string;
  why: string;
}

export class MissingPermissionsError extends Error {
  constructor(readonly user: string, readonly missing: MissingPermission[]) {
    super(missingMessage(user, missing));
    this.name = 'MissingPermissionsError';
  }
}

/** `patch resource "clusterversions" in API group "config.openshift.io" at the cluster scope`, as a 403 words it. */
export function describePermission(p: Pick<MissingPermission, 'verb' | 'group' | 'resource' | 'namespace' | 'name'>): string {
  const scope = p.namespace ? `in the namespace "${p.namespace}"` : 'at the cluster scope';
  return `${p.verb} resource "${p.resource}"${p.name ? ` named "${p.name}"` : ''} in API group "${p.group}" ${scope}`;
}

function missingMessage(user: string, missing: MissingPermission[]): string {
  const lines = missing.map((m) => `  cannot ${describePermission(m)}: ${m.why}`);
  const count = missing.length === 1 ? 'a permission' : `${missing.length} permissions`;
  return [`User "${user}" lacks ${count} the suite needs:`, ...lines, ROLE_HINT].join('\n');
}

/** One access review per verb of each permission the run needs; auto node reads may use both ways of reading. */
export function reviewsFor(disruptive: boolean, nodeReads: NodeReadMode = 'auto'): MissingPermission[] {
  const readsThisWay = (p: SuitePermission) => !p.nodeReads || nodeReads === 'auto' || p.nodeReads === nodeReads;
  const needed = SUITE_PERMISSIONS.filter((p) => (disruptive || !p.disruptive) && readsThisWay(p));
  return needed.flatMap((p) => p.verbs.map((verb) => ({ verb, group: p.group, resource: p.resource, namespace: p.namespace, name: p.resourceNames?.[0], why: p.why })));
}

const AT_ONCE = 8;

/** Throws MissingPermissionsError naming every permission the server says the user lacks. */
export async function checkPermissions(kubeConfig: KubeConfig, options: { disruptive: boolean; nodeReads?: NodeReadMode }): Promise<void> {
  const authz = kubeConfig.makeApiClient(AuthorizationV1Api);
  const reviews = reviewsFor(options.disruptive, options.nodeReads);
  const answers: Answer[] = [];
  for (let i = 0; i < reviews.length; i += AT_ONCE) {
    answers.push(...(await Promise.all(reviews.slice(i, i + AT_ONCE).map((r) => mayDo(authz, r)))));
  }
  // A server without the authorization API cannot be asked: the requests that follow will say what it refuses.
  if (answers.includes('no-review-api')) return;
  // Every authenticated user may ask (system:basic-user): a server that refuses even that refuses the user everything.
  const missing = answers.includes('may-not-ask') ? [ASKING] : reviews.filter((_, i) => answers[i] === 'denied');
  if (missing.length) throw new MissingPermissionsError(await whoAmI(kubeConfig), missing);
}

type Answer = 'allowed' | 'denied' | 'may-not-ask' | 'no-review-api';

const ASKING: MissingPermission = {
  verb: 'create', group: 'authorization.k8s.io', resource: 'selfsubjectaccessreviews', namespace: '',
  why: 'the suite asks the server what the user may do (every authenticated user may, through system:basic-user)',
};

async function mayDo(authz: AuthorizationV1Api, r: MissingPermission): Promise<Answer> {
  const [resource, subresource] = r.resource.split('/');
  const resourceAttributes = { verb: r.verb, group: r.group, resource, subresource, namespace: r.namespace || undefined, name: r.name };
  const body = { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes } };
  try {
    const what = `create SelfSubjectAccessReview (may the user ${r.verb} ${r.resource}?)`;
    const review = await withRetry(what, () => authz.createSelfSubjectAccessReview({ body }), { errorFor: clusterApiError });
    return review.status?.allowed === true ? 'allowed' : 'denied';
  } catch (error) {
    const kind = error instanceof KubeApiError ? error.failure.kind : classifyApiError(error).kind;
    if (kind === 'forbidden') return 'may-not-ask';
    if (kind === 'not-found') return 'no-review-api';
    throw error;
  }
}

/**
 * The user as the server knows it: a SelfSubjectReview (Kubernetes 1.28+), else OpenShift's users/~ (what `oc whoami`
 * reads), else the kubeconfig's name for its user.
 */
export async function whoAmI(kubeConfig: KubeConfig): Promise<string> {
  try {
    const review = await kubeConfig.makeApiClient(AuthenticationV1Api).createSelfSubjectReview({ body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' } });
    if (review.status?.userInfo?.username) return review.status.userInfo.username;
  } catch {
    // older servers have no SelfSubjectReview
  }
  try {
    const user = (await kubeConfig.makeApiClient(CustomObjectsApi).getClusterCustomObject({ group: 'user.openshift.io', version: 'v1', plural: 'users', name: '~' })) as { metadata?: { name?: string } };
    if (user.metadata?.name) return user.metadata.name;
  } catch {
    // not OpenShift, or no answer
  }
  return `${kubeConfig.getCurrentUser()?.name ?? 'unknown'} (the kubeconfig's user name)`;
}
