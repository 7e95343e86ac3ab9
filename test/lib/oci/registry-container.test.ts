// The container fallback of startLocalRegistry: when the docker-registry binary is absent but a registry image is in
// the engine. registry:2 cannot be pulled here, so the test makes an equivalent image from this machine's
// docker-registry binary (same entry point and config location as registry:2) under a test-only name.
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { copyFile, mkdtemp, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ensureBusyboxBase } from '../../../lib/oci/base-image.js';
import { buildImage, removeImage } from '../../../lib/oci/build.js';
import { connectEngine, type Engine } from '../../../lib/oci/engine.js';
import { startLocalRegistry } from '../../../lib/oci/local-registry.js';
import { pushImage } from '../../../lib/oci/push.js';
import { containerEngine } from './support/container-engine.js';

// Unique per run: parallel runs on the same engine must not remove each other's image.
const TEST_REGISTRY_IMAGE = `localhost/ocp-e2e/test-registry:${randomBytes(4).toString('hex')}`;
const REGISTRY_CONFIG = `version: 0.1
log: {level: warn}
storage:
  filesystem: {rootdirectory: /var/lib/registry}
http: {addr: ':5000'}
`;

async function makeRegistryImage(engine: Engine): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'ocp-e2e-registry-image-'));
  try {
    await mkdir(path.join(dir, 'lib'));
    await copyFile('/usr/bin/docker-registry', path.join(dir, 'registry'));
    await copyFile('/lib/x86_64-linux-gnu/libc.so.6', path.join(dir, 'lib/libc.so.6'));
    await copyFile('/lib64/ld-linux-x86-64.so.2', path.join(dir, 'lib/ld-linux-x86-64.so.2'));
    await writeFile(path.join(dir, 'config.yml'), REGISTRY_CONFIG);
    const base = await ensureBusyboxBase(engine);
    await writeFile(
      path.join(dir, 'Containerfile'),
      `FROM ${base.tag}
COPY registry /bin/registry
COPY lib/libc.so.6 /lib/x86_64-linux-gnu/libc.so.6
COPY lib/ld-linux-x86-64.so.2 /lib64/ld-linux-x86-64.so.2
COPY config.yml /etc/docker/registry/config.yml
EXPOSE 5000
ENTRYPOINT ["/bin/registry", "serve"]
CMD ["/etc/docker/registry/config.yml"]
`,
    );
    await buildImage(engine, { contextDir: dir, tag: TEST_REGISTRY_IMAGE, timeoutMs: 60_000 });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('images: local registry as a container when the binary is absent', function () {
  this.timeout(60_000);
  let engine: Engine;
  let storageDir: string;

  before(async () => {
    // the registry runs in a container: on podman where it can run one, else on dockerd (said by containerEngine)
    engine = await containerEngine(await connectEngine());
    storageDir = await mkdtemp(path.join(tmpdir(), 'ocp-e2e-registry-container-'));
    await makeRegistryImage(engine);
  });
  after(async () => {
    if (engine) await removeImage(engine, TEST_REGISTRY_IMAGE, { force: true });
    // The container wrote as root into the bind mount; the engine can clean what we may not.
    if (storageDir) await rm(storageDir, { recursive: true, force: true }).catch(() => undefined);
  });

  it('runs the registry image with the storage folder mounted, serves pushes, and removes the container on stop', async () => {
    const registry = await startLocalRegistry({ storageDir, engine, binary: '/nonexistent/docker-registry', image: TEST_REGISTRY_IMAGE });
    const tag = `${registry.address}/ocp-e2e/in-container:test`;
    try {
      expect(registry.kind).to.equal('container');
      expect((await fetch(`http://${registry.address}/v2/`)).status).to.equal(200);
      await engine.getImage(TEST_REGISTRY_IMAGE).tag({ repo: `${registry.address}/ocp-e2e/in-container`, tag: 'test' });
      const pushed = await pushImage(engine, tag);
      expect(pushed.digest).to.match(/^sha256:/);
      expect(await readdir(path.join(storageDir, 'data', 'docker', 'registry', 'v2', 'repositories', 'ocp-e2e'))).to.include('in-container');
    } finally {
      await removeImage(engine, tag);
      await registry.stop();
    }
    const left = await engine.listContainers({ all: true, filters: { label: ['ocp-e2e.io/local-registry=true'] } });
    expect(left.filter((c) => c.Image === TEST_REGISTRY_IMAGE)).to.deep.equal([]);
  });
});
