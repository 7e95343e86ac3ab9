// Mirror sets as registries.conf applies them (lib/oci/mirrors.ts), and the suite's client that follows them
// (lib/oci/mirrored-pull.ts) against a fake loopback registry. quay.io is never contacted: OCP_E2E_LOOPBACK_ONLY
// makes every non-loopback host fail before a request, as the disconnected bastion the reference models.
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ImageNotFoundError, RegistryUnreachableError } from '../../../lib/oci/errors.js';
import { MirroredPullError, MirroredRegistryClient } from '../../../lib/oci/mirrored-pull.js';
import { MirrorSetError, mirrorRulesFromYaml, mirrorRulesOf } from '../../../lib/oci/mirrors.js';
import { LOOPBACK_ONLY_ENV } from '../../../lib/oci/reachability.js';

const D = 'sha256:' + 'a'.repeat(64);
const ART = 'quay.io/openshift-release-dev/ocp-v4.0-art-dev';
const idms = (name: string, entries: object[]) => ({ apiVersion: 'config.openshift.io/v1', kind: 'ImageDigestMirrorSet', metadata: { name }, spec: { imageDigestMirrors: entries } });
const itms = (name: string, entries: object[]) => ({ apiVersion: 'config.openshift.io/v1', kind: 'ImageTagMirrorSet', metadata: { name }, spec: { imageTagMirrors: entries } });
const icsp = (name: string, entries: object[]) => ({ apiVersion: 'operator.openshift.io/v1alpha1', kind: 'ImageContentSourcePolicy', metadata: { name }, spec: { repositoryDigestMirrors: entries } });

describe('lib/oci mirror sets: where a pull goes', () => {
  const sets = mirrorRulesOf([
    idms('release-0', [{ source: ART, mirrors: ['m1.local:5000/art', 'm2.local/art'] }, { source: 'quay.io/openshift-release-dev/ocp-release', mirrors: ['m1.local:5000/release'] }]),
    itms('release-0', [{ source: 'quay.io/openshift-release-dev/ocp-release', mirrors: ['m1.local:5000/release'] }]),
    idms('whole-registry', [{ source: 'quay.io', mirrors: ['m3.local'], mirrorSourcePolicy: 'NeverContactSource' }]),
  ], 'the cluster');

  it('a pull by digest tries the IDMS mirrors in order, then the source; the mirror keeps the path below the source', () => {
    expect(sets.candidates(`${ART}@${D}`).map((c) => c.ref)).to.deep.equal([`m1.local:5000/art@${D}`, `m2.local/art@${D}`, `${ART}@${D}`]);
    expect(sets.candidates(`${ART}/sub@${D}`).map((c) => c.ref)[0]).to.equal(`m1.local:5000/art/sub@${D}`);
  });

  it('IDMS serves digest pulls only and ITMS tag pulls only', () => {
    expect(sets.candidates('quay.io/openshift-release-dev/ocp-release:4.13.0-x86_64').map((c) => c.ref)).to.deep.equal(['m1.local:5000/release:4.13.0-x86_64', 'quay.io/openshift-release-dev/ocp-release:4.13.0-x86_64']);
    const digestOnly = mirrorRulesOf([icsp('icsp', [{ source: ART, mirrors: ['m1.local/art'] }])], 'x');
    expect(digestOnly.candidates(`${ART}:latest`).map((c) => c.ref)).to.deep.equal([`${ART}:latest`]);
    expect(digestOnly.candidates(`${ART}@${D}`).map((c) => c.ref)).to.deep.equal([`m1.local/art@${D}`, `${ART}@${D}`]);
  });

  it('the most specific source wins, a prefix matches at a path boundary only, and NeverContactSource blocks the source', () => {
    // quay.io/other matches only the whole-registry rule, which never contacts quay.io
    expect(sets.candidates(`quay.io/other/img@${D}`).map((c) => c.ref)).to.deep.equal([`m3.local/other/img@${D}`]);
    // the art-dev source is more specific than `quay.io`: its own rule decides, and it allows contacting the source
    expect(sets.candidates(`${ART}@${D}`).at(-1)!.ref).to.equal(`${ART}@${D}`);
    expect(mirrorRulesOf([idms('a', [{ source: 'quay.io/a', mirrors: ['m/a'] }])], 'x').candidates(`quay.io/ab@${D}`).map((c) => c.ref)).to.deep.equal([`quay.io/ab@${D}`]);
  });

  it('writes the digest rules as an ImageContentSourcePolicy for oc --icsp-file', () => {
    const text = sets.toIcspYaml();
    const back = mirrorRulesFromYaml(text, 'icsp.yaml', ['icsp']);
    expect(back.candidates(`${ART}@${D}`).map((c) => c.ref)).to.deep.equal([`m1.local:5000/art@${D}`, `m2.local/art@${D}`, `${ART}@${D}`]);
    expect(back.rules.every((r) => r.pulls === 'digest')).to.equal(true);
  });

  it('a malformed file or object is a MirrorSetError naming the file, the document and the field', () => {
    const bad = (text: string) => () => mirrorRulesFromYaml(text, 'idms.yaml', ['digest', 'tag']);
    expect(bad('kind: [')).to.throw(MirrorSetError, /^idms\.yaml is not YAML/);
    expect(bad('')).to.throw(MirrorSetError, 'idms.yaml holds no ImageDigestMirrorSet or ImageTagMirrorSet');
    expect(bad('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}')).to.throw(MirrorSetError, 'idms.yaml: document 1 is kind ConfigMap; expected ImageDigestMirrorSet or ImageTagMirrorSet');
    expect(bad('apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata: {name: x}\nspec:\n  imageDigestMirrors:\n  - source: "quay.io/a b"\n    mirrors: [m/a]')).to.throw(MirrorSetError, 'idms.yaml: document 1: ImageDigestMirrorSet/x spec.imageDigestMirrors[0].source "quay.io/a b" is not a registry');
    expect(bad('apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata: {name: x}\nspec:\n  imageDigestMirrors:\n  - source: quay.io/a\n    mirrors: m/a')).to.throw(MirrorSetError, /mirrors must be a list/);
    expect(bad('apiVersion: operator.openshift.io/v1alpha1\nkind: ImageContentSourcePolicy\nmetadata: {name: x}')).to.throw(MirrorSetError, /is kind ImageContentSourcePolicy; expected ImageDigestMirrorSet or ImageTagMirrorSet/);
  });
});

describe('lib/oci MirroredRegistryClient: the suite pulls as a node of a disconnected cluster', () => {
  const MANIFEST = JSON.stringify({ schemaVersion: 2, mediaType: 'application/vnd.docker.distribution.manifest.v2+json', config: { mediaType: 'application/vnd.docker.container.image.v1+json', size: 2, digest: 'sha256:' + '1'.repeat(64) }, layers: [] });
  const DIGEST = 'sha256:' + createHash('sha256').update(MANIFEST).digest('hex');
  let server: Server;
  let address: string;
  const asked: string[] = [];
  const env = { ...process.env, [LOOPBACK_ONLY_ENV]: '1' };

  before(async () => {
    server = createServer((req, res) => {
      asked.push(`${req.method} ${req.url}`);
      if (req.url === `/v2/mirror/art/manifests/${DIGEST}`) {
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
  beforeEach(() => void asked.splice(0));

  const mirrors = () => mirrorRulesOf([idms('art', [{ source: ART, mirrors: [`${address}/missing`, `${address}/mirror/art`] }])], 'the cluster');

  it('reads a quay.io digest from the first mirror that has it, never from quay.io', async () => {
    const client = new MirroredRegistryClient({ mirrors: mirrors(), env });
    expect(await client.manifestDigest(`${ART}@${DIGEST}`)).to.equal(DIGEST);
    expect((await client.imageManifest(`${ART}@${DIGEST}`)).digest).to.equal(DIGEST);
    expect(asked.filter((a) => a.includes('/missing/'))).to.have.length(1);
  });

  it('an unmirrored quay.io image fails as unreachable, naming the mirrors that failed, without a request', async () => {
    const client = new MirroredRegistryClient({ mirrors: mirrors(), env });
    const missing = 'sha256:' + 'b'.repeat(64);
    const error = await client.manifestDigest(`${ART}@${missing}`).then(() => undefined, (e: unknown) => e);
    expect(error).to.be.instanceOf(MirroredPullError);
    expect((error as MirroredPullError).sourceError).to.be.instanceOf(RegistryUnreachableError);
    expect((error as Error).message).to.match(/^Registry quay\.io is unreachable: dial tcp: lookup quay\.io: no such host .*mirrors also failed \(ImageDigestMirrorSet\/art\): 127\.0\.0\.1:\d+\/missing@sha256:b+: .*not found/);
    // a tag pull has no IDMS mirror: only the source, unreachable
    const byTag = await client.manifestDigest(`${ART}:4.12`).then(() => undefined, (e: unknown) => e);
    expect(byTag).to.be.instanceOf(RegistryUnreachableError);
    expect(asked.filter((a) => a.includes('quay'))).to.deep.equal([]);
  });

  it('without mirror sets a missing loopback image is still ImageNotFoundError', async () => {
    const client = new MirroredRegistryClient({ env });
    const error = await client.manifestDigest(`${address}/nothing@${DIGEST}`).then(() => undefined, (e: unknown) => e);
    expect(error).to.be.instanceOf(ImageNotFoundError);
  });
});
