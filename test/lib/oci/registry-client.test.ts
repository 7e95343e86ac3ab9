// Reading files out of an image in the registry without an engine: layers top-down, whiteouts, opaque directories, links.
import { expect } from 'chai';
import { ensureBusyboxBase } from '../../../lib/oci/base-image.js';
import { buildImage, removeImage } from '../../../lib/oci/build.js';
import { parseDockerConfig } from '../../../lib/oci/credentials.js';
import { connectEngine, type Engine } from '../../../lib/oci/engine.js';
import { ImageNotFoundError, RegistryUnauthorizedError, RegistryUnreachableError } from '../../../lib/oci/errors.js';
import { pushImage } from '../../../lib/oci/push.js';
import { RegistryClient } from '../../../lib/oci/image-files.js';
import { closedPort, MARKER_PASSWORD, markerPullSecret, startTestRegistry, type TestRegistry } from './support/fixtures.js';

const CONTAINERFILE = `ARG BASE_IMAGE
FROM \${BASE_IMAGE}
RUN mkdir -p /data/keep /data/gone && echo one > /data/keep/a && echo two > /data/gone/b && echo x > /data/file && ln -s keep/a /data/link && ln -s /data/keep/a /data/abslink
RUN rm /data/file && rm -rf /data/gone && mkdir /data/gone && echo new > /data/gone/c && echo top > /data/keep/a
`;

describe('images: registry client reads files from image layers', function () {
  this.timeout(60_000);
  let engine: Engine;
  let registry: TestRegistry;
  let pullspec: string;
  const tag = () => `${registry.address}/ocp-e2e/layers:test`;

  before(async () => {
    engine = await connectEngine();
    registry = await startTestRegistry();
    const base = await ensureBusyboxBase(engine);
    await buildImage(engine, { files: { Containerfile: CONTAINERFILE }, buildArgs: { BASE_IMAGE: base.tag }, tag: tag() });
    pullspec = (await pushImage(engine, tag())).pullspec;
  });
  after(async () => {
    if (registry) await removeImage(engine, tag());
    await registry?.dispose();
  });

  it('reads the newest version of a file, follows relative and absolute symlinks', async () => {
    const client = new RegistryClient();
    expect((await client.readFile(pullspec, '/data/keep/a'))?.toString()).to.equal('top\n');
    expect((await client.readFile(pullspec, '/data/link'))?.toString()).to.equal('top\n');
    expect((await client.readFile(pullspec, 'data/abslink'))?.toString()).to.equal('top\n');
    expect((await client.readFile(pullspec, '/data/gone/c'))?.toString()).to.equal('new\n');
  });

  it('honours whiteouts and opaque directories', async () => {
    const client = new RegistryClient();
    expect(await client.readFile(pullspec, '/data/file')).to.equal(undefined);
    expect(await client.readFile(pullspec, '/data/gone/b')).to.equal(undefined);
    expect(await client.readFile(pullspec, '/data/absent')).to.equal(undefined);
    const files = await client.listFiles(pullspec);
    expect(files).to.include.members(['/data/keep/a', '/data/gone/c', '/data/link', '/bin/busybox']);
    expect(files).to.not.include.members(['/data/file']);
    expect(files).to.not.include('/data/gone/b');
  });

  it('reports a missing image, an unreachable registry and refused credentials as distinct errors', async () => {
    const client = new RegistryClient();
    expect(await client.hasImage(`${registry.address}/ocp-e2e/layers:nope`)).to.equal(false);
    expect(await client.readFile(`${registry.address}/ocp-e2e/layers:nope`, '/x').catch((e) => e)).to.be.instanceOf(ImageNotFoundError);
    const port = await closedPort();
    expect(await client.manifestDigest(`127.0.0.1:${port}/a/b:c`).catch((e) => e)).to.be.instanceOf(RegistryUnreachableError);

    const secured = await startTestRegistry({ auth: true });
    try {
      const anonymous = await new RegistryClient().manifestDigest(`${secured.address}/a/b:c`).catch((e) => e);
      expect(anonymous).to.be.instanceOf(RegistryUnauthorizedError);
      expect(anonymous.message).to.include('none were found');
      const withSecret = new RegistryClient({ credentials: parseDockerConfig(markerPullSecret(secured.address)) });
      expect(await withSecret.hasImage(`${secured.address}/a/b:c`)).to.equal(false);
      const wrong = new RegistryClient({ credentials: parseDockerConfig(markerPullSecret(secured.address, 'wrong')) });
      const refused = await wrong.manifestDigest(`${secured.address}/a/b:c`).catch((e) => e);
      expect(refused).to.be.instanceOf(RegistryUnauthorizedError);
      expect(refused.message).to.include('rejected').and.to.not.include(MARKER_PASSWORD);
    } finally {
      await secured.dispose();
    }
  });
});
