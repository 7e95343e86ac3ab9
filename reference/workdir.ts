/**
 * The registry storage a reference cluster uses. Reusing one folder across runs keeps the release images (no push on
 * a warm start), but two clusters must not share it at the same time: the release payload tags name the registry's
 * address, and a second registry on the same storage would overwrite them with its own. So the folder is taken with
 * a lock file naming the owning process; a cluster that finds it held by a live process works in a private folder
 * next to it, removed when it stops.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

export interface WorkDir {
  path: string;
  /** Whether this is a private folder because the preferred one was in use. */
  private: boolean;
  release(): Promise<void>;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export async function acquireWorkDir(preferred: string): Promise<WorkDir> {
  await mkdir(preferred, { recursive: true });
  const lock = path.join(preferred, 'in-use.pid');
  const holder = Number((await readFile(lock, 'utf8').catch(() => '')).trim());
  if (holder && holder !== process.pid && alive(holder)) {
    const dir = await mkdtemp(`${preferred}-private-`);
    return { path: dir, private: true, release: () => rm(dir, { recursive: true, force: true }) };
  }
  if (holder === process.pid) {
    // a second cluster in this process: same rule, the first one owns the folder
    const dir = await mkdtemp(`${preferred}-private-`);
    return { path: dir, private: true, release: () => rm(dir, { recursive: true, force: true }) };
  }
  await writeFile(lock, `${process.pid}\n`);
  return { path: preferred, private: false, release: () => rm(lock, { force: true }) };
}
