// Runs ensureReleases once in its own process against the registry storage given as argv[2], and prints what it built
// and how long it took as JSON. Used to prove that a second process start rebuilds nothing.
import { connectEngine } from '../../../lib/oci/engine.js';
import { startLocalRegistry } from '../../../lib/oci/local-registry.js';
import { ensureReleases } from '../../../reference/releases/index.js';

const storageDir = process.argv[2];
if (!storageDir) throw new Error('usage: ensure-releases-once.ts <registry storage dir>');
const registry = await startLocalRegistry({ storageDir });
try {
  const result = await ensureReleases({ engine: await connectEngine(), registry });
  console.log(JSON.stringify({ address: registry.address, built: result.built, durationMs: result.durationMs, current: result.current, next: result.next }));
} finally {
  await registry.stop();
}
