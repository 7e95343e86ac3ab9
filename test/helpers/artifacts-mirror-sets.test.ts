/**
 * helpers/artifacts.ts: a failure's artefacts carry the cluster's mirror sets (issue 43 item 7), so that a pull that
 * failed on a disconnected cluster can be read against the mirrors the nodes followed. On the mock API server with a
 * release's CRDs: 4.12's serves ImageContentSourcePolicies and no IDMS/ITMS, 4.18's IDMS and ITMS and no ICSP; a kind
 * the release does not serve (404) is no gather error and leaves no file.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { KubeConfig } from '@kubernetes/client-node';
import { startApiServer, type RunningApiServer } from '../../mock/index.js';
import { openShiftCrds } from '../../reference/crds/index.js';
import { Cluster } from '../../helpers/cluster.js';
import { gatherArtifacts } from '../../helpers/artifacts.js';

const MIRROR = '127.0.0.1:5000/mirror/ocp-release';

async function startMock(version: string): Promise<{ server: RunningApiServer; cluster: Cluster; kubeconfig: string }> {
  const server = await startApiServer({ crds: openShiftCrds(version), bookmarkIntervalMs: 500 });
  const kubeconfig = join(mkdtempSync(join(tmpdir(), 'ocp-e2e-artifacts-mirrors-')), 'kubeconfig');
  await server.writeKubeconfig(kubeconfig);
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  return { server, cluster: new Cluster(kc), kubeconfig };
}

/** Gather errors about the mirror sets (the bare mock has no ClusterVersion, whose read fails as it should). */
const mirrorErrors = (errors: string[]) => errors.filter((e) => /mirror|contentsource/i.test(e));

/** One mirror set of `kind` sending the release repository to MIRROR, its rules under `field` as the kind names them. */
function mirrorSet(cluster: Cluster, kind: 'ImageContentSourcePolicy' | 'ImageDigestMirrorSet' | 'ImageTagMirrorSet', name: string, field: string) {
  const apiVersion = kind === 'ImageContentSourcePolicy' ? 'operator.openshift.io/v1alpha1' : 'config.openshift.io/v1';
  return cluster.client.create(kind, { apiVersion, kind, metadata: { name }, spec: { [field]: [{ source: 'quay.io/openshift-release-dev/ocp-release', mirrors: [MIRROR] }] } });
}

const gather = (cluster: Cluster, kubeconfig: string) =>
  gatherArtifacts({ cluster, kubeconfig, testTitle: 'mirror sets', root: mkdtempSync(join(tmpdir(), 'ocp-e2e-artifacts-')), logs: false });

describe('failure artefacts: the cluster\'s mirror sets', function () {
  this.timeout(30_000);
  let mock: Awaited<ReturnType<typeof startMock>> | undefined;
  afterEach(async () => {
    await mock?.server.close();
    mock = undefined;
  });

  it('4.12 (ImageContentSourcePolicy served, IDMS and ITMS not): the ICSP is kept; the kinds it lacks are no error and no file', async () => {
    mock = await startMock('4.12.0');
    await mirrorSet(mock.cluster, 'ImageContentSourcePolicy', 'release-mirror', 'repositoryDigestMirrors');
    const result = await gather(mock.cluster, mock.kubeconfig);
    expect(mirrorErrors(result.errors), result.errors.join('\n')).to.deep.equal([]);
    const icsp = readFileSync(join(result.dir, 'imagecontentsourcepolicies.yaml'), 'utf8');
    expect(icsp).to.include('release-mirror').and.include(MIRROR);
    expect(existsSync(join(result.dir, 'imagedigestmirrorsets.yaml'))).to.equal(false);
    expect(existsSync(join(result.dir, 'imagetagmirrorsets.yaml'))).to.equal(false);
  });

  it('4.18 (ImageDigestMirrorSet and ImageTagMirrorSet served): both are kept', async () => {
    mock = await startMock('4.18.0');
    await mirrorSet(mock.cluster, 'ImageDigestMirrorSet', 'release-digests', 'imageDigestMirrors');
    await mirrorSet(mock.cluster, 'ImageTagMirrorSet', 'release-tags', 'imageTagMirrors');
    const result = await gather(mock.cluster, mock.kubeconfig);
    expect(mirrorErrors(result.errors), result.errors.join('\n')).to.deep.equal([]);
    expect(readFileSync(join(result.dir, 'imagedigestmirrorsets.yaml'), 'utf8')).to.include('release-digests').and.include(MIRROR);
    expect(readFileSync(join(result.dir, 'imagetagmirrorsets.yaml'), 'utf8')).to.include('release-tags').and.include(MIRROR);
    expect(existsSync(join(result.dir, 'imagecontentsourcepolicies.yaml'))).to.equal(false);
  });
});
