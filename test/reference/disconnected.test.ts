/**
 * A disconnected reference cluster (`--disconnected`, reference/mirror-sets.ts): the payload names quay.io's
 * pullspecs with the local images' digests, the cluster carries the mirror sets its release serves (an
 * ImageContentSourcePolicy on 4.12, ImageDigestMirrorSet and ImageTagMirrorSet from the 4.18 set), the nodes boot and
 * pull through them, and a quay.io image no mirror covers fails as unreachable, with no traffic off the machine.
 */
import { expect } from 'chai';
import { KubeClient } from '../../lib/kube/client.js';
import { RegistryClient } from '../../lib/oci/image-files.js';
import { readReleasePayload } from '../../lib/oci/release-payload.js';
import { ANN } from '../../reference/constants.js';
import { startReferenceCluster } from '../../reference/index.js';
import { mirrorSetObjects } from '../../reference/mirror-sets.js';
import { mirroredPayloadTag } from '../../reference/releases/disconnected.js';
import { baseOsImage } from '../../reference/releases/release-info.js';
import { describeCluster, overrideMachineConfig, TEST_WORK_DIR, waitFor, type Harness, type Obj } from './support/cluster.js';

const ART = 'quay.io/openshift-release-dev/ocp-v4.0-art-dev';

describe('reference cluster --disconnected (4.12: an ImageContentSourcePolicy)', function () {
  this.timeout(120_000);
  let h: Harness | undefined;
  before(async () => {
    const cluster = await startReferenceCluster({ workDir: TEST_WORK_DIR, disconnected: true });
    h = { cluster, k: KubeClient.fromFile(cluster.kubeconfigPath), elapsed: () => '' };
  });
  after(async () => h?.cluster.stop());

  it('the release and its OS images are named by quay.io, with the digests of the images the local registry holds', async () => {
    const { cluster, k } = h!;
    const { current } = cluster.releases;
    expect(current.image).to.match(/^quay\.io\/openshift-release-dev\/ocp-release@sha256:[0-9a-f]{64}$/);
    expect(baseOsImage(current)).to.match(new RegExp(`^${ART}@sha256:[0-9a-f]{64}$`));
    const cv = await k.get<Obj>('ClusterVersion', 'version');
    expect((cv!.status as { desired?: { image?: string } }).desired?.image).to.equal(current.image);
    // the mirror holds the payload under quay.io's tag, and it names the quay.io pullspecs
    const registry = cluster.registry;
    const client = new RegistryClient({ credentials: cluster.registryCredentials, caPems: [cluster.caPem] });
    const payload = await readReleasePayload(client, mirroredPayloadTag(registry, current.version));
    expect(payload.images['rhel-coreos-8']).to.equal(baseOsImage(current));
    expect(await client.manifestDigest(`${registry}/openshift-release-dev/ocp-v4.0-art-dev@${baseOsImage(current).split('@')[1]}`)).to.equal(baseOsImage(current).split('@')[1]);
  });

  it('carries one ImageContentSourcePolicy mapping quay.io\'s repositories to the local registry, and the nodes boot through it', async () => {
    const { cluster, k } = h!;
    const icsps = (await k.list<Obj>('ImageContentSourcePolicy')).items;
    expect(icsps.map((o) => o.metadata.name)).to.deep.equal(['release-0']);
    expect((icsps[0]!.spec as { repositoryDigestMirrors: unknown }).repositoryDigestMirrors).to.deep.equal([
      { source: ART, mirrors: [`${cluster.registry}/openshift-release-dev/ocp-v4.0-art-dev`] },
      { source: 'quay.io/openshift-release-dev/ocp-release', mirrors: [`${cluster.registry}/ocp/release`] },
    ]);
    const nodes = (await k.list<Obj>('Node')).items;
    for (const n of nodes) expect(n.metadata.annotations?.[ANN.state], n.metadata.name).to.equal('Done');
  });

  it('a worker pool given a quay.io image no mirror covers: the node degrades as a disconnected node does (no such host), naming the image', async () => {
    const { cluster, k } = h!;
    const unmirrored = `quay.io/someone/custom-os@sha256:${'c'.repeat(64)}`;
    await k.apply('MachineConfig', overrideMachineConfig('99-worker-unmirrored', 'worker', unmirrored));
    const degraded = await waitFor('a worker degraded by the unmirrored image', async () => (await k.list<Obj>('Node')).items.find((n) => n.metadata.annotations?.[ANN.state] === 'Degraded'), 90_000, () => describeCluster(k, cluster));
    expect(degraded.metadata.annotations?.[ANN.reason]).to.include(unmirrored).and.to.include('lookup quay.io: no such host');
  });

  it('from the 4.18 CRD set: an ImageDigestMirrorSet for both repositories and an ImageTagMirrorSet for the release tag', () => {
    const objects = mirrorSetObjects('127.0.0.1:5000', '4.20.0');
    expect(objects.map((o) => `${o.kind}/${o.object.metadata.name}`)).to.deep.equal(['ImageDigestMirrorSet/idms-release-0', 'ImageTagMirrorSet/itms-release-0']);
    expect((objects[1]!.object as unknown as { spec: { imageTagMirrors: unknown } }).spec.imageTagMirrors).to.deep.equal([{ source: 'quay.io/openshift-release-dev/ocp-release', mirrors: ['127.0.0.1:5000/ocp/release'] }]);
  });
});
