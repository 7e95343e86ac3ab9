import { expect } from 'chai';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inspect } from 'node:util';
import { connectEngine, engineCandidates, parseDockerHost } from '../../../lib/oci/engine.js';
import { EngineUnavailableError, RegistryUnavailableError } from '../../../lib/oci/errors.js';
import { startLocalRegistry } from '../../../lib/oci/local-registry.js';
import { loadRegistryCredentials, parseDockerConfig } from '../../../lib/oci/credentials.js';
import { parseImageRef } from '../../../lib/oci/image-ref.js';
import { closedPort, MARKER_PASSWORD, markerPullSecret, PUSH_USER, startTestRegistry } from './support/fixtures.js';

describe('images: engine connection', () => {
  it('connects to the running engine and pings it', async () => {
    const engine = await connectEngine();
    const version = await engine.version();
    expect(version.ApiVersion).to.match(/^1\.\d+$/);
  });

  it('looks at DOCKER_HOST only when set, else podman sockets then the docker socket', () => {
    expect(engineCandidates({ DOCKER_HOST: 'unix:///x.sock' }).map((c) => c.address)).to.deep.equal(['unix:///x.sock']);
    expect(engineCandidates({ XDG_RUNTIME_DIR: '/run/user/1000' }).map((c) => c.address)).to.deep.equal([
      'unix:///run/user/1000/podman/podman.sock',
      'unix:///run/podman/podman.sock',
      'unix:///var/run/docker.sock',
    ]);
    expect(parseDockerHost('tcp://127.0.0.1:2375').options).to.include({ host: '127.0.0.1', port: 2375 });
  });

  it('says what it tried and how to fix it when no engine answers (missing socket)', async () => {
    const err = await connectEngine({ env: { DOCKER_HOST: 'unix:///nonexistent/docker.sock' } }).catch((e) => e);
    expect(err).to.be.instanceOf(EngineUnavailableError);
    expect(err.message).to.include('unix:///nonexistent/docker.sock: socket file does not exist');
    expect(err.message).to.include('DOCKER_HOST');
  });

  it('reports an engine that is not running on a TCP address (connection refused)', async () => {
    const port = await closedPort();
    const err = await connectEngine({ env: { DOCKER_HOST: `tcp://127.0.0.1:${port}` }, pingTimeoutMs: 2000 }).catch((e) => e);
    expect(err).to.be.instanceOf(EngineUnavailableError);
    expect(err.message).to.match(/ECONNREFUSED/);
  });
});

describe('images: local registry', () => {
  it('starts docker-registry on loopback with its own storage, answers /v2/, stops', async () => {
    const registry = await startTestRegistry();
    try {
      expect(registry.address).to.match(/^127\.0\.0\.1:\d+$/);
      expect(registry.kind).to.equal('binary');
      const res = await fetch(`http://${registry.address}/v2/`);
      expect(res.status).to.equal(200);
      const config = await readFile(path.join(registry.storageDir, `registry-config-${registry.address.split(':')[1]}.yml`), 'utf8');
      expect(config).to.include('enabled: true').and.to.include(registry.storageDir);
    } finally {
      await registry.dispose();
    }
    const after = await fetch(`http://${registry.address}/v2/`).then(() => 'answered', () => 'refused');
    expect(after).to.equal('refused');
  });

  it('keeps the port of a storage folder across restarts', async () => {
    const storageDir = await mkdtemp(path.join(tmpdir(), 'ocp-e2e-sticky-'));
    try {
      const first = await startLocalRegistry({ storageDir });
      await first.stop();
      const second = await startLocalRegistry({ storageDir });
      await second.stop();
      expect(second.address).to.equal(first.address);
    } finally {
      await rm(storageDir, { recursive: true, force: true });
    }
  });

  it('asks for credentials when started with htpasswd', async () => {
    const registry = await startTestRegistry({ auth: true });
    try {
      expect((await fetch(`http://${registry.address}/v2/`)).status).to.equal(401);
      const basic = 'Basic ' + Buffer.from(`${PUSH_USER}:${MARKER_PASSWORD}`).toString('base64');
      expect((await fetch(`http://${registry.address}/v2/`, { headers: { Authorization: basic } })).status).to.equal(200);
    } finally {
      await registry.dispose();
    }
  });

  it('says what to install when neither the binary nor the registry image exists', async () => {
    const storageDir = await mkdtemp(path.join(tmpdir(), 'ocp-e2e-noreg-'));
    try {
      const err = await startLocalRegistry({ storageDir, binary: '/nonexistent/docker-registry' }).catch((e) => e);
      expect(err).to.be.instanceOf(RegistryUnavailableError);
      expect(err.message).to.include('apt-get install docker-registry');
    } finally {
      await rm(storageDir, { recursive: true, force: true });
    }
  });
});

describe('images: credentials and references', () => {
  it('reads a pull secret and never shows the secret when printed', async () => {
    const creds = parseDockerConfig(markerPullSecret('quay.io'));
    expect(creds.authFor('quay.io')).to.deep.equal({ username: PUSH_USER, password: MARKER_PASSWORD });
    expect(creds.authFor('https://quay.io/v1/')).to.not.equal(undefined);
    for (const shown of [String(creds), JSON.stringify(creds), inspect(creds, { depth: 5 }), inspect({ creds })]) {
      expect(shown).to.not.include(MARKER_PASSWORD);
      expect(shown).to.include('quay.io');
    }
  });

  it('does not echo a broken secret file in its error', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'ocp-e2e-creds-'));
    try {
      const file = path.join(dir, 'pull-secret.json');
      await (await import('node:fs/promises')).writeFile(file, `{"auths": {"x": "${MARKER_PASSWORD}"`);
      const err = await loadRegistryCredentials(file).catch((e) => e);
      expect(err.message).to.include(file);
      expect(err.message).to.not.include(MARKER_PASSWORD);
      expect((await loadRegistryCredentials(undefined, { REGISTRY_AUTH_FILE: path.join(dir, 'absent.json'), DOCKER_CONFIG: dir })).hosts()).to.deep.equal([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('splits image references like Docker does', () => {
    expect(parseImageRef('quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:' + 'a'.repeat(64))).to.deep.include({
      registry: 'quay.io',
      repository: 'openshift-release-dev/ocp-v4.0-art-dev',
      tag: undefined,
    });
    expect(parseImageRef('127.0.0.1:5000/ocp/release:4.12.0-0.nightly-2022-09-08-002336')).to.deep.include({
      registry: '127.0.0.1:5000',
      repository: 'ocp/release',
      tag: '4.12.0-0.nightly-2022-09-08-002336',
    });
    expect(parseImageRef('busybox')).to.deep.include({ registry: 'docker.io', repository: 'library/busybox' });
    expect(() => parseImageRef('quay.io/x@sha256:short')).to.throw(/digest/);
  });
});
