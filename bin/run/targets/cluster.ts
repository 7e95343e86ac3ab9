/** `--target cluster`: one mocha child on every selected spec file, against the cluster of a kubeconfig. */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { discoverCapabilities } from '../../../helpers/capabilities.js';
import { Cluster } from '../../../helpers/cluster.js';
import { currentVersion } from '../../../helpers/facts/cluster-version.js';
import { runMocha } from '../mocha.js';
import { consoleLane } from '../output.js';
import type { RunOptions } from '../options.js';
import type { Counts } from '../results/counts.js';
import type { Supervisor } from '../supervisor.js';
import { UsageError } from '../usage-error.js';
import { requireEngine, specTimeoutMs, type RunConfig } from './common.js';

export async function runOnCluster(files: string[], options: RunOptions, config: RunConfig, supervisor: Supervisor): Promise<Counts> {
  const kubeconfigPath = resolve(options.kubeconfig ?? process.env.KUBECONFIG?.split(':')[0] ?? join(homedir(), '.kube', 'config'));
  if (!existsSync(kubeconfigPath)) throw new UsageError(`no kubeconfig at ${kubeconfigPath}: pass --kubeconfig FILE or set KUBECONFIG`);
  const { cluster, version, nodes } = await reach(kubeconfigPath);
  const caps: { isReference: boolean; timeFactor: number; imageRepo?: string } = await discoverCapabilities(cluster).catch(() => ({ isReference: false, timeFactor: 1 }));
  console.log(`target: cluster ${cluster.apiUrl}`);
  console.log(`current version: ${version ?? 'unknown'} (${nodes} nodes${caps.isReference ? `, an ocp-e2e reference cluster, time factor ${caps.timeFactor}` : ''})`);
  if (!options.allowDisruptive) {
    console.log('disruptive specs (upgrades, pool changes) will be SKIPPED: nothing on this cluster is changed; pass --allow-disruptive to run them');
  } else {
    if (!options.imageRepo && !caps.imageRepo) {
      throw new UsageError('--image-repo is required on a real cluster: the repository the layered OS images are pushed to and the nodes pull from (push credentials in --pull-secret)');
    }
    await requireEngine();
  }
  return runMocha({
    files,
    target: { ...config, kind: 'cluster', kubeconfigPath },
    grep: options.grep,
    // Shards of one fan-out write their JUnit under distinct names, so their reports merge.
    junitName: options.shard ? `cluster-shard-${options.shard.index}-of-${options.shard.count}` : 'cluster',
    timeoutMs: specTimeoutMs(caps.timeFactor),
  }, supervisor, consoleLane);
}

/** The cluster, its version and node count; a cluster that does not answer is a usage problem (exit 2). */
async function reach(kubeconfigPath: string): Promise<{ cluster: Cluster; version?: string; nodes: number }> {
  try {
    const cluster = Cluster.fromKubeconfig(kubeconfigPath);
    const version = currentVersion(await cluster.getClusterVersion());
    const nodes = (await cluster.listNodes()).length;
    return { cluster, version, nodes };
  } catch (error) {
    throw new UsageError(`cannot reach the cluster of ${kubeconfigPath}: ${(error as Error).message}`);
  }
}
