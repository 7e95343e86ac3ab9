/**
 * Root file systems of OS images, unpacked once per image digest under a cache folder and shared read-only by every
 * node (of every cluster on the machine) that boots that image: `<cache>/images/<hex of the digest>/`. An image is
 * unpacked into a folder of its own and renamed into place whole, so a tree that exists is complete, and two
 * processes unpacking the same image at once both end with one tree (the second rename loses, harmlessly).
 */
import { mkdir, rename, rm, stat, utimes } from 'node:fs/promises';
import path from 'node:path';
import { unpackLayers } from './layers.js';

/** Where an image's layers come from: the registry, as the node's pull would read them. */
export interface ImageLayerSource {
  /** The image's manifest digest and its layer blobs, bottom first. */
  layers(ref: string): Promise<{ digest: string; layers: Buffer[] }>;
  /** The digest `ref` names now (a tag can move), without reading the layers. */
  digest(ref: string): Promise<string>;
}

export interface ImageTree {
  digest: string;
  root: string;
}

export class ImageTrees {
  private readonly unpacking = new Map<string, Promise<string>>();

  constructor(
    private readonly cacheDir: string,
    private readonly source: ImageLayerSource,
  ) {}

  /** The unpacked tree of `ref`, unpacking it when this digest was never unpacked here. */
  async tree(ref: string): Promise<ImageTree> {
    const digest = await this.source.digest(ref);
    let root = this.unpacking.get(digest);
    if (!root) {
      root = this.unpack(ref, digest);
      this.unpacking.set(digest, root);
      root.catch(() => this.unpacking.delete(digest));
    }
    const ready = await root;
    touch(ready);
    return { digest, root: ready };
  }

  private async unpack(ref: string, digest: string): Promise<string> {
    const root = path.join(this.cacheDir, 'images', digest.replace(/^sha256:/, ''));
    if (await isDir(root)) return root;
    const { layers } = await this.source.layers(ref);
    const partial = `${root}.partial-${process.pid}-${Math.random().toString(36).slice(2)}`;
    try {
      await unpackLayers(layers, partial);
      await mkdir(path.dirname(root), { recursive: true });
      await rename(partial, root).catch(async (error: NodeJS.ErrnoException) => {
        // another process finished the same image first: its tree is as good as ours
        if (!['ENOTEMPTY', 'EEXIST'].includes(error.code ?? '') || !(await isDir(root))) throw error;
      });
    } finally {
      await rm(partial, { recursive: true, force: true });
    }
    return root;
  }
}

/** Marks a tree as used now: the cache keeps what was used lately (cluster-roots.ts pruneTrees). */
export function touch(root: string): void {
  const now = new Date();
  void utimes(root, now, now).catch(() => undefined);
}

async function isDir(p: string): Promise<boolean> {
  return stat(p).then((s) => s.isDirectory(), () => false);
}
