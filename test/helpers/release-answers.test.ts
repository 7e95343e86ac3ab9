// helpers/release.ts remembers the images a release lists within one process, so a spec that asks it twice (or for two
// of its images) starts one `oc adm release info` instead of two: for a release named by digest always, for one named by tag while the tag
// still points at the manifest it pointed at when asked (a stand-in oc that logs its calls, a loopback stand-in
// registry whose tag can be moved; OCP_E2E_LOOPBACK_ONLY keeps every other host out of reach).
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Cluster } from '../../helpers/cluster.js';
import { releaseImageTaggedOf } from '../../helpers/release.js';
import { RegistryCredentials } from '../../lib/oci/credentials.js';
import { LOOPBACK_ONLY_ENV } from '../../lib/oci/reachability.js';
import { writeFakeOc } from '../support/fake-oc.js';

const RHCOS = 'quay.example/openshift-release-dev/ocp-v4.0-art-dev@sha256:' + 'e'.repeat(64);
const EXTENSIONS = 'quay.example/openshift-release-dev/ocp-v4.0-art-dev@sha256:' + 'f'.repeat(64);

/** A cluster with no pull secret and no mirror sets. */
const cluster = {
  getSecretData: async () => undefined,
  client: { list: async () => ({ items: [] }) },
} as unknown as Cluster;
const access = { credentials: new RegistryCredentials() };

/** A release image manifest whose config is `config` (the test moves the tag by changing it). */
const manifestOf = (config: string) => JSON.stringify({
  schemaVersion: 2,
  mediaType: 'application/vnd.docker.distribution.manifest.v2+json',
  config: { mediaType: 'application/vnd.docker.container.image.v1+json', size: 2, digest: config },
  layers: [],
});

describe('helpers/release: a release question asked twice in one process', () => {
  let dir: string;
  let server: Server;
  let registry: string;
  let tagDigest = 'sha256:' + '1'.repeat(64);
  let saved: { path?: string; loopback?: string };

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'ocp-e2e-release-answers-'));
    const info = JSON.stringify({ references: { spec: { tags: [{ name: 'rhel-coreos-8', from: { name: RHCOS } }, { name: 'rhel-coreos-8-extensions', from: { name: EXTENSIONS } }] } } });
    await writeFakeOc(dir, `  *"adm release info -o json "*) echo '${info}'; exit 0 ;;`);
    server = createServer((req, res) => {
      if (req.url === '/v2/' || req.url === '/v2') {
        res.writeHead(200).end('{}');
        return;
      }
      if (/^\/v2\/ocp\/release\/manifests\/4\.12\.0$/.test(req.url ?? '')) {
        // the manifest the tag names now: moving the tag changes its bytes, so its digest (HEAD's header, GET's hash)
        const body = manifestOf(tagDigest);
        const digest = `sha256:${createHash('sha256').update(body).digest('hex')}`;
        res.writeHead(200, { 'content-type': 'application/vnd.docker.distribution.manifest.v2+json', 'docker-content-digest': digest }).end(req.method === 'HEAD' ? undefined : body);
        return;
      }
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"errors":[{"code":"MANIFEST_UNKNOWN"}]}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    registry = `127.0.0.1:${(server.address() as AddressInfo).port}`;
    saved = { path: process.env.PATH, loopback: process.env[LOOPBACK_ONLY_ENV] };
    process.env.PATH = `${dir}:${saved.path}`;
    process.env[LOOPBACK_ONLY_ENV] = '1';
  });
  after(async () => {
    process.env.PATH = saved.path;
    if (saved.loopback === undefined) delete process.env[LOOPBACK_ONLY_ENV];
    else process.env[LOOPBACK_ONLY_ENV] = saved.loopback;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await rm(dir, { recursive: true, force: true });
  });

  const releaseInfoCalls = async (): Promise<string[]> =>
    (await readFile(path.join(dir, 'calls'), 'utf8').catch(() => '')).split('\n').filter((c) => c.startsWith('adm release info'));

  it('a release named by digest is asked of oc once, whichever of its images is wanted', async () => {
    const release = 'quay.example/ocp/release@sha256:' + 'd'.repeat(64);
    const before = (await releaseInfoCalls()).length;
    for (let i = 0; i < 3; i++) expect(await releaseImageTaggedOf(access, release, cluster, 'rhel-coreos-8')).to.deep.equal({ pullspec: RHCOS, tag: 'rhel-coreos-8' });
    expect(await releaseImageTaggedOf(access, release, cluster, 'rhel-coreos-8-extensions')).to.deep.equal({ pullspec: EXTENSIONS, tag: 'rhel-coreos-8-extensions' });
    expect((await releaseInfoCalls()).slice(before)).to.deep.equal([`adm release info -o json ${release}`]);
  });

  it('a release named by tag is asked again once the tag points at another manifest', async () => {
    const release = `${registry}/ocp/release:4.12.0`;
    const before = (await releaseInfoCalls()).length;
    await releaseImageTaggedOf(access, release, cluster, 'rhel-coreos-8');
    await releaseImageTaggedOf(access, release, cluster, 'rhel-coreos-8');
    expect((await releaseInfoCalls()).slice(before), 'the same tag on the same manifest').to.have.length(1);
    tagDigest = 'sha256:' + '2'.repeat(64);
    await releaseImageTaggedOf(access, release, cluster, 'rhel-coreos-8');
    expect((await releaseInfoCalls()).slice(before), 'the tag moved').to.have.length(2);
    await releaseImageTaggedOf(access, release, cluster, 'rhel-coreos-8');
    expect((await releaseInfoCalls()).slice(before), 'the tag stayed').to.have.length(2);
  });

  it('a tag the registry cannot resolve is asked of oc every time, as before', async () => {
    const release = `${registry}/ocp/release:unknown`;
    const before = (await releaseInfoCalls()).length;
    await releaseImageTaggedOf(access, release, cluster, 'rhel-coreos-8');
    await releaseImageTaggedOf(access, release, cluster, 'rhel-coreos-8');
    expect((await releaseInfoCalls()).slice(before)).to.have.length(2);
  });
});
