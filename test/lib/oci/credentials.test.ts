/**
 * Which auth file a run uses (lib/oci/auth-file.ts) and which entry of it answers for a repository
 * (lib/oci/credentials.ts), as podman and docker choose: the order of the files, host / host:port / host/path keys,
 * docker's credential helpers, and a malformed file said without its secret.
 */
import { expect } from 'chai';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { authFileCandidates, chooseAuthFile } from '../../../lib/oci/auth-file.js';
import { CredentialsFileError, parseDockerConfig, RegistryCredentials } from '../../../lib/oci/credentials.js';

const SECRET = 'ocp-e2e-MARKER-credentials-7d41';
const auth = (user: string, password = SECRET) => ({ auth: Buffer.from(`${user}:${password}`).toString('base64') });

describe('lib/oci: the run\'s auth file, chosen as podman and docker choose theirs', () => {
  let dir: string;
  const file = (rel: string, text = '{"auths": {}}') => {
    const p = join(dir, rel);
    mkdirSync(join(p, '..'), { recursive: true });
    writeFileSync(p, text);
    return p;
  };
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ocp-e2e-authfile-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('takes --pull-secret, else REGISTRY_AUTH_FILE, podman\'s auth.json files, DOCKER_CONFIG or ~/.docker: the first that exists', () => {
    const env = {
      HOME: join(dir, 'home'),
      REGISTRY_AUTH_FILE: join(dir, 'registry-auth.json'),
      XDG_RUNTIME_DIR: join(dir, 'run'),
      XDG_CONFIG_HOME: join(dir, 'config'),
      DOCKER_CONFIG: join(dir, 'docker'),
    };
    const pick = () => chooseAuthFile(undefined, env);
    expect(pick(), 'nothing exists').to.equal(undefined);
    file('docker/config.json');
    expect(pick()).to.deep.equal({ path: join(dir, 'docker/config.json'), source: 'DOCKER_CONFIG' });
    file('config/containers/auth.json');
    expect(pick()).to.deep.equal({ path: join(dir, 'config/containers/auth.json'), source: 'XDG_CONFIG_HOME' });
    file('run/containers/auth.json');
    expect(pick()).to.deep.equal({ path: join(dir, 'run/containers/auth.json'), source: 'XDG_RUNTIME_DIR' });
    file('registry-auth.json');
    expect(pick()).to.deep.equal({ path: env.REGISTRY_AUTH_FILE, source: 'REGISTRY_AUTH_FILE' });
    expect(chooseAuthFile('given.json', env)).to.deep.equal({ path: join(process.cwd(), 'given.json'), source: '--pull-secret' });
  });

  it('reads ~/.docker/config.json only when DOCKER_CONFIG is not set (docker replaces the folder), and ~/.config without XDG_CONFIG_HOME', () => {
    const home = join(dir, 'home');
    file('home/.docker/config.json');
    expect(chooseAuthFile(undefined, { HOME: home })).to.deep.equal({ path: join(home, '.docker/config.json'), source: '~/.docker' });
    expect(chooseAuthFile(undefined, { HOME: home, DOCKER_CONFIG: join(dir, 'elsewhere') })).to.equal(undefined);
    file('home/.config/containers/auth.json');
    expect(chooseAuthFile(undefined, { HOME: home })?.source).to.equal('~/.config/containers');
    expect(authFileCandidates({ HOME: home }).map((c) => c.source)).to.deep.equal(['~/.config/containers', '~/.docker']);
  });
});

describe('lib/oci: which auth entry answers for a repository', () => {
  const creds = parseDockerConfig(JSON.stringify({
    auths: {
      'quay.io': auth('quay-robot'),
      'quay.io/myorg': auth('myorg-pusher'),
      'quay.io/myorg/os/layered': auth('layered-only'),
      '127.0.0.1:5000': auth('local'),
      'https://index.docker.io/v1/': auth('hub'),
      'registry.example.com': { username: 'plain', password: SECRET },
      'empty.example.com': {},
    },
  }));
  const user = (ref: string) => creds.authFor(ref)?.username;

  it('takes the longest host/path prefix of the repository, then the host', () => {
    expect(user('quay.io/myorg/os/layered:tag')).to.equal('layered-only');
    expect(user('quay.io/myorg/os/layered@sha256:' + 'a'.repeat(64))).to.equal('layered-only');
    expect(user('quay.io/myorg/os')).to.equal('myorg-pusher');
    expect(user('quay.io/myorg/other:1')).to.equal('myorg-pusher');
    expect(user('quay.io/myorgother/os'), 'a prefix is whole path segments').to.equal('quay-robot');
    expect(user('quay.io/openshift-release-dev/ocp-release:4.12.1-x86_64')).to.equal('quay-robot');
    expect(user('quay.io')).to.equal('quay-robot');
  });

  it('matches a port only to that port, and the legacy and alias names of Docker Hub', () => {
    expect(user('127.0.0.1:5000/ocp/release:4.12')).to.equal('local');
    expect(user('127.0.0.1:5000')).to.equal('local');
    expect(user('127.0.0.1:5001/ocp/release'), 'another port is another registry').to.equal(undefined);
    expect(user('127.0.0.1/ocp/release')).to.equal(undefined);
    expect(user('docker.io/library/busybox')).to.equal('hub');
    expect(user('registry-1.docker.io')).to.equal('hub');
    expect(user('https://quay.io/v1/')).to.equal('quay-robot');
    expect(user('registry.example.com/a/b')).to.equal('plain');
    expect(user('empty.example.com/a'), 'an entry without credentials is none').to.equal(undefined);
    expect(creds.keyFor('quay.io/myorg/os')).to.equal('quay.io/myorg');
  });

  it('gives the engine one entry per host (the host\'s own before a path\'s), and prints no secret', () => {
    const config = creds.toRegistryConfig();
    expect(config['quay.io']?.username).to.equal('quay-robot');
    expect(Object.keys(config)).to.not.include('quay.io/myorg');
    const pathOnly = new RegistryCredentials([['quay.io/myorg', { username: 'u', password: SECRET }]]);
    expect(pathOnly.toRegistryConfig()['quay.io']?.username).to.equal('u');
    expect(String(creds) + JSON.stringify(creds)).to.not.include(SECRET);
  });

  it('with a fallback keeps its own entry for a key, and takes the fallback\'s for the others', () => {
    const mine = new RegistryCredentials([['quay.io/myorg', { username: 'mine', password: 'x'.repeat(8) }]]);
    const merged = mine.withFallback(new RegistryCredentials([['quay.io', { username: 'cluster', password: 'y'.repeat(8) }], ['quay.io/myorg', { username: 'other', password: 'z'.repeat(8) }]]));
    expect(merged.authFor('quay.io/myorg/os')?.username).to.equal('mine');
    expect(merged.authFor('quay.io/openshift-release-dev/ocp-release')?.username).to.equal('cluster');
  });
});

describe('lib/oci: a malformed auth file is one error that shows no secret', () => {
  const refusal = (text: string, options = {}) => {
    try {
      parseDockerConfig(text, '/tmp/auth.json', options);
    } catch (error) {
      expect(error).to.be.instanceOf(CredentialsFileError);
      expect((error as Error).message).to.not.include(SECRET);
      return (error as Error).message;
    }
    throw new Error('no error');
  };

  it('names what is wrong', () => {
    expect(refusal(`{"auths": {"quay.io": {"auth": "${SECRET}"`)).to.match(/^\/tmp\/auth\.json is not JSON \(at character \d+\); expected \{"auths"/);
    expect(refusal(`["${SECRET}"]`)).to.match(/is not a JSON object/);
    expect(refusal(`{"auths": ["${SECRET}"]}`)).to.match(/"auths" is not an object/);
    expect(refusal(`{"auths": {"quay.io": {"auth": "${Buffer.from(SECRET).toString('base64')}"}}}`)).to.match(/the "auth" of quay\.io is not base64 of user:password/);
    expect(refusal('{"credHelpers": {"quay.io": 3}}')).to.match(/"credHelpers" is not an object of helper names/);
    expect(refusal('{"registries": {}}')).to.match(/has no "auths" object/);
    expect(parseDockerConfig('{"HttpHeaders": {}}', 'found', { allowEmpty: true }).hosts(), 'a found file with nothing is empty').to.deep.equal([]);
  });
});

describe('lib/oci: docker credential helpers', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'ocp-e2e-credhelper-'));
    // a helper as docker-credential-helpers define them: `get` reads a server on stdin, `list` prints server -> user
    const helper = join(dir, 'docker-credential-fake');
    writeFileSync(helper, `#!/bin/sh
read -r server
case "$1:$server" in
  get:quay.io) printf '{"ServerURL":"quay.io","Username":"helped","Secret":"${SECRET}"}' ;;
  get:https://store.example.com) printf '{"ServerURL":"x","Username":"stored","Secret":"${SECRET}"}' ;;
  list:*) printf '{"https://store.example.com":"stored"}' ;;
  *) echo "credentials not found in native keychain"; exit 1 ;;
esac
`);
    chmodSync(helper, 0o755);
    env = { PATH: `${dir}:${process.env.PATH}` };
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('asks a credHelper per registry and the credsStore for what it lists, over the file\'s auths', () => {
    const creds = parseDockerConfig(JSON.stringify({ auths: { 'quay.io': auth('from-file') }, credHelpers: { 'quay.io': 'fake', 'nothing.example.com': 'fake' }, credsStore: 'fake' }), 'cfg', { credentialHelpers: env });
    expect(creds.authFor('quay.io/x')).to.deep.equal({ username: 'helped', password: SECRET });
    expect(creds.authFor('store.example.com/x')?.username).to.equal('stored');
    expect(creds.authFor('nothing.example.com/x'), 'a helper without credentials for it gives none').to.equal(undefined);
    expect(creds.problems).to.deep.equal([]);
  });

  it('says clearly which helper it cannot run, and never runs one unless asked', () => {
    const text = JSON.stringify({ auths: {}, credHelpers: { 'gcr.io': 'gcloud-missing' } });
    const creds = parseDockerConfig(text, 'cfg', { credentialHelpers: env });
    expect(creds.authFor('gcr.io/p/i')).to.equal(undefined);
    expect(creds.problems).to.deep.equal(['cfg: the credential helper docker-credential-gcloud-missing for gcr.io cannot be used: docker-credential-gcloud-missing is not on PATH']);
    const notRun = parseDockerConfig(JSON.stringify({ credHelpers: { 'quay.io': 'fake' } }), 'cluster secret');
    expect(notRun.authFor('quay.io')).to.equal(undefined);
    expect(notRun.problems[0]).to.equal('cluster secret keeps credentials in credential helpers, which are not run here: quay.io (docker-credential-fake)');
  });
});
