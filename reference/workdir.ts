/**
 * The registry storage a reference cluster uses. Reusing one folder across runs keeps the release images (no push on
 * a warm start), but two clusters must not share it at the same time: the release payload tags name the registry's
 * address, and a second registry on the same storage would overwrite them with its own. So the folder is taken with
 * a lock file naming the owning process; a cluster that finds it held by a live process works in a private folder
 * next to it, removed when it stops.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { stopOrphanedRegistry } from '../lib/oci/local-registry.js';
import { processAlive } from '../lib/process/alive.js';

export interface WorkDir {
  path: string;
  /** Whether this is a private folder because the preferred one was in use. */
  private: boolean;
  release(): Promise<void>;
}

/**
 * Private folders of clusters that died without stopping (kill -9) would pile up, each with its registry still
 * serving it. One whose owner (its in-use.pid) is gone has that orphaned registry stopped and is removed.
 */
async function sweepAbandonedPrivateDirs(preferred: string): Promise<void> {
  const prefix = `${path.basename(preferred)}-private-`;
  for (const name of await readdir(path.dirname(preferred)).catch(() => [] as string[])) {
    if (!name.startsWith(prefix)) continue;
    const dir = path.join(path.dirname(preferred), name);
    const owner = Number((await readFile(path.join(dir, 'in-use.pid'), 'utf8').catch(() => '')).trim());
    if (!owner || processAlive(owner)) continue; // still in use, or not yet marked by the process creating it
    await stopOrphanedRegistry(path.join(dir, 'registry'));
    await rm(dir, { recursive: true, force: true });
  }
}

async function privateDir(preferred: string): Promise<WorkDir> {
  const dir = await mkdtemp(`${preferred}-private-`);
  await writeFile(path.join(dir, 'in-use.pid'), `${process.pid}\n`);
  return { path: dir, private: true, release: () => rm(dir, { recursive: true, force: true }) };
}

export async function acquireWorkDir(preferred: string): Promise<WorkDir> {
  await mkdir(preferred, { recursive: true });
  await sweepAbandonedPrivateDirs(preferred);
  const lock = path.join(preferred, 'in-use.pid');
  // The lock is taken with an exclusive create: two clusters starting at the same moment both read "no holder" and
  // both wrote the lock before, so they shared the storage and each one's release tags named the other's registry
  // (seen as x509 errors with several `cluster up` at once). Only one create succeeds.
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await writeFile(lock, `${process.pid}\n`, { flag: 'wx' });
      return { path: preferred, private: false, release: () => rm(lock, { force: true }) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = Number((await readFile(lock, 'utf8').catch(() => '')).trim());
    // a live holder, a second cluster in this process, or a lock being written right now (empty): not ours
    if (!holder || holder === process.pid || processAlive(holder)) return privateDir(preferred);
    await rm(lock, { force: true }); // its owner died without releasing it: take it over
  }
  return privateDir(preferred);
}
