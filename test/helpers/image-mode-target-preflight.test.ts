/**
 * The image-mode specs' preflight of a real cluster, each refusal in its words: multi-arch compute, no credentials
 * for the push target, a push target that refuses the push secret's credentials (a real probe: a blob upload started
 * and cancelled on the suite's local registry with htpasswd), nodes that cannot pull it (the mock API server's
 * openshift-config/pull-secret without the registry), no internal registry to push to; and the pass.
 */
import { expect } from 'chai';
import type { RunningApiServer } from '../../mock/index.js';
import type { Cluster } from '../../helpers/cluster.js';
import { startImageModeApi } from './support/image-mode-api.js';
import type { ClusterSnapshot } from '../../helpers/cluster-watcher.js';
import { imageModeTargetReason, multiArchComputeReason, type ImageModePreflightSession } from '../../helpers/image-mode/target-preflight.js';
import { parseDockerConfig, RegistryCredentials } from '../../lib/oci/credentials.js';
import type { Node } from '../../helpers/types.js';
import { markerPullSecret, startTestRegistry, type TestRegistry } from '../lib/oci/support/fixtures.js';

const node = (name: string, arch: string): Node => ({ metadata: { name, labels: { 'kubernetes.io/arch': arch } } }) as Node;
const snapshotOf = (...nodes: Node[]): ClusterSnapshot => ({ nodes: new Map(nodes.map((n) => [n.metadata!.name!, n])), pools: new Map() }) as unknown as ClusterSnapshot;
const ONE_ARCH = snapshotOf(node('worker-0', 'amd64'), node('worker-1', 'amd64'));

describe('helpers/image-mode: the preflight of the image-mode specs on a real cluster', function () {
  this.timeout(60_000);
  let server: RunningApiServer;
  let cluster: Cluster;
  let registry: TestRegistry;
  let repo: string;

  before(async () => {
    ({ server, cluster } = await startImageModeApi());
    registry = await startTestRegistry({ auth: true });
    repo = `${registry.address}/ocp-e2e/image-mode`;
  });
  after(async () => {
    await registry?.dispose();
    await server?.close();
  });

  const session = (over: Partial<ImageModePreflightSession> & { credentials?: RegistryCredentials; imageRepo?: string | null } = {}): ImageModePreflightSession => ({
    cluster,
    caps: { isReference: false },
    target: { kind: 'cluster', phase: 'all', imageRepo: over.imageRepo === null ? undefined : (over.imageRepo ?? repo), runId: 'run-1' },
    access: { credentials: over.credentials ?? parseDockerConfig(markerPullSecret(registry.address), 'test') },
    watcher: { snapshot: () => ONE_ARCH },
    ...Object.fromEntries(Object.entries(over).filter(([k]) => !['credentials', 'imageRepo'].includes(k))),
  });

  async function setClusterPullSecret(json: string | undefined): Promise<void> {
    await cluster.client.delete('Secret', 'pull-secret', 'openshift-config');
    if (json === undefined) return;
    await cluster.client.create('Secret', { apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/dockerconfigjson', metadata: { name: 'pull-secret', namespace: 'openshift-config' }, data: { '.dockerconfigjson': Buffer.from(json).toString('base64') } });
  }

  it('refuses multi-arch compute, naming the architectures', async () => {
    const multi = snapshotOf(node('worker-0', 'amd64'), node('worker-1', 'arm64'), node('worker-2', 'arm64'));
    expect(multiArchComputeReason(multi)).to.equal("the cluster's compute is multi-arch (1 amd64, 2 arm64 nodes): on-cluster image mode does not support multi-arch compute (its build runs on any node and only the NoArch Containerfile is built)");
    expect(multiArchComputeReason(ONE_ARCH)).to.equal(undefined);
    expect(await imageModeTargetReason(session({ watcher: { snapshot: () => multi } }))).to.match(/^the cluster's compute is multi-arch/);
  });

  it('refuses a push target the run has no credentials for', async () => {
    expect(await imageModeTargetReason(session({ credentials: new RegistryCredentials() }))).to.equal(
      `no registry credentials for ${repo}: the image-mode build pushes there with the MachineOSConfig's push secret, made from the run's credentials (--pull-secret, completed by the cluster's pull secret), which hold no registry`,
    );
  });

  it('refuses a push target that refuses the push secret\'s credentials (a blob upload started and cancelled)', async () => {
    const wrong = parseDockerConfig(markerPullSecret(registry.address, 'not-the-password'), 'test');
    const reason = await imageModeTargetReason(session({ credentials: wrong }));
    expect(reason).to.match(new RegExp(`^the image-mode build cannot push to ${repo.replace(/\./g, '\\.')} \\(--image-repo\\) with its push secret's credentials \\(the run's entry for it\\): Registry ${registry.address.replace(/\./g, '\\.')} refused access to ocp-e2e/image-mode: the credentials for it were rejected$`));
  });

  it('refuses a push target the nodes cannot pull from: the cluster\'s pull secret lacks it and it refuses anonymous pulls', async () => {
    await setClusterPullSecret(JSON.stringify({ auths: { 'quay.io': { auth: Buffer.from('u:p').toString('base64') } } }));
    const reason = await imageModeTargetReason(session());
    expect(reason).to.equal(
      `the nodes pull the image-mode build from ${repo} with the cluster's global pull secret, and the cluster's pull secret openshift-config/pull-secret has no entry for ${registry.address}, while ${registry.address} refuses a pull without credentials: ` +
        `add it to the cluster's pull secret: oc get secret/pull-secret -n openshift-config --template='{{index .data ".dockerconfigjson" | base64decode}}' > pull-secret.json; oc registry login --registry=${registry.address} --auth-basic=USER:PASSWORD --to=pull-secret.json; oc set data secret/pull-secret -n openshift-config --from-file=.dockerconfigjson=pull-secret.json`,
    );
  });

  it('passes where the push secret may push and the cluster\'s pull secret holds the registry; asks nothing on the reference target or after pre', async () => {
    await setClusterPullSecret(markerPullSecret(registry.address));
    expect(await imageModeTargetReason(session())).to.equal(undefined);
    await setClusterPullSecret(undefined);
    const noSecret = session({ credentials: new RegistryCredentials() });
    expect(await imageModeTargetReason({ ...noSecret, target: { ...noSecret.target, kind: 'reference' } })).to.equal(undefined);
    expect(await imageModeTargetReason({ ...noSecret, target: { ...noSecret.target, phase: 'post' } })).to.equal(undefined);
  });

  it('without --image-repo on a cluster without an internal registry: says how to give one', async () => {
    expect(await imageModeTargetReason(session({ imageRepo: null }))).to.equal(
      'no push target for the image-mode build: pass --image-repo <registry>/<namespace>/<name> (a repository the nodes can pull from, with push credentials in --pull-secret); the cluster has no internal registry (no service image-registry in openshift-image-registry)',
    );
  });
});
