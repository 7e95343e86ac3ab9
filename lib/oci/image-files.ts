// An image's files as a container would see them, read out of its layers over the registry API without pulling the
// image into an engine: layers are searched from the top, whiteouts and opaque directories hide lower layers,
// symbolic and hard links are followed. `RegistryClient` is the registry API of registry-api.ts with these reads.
import path from 'node:path/posix';
import { Parser, type ReadEntry } from 'tar';
import { RegistryRequestError } from './errors.js';
import { RegistryApi, type Descriptor } from './registry-api.js';

/** One layer's table of contents: entries by path, plus the whiteouts it carries. */
interface LayerView {
  entries: Map<string, { type: string; linkpath?: string; mode: number; data?: Buffer }>;
  whiteouts: Set<string>;
  opaqueDirs: Set<string>;
}

/** `./etc/os-release`, `/etc/os-release`, `etc/os-release/` → `etc/os-release` */
function normalizeEntryPath(p: string): string {
  return path.normalize('/' + p).replace(/^\/+/, '').replace(/\/+$/, '');
}

function ancestors(p: string): string[] {
  const out: string[] = [];
  let dir = path.dirname(p);
  while (dir !== '.' && dir !== '/' && dir !== '') {
    out.push(dir);
    dir = path.dirname(dir);
  }
  return out;
}

/** A regular file of an image: its bytes and its permission bits (`0o644`). */
export interface ImageFile {
  data: Buffer;
  mode: number;
}

export class RegistryClient extends RegistryApi {
  private readonly layerViews = new Map<string, LayerView>();

  /** Lists a layer (gzip or plain tar); file contents are kept only for `wanted` paths. */
  private async layerView(refText: string, digest: string, wanted: Set<string>): Promise<LayerView> {
    const known = this.layerViews.get(digest);
    if (known && [...wanted].every((w) => !known.entries.has(w) || known.entries.get(w)!.type !== 'File' || known.entries.get(w)!.data)) {
      return known;
    }
    const data = await this.blob(refText, digest);
    const view: LayerView = { entries: new Map(), whiteouts: new Set(), opaqueDirs: new Set() };
    await new Promise<void>((resolve, reject) => {
      const parser = new Parser({
        onReadEntry: (entry: ReadEntry) => {
          const p = normalizeEntryPath(entry.path);
          const base = path.basename(p);
          const dir = path.dirname(p) === '.' ? '' : path.dirname(p);
          if (base === '.wh..wh..opq') {
            view.opaqueDirs.add(dir);
            entry.resume();
            return;
          }
          if (base.startsWith('.wh.')) {
            view.whiteouts.add((dir ? dir + '/' : '') + base.slice(4));
            entry.resume();
            return;
          }
          const record: { type: string; linkpath?: string; mode: number; data?: Buffer } = {
            type: entry.type,
            linkpath: entry.linkpath ? entry.linkpath : undefined,
            mode: (entry.mode ?? 0o644) & 0o7777,
          };
          view.entries.set(p, record);
          if (entry.type === 'File' && wanted.has(p)) {
            const chunks: Buffer[] = [];
            entry.on('data', (c: Buffer) => chunks.push(c));
            entry.on('end', () => (record.data = Buffer.concat(chunks as unknown as Uint8Array[])));
          } else {
            entry.resume();
          }
        },
      });
      parser.on('error', reject);
      parser.on('end', () => resolve());
      parser.end(data);
    });
    this.layerViews.set(digest, view);
    return view;
  }

  /**
   * Reads one file of the image as the container would see it: layers are searched from the top, whiteouts and
   * opaque directories hide lower layers, symbolic and hard links are followed. Undefined when the file is absent.
   */
  async readFile(refText: string, filePath: string): Promise<Buffer | undefined> {
    return (await this.readFiles(refText, [filePath]))[0];
  }

  /** Like readFile, with the permission bits the layer's tar header gives the file (of the link's target for links). */
  async readFileEntry(refText: string, filePath: string): Promise<ImageFile | undefined> {
    return (await this.readFileEntries(refText, [filePath]))[0];
  }

  /** Like readFile for several paths, fetching every layer at most once. */
  async readFiles(refText: string, filePaths: string[]): Promise<(Buffer | undefined)[]> {
    return (await this.readFileEntries(refText, filePaths)).map((f) => f?.data);
  }

  private async readFileEntries(refText: string, filePaths: string[]): Promise<(ImageFile | undefined)[]> {
    const { manifest } = await this.imageManifest(refText);
    const layers = [...manifest.layers].reverse();
    const results: (ImageFile | undefined)[] = [];
    for (const filePath of filePaths) results.push(await this.lookup(refText, layers, normalizeEntryPath(filePath), 0));
    return results;
  }

  private async lookup(refText: string, layersTopDown: Descriptor[], p: string, hops: number): Promise<ImageFile | undefined> {
    if (hops > 16) throw new RegistryRequestError(`Too many links following ${p} in ${refText}`, undefined);
    const wanted = new Set([p]);
    const hidingDirs = ancestors(p);
    for (const layer of layersTopDown) {
      const view = await this.layerView(refText, layer.digest, wanted);
      const entry = view.entries.get(p);
      if (entry) {
        if (entry.type === 'File' || entry.type === 'OldFile' || entry.type === 'ContiguousFile') return { data: entry.data ?? Buffer.alloc(0), mode: entry.mode };
        if (entry.type === 'SymbolicLink' && entry.linkpath) {
          const target = entry.linkpath.startsWith('/') ? entry.linkpath : path.join(path.dirname('/' + p), entry.linkpath);
          return this.lookup(refText, layersTopDown, normalizeEntryPath(target), hops + 1);
        }
        if (entry.type === 'Link' && entry.linkpath) {
          return this.lookup(refText, layersTopDown, normalizeEntryPath(entry.linkpath), hops + 1);
        }
        return undefined; // a directory or a device: not a file
      }
      if (view.whiteouts.has(p) || hidingDirs.some((d) => view.whiteouts.has(d))) return undefined;
      if (hidingDirs.some((d) => view.opaqueDirs.has(d))) return undefined;
    }
    return undefined;
  }

  /** Every path in the merged file system of the image (directories included), sorted, with a leading slash. */
  async listFiles(refText: string): Promise<string[]> {
    const { manifest } = await this.imageManifest(refText);
    const merged = new Set<string>();
    for (const layer of manifest.layers) {
      const view = await this.layerView(refText, layer.digest, new Set());
      for (const dir of view.opaqueDirs) for (const p of [...merged]) if (p.startsWith(dir + '/')) merged.delete(p);
      for (const w of view.whiteouts) for (const p of [...merged]) if (p === w || p.startsWith(w + '/')) merged.delete(p);
      for (const p of view.entries.keys()) if (p) merged.add(p);
    }
    return [...merged].sort().map((p) => '/' + p);
  }
}
