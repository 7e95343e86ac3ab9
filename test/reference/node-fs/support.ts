/**
 * What the node-tree tests build their images from: layers made on the fly as gzip tars, a layer with the machine's
 * static busybox (and a PATH-searching /bin/sh, as the OS image has), images held in memory as a layer source, and a
 * command run to its end on a node.
 */
import { createHash } from 'node:crypto';
import { copyFile, chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { create as createTar } from 'tar';
import { findPosixShell } from '../../../lib/oci/base-image.js';
import type { NodeHosts } from '../../../reference/kubelet/hosts.js';
import type { ImageLayerSource } from '../../../reference/node-fs/image-trees.js';
import { startOnNode } from '../../../reference/node-fs/node-command.js';
import type { NodeRoots } from '../../../reference/node-fs/node-roots.js';

export type LayerEntry = string | { text: string; mode: number } | { link: string };

async function tarOf(dir: string, paths: string[]): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of createTar({ cwd: dir, gzip: true, portable: true }, paths) as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks as unknown as Uint8Array[]);
}

/** A layer of the given entries: text files (a path ending in / is a folder), files with a mode, links. */
export async function layer(files: Record<string, LayerEntry>): Promise<Buffer> {
  const dir = await mkdtemp(path.join(tmpdir(), 'ocp-e2e-layer-'));
  try {
    for (const [p, f] of Object.entries(files)) {
      const full = path.join(dir, p);
      await mkdir(path.dirname(full), { recursive: true });
      if (typeof f === 'object' && 'link' in f) await symlink(f.link, full);
      else if (p.endsWith('/')) await mkdir(full, { recursive: true });
      else {
        await writeFile(full, typeof f === 'string' ? f : f.text);
        if (typeof f === 'object') await chmod(full, f.mode);
      }
    }
    return await tarOf(dir, ['.']);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The machine's /bin/busybox with a link per applet named, and /bin/sh: dash with its libraries where the machine
 * has it (busybox's shell runs its own applets before PATH, so its `rpm` would answer instead of the image's).
 */
export async function busyboxLayer(applets: string[]): Promise<Buffer> {
  const dir = await mkdtemp(path.join(tmpdir(), 'ocp-e2e-bb-'));
  try {
    await mkdir(path.join(dir, 'bin'));
    await copyFile('/bin/busybox', path.join(dir, 'bin/busybox'));
    for (const a of applets) await symlink('busybox', path.join(dir, 'bin', a));
    const shell = findPosixShell();
    for (const file of shell ? [shell.path, ...shell.libraries] : []) {
      await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
      await copyFile(file, path.join(dir, file));
    }
    if (!shell) await symlink('busybox', path.join(dir, 'bin/sh'));
    else if (shell.path !== '/bin/sh') await symlink(path.relative('/bin', shell.path), path.join(dir, 'bin/sh'));
    return await tarOf(dir, ['.']);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function runOn(roots: NodeRoots, hosts: NodeHosts, node: string, argv: string[], mount?: string): Promise<{ stdout: string; stderr: string; exitCode: number }> {
  const p = startOnNode(await roots.prepare(node, hosts.get(node)), argv, { hostMount: mount });
  let stdout = '';
  let stderr = '';
  p.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  p.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exitCode = await p.exit;
  return { stdout, stderr, exitCode };
}

export interface MemoryImage {
  digest: string;
  /** Layer blobs, bottom first. */
  layers: Buffer[];
}

const digestOf = (blob: Buffer) => `sha256:${createHash('sha256').update(blob as unknown as Uint8Array).digest('hex')}`;

/**
 * A source serving the images `imageOf` gives, their layers named by their content's digest as in a registry; `reads`
 * counts the layer blobs read, by image reference.
 */
export function memoryLayerSource(imageOf: (ref: string) => MemoryImage | Promise<MemoryImage>): ImageLayerSource & { reads: Map<string, number> } {
  const reads = new Map<string, number>();
  return {
    reads,
    digest: async (ref) => (await imageOf(ref)).digest,
    layerDigests: async (ref) => (await imageOf(ref)).layers.map(digestOf),
    layer: async (ref, digest) => {
      const blob = (await imageOf(ref)).layers.find((l) => digestOf(l) === digest);
      if (!blob) throw new Error(`${ref} has no layer ${digest}`);
      reads.set(ref, (reads.get(ref) ?? 0) + 1);
      return blob;
    },
  };
}
