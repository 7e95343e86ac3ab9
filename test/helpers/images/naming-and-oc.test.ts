// Unit tests without an engine: run-unique tags and labels, credentials from files, and releaseImageFor through `oc`
// (a stand-in `oc` on PATH that answers like `oc adm release info -o json`).
import { expect } from 'chai';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadRegistryCredentials } from '../../../lib/oci/credentials.js';
import { runImageTag, testImageLabels } from '../../../helpers/images/naming.js';
import { newRunId } from '../../../helpers/target.js';
import { releaseImageFor, ReleaseImageTagNotFoundError } from '../../../helpers/images/release-info.js';
import { MARKER_PASSWORD, markerPullSecret, PUSH_USER } from '../../lib/oci/support/fixtures.js';
import { writeFakeOc } from '../../support/fake-oc.js';

describe('images: run-unique names, labels, credential files', () => {
  it('makes a tag per run and case, and QE labels', () => {
    const a = newRunId(new Date('2026-12-01T02:25:00Z'));
    const b = newRunId(new Date('2026-12-01T02:25:00Z'));
    expect(a).to.match(/^r20261201t022500-[0-9a-f]{6}$/);
    expect(a).to.not.equal(b);
    expect(runImageTag('quay.io/me/os:old', a, 'OCP-54183')).to.equal(`quay.io/me/os:${a}-ocp-54183`);
    expect(() => runImageTag('quay.io/me/os', 'x'.repeat(130), '1')).to.throw(/not a valid tag/);
    expect(testImageLabels({ runId: a, caseId: '54183' })).to.deep.equal({
      'quay.expires-after': '24h',
      'ocp-e2e.io/run-id': a,
      'ocp-e2e.io/case-id': '54183',
    });
  });

  it('loads credentials from a pull secret file, or DOCKER_CONFIG when no file is named', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'ocp-e2e-creds-'));
    try {
      await writeFile(path.join(dir, 'pull-secret.json'), markerPullSecret('quay.io'));
      await writeFile(path.join(dir, 'config.json'), markerPullSecret('127.0.0.1:5000'));
      const fromFile = await loadRegistryCredentials(path.join(dir, 'pull-secret.json'));
      expect(fromFile.authFor('quay.io')).to.deep.equal({ username: PUSH_USER, password: MARKER_PASSWORD });
      const fromEnv = await loadRegistryCredentials(undefined, { DOCKER_CONFIG: dir });
      expect(fromEnv.hosts()).to.deep.equal(['127.0.0.1:5000']);
      const missing = await loadRegistryCredentials(path.join(dir, 'absent.json')).catch((e) => e);
      expect(missing.message).to.include('ENOENT');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('images: releaseImageFor through oc', () => {
  let dir: string;
  let savedPath: string | undefined;
  const release = 'quay.example/ocp/release:4.12.0-0.nightly-2022-09-12-152748';
  const rhcos = 'quay.example/openshift-release-dev/ocp-v4.0-art-dev@sha256:' + 'e'.repeat(64);

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'ocp-e2e-fake-oc-'));
    // Lists only rhel-coreos-8, like a 4.12 payload; a release it does not know fails as oc does; logs its arguments.
    const info = JSON.stringify({ image: release, references: { kind: 'ImageStream', spec: { tags: [{ name: 'rhel-coreos-8', from: { kind: 'DockerImage', name: rhcos } }] } } });
    await writeFakeOc(
      dir,
      `  *"-o json ${release}"*) echo '${info}'; exit 0 ;;
  *"-o json quay.example/ocp/release:garbled"*) echo 'Name: not json'; exit 0 ;;
  *"-o json "*) echo "error: unable to read image $6: manifest unknown" >&2; exit 1 ;;`,
    );
    savedPath = process.env.PATH;
    process.env.PATH = `${dir}:${savedPath}`;
  });
  after(async () => {
    process.env.PATH = savedPath;
    await rm(dir, { recursive: true, force: true });
  });

  it('reads the release\'s image list with one `oc adm release info -o json`, accepting the other OS image name too', async () => {
    expect(await releaseImageFor(release, 'rhel-coreos-8', { pullSecretFile: '/tmp/ps.json' })).to.equal(rhcos);
    expect(await releaseImageFor(release, 'rhel-coreos')).to.equal(rhcos);
    const calls = (await readFile(path.join(dir, 'calls'), 'utf8')).split('\n').filter((c) => c.startsWith('adm '));
    expect(calls).to.deep.equal([`adm release info -o json ${release} -a /tmp/ps.json`, `adm release info -o json ${release}`]);
  });

  it('reports a tag the release does not have, naming those it has', async () => {
    const err = await releaseImageFor(release, 'cli').catch((e) => e);
    expect(err).to.be.instanceOf(ReleaseImageTagNotFoundError);
    expect(err.message).to.equal(`Release ${release} has no image named "cli". It has: rhel-coreos-8`);
  });

  it('says what oc said when it fails, and what it printed when that is not JSON', async () => {
    const missing = await releaseImageFor('quay.example/ocp/release:4.99', 'rhel-coreos-8').catch((e) => e);
    expect(missing.message).to.equal('oc adm release info -o json quay.example/ocp/release:4.99 failed (exit 1): error: unable to read image quay.example/ocp/release:4.99: manifest unknown');
    const garbled = await releaseImageFor('quay.example/ocp/release:garbled', 'rhel-coreos-8').catch((e) => e);
    expect(garbled.message).to.equal('oc adm release info -o json quay.example/ocp/release:garbled did not print JSON: Name: not json');
  });
});
