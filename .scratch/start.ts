import { startReferenceCluster } from '../reference/index.js';
for (let i = 0; i < 3; i++) {
  const t = performance.now(); const c = process.cpuUsage();
  const cluster = await startReferenceCluster({ profile: '4.12-ga' });
  const ready = performance.now() - t; const cu = process.cpuUsage(c);
  await cluster.stop();
  console.log(`start ${ready.toFixed(0)} ms, CPU ${((cu.user + cu.system) / 1000).toFixed(0)} ms; stop ${(performance.now() - t - ready).toFixed(0)} ms`);
}
