/**
 * Benchmark: what a reference node's root file system costs (reference/node-fs/) and one exec round trip into it.
 * On a reference cluster of N workers: the booted OS image unpacked into a fresh cache (cold, once), every node's
 * tree made from its record (prepare: first time, then again unchanged), the disk the image, the nodes' folders and
 * a deployment with an extension take; a command run over a node's tree directly (startOnNode), and through
 * pods/exec of the API server with client-node's Exec into a daemon pod (`cat /rootfs/proc/cmdline`).
 *
 *   node --import tsx bench/reference/node-trees.ts [--workers 115] [--rounds 20]
 */
import { Exec, KubeConfig } from '@kubernetes/client-node';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { KubeClient } from '../../lib/kube/client.js';
import { RegistryClient } from '../../lib/oci/image-files.js';
import { startReferenceCluster } from '../../reference/index.js';
import { DeploymentTrees } from '../../reference/node-fs/deployment-trees.js';
import { ImageTrees, type ImageLayerSource } from '../../reference/node-fs/image-trees.js';
import { startOnNode } from '../../reference/node-fs/node-command.js';
import { NodeRoots } from '../../reference/node-fs/node-roots.js';

const { values } = parseArgs({ options: { workers: { type: 'string', default: '115' }, rounds: { type: 'string', default: '20' } } });
const workers = Number(values.workers);
const rounds = Number(values.rounds);
const stats = (ms: number[]) => {
  const s = [...ms].sort((a, b) => a - b);
  return { median: +s[Math.floor(s.length / 2)]!.toFixed(1), min: +s[0]!.toFixed(1), max: +s[s.length - 1]!.toFixed(1) };
};
const du = (p: string): string => execFileSync('du', ['-sh', '--apparent-size', p], { encoding: 'utf8' }).split('\t')[0]!;
const duBlocks = (p: string): string => execFileSync('du', ['-sh', p], { encoding: 'utf8' }).split('\t')[0]!;

const cluster = await startReferenceCluster({ workers, workDir: path.resolve(fileURLToPath(new URL('../../.cache/reference-bench', import.meta.url))) });
const dir = await mkdtemp(path.join(tmpdir(), 'ocp-e2e-bench-trees-'));
try {
  const client = new RegistryClient({ credentials: cluster.registryCredentials, caPems: [cluster.caPem] });
  const source: ImageLayerSource = {
    digest: (ref) => client.manifestDigest(ref),
    layerDigests: async (ref) => (await client.imageManifest(ref)).manifest.layers.map((l) => l.digest),
    layer: (ref, digest) => client.blob(ref, digest),
  };
  const cache = path.join(dir, 'cache');
  const images = new ImageTrees(cache, source);
  const roots = new NodeRoots(path.join(dir, 'nodes'), new DeploymentTrees(cache, images), () => cluster.now().getTime());
  const kube = KubeClient.fromFile(cluster.kubeconfigPath);
  const nodes = (await kube.list('Node')).items.map((n) => n.metadata.name!);
  const booted = cluster.hostOs(nodes[0]!).booted.pullspec;

  let t = performance.now();
  const image = await images.tree(booted);
  const unpackMs = performance.now() - t;

  const first: number[] = [];
  const again: number[] = [];
  t = performance.now();
  for (const n of nodes) {
    const s = performance.now();
    await roots.prepare(n, cluster.hostOs(n));
    first.push(performance.now() - s);
  }
  const allFirstMs = performance.now() - t;
  for (const n of nodes) {
    const s = performance.now();
    await roots.prepare(n, cluster.hostOs(n));
    again.push(performance.now() - s);
  }
  // a deployment with an extension: hard links to the image's files, the package's files and database new
  const extensionsImage = Object.entries(cluster.releases.current.osImages).find(([tag]) => tag.includes('extensions'))?.[1];
  t = performance.now();
  const withExtension = await new DeploymentTrees(cache, images).tree(booted, { kernelArguments: [], extensions: ['usbguard'], extensionsImage, kernelType: 'default' });
  const deploymentMs = performance.now() - t;

  const direct: number[] = [];
  const prepared = await roots.prepare(nodes[0]!, cluster.hostOs(nodes[0]!));
  for (let i = 0; i < rounds; i++) {
    const s = performance.now();
    const p = startOnNode(prepared, ['cat', '/proc/cmdline']);
    p.stdout.resume();
    p.stderr.resume();
    if ((await p.exit) !== 0) throw new Error('cat /proc/cmdline failed on the node tree');
    direct.push(performance.now() - s);
  }

  const kc = new KubeConfig();
  kc.loadFromFile(cluster.kubeconfigPath);
  const pods = (await kube.list('Pod', { namespace: 'openshift-machine-config-operator' })).items.filter((p) => p.metadata.name!.startsWith('machine-config-daemon-'));
  const pod = pods[0]!.metadata.name!;
  const viaApi: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const s = performance.now();
    await new Promise<void>((resolve, reject) => {
      new Exec(kc).exec('openshift-machine-config-operator', pod, 'machine-config-daemon', ['cat', '/rootfs/proc/cmdline'], new PassThrough(), new PassThrough(), null, false, (st) => (st.status === 'Success' ? resolve() : reject(new Error(JSON.stringify(st))))).catch(reject);
    });
    viaApi.push(performance.now() - s);
  }

  console.log(`nodes: ${nodes.length}, rounds: ${rounds}`);
  console.log(`image ${booted}: unpack ${unpackMs.toFixed(0)} ms cold, ${du(image.root)} apparent (${duBlocks(image.root)} on disk), once for all nodes`);
  console.log(`deployment with usbguard: ${deploymentMs.toFixed(0)} ms, ${duBlocks(withExtension.root)} on disk counted alone (hard links: shared with the image)`);
  console.log(`prepare per node, first (ms): ${JSON.stringify(stats(first))}; all ${nodes.length}: ${allFirstMs.toFixed(0)} ms`);
  console.log(`prepare per node, unchanged (ms): ${JSON.stringify(stats(again))}`);
  console.log(`nodes' folders: ${duBlocks(path.join(dir, 'nodes'))} on disk for ${nodes.length} nodes`);
  // one du over both: an inode linked from both folders counts once, so the deployments' line is what they add
  console.log(`cache after all, on disk: ${execFileSync('du', ['-sh', path.join(cache, 'images'), path.join(cache, 'deployments')], { encoding: 'utf8' }).trim().replace(/\n/g, '; ').replace(/\t/g, ' ')} (images: the OS image and the extensions image)`);
  console.log(`command on a node tree, cat /proc/cmdline (ms): ${JSON.stringify(stats(direct))}`);
  console.log(`pods/exec round trip, client-node Exec cat /rootfs/proc/cmdline (ms): ${JSON.stringify(stats(viaApi))}`);
} finally {
  await rm(dir, { recursive: true, force: true });
  await cluster.stop();
}
