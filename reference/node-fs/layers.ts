/**
 * An OCI image's layers unpacked into one directory, bottom layer first, as a container runtime's storage merges
 * them: a layer's whiteout `.wh.NAME` removes NAME of the layers below, its `.wh..wh..opq` empties the directory of
 * what the layers below put there; the whiteout entries themselves are never written. Layers are tar streams, gzip
 * or plain (the tar package tells them apart).
 */
import { lstat, mkdir, readdir, rm, symlink } from 'node:fs/promises';
import path from 'node:path';
import { Parser, extract, type ReadEntry } from 'tar';

const OPAQUE = '.wh..wh..opq';
const WHITEOUT = '.wh.';

/** `./etc/x/` → `etc/x`; empty for the root. */
function entryPath(p: string): string {
  return path.posix.normalize(`/${p}`).replace(/^\/+/, '').replace(/\/+$/, '');
}

/**
 * What a layer hides of the layers below it, and its symbolic links with absolute targets: tar writes those with the
 * leading slash taken off (its guard against links out of the tree), but in a root file system `/usr/lib/x` means
 * the tree's own /usr, so they are put back as the layer has them.
 */
async function readLayer(layer: Buffer): Promise<{ removed: string[]; emptied: string[]; absoluteLinks: Map<string, string> }> {
  const removed: string[] = [];
  const emptied: string[] = [];
  // the last entry of a path wins: a link replaced by a file later in the layer is not made again
  const lastOf = new Map<string, string | undefined>();
  await new Promise<void>((resolve, reject) => {
    const parser = new Parser({
      onReadEntry: (entry: ReadEntry) => {
        const p = entryPath(entry.path);
        const base = path.posix.basename(p);
        const dir = path.posix.dirname(p) === '.' ? '' : path.posix.dirname(p);
        if (base === OPAQUE) emptied.push(dir);
        else if (base.startsWith(WHITEOUT)) removed.push(path.posix.join(dir, base.slice(WHITEOUT.length)));
        else if (p) lastOf.set(p, entry.type === 'SymbolicLink' && entry.linkpath?.startsWith('/') ? entry.linkpath : undefined);
        entry.resume();
      },
    });
    parser.on('error', reject);
    parser.on('end', () => resolve());
    parser.end(layer);
  });
  const absoluteLinks = new Map([...lastOf].filter((e): e is [string, string] => e[1] !== undefined));
  return { removed, emptied, absoluteLinks };
}

/** A path of the tree that must not climb out of it (a layer naming `../x` is refused by tar too). */
function inside(root: string, relative: string): string {
  const full = path.join(root, relative);
  if (full !== root && !full.startsWith(`${root}${path.sep}`)) throw new Error(`layer path ${relative} leaves the tree`);
  return full;
}

async function empty(dir: string): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[]);
  await Promise.all(names.map((n) => rm(path.join(dir, n), { recursive: true, force: true })));
}

/** Unpacks `layers` (bottom first) into `dest`, which must be empty or absent. */
export async function unpackLayers(layers: readonly Buffer[], dest: string): Promise<void> {
  await mkdir(dest, { recursive: true });
  for (const layer of layers) {
    const { removed, emptied, absoluteLinks } = await readLayer(layer);
    for (const dir of emptied) await empty(inside(dest, dir));
    for (const p of removed) {
      const full = inside(dest, p);
      if (await lstat(full).then(() => true, () => false)) await rm(full, { recursive: true, force: true });
    }
    await new Promise<void>((resolve, reject) => {
      const x = extract({
        cwd: dest,
        // a layer's whiteouts are instructions, not files; device nodes (a root layer's /dev) need a real /dev
        filter: (p, entry) => !path.posix.basename(entryPath(p)).startsWith(WHITEOUT) && !('type' in entry && (entry.type === 'CharacterDevice' || entry.type === 'BlockDevice' || entry.type === 'FIFO')),
        // no entry may land outside the tree, nor be written through a link that leads out of it
        preservePaths: false,
        unlink: true,
      });
      x.on('error', reject);
      x.on('close', () => resolve());
      x.end(layer);
    });
    for (const [p, target] of absoluteLinks) {
      const full = inside(dest, p);
      await rm(full, { force: true });
      await symlink(target, full);
    }
  }
}
