/**
 * A multi-architecture reference cluster (`--arch multi`, reference/topology.ts): the nodes report their
 * architectures, the payload and OS images are image indexes, and a node given a bootable OS image of another
 * architecture refuses it with ostree-rs-ext's error (reference/mcd/rebase.ts wrongArchitectureRebaseError) while a
 * node of that architecture boots it.
 */
import { expect } from 'chai';
import { ANN } from '../../reference/constants.js';
import { RegistryClient } from '../../lib/oci/image-files.js';
import { DOCKER_LIST, imageForPlatform } from '../../lib/oci/platform-images.js';
import { baseOsImage } from '../../reference/releases/release-info.js';
import { KubeClient } from '../../lib/kube/client.js';
import { startReferenceCluster } from '../../reference/index.js';
import { describeCluster, overrideMachineConfig, TEST_WORK_DIR, waitFor, type Harness, type Obj } from './support/cluster.js';

describe('reference cluster --arch multi (4.20: rebase with retries)', function () {
  this.timeout(120_000);
  let h: Harness | undefined;
  const log: string[] = [];
  before(async () => {
    // the daemons' log lines say why each try failed (4.20's node reason only says the retries timed out)
    const cluster = await startReferenceCluster({ workDir: TEST_WORK_DIR, profile: '4.20-to-4.21', arch: 'multi', log: (l) => log.push(l) });
    h = { cluster, k: KubeClient.fromFile(cluster.kubeconfigPath), elapsed: () => '' };
  });
  after(async () => h?.cluster.stop());

  it('masters are amd64, workers amd64 and arm64, by label and nodeInfo; payload and OS images are image indexes', async () => {
    const nodes = (await h!.k.list<Obj>('Node')).items;
    const archOf = (n: Obj) => [n.metadata.labels?.['kubernetes.io/arch'], (n.status as { nodeInfo?: { architecture?: string } }).nodeInfo?.architecture];
    for (const n of nodes.filter((n) => n.metadata.labels?.['node-role.kubernetes.io/master'] !== undefined)) expect(archOf(n), n.metadata.name).to.deep.equal(['amd64', 'amd64']);
    const workers = nodes.filter((n) => n.metadata.labels?.['node-role.kubernetes.io/worker'] !== undefined).map(archOf);
    expect(workers).to.deep.equal([['amd64', 'amd64'], ['arm64', 'arm64']]);
    const client = new RegistryClient({ credentials: h!.cluster.registryCredentials, caPems: [h!.cluster.caPem] });
    const { current } = h!.cluster.releases;
    expect(current.image).to.match(/:4\.20\.\S+-multi$/);
    expect((await client.rawManifest(current.image)).mediaType, 'a Docker manifest list, as multi payloads are').to.equal(DOCKER_LIST);
    expect((await client.rawManifest(baseOsImage(current))).mediaType).to.equal(DOCKER_LIST);
    for (const arch of ['amd64', 'arm64']) expect((await imageForPlatform(client, baseOsImage(current), arch)).architecture).to.equal(arch);
  });

  it('a worker pool given an arm64-only OS image: the amd64 worker refuses it with rpm-ostree\'s architecture error, no arm64 node does', async () => {
    const { cluster, k } = h!;
    const client = new RegistryClient({ credentials: cluster.registryCredentials, caPems: [cluster.caPem] });
    const armOnly = (await imageForPlatform(client, baseOsImage(cluster.releases.current), 'arm64')).pullspec;
    await k.apply('MachineConfig', overrideMachineConfig('99-worker-arm64-only', 'worker', armOnly));
    const degraded = await waitFor('a worker degraded by the arm64 image', async () => (await k.list<Obj>('Node')).items.find((n) => n.metadata.annotations?.[ANN.state] === 'Degraded'), 90_000, () => describeCluster(k, cluster));
    expect(degraded.metadata.labels?.['kubernetes.io/arch']).to.equal('amd64');
    expect(degraded.metadata.annotations?.[ANN.reason]).to.include(`Failed to update OS to ${armOnly} after retries: timed out waiting for the condition`);
    const tries = log.filter((l) => l.includes(degraded.metadata.name!) && l.includes('(will retry)'));
    expect(tries.join('\n')).to.include(`Failed to update OS to ${armOnly} (will retry): error running rpm-ostree rebase --experimental ostree-unverified-registry:${armOnly}: error: Preparing import: Image has architecture arm64; expected amd64`);
    const arm = (await k.list<Obj>('Node')).items.filter((n) => n.metadata.labels?.['kubernetes.io/arch'] === 'arm64');
    for (const n of arm) expect(n.metadata.annotations?.[ANN.state], n.metadata.name).to.not.equal('Degraded');
  });
});
