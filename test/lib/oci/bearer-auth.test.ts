// Registries like quay.io answer 401 with a Bearer challenge and hand out tokens from a separate realm. The loopback
// registry only does Basic auth, so this test stands up a minimal token-auth registry front (HTTP on loopback) to
// check the client's Bearer flow: challenge → token request with the pull secret's credentials → retry with the token.
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseDockerConfig } from '../../../lib/oci/credentials.js';
import { RegistryUnauthorizedError } from '../../../lib/oci/errors.js';
import { RegistryClient } from '../../../lib/oci/image-files.js';
import { MARKER_PASSWORD, markerPullSecret, PUSH_USER } from './support/fixtures.js';

const MANIFEST = JSON.stringify({
  schemaVersion: 2,
  mediaType: 'application/vnd.docker.distribution.manifest.v2+json',
  config: { mediaType: 'application/vnd.docker.container.image.v1+json', size: 2, digest: 'sha256:' + '1'.repeat(64) },
  layers: [],
});
const DIGEST = 'sha256:' + createHash('sha256').update(MANIFEST).digest('hex');
const TOKEN = 'token-for-ocp-e2e';

describe('images: registry client Bearer-token auth', () => {
  let server: Server;
  let address: string;
  const tokenRequests: { scope: string | null; service: string | null; authorized: boolean }[] = [];

  before(async () => {
    server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/token') {
        const authorized = req.headers.authorization === 'Basic ' + Buffer.from(`${PUSH_USER}:${MARKER_PASSWORD}`).toString('base64');
        tokenRequests.push({ scope: url.searchParams.get('scope'), service: url.searchParams.get('service'), authorized });
        res.writeHead(authorized ? 200 : 401, { 'content-type': 'application/json' });
        res.end(authorized ? JSON.stringify({ token: TOKEN }) : '{"errors":[{"code":"UNAUTHORIZED"}]}');
        return;
      }
      if (req.headers.authorization !== `Bearer ${TOKEN}`) {
        res.writeHead(401, {
          'www-authenticate': `Bearer realm="http://${address}/token",service="test-registry",scope="repository:ocp/os:pull"`,
          'content-type': 'application/json',
        });
        res.end('{"errors":[{"code":"UNAUTHORIZED"}]}');
        return;
      }
      if (url.pathname === '/v2/ocp/os/manifests/4.12') {
        res.writeHead(200, { 'content-type': 'application/vnd.docker.distribution.manifest.v2+json', 'docker-content-digest': DIGEST });
        res.end(req.method === 'HEAD' ? undefined : MANIFEST);
        return;
      }
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"errors":[{"code":"MANIFEST_UNKNOWN"}]}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    address = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => new Promise<void>((resolve) => server.close(() => resolve())));

  it('gets a token with the pull secret credentials for the right scope and service, then reuses it', async () => {
    const client = new RegistryClient({ credentials: parseDockerConfig(markerPullSecret(address)) });
    expect(await client.manifestDigest(`${address}/ocp/os:4.12`)).to.equal(DIGEST);
    expect(await client.hasImage(`${address}/ocp/os:4.13`)).to.equal(false);
    expect(tokenRequests).to.deep.equal([{ scope: 'repository:ocp/os:pull', service: 'test-registry', authorized: true }]);
  });

  it('says the credentials were rejected when the token realm refuses them, without showing them', async () => {
    tokenRequests.length = 0;
    const client = new RegistryClient({ credentials: parseDockerConfig(markerPullSecret(address, 'not-the-password')) });
    const err = await client.manifestDigest(`${address}/ocp/os:4.12`).catch((e) => e);
    expect(err).to.be.instanceOf(RegistryUnauthorizedError);
    expect(err.message).to.include('refused a token').and.to.include('rejected');
    expect(err.message).to.not.include('not-the-password');
    expect(tokenRequests).to.have.length(1);
  });
});
