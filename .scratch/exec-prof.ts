import { KubeConfig } from '@kubernetes/client-node';
import { startReferenceCluster } from '../reference/index.js';
import { daemonPodsByNode, execInDaemon } from '../helpers/daemon-exec.js';
const cluster = await startReferenceCluster({ profile: '4.12-ga' });
const kc = new KubeConfig(); kc.loadFromFile(cluster.kubeconfigPath);
let pods: string[] = [];
for (let i = 0; i < 100 && pods.length < 5; i++) { pods = [...(await daemonPodsByNode(kc)).values()]; await new Promise((r) => setTimeout(r, 100)); }
await new Promise((r) => setTimeout(r, 2000));
const { Session } = await import('node:inspector/promises');
const s = new Session(); s.connect(); await s.post('Profiler.enable'); await s.post('Profiler.start');
const t = performance.now(); const c = process.cpuUsage();
for (let i = 0; i < 60; i++) await execInDaemon(kc, pods[i % pods.length]!, ['chroot', '/rootfs', 'true']);
const u = process.cpuUsage(c);
const { profile } = await s.post('Profiler.stop');
(await import('node:fs')).writeFileSync('/tmp/exec.cpuprofile', JSON.stringify(profile));
console.log(`60 execs: ${((performance.now() - t) / 60).toFixed(0)} ms each, CPU ${((u.user + u.system) / 1000 / 60).toFixed(0)} ms each`);
await cluster.stop();
