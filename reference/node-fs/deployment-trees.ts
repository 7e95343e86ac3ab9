/**
 * The tree of one rpm-ostree deployment: an OS image, plus what the machine-config daemon asked rpm-ostree to layer
 * on it (extensions: `rpm-ostree install`; kernelType realtime: the default kernel packages swapped for the
 * realtime ones, update.go switchKernel). A deployment of the image alone is the image's tree itself. One with
 * packages is made once per (image digest, extensions image digest, packages) under `<cache>/deployments/<key>/`: a
 * copy of the image's tree made of hard links (no file data is copied), the packages' files written over it as new
 * files (a link is replaced, never written through, so the image's tree stays as it was) and the package database
 * rewritten. Deployments are read-only once made; nodes share them.
 *
 * A package comes from the release's extensions image (`/usr/share/rpm-ostree/extensions/<name>/`), or before 4.12's
 * FIX from the OS image's `/extensions/<name>/` (machine-os-content): its `package` line (rpm database format,
 * images/README.md) and its `files/`. A package neither has is not installed, as rpm-ostree would fail on it; the
 * daemon's validation has refused unknown extensions before this.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cp, mkdir, readFile, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { DEFAULT_KERNEL_PACKAGES, REALTIME_KERNEL_PACKAGES, SUPPORTED_EXTENSIONS } from '../mcd/node-config.js';
import { RPMDB_PATH } from '../releases/os-content.js';
import type { DeploymentConfig } from '../kubelet/hosts.js';
import { touch, type ImageTree, type ImageTrees } from './image-trees.js';
import { replaceFile } from './replace-file.js';

const run = promisify(execFile);

const EXTENSIONS_IMAGE_DIR = 'usr/share/rpm-ostree/extensions';
const OS_IMAGE_EXTENSIONS_DIR = 'extensions';

export interface DeploymentTree {
  /** The tree's root folder. */
  root: string;
  image: ImageTree;
}

/** The packages a deployment layers on its image, and the ones it takes out. */
export function layeredPackages(deployment: DeploymentConfig): { install: string[]; remove: string[] } {
  const install = deployment.extensions.flatMap((e) => SUPPORTED_EXTENSIONS[e] ?? []);
  if (deployment.kernelType !== 'realtime') return { install, remove: [] };
  return { install: [...REALTIME_KERNEL_PACKAGES, ...install], remove: DEFAULT_KERNEL_PACKAGES };
}

export class DeploymentTrees {
  private readonly making = new Map<string, Promise<string>>();

  constructor(
    private readonly cacheDir: string,
    private readonly images: ImageTrees,
  ) {}

  async tree(imageRef: string, deployment: DeploymentConfig): Promise<DeploymentTree> {
    const image = await this.images.tree(imageRef);
    const { install, remove } = layeredPackages(deployment);
    if (!install.length && !remove.length) return { root: image.root, image };
    const source = deployment.extensionsImage
      ? { ...(await this.images.tree(deployment.extensionsImage)), dir: EXTENSIONS_IMAGE_DIR }
      : { ...image, dir: OS_IMAGE_EXTENSIONS_DIR };
    const key = createHash('sha256').update(JSON.stringify([image.digest, source.digest, source.dir, install, remove])).digest('hex').slice(0, 32);
    let root = this.making.get(key);
    if (!root) {
      root = this.make(key, image.root, path.join(source.root, source.dir), install, remove);
      this.making.set(key, root);
      root.catch(() => this.making.delete(key));
    }
    const ready = await root;
    touch(ready);
    return { root: ready, image };
  }

  private async make(key: string, imageRoot: string, packagesDir: string, install: string[], remove: string[]): Promise<string> {
    const root = path.join(this.cacheDir, 'deployments', key);
    if (await stat(root).then((s) => s.isDirectory(), () => false)) return root;
    const partial = `${root}.partial-${process.pid}-${Math.random().toString(36).slice(2)}`;
    await mkdir(path.dirname(root), { recursive: true });
    try {
      // directories are made anew, files are hard links to the image's: a copy that costs inodes, not data
      await run('cp', ['-a', '--link', `${imageRoot}/.`, partial]);
      const dbFile = path.join(partial, RPMDB_PATH);
      let db = (await readFile(dbFile, 'utf8').catch(() => '')).split('\n').filter((l) => l !== '' && !remove.includes(l.split('\t')[0]!));
      for (const name of install) {
        if (db.some((l) => l.split('\t')[0] === name)) continue;
        const line = (await readFile(path.join(packagesDir, name, 'package'), 'utf8').catch(() => '')).split('\n').find((l) => l.trim() && !l.startsWith('#'));
        if (!line) continue;
        const files = path.join(packagesDir, name, 'files');
        if (await stat(files).then((s) => s.isDirectory(), () => false)) await copyOver(files, partial);
        db = [...db, line];
      }
      await replaceFile(dbFile, `${db.join('\n')}\n`);
      await rename(partial, root).catch(async (error: NodeJS.ErrnoException) => {
        if (!['ENOTEMPTY', 'EEXIST'].includes(error.code ?? '')) throw error;
      });
    } finally {
      await rm(partial, { recursive: true, force: true });
    }
    return root;
  }
}

/** Copies the package's files into the tree, each one replacing (not writing through) what is there. */
async function copyOver(from: string, to: string): Promise<void> {
  for (const entry of await readdir(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isDirectory()) {
      await mkdir(target, { recursive: true });
      await copyOver(source, target);
    } else {
      await rm(target, { force: true });
      await cp(source, target, { preserveTimestamps: true, verbatimSymlinks: true });
    }
  }
}
