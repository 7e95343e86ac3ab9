/**
 * Where a reference cluster keeps its nodes' trees. Unpacked images and deployments are a cache by digest shared by
 * every cluster on the machine (`<repo>/.cache/node-trees`, or `$OCP_E2E_CACHE_DIR/node-trees`): they never change
 * once made. The nodes' own folders (upper layers of a few files each) are the cluster's alone, in a fresh folder
 * on /dev/shm where it can be written (a tmpfs: an overlay's upper layer cannot be on an overlay, as a container's
 * root often is), else in the system's temporary folder; stopping the cluster removes them, and the folders of a
 * process that died without stopping (their name carries its pid) are removed by the next cluster that starts.
 * Every run of the suite builds a layered image of its own, so the cache would grow by a tree a run: a tree not used
 * for a week (each use marks it) is removed by a cluster start (at most one an hour looks), and so is a half-made one
 * an hour old.
 */
import { access, constants, mkdir, mkdtemp, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DeploymentTrees } from './deployment-trees.js';
import { ImageTrees, type ImageLayerSource } from './image-trees.js';
import { NodeRoots } from './node-roots.js';
import { processAlive } from '../../lib/process/alive.js';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

const PREFIX = 'ocp-e2e-nodes-';

async function sweepOrphans(dir: string): Promise<void> {
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const owner = Number(new RegExp(`^${PREFIX}(\\d+)-`).exec(name)?.[1]);
    if (owner && !processAlive(owner)) await rm(path.join(dir, name), { recursive: true, force: true }).catch(() => undefined);
  }
}

const UNUSED_MS = 7 * 24 * 3600_000;
const PARTIAL_MS = 3600_000;

/**
 * Removes trees of the cache not used for UNUSED_MS, half-made ones (a process killed while unpacking), and the
 * names by layers (`chains/`, image-trees.ts) of trees that are gone.
 */
export async function pruneTrees(cacheDir: string, nowMs = Date.now()): Promise<void> {
  for (const kind of ['images', 'deployments']) {
    const dir = path.join(cacheDir, kind);
    for (const name of await readdir(dir).catch(() => [] as string[])) {
      const full = path.join(dir, name);
      const age = nowMs - ((await stat(full).catch(() => undefined))?.mtimeMs ?? nowMs);
      if (age > (name.includes('.partial-') ? PARTIAL_MS : UNUSED_MS)) await rm(full, { recursive: true, force: true }).catch(() => undefined);
    }
  }
  const chains = path.join(cacheDir, 'chains');
  for (const name of await readdir(chains).catch(() => [] as string[])) {
    const link = path.join(chains, name);
    if (!(await stat(link).then(() => true, () => false))) await rm(link, { force: true }).catch(() => undefined);
  }
}

/** How often a cluster start looks through the cache (a busy machine's holds thousands of trees: one stat each). */
const PRUNE_EVERY_MS = 3600_000;
/** The file whose modification time says when the cache was last looked through. */
const PRUNED_STAMP = '.pruned';

/**
 * pruneTrees when the cache was not looked through in the last hour. A machine that runs the suite all day keeps
 * thousands of trees (one per run's layered image), and stating each at every cluster start cost ~25 ms of each run.
 */
export async function pruneTreesHourly(cacheDir: string, nowMs = Date.now()): Promise<void> {
  const stamp = path.join(cacheDir, PRUNED_STAMP);
  const last = (await stat(stamp).catch(() => undefined))?.mtimeMs;
  if (last !== undefined && nowMs - last >= 0 && nowMs - last < PRUNE_EVERY_MS) return;
  await pruneTrees(cacheDir, nowMs);
  await mkdir(cacheDir, { recursive: true });
  await writeFile(stamp, '');
  await utimes(stamp, new Date(nowMs), new Date(nowMs));
}

export function nodeTreesCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(env.OCP_E2E_CACHE_DIR ? path.resolve(env.OCP_E2E_CACHE_DIR) : path.join(REPO_ROOT, '.cache'), 'node-trees');
}

export async function nodeRootsFor(layers: ImageLayerSource, now: () => number, cacheDir = nodeTreesCacheDir()): Promise<NodeRoots> {
  const shm = await access('/dev/shm', constants.W_OK).then(() => '/dev/shm', () => tmpdir());
  await sweepOrphans(shm);
  await pruneTreesHourly(cacheDir);
  const nodesDir = await mkdtemp(path.join(shm, `${PREFIX}${process.pid}-`));
  return new NodeRoots(nodesDir, new DeploymentTrees(cacheDir, new ImageTrees(cacheDir, layers)), now);
}
