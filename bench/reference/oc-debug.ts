/**
 * Benchmark: one `oc debug node/N -- chroot /host rpm-ostree status --json` round trip on the reference (temporary
 * namespace, debug pod, kubelet stand-in runs the command on the booted image, log streamed, pod and namespace
 * deleted), with the real oc 4.12; the same pod through the API without oc (helpers/debug-pod.ts); and the same
 * command as an exec into the node's machine-config-daemon pod (helpers/daemon-exec.ts, `chroot /rootfs`). The
 * cluster runs in this process, so each row's CPU is the client's and the cluster's together (oc's own not counted).
 *
 *   node --import tsx bench/reference/oc-debug.ts [--rounds 10]
 */
import { execa } from 'execa';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import { daemonPodsByNode, execInDaemon } from '../../helpers/daemon-exec.js';
import { runOnNode } from '../../helpers/debug-pod.js';
import { startReferenceCluster } from '../../reference/index.js';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '10' } } });
const rounds = Number(values.rounds);
const OC = path.resolve(fileURLToPath(new URL('../../', import.meta.url)), '..', 'shared', 'upstream', 'bin', 'oc');
if (!existsSync(OC)) throw new Error(`the real oc 4.12 is missing at ${OC}`);

const cluster = await startReferenceCluster({ workDir: path.resolve(fileURLToPath(new URL('../../.cache/reference-bench', import.meta.url))) });
const stats = (ms: number[]) => {
  const s = [...ms].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)]!.toFixed(0), min: s[0]!.toFixed(0), max: s[s.length - 1]!.toFixed(0) };
};
try {
  const kc = new KubeConfig();
  kc.loadFromFile(cluster.kubeconfigPath);
  const node = 'ip-10-0-160-20.us-east-2.compute.internal';
  const command = ['chroot', '/host', 'rpm-ostree', 'status', '--json'];
  const viaOc: number[] = [];
  const viaApi: number[] = [];
  const viaDaemon: number[] = [];
  const cpu = { oc: 0, api: 0, daemon: 0 };
  const cpuNow = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
  const daemon = (await daemonPodsByNode(kc)).get(node);
  if (!daemon) throw new Error(`no ready machine-config-daemon pod on ${node}`);
  for (let i = 0; i < rounds; i++) {
    let t = performance.now();
    let c = cpuNow();
    const r = await execa(OC, ['debug', `node/${node}`, '--', ...command], { env: { KUBECONFIG: cluster.kubeconfigPath }, reject: false });
    if (r.exitCode !== 0 || !String(r.stdout).includes('"booted": true')) throw new Error(`oc debug failed: ${r.stderr}`);
    viaOc.push(performance.now() - t);
    cpu.oc += cpuNow() - c;
    t = performance.now();
    c = cpuNow();
    const api = await runOnNode(kc, node, command);
    if (api.exitCode !== 0) throw new Error(`debug pod failed: ${api.output}`);
    viaApi.push(performance.now() - t);
    cpu.api += cpuNow() - c;
    t = performance.now();
    c = cpuNow();
    const exec = await execInDaemon(kc, daemon, ['chroot', '/rootfs', ...command.slice(2)]);
    if (exec.exitCode !== 0 || !exec.output.includes('"booted": true')) throw new Error(`daemon exec failed: ${exec.output}`);
    viaDaemon.push(performance.now() - t);
    cpu.daemon += cpuNow() - c;
  }
  const perRound = (ms: number) => (ms / rounds).toFixed(0);
  console.log(`rounds: ${rounds}`);
  console.log(`oc debug node round trip (ms): ${JSON.stringify(stats(viaOc))}, this process's CPU ${perRound(cpu.oc)} ms a round (oc's not counted)`);
  console.log(`API debug pod round trip (ms): ${JSON.stringify(stats(viaApi))}, CPU ${perRound(cpu.api)} ms a round`);
  console.log(`daemon exec round trip (ms): ${JSON.stringify(stats(viaDaemon))}, CPU ${perRound(cpu.daemon)} ms a round`);
} finally {
  await cluster.stop();
}
