/**
 * Benchmark: a 1,000-node worker pool (maxUnavailable 10%) rolls out a new rendered config on the reference cluster.
 * Measures wall time of the rollout (MachineConfig created → pool Updated with every node Done on the new config),
 * the seeding time, and the peak resident memory of this process (API server, controllers and daemons all live here).
 *
 *   node --import tsx bench/reference/rollout-1000.ts [--workers 1000] [--time-factor 600]
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { ANN, LABEL, MC_API_VERSION } from '../../reference/constants.js';
import { startReferenceCluster } from '../../reference/index.js';
import { KubeClient, type KubeObject } from '../../lib/kube/client.js';

const { values } = parseArgs({ options: { workers: { type: 'string', default: '1000' }, 'time-factor': { type: 'string', default: '600' } } });
const workers = Number(values.workers);
const timeFactor = Number(values['time-factor']);

let peakRss = 0;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 100);

const t0 = performance.now();
const cluster = await startReferenceCluster({ workers, timeFactor, workDir: undefined });
const seededMs = performance.now() - t0;
const k = KubeClient.fromFile(cluster.kubeconfigPath);
interface Obj extends KubeObject { spec?: any; status?: any }
try {
  const before = (await k.get<Obj>('MachineConfigPool', 'worker'))!.status.configuration.name as string;
  await k.patch('MachineConfigPool', 'worker', { spec: { maxUnavailable: '10%' } });
  const clusterStart = cluster.now().getTime();
  const r0 = performance.now();
  await k.create('MachineConfig', {
    apiVersion: MC_API_VERSION,
    kind: 'MachineConfig',
    metadata: { name: '99-worker-bench-motd', labels: { [LABEL.role]: 'worker' } },
    spec: { config: { ignition: { version: '3.2.0' }, storage: { files: [{ path: '/etc/motd', mode: 420, contents: { source: 'data:,benchmark%0A' } }] } } },
  } as Obj);
  let maxConcurrent = 0;
  for (;;) {
    await new Promise((r) => setTimeout(r, 250));
    const pool = await k.get<Obj>('MachineConfigPool', 'worker');
    const target = pool?.spec?.configuration?.name;
    const nodes = (await k.list<Obj>('Node')).items.filter((n) => n.metadata.labels?.['node-role.kubernetes.io/worker'] !== undefined);
    const working = nodes.filter((n) => n.metadata.annotations?.[ANN.state] === 'Working').length;
    maxConcurrent = Math.max(maxConcurrent, working);
    const done = nodes.filter((n) => n.metadata.annotations?.[ANN.currentConfig] === target && n.metadata.annotations?.[ANN.state] === 'Done').length;
    const updated = pool?.status?.conditions?.find((c: { type: string }) => c.type === 'Updated')?.status === 'True';
    if (target !== before && updated && pool.status.configuration.name === target && done === workers) break;
    if (performance.now() - r0 > 300_000) throw new Error(`rollout not finished after 300 s: ${done}/${workers} done`);
  }
  const rolloutMs = performance.now() - r0;
  const clusterMinutes = (cluster.now().getTime() - clusterStart) / 60_000;
  clearInterval(sampler);
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  const maxRssKb = process.resourceUsage().maxRSS;
  console.log(JSON.stringify({
    workers,
    timeFactor,
    maxUnavailable: '10%',
    startAndSeedSeconds: +(seededMs / 1000).toFixed(1),
    rolloutWallSeconds: +(rolloutMs / 1000).toFixed(1),
    rolloutClusterMinutes: +clusterMinutes.toFixed(0),
    maxNodesWorkingAtOnce: maxConcurrent,
    peakRssMiB: Math.round(Math.max(peakRss, maxRssKb * 1024) / 1048576),
  }));
} finally {
  clearInterval(sampler);
  await cluster.stop();
}
