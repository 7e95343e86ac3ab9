// Makes the container engines on this machine trust a registry's CA the way each one reads trust: dockerd from
// /etc/docker/certs.d/<host:port>/ca.crt, podman (containers/image) from /etc/containers/certs.d/<host:port>/ and
// /etc/docker/certs.d/<host:port>/, and rootless podman also from ~/.config/containers/certs.d/<host:port>/. Both read
// these folders on every connection, so a running engine needs no restart. What is written is removed by undo().
import { mkdir, readdir, rm, rmdir, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';

export interface RegistryTrust {
  /** The ca.crt files written. */
  installed: string[];
  /** Folders that could not be written, and why (not root, read-only file system). */
  skipped: { dir: string; reason: string }[];
  /** Removes the files written (and the per-registry folders, when left empty). Safe to call twice. */
  undo(): Promise<void>;
}

/** The certs.d roots the engines read, for this user. */
export function certsDirRoots(uid = process.getuid?.() ?? 0, home = homedir()): string[] {
  return uid === 0 ? ['/etc/docker/certs.d', '/etc/containers/certs.d'] : [path.join(home, '.config', 'containers', 'certs.d')];
}

/** Installs `caPem` as the CA of `registry` (`127.0.0.1:PORT`) in every certs.d root (default certsDirRoots()). */
export async function trustRegistryCa(registry: string, caPem: string, roots = certsDirRoots()): Promise<RegistryTrust> {
  if (!/^[\w.-]+(:\d+)?$|^\[[0-9a-f:]+\](:\d+)?$/i.test(registry)) throw new Error(`not a registry host[:port]: ${JSON.stringify(registry)}`);
  const installed: string[] = [];
  const skipped: { dir: string; reason: string }[] = [];
  for (const root of roots) {
    const dir = path.join(root, registry);
    try {
      await mkdir(dir, { recursive: true });
      const file = path.join(dir, 'ca.crt');
      await writeFile(file, caPem, { mode: 0o644 });
      installed.push(file);
    } catch (error) {
      skipped.push({ dir, reason: (error as NodeJS.ErrnoException).code ?? (error as Error).message });
    }
  }
  let undone = false;
  return {
    installed,
    skipped,
    async undo() {
      if (undone) return;
      undone = true;
      for (const file of installed) {
        await rm(file, { force: true });
        const dir = path.dirname(file);
        if ((await readdir(dir).catch(() => ['?'])).length === 0) await rmdir(dir).catch(() => undefined);
      }
    },
  };
}
