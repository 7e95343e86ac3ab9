import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { registryEnvironment, startLocalRegistry } from '../../../lib/oci/local-registry.js';

/** A user's shell as docs/reference-cluster.md's env file (or podman's habits) leave it: REGISTRY_* set to their own. */
const USER_VARIABLES = { REGISTRY_AUTH_FILE: '/tmp/somebody/auth.json', REGISTRY_HTTP_ADDR: '0.0.0.0:1', REGISTRY_STORAGE: 'bogus' };

describe('lib/oci: the local registry process', function () {
  this.timeout(30_000);
  let dir: string;
  const saved: Record<string, string | undefined> = {};
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'ocp-e2e-local-registry-'));
    for (const [k, v] of Object.entries(USER_VARIABLES)) {
      saved[k] = process.env[k];
      process.env[k] = v;
    }
  });
  afterEach(async () => {
    for (const k of Object.keys(USER_VARIABLES)) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
    await rm(dir, { recursive: true, force: true });
  });

  it('gets an environment of its own: no REGISTRY_* variable of the user reaches it', () => {
    const env = registryEnvironment();
    expect(Object.keys(env).filter((k) => k.startsWith('REGISTRY_'))).to.deep.equal([]);
    expect(env.PATH).to.be.a('string');
  });

  it('starts and answers /v2/ with REGISTRY_AUTH_FILE and other REGISTRY_* variables set in the environment', async () => {
    const registry = await startLocalRegistry({ storageDir: dir });
    try {
      const res = await fetch(`http://${registry.address}/v2/`);
      expect(res.status).to.equal(200);
    } finally {
      await registry.stop();
    }
  });

  it('moves to another port when the port it served on last time is taken', async () => {
    const holder: Server = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', () => resolve()));
    const held = (holder.address() as { port: number }).port;
    await writeFile(path.join(dir, 'port'), `${held}\n`);
    try {
      const registry = await startLocalRegistry({ storageDir: dir });
      try {
        expect(registry.address).to.not.equal(`127.0.0.1:${held}`);
        expect((await fetch(`http://${registry.address}/v2/`)).status).to.equal(200);
      } finally {
        await registry.stop();
      }
    } finally {
      holder.close();
    }
  });

  it('fails with the bind error, not a wrong registry, when the port it is given is taken', async () => {
    const holder: Server = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', () => resolve()));
    const port = (holder.address() as { port: number }).port;
    try {
      // the registry exits at once with the bind error; a loaded machine (npm test) took over the default 10 s once
      const error = await startLocalRegistry({ storageDir: dir, port, readyTimeoutMs: 30_000 }).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(error?.message).to.match(/address already in use/);
    } finally {
      holder.close();
    }
  });
});
