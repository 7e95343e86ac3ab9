/**
 * Root file systems of OS images, unpacked once per image digest under a cache folder and shared read-only by every
 * node (of every cluster on the machine) that boots that image: `<cache>/images/<hex of the digest>/`. An image is
 * unpacked into a folder of its own and renamed into place whole, so a tree that exists is complete, and two
 * processes unpacking the same image at once both end with one tree (the second rename loses, harmlessly).
 *
 * Images that share their lower layers share the work, as a container runtime's layer store does: `<cache>/chains/`
 * names each unpacked tree by its layers (a digest of their digests, bottom first), and an image whose lower layers
 * some tree already holds starts as a copy of that tree made of hard links, then gets only its own layers unpacked and
 * read from the registry. Every suite run builds a layered image of its own over the release's OS image: unpacking
 * that image whole cost the reference ~150 ms of CPU per run, most of it the release's layers again.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, rename, rm, stat, symlink, utimes } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { unpackLayers } from './layers.js';

const run = promisify(execFile);

/** Where an image's layers come from: the registry, as the node's pull would read them. */
export interface ImageLayerSource {
  /** The digest `ref` names now (a tag can move), without reading the layers. */
  digest(ref: string): Promise<string>;
  /** The digests of the image's layers, bottom first (its manifest). */
  layerDigests(ref: string): Promise<string[]>;
  /** One layer's blob. */
  layer(ref: string, layerDigest: string): Promise<Buffer>;
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
    if (await isDir(root)) {
      // a tree made before chains were kept (or whose link was pruned) serves as a base from now on; a registry that
      // cannot say its layers now (an outage) costs only that, the tree is there
      await this.source.layerDigests(ref).then((layers) => this.linkChain(layers, root)).catch(() => undefined);
      return root;
    }
    const layers = await this.source.layerDigests(ref);
    let base = await this.longestUnpackedPrefix(layers);
    const partial = `${root}.partial-${process.pid}-${Math.random().toString(36).slice(2)}`;
    try {
      await mkdir(path.dirname(root), { recursive: true });
      if (base) {
        // directories made anew, files hard links to the base's: unpacking over them unlinks before it writes, and a
        // whiteout removes a link, so the base's tree is never written. A copy that fails (a file system out of
        // links or inodes) leaves the image to be unpacked whole.
        const copied = await run('cp', ['-a', '--link', `${base.root}/.`, partial]).then(() => true, () => false);
        if (copied) touch(base.root);
        else {
          await rm(partial, { recursive: true, force: true });
          base = undefined;
        }
      }
      // cp keeps the base's times: a half-made tree must look new, or another cluster's start would prune it
      await mkdir(partial, { recursive: true });
      await utimes(partial, new Date(), new Date());
      const rest = layers.slice(base?.layers ?? 0);
      await unpackLayers(await Promise.all(rest.map((layer) => this.source.layer(ref, layer))), partial);
      await rename(partial, root).catch(async (error: NodeJS.ErrnoException) => {
        // another process finished the same image first: its tree is as good as ours
        if (!['ENOTEMPTY', 'EEXIST'].includes(error.code ?? '') || !(await isDir(root))) throw error;
      });
    } finally {
      await rm(partial, { recursive: true, force: true });
    }
    await this.linkChain(layers, root).catch(() => undefined); // without it the tree only serves its own digest
    return root;
  }

  /** The unpacked tree holding the most of `layers`' lower layers (all of them for an image that differs in its config only). */
  private async longestUnpackedPrefix(layers: string[]): Promise<{ root: string; layers: number } | undefined> {
    for (let n = layers.length; n > 0; n--) {
      const link = this.chainPath(layers.slice(0, n));
      if (await isDir(link)) return { root: link, layers: n };
    }
    return undefined;
  }

  private chainPath(layers: string[]): string {
    return path.join(this.cacheDir, 'chains', createHash('sha256').update(layers.join('\n')).digest('hex'));
  }

  /** Names `root` by its layers (a link to it, `../images/<hex>`), unless a tree of those layers already has the name. */
  private async linkChain(layers: string[], root: string): Promise<void> {
    if (!layers.length) return;
    const link = this.chainPath(layers);
    if (await isDir(link)) return;
    await mkdir(path.dirname(link), { recursive: true });
    await rm(link, { force: true }); // a link whose tree was pruned
    await symlink(path.relative(path.dirname(link), root), link);
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
