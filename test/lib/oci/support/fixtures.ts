// Shared set-up of the images tests: a real registry per test file (optionally with htpasswd auth), running commands
// in containers made from an image, and a marker secret whose appearance in any output would be a leak.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Engine } from '../../../../lib/oci/engine.js';
import { startLocalRegistry, type LocalRegistry } from '../../../../lib/oci/local-registry.js';
import { engineToRun } from './container-engine.js';

/** Test-only push credentials. The bcrypt hash below was made offline (cost 4) for exactly this password. */
export const PUSH_USER = 'e2e-pusher';
export const MARKER_PASSWORD = 'ocp-e2e-MARKER-secret-5c1e9a';
const MARKER_BCRYPT = '$2b$04$fS1/eIZP/aQ21.XK8Q8mAeiIEcVRCbXfQwzMobO/8S305.YChHCLK';

export interface TestRegistry extends LocalRegistry {
  storageDir: string;
  /** Stops the registry and deletes its storage. */
  dispose(): Promise<void>;
}

export async function startTestRegistry(opts: { auth?: boolean } = {}): Promise<TestRegistry> {
  const storageDir = await mkdtemp(path.join(tmpdir(), 'ocp-e2e-test-registry-'));
  let htpasswdFile: string | undefined;
  if (opts.auth) {
    htpasswdFile = path.join(storageDir, 'htpasswd');
    await writeFile(htpasswdFile, `${PUSH_USER}:${MARKER_BCRYPT}\n`);
  }
  const registry = await startLocalRegistry({ storageDir, htpasswdFile });
  const handle: TestRegistry = {
    ...registry,
    storageDir,
    // Calls handle.stop, not registry.stop: a test that restarts the registry replaces handle.stop.
    async dispose() {
      await handle.stop();
      await rm(storageDir, { recursive: true, force: true });
    },
  };
  return handle;
}

/** A docker config / pull secret text holding the marker credentials for `registry`. */
export function markerPullSecret(registry: string, password = MARKER_PASSWORD): string {
  return JSON.stringify({ auths: { [registry]: { auth: Buffer.from(`${PUSH_USER}:${password}`).toString('base64'), email: '' } } });
}

/**
 * Runs `cmd` in a fresh container of `image`; returns its exit code and combined output. The container is removed.
 * It runs on `engine`, or on dockerd where `engine` is a podman that cannot run containers here (support/container-engine.ts).
 */
export async function runInImage(engineUnderTest: Engine, image: string, cmd: string[]): Promise<{ exitCode: number; output: string }> {
  const engine = await engineToRun(engineUnderTest, image);
  const container = await engine.createContainer({ Image: image, Cmd: cmd, Tty: true, Labels: { 'ocp-e2e.io/test': 'images' } });
  try {
    await container.start();
    const { StatusCode } = (await container.wait()) as { StatusCode: number };
    // As a stream: the non-streaming form is JSON-parsed by the HTTP client when it happens to look like JSON ("15").
    const stream = (await container.logs({ stdout: true, stderr: true, follow: true })) as unknown as NodeJS.ReadableStream;
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
    return { exitCode: StatusCode, output: Buffer.concat(chunks as unknown as Uint8Array[]).toString('utf8').replace(/\r/g, '') };
  } finally {
    await container.remove({ force: true });
  }
}

/** A TCP port on loopback where nothing listens. */
export async function closedPort(): Promise<number> {
  const { freeLoopbackPort } = await import('../../../../lib/oci/local-registry.js');
  return freeLoopbackPort();
}
