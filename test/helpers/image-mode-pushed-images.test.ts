/**
 * The images the MCO pushed for a MachineOSConfig, deleted in its undo and asked for again by the leak check: against
 * the suite's local registry (distribution with deletes enabled, as the reference's registry runs), a registry that
 * refuses deletes (405, a loopback stand-in), and the mock API server with the 4.20 CRDs holding the builds.
 */
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import type { RunningApiServer } from '../../mock/index.js';
import type { Cluster } from '../../helpers/cluster.js';
import { startImageModeApi } from './support/image-mode-api.js';
import { Ledger } from '../../helpers/ledger.js';
import { PushedImages, pushedImagesOf } from '../../helpers/image-mode/pushed-images.js';
import { RegistryCredentials } from '../../lib/oci/credentials.js';
import { RegistryClient } from '../../lib/oci/image-files.js';
import { startTestRegistry, type TestRegistry } from '../lib/oci/support/fixtures.js';

const MOSC = 'ocp-e2e-19';
const noCredentials = { credentials: new RegistryCredentials() };

/** Pushes a one-blob image as `<repo>:<tag>` and returns `<repo>@<digest>`. */
async function pushTinyImage(client: RegistryClient, repo: string, tag: string): Promise<string> {
  const config = Buffer.from(JSON.stringify({ architecture: 'amd64', os: 'linux', config: { Labels: { tag } }, rootfs: { type: 'layers', diff_ids: [] } }));
  const configDigest = await client.pushBlob(repo, config);
  const manifest = { schemaVersion: 2, mediaType: 'application/vnd.oci.image.manifest.v1+json', config: { mediaType: 'application/vnd.oci.image.config.v1+json', digest: configDigest, size: config.length }, layers: [] };
  const digest = await client.pushManifest(`${repo}:${tag}`, manifest.mediaType, Buffer.from(JSON.stringify(manifest)));
  return `${repo}@${digest}`;
}

describe('helpers/image-mode: the images the MCO pushed are deleted with their MachineOSConfig', function () {
  this.timeout(60_000);
  let server: RunningApiServer;
  let cluster: Cluster;
  let registry: TestRegistry;

  before(async () => {
    ({ server, cluster } = await startImageModeApi());
    registry = await startTestRegistry();
  });
  after(async () => {
    await registry?.dispose();
    await server?.close();
  });

  /** A MachineOSConfig and one Succeeded build of it whose image is `image` (pushed as `tag`). */
  async function machineOSConfigWithBuild(build: string, tag: string, image: string): Promise<void> {
    await cluster.client.create('MachineOSConfig', {
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: 'MachineOSConfig',
      metadata: { name: MOSC },
      spec: { machineConfigPool: { name: MOSC }, imageBuilder: { imageBuilderType: 'Job' }, renderedImagePushSecret: { name: 'push' }, renderedImagePushSpec: tag.replace(/:[^:/]+$/, ':run') },
    });
    await cluster.client.create('MachineOSBuild', {
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: 'MachineOSBuild',
      metadata: { name: build },
      spec: { machineConfig: { name: `rendered-${MOSC}-a` }, machineOSConfig: { name: MOSC }, renderedImagePushSpec: tag },
    });
    await cluster.client.patchStatus('MachineOSBuild', build, { digestedImagePushSpec: image });
  }

  it('the undo lists the builds\' images, deletes the MachineOSConfig and then each image by digest; the leak check finds none left', async () => {
    const client = new RegistryClient({ credentials: new RegistryCredentials() });
    const repo = `${registry.address}/ocp-e2e/image-mode`;
    const build = `${MOSC}-0123456789abcdef0123456789abcdef`;
    const image = await pushTinyImage(client, repo, build);
    await machineOSConfigWithBuild(build, `${repo}:${build}`, image);
    expect(await pushedImagesOf(cluster, MOSC)).to.deep.equal([{ build, tag: `${repo}:${build}`, image }]);

    const pushedImages = new PushedImages();
    const lines: string[] = [];
    const log = console.log;
    console.log = (line: string) => lines.push(String(line).trim());
    try {
      const ledger = new Ledger({ cluster, waits: {} as never, target: { reportsDir: tmpdir() }, engine: () => Promise.reject(new Error('no engine')), access: noCredentials, pushedImages });
      ledger.record({ kind: 'MachineOSConfig', name: MOSC, pool: MOSC });
      const report = await ledger.runAll({ skipSettling: true });
      expect(report.failed).to.deep.equal([]);
    } finally {
      console.log = log;
    }
    expect(lines).to.include(`deleted ${image} (tag ${repo}:${build}) from its registry`);
    expect(await cluster.client.get('MachineOSConfig', MOSC)).to.equal(undefined);
    expect(await new RegistryClient({ credentials: new RegistryCredentials() }).hasImage(`${repo}:${build}`), 'the tag went with its manifest').to.equal(false);
    expect(await pushedImages.leftBehind(cluster, noCredentials)).to.deep.equal({ leaks: [], notes: [] });
  });

  it('the leak check names a pushed tag still in a registry that allows deletes', async () => {
    const client = new RegistryClient({ credentials: new RegistryCredentials() });
    const repo = `${registry.address}/ocp-e2e/image-mode`;
    const tag = `${repo}:${MOSC}-fedcba9876543210fedcba9876543210`;
    const image = await pushTinyImage(client, repo, tag.split(':').at(-1)!);
    const pushedImages = new PushedImages();
    // the delete went wrong (a digest the registry never had: "gone"), so the image itself is still there
    const wrong = `${repo}@sha256:${createHash('sha256').update('never pushed').digest('hex')}`;
    const [d] = await pushedImages.remove(cluster, noCredentials, [{ build: 'b', tag, image: wrong }], () => undefined);
    expect(d!.outcome).to.equal('gone');
    expect((await pushedImages.leftBehind(cluster, noCredentials)).leaks).to.deep.equal([`image ${tag}`]);
    expect(await client.deleteManifest(image)).to.equal('deleted');
  });

  it('a registry that refuses deletes (405) is reported, not failed: the undo says so and the leak check keeps it as a note', async () => {
    const digest = `sha256:${'cd'.repeat(32)}`;
    const refusing: Server = createServer((req, res) => {
      if (req.method === 'DELETE') {
        res.writeHead(405, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ errors: [{ code: 'UNSUPPORTED', message: 'The operation is unsupported.' }] }));
        return;
      }
      res.writeHead(200, { 'Docker-Content-Digest': digest, 'Content-Type': 'application/vnd.oci.image.manifest.v1+json' });
      res.end();
    });
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', () => resolve()));
    try {
      const repo = `127.0.0.1:${(refusing.address() as { port: number }).port}/ocp-e2e/image-mode`;
      const pushedImages = new PushedImages();
      const lines: string[] = [];
      const [d] = await pushedImages.remove(cluster, noCredentials, [{ build: 'b', tag: `${repo}:b`, image: `${repo}@${digest}` }], (l) => lines.push(l));
      expect(d!.outcome).to.equal('unsupported');
      expect(lines).to.deep.equal([`kept ${repo}:b: its registry does not allow deletes (the registry answered 405 / UNSUPPORTED); remove it with the registry's own tools`]);
      expect(await pushedImages.leftBehind(cluster, noCredentials)).to.deep.equal({ leaks: [], notes: lines });
    } finally {
      refusing.close();
    }
  });

  it('an image of the internal registry is named with the command that removes it', async () => {
    const pushedImages = new PushedImages();
    const tag = 'image-registry.openshift-image-registry.svc:5000/openshift-machine-config-operator/ocp-e2e-image-mode:ocp-e2e-19-abc';
    const lines: string[] = [];
    await pushedImages.remove(cluster, noCredentials, [{ build: 'ocp-e2e-19-abc', tag }], (l) => lines.push(l));
    expect(lines).to.deep.equal([`kept ${tag} in the cluster's internal registry: oc tag -d ocp-e2e-image-mode:ocp-e2e-19-abc -n openshift-machine-config-operator`]);
  });
});
