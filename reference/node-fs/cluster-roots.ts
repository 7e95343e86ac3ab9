/**
 * Where a reference cluster keeps its nodes' trees. Unpacked images and deployments are a cache by digest shared by
 * every cluster on the machine (`<repo>/.cache/node-trees`, or `$OCP_E2E_CACHE_DIR/node-trees`): they never change
 * once made. The nodes' own folders (upper layers of a few files each) are the cluster's alone, in a fresh folder
 * on /dev/shm where it can be written (a tmpfs: an overlay's upper layer cannot be on an overlay, as a container's
 * root often is), else in the system's temporary folder; stopping the cluster removes them.
 */
import { access, constants, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DeploymentTrees } from './deployment-trees.js';
import { ImageTrees, type ImageLayerSource } from './image-trees.js';
import { NodeRoots } from './node-roots.js';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

export function nodeTreesCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(env.OCP_E2E_CACHE_DIR ? path.resolve(env.OCP_E2E_CACHE_DIR) : path.join(REPO_ROOT, '.cache'), 'node-trees');
}

export async function nodeRootsFor(layers: ImageLayerSource, now: () => number, cacheDir = nodeTreesCacheDir()): Promise<NodeRoots> {
  const shm = await access('/dev/shm', constants.W_OK).then(() => '/dev/shm', () => tmpdir());
  const nodesDir = await mkdtemp(path.join(shm, 'ocp-e2e-nodes-'));
  return new NodeRoots(nodesDir, new DeploymentTrees(cacheDir, new ImageTrees(cacheDir, layers)), now);
}
