/**
 * The run's registry credentials as one story (helpers/credentials.ts): chosen once, printed as hosts only, read by a
 * spec process from the path it is handed; and the preflight's question whether the nodes can pull from
 * --image-repo with the cluster's pull secret (helpers/preflight/node-pull.ts).
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Cluster } from '../../helpers/cluster.js';
import { buildCredentials, CredentialsError, describeRegistryAccess, registryAccess, resolveRegistryAccess } from '../../helpers/credentials.js';
import { BadInputError } from '../../helpers/preflight/bad-input.js';
import { anonymousPull, checkNodesCanPull, type AnonymousProbe } from '../../helpers/preflight/node-pull.js';
import { maskSecrets } from '../../helpers/secrets.js';
import { startTestRegistry, type TestRegistry } from '../lib/oci/support/fixtures.js';

const SECRET = 'ocp-e2e-MARKER-run-credentials-93ab';
const authFile = (entries: Record<string, string>) =>
  JSON.stringify({ auths: Object.fromEntries(Object.entries(entries).map(([key, user]) => [key, { auth: Buffer.from(`${user}:${SECRET}`).toString('base64') }])) });

/** A cluster whose openshift-config/pull-secret holds `text` (undefined: no such secret; an Error: reading it fails). */
function clusterWithPullSecret(text: string | undefined | Error): Cluster {
  return {
    async getSecretData(namespace: string, name: string) {
      expect(`${namespace}/${name}`).to.equal('openshift-config/pull-secret');
      if (text instanceof Error) throw text;
      return text === undefined ? undefined : { '.dockerconfigjson': text };
    },
  } as unknown as Cluster;
}

describe('helpers/credentials: one auth file for the run, printed as hosts', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ocp-e2e-run-credentials-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('names the file, why it was chosen and its hosts, never a secret', () => {
    const file = join(dir, 'auth.json');
    writeFileSync(file, authFile({ 'quay.io': 'robot', '127.0.0.1:5000': 'local' }));
    const access = resolveRegistryAccess(undefined, { REGISTRY_AUTH_FILE: file, HOME: dir });
    const lines = describeRegistryAccess(access);
    expect(lines).to.deep.equal([`registry credentials: ${file} (REGISTRY_AUTH_FILE) for quay.io, 127.0.0.1:5000`]);
    expect(maskSecrets(`password ${SECRET}`), 'the file\'s secrets are masked once read').to.equal('password ***');
  });

  it('says when there is no file, and when a credential helper cannot be run', () => {
    expect(describeRegistryAccess(resolveRegistryAccess(undefined, { HOME: dir }))[0]).to.match(/^registry credentials: none \(no --pull-secret, and no \$REGISTRY_AUTH_FILE/);
    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify({ auths: {}, credHelpers: { 'gcr.io': 'not-installed' } }));
    const lines = describeRegistryAccess(resolveRegistryAccess(undefined, { DOCKER_CONFIG: dir, HOME: dir, PATH: '/nonexistent' }));
    expect(lines).to.deep.equal([
      `registry credentials: ${file} (DOCKER_CONFIG) for no registry`,
      `registry credentials: warning: ${file}: the credential helper docker-credential-not-installed for gcr.io cannot be used: docker-credential-not-installed is not on PATH`,
    ]);
  });

  it('refuses a malformed file with one error naming it, and a given file with nothing in it', () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, `{"auths": {"quay.io": "${SECRET}"`);
    const error = (() => { try { resolveRegistryAccess(undefined, { REGISTRY_AUTH_FILE: bad, HOME: dir }); } catch (e) { return e as Error; } return undefined; })();
    expect(error).to.be.instanceOf(CredentialsError);
    expect(error!.message).to.match(new RegExp(`^the pull secret ${bad} is not JSON`)).and.not.include(SECRET);
    const empty = join(dir, 'empty.json');
    writeFileSync(empty, '{}');
    expect(() => resolveRegistryAccess(empty, {})).to.throw(CredentialsError, /has no "auths" object/);
    expect(resolveRegistryAccess(undefined, { REGISTRY_AUTH_FILE: empty, HOME: dir }).credentials.hosts(), 'a found empty file holds nothing').to.deep.equal([]);
  });

  it('a spec process reads the path it is handed, and completes it with the cluster\'s pull secret for the registries it lacks', async () => {
    const file = join(dir, 'auth.json');
    writeFileSync(file, authFile({ 'quay.io/myorg': 'pusher' }));
    const access = registryAccess(file, {});
    const completed = await buildCredentials(clusterWithPullSecret(authFile({ 'quay.io': 'release-reader', 'registry.redhat.io': 'rh' })), access);
    expect(completed.authFor('quay.io/myorg/layered')?.username, 'the push uses the run\'s file').to.equal('pusher');
    expect(completed.authFor('quay.io/openshift-release-dev/ocp-release')?.username).to.equal('release-reader');
    expect(completed.authFor('registry.redhat.io/rhel8/x')?.username).to.equal('rh');
    expect((await buildCredentials(clusterWithPullSecret(undefined), access)).hosts()).to.deep.equal(['quay.io/myorg']);
    // the same key in both: the run's file wins (the cluster's quay.io robot may pull the release, not push)
    const sameKey = registryAccess((writeFileSync(file, authFile({ 'quay.io': 'pusher' })), file), {});
    expect((await buildCredentials(clusterWithPullSecret(authFile({ 'quay.io': 'release-reader' })), sameKey)).authFor('quay.io/myorg/layered')?.username).to.equal('pusher');
  });
});

describe('helpers/preflight/node-pull: the nodes pull --image-repo with the cluster\'s pull secret', () => {
  const never: AnonymousProbe = async () => {
    throw new Error('no anonymous pull expected');
  };
  const answers = (a: 'public' | 'private' | 'unknown'): AnonymousProbe => async () => a;

  it('names the entry the nodes will use, matched as they match it', async () => {
    const line = await checkNodesCanPull(clusterWithPullSecret(authFile({ 'quay.io/myorg': 'nodes', '127.0.0.1:5000': 'x' })), 'quay.io/myorg/layered', never);
    expect(line).to.equal('node pulls: the nodes pull quay.io/myorg/layered with the entry for quay.io/myorg in the cluster\'s pull secret openshift-config/pull-secret');
    expect(line).to.not.include(SECRET);
  });

  it('without an entry: an error when the repository refuses an anonymous pull, with the oc set data hint', async () => {
    const error = await checkNodesCanPull(clusterWithPullSecret(authFile({ 'quay.io/other': 'nodes', '127.0.0.1:5001': 'x' })), '127.0.0.1:5000/e2e/layered', answers('private')).catch((e: Error) => e);
    expect(error).to.be.instanceOf(BadInputError);
    expect((error as Error).message).to.match(/^--image-repo 127\.0\.0\.1:5000\/e2e\/layered: the nodes pull the layered image with the cluster's pull secret, and the cluster's pull secret openshift-config\/pull-secret has no entry for 127\.0\.0\.1:5000, while 127\.0\.0\.1:5000 refuses a pull without credentials: add it to the cluster's pull secret: /);
    expect((error as Error).message).to.include('oc set data secret/pull-secret -n openshift-config --from-file=.dockerconfigjson=pull-secret.json');
    expect((error as Error).message).to.include('oc registry login --registry=127.0.0.1:5000');
  });

  it('without an entry: a warning when the repository may be public (it answered anonymously, or was not asked)', async () => {
    const readable = await checkNodesCanPull(clusterWithPullSecret(undefined), '127.0.0.1:5000/e2e/layered', answers('public'));
    expect(readable).to.match(/^node pulls: warning: the cluster has no pull secret openshift-config\/pull-secret: the nodes pull 127\.0\.0\.1:5000\/e2e\/layered without credentials, so 127\.0\.0\.1:5000\/e2e\/layered can be read without credentials; if it is private, add it to the cluster's pull secret/);
    const unknown = await checkNodesCanPull(clusterWithPullSecret(authFile({ 'quay.io': 'x' })), 'registry.example.com/e2e/layered', answers('unknown'));
    expect(unknown).to.match(/has no entry for registry\.example\.com: .*so registry\.example\.com\/e2e\/layered must be public; if it is private, add it/);
  });

  it('a pull secret that is not a docker config, or that may not be read, is an error', async () => {
    const broken = await checkNodesCanPull(clusterWithPullSecret('{"registries": {}}'), 'quay.io/x/y', never).catch((e: Error) => e);
    expect((broken as Error).message).to.match(/openshift-config\/pull-secret has no "auths" object.*the nodes cannot pull any private image with it/);
    const forbidden = Object.assign(new Error('secrets "pull-secret" is forbidden'), { code: 403, body: { kind: 'Status', code: 403, reason: 'Forbidden', message: 'secrets "pull-secret" is forbidden' } });
    const refused = await checkNodesCanPull(clusterWithPullSecret(forbidden), 'quay.io/x/y', never).catch((e: Error) => e);
    expect(refused).to.be.instanceOf(BadInputError);
    expect((refused as Error).message).to.match(/^cannot read the cluster's pull secret openshift-config\/pull-secret \(get secrets named pull-secret in openshift-config; deploy\/clusterrole\.yaml grants it\)/);
  });

  describe('the anonymous pull, asked of loopback registries only', function () {
    this.timeout(60_000);
    let open: TestRegistry;
    let secured: TestRegistry;
    before(async () => {
      [open, secured] = await Promise.all([startTestRegistry(), startTestRegistry({ auth: true })]);
    });
    after(async () => {
      await Promise.allSettled([open?.dispose(), secured?.dispose()]);
    });

    it('a registry that wants credentials is private, one that answers 404 is public, another host is not asked', async () => {
      expect(await anonymousPull(`${secured.address}/e2e/layered`)).to.equal('private');
      expect(await anonymousPull(`${open.address}/e2e/layered`)).to.equal('public');
      expect(await anonymousPull('quay.io/e2e/layered')).to.equal('unknown');
    });
  });
});
