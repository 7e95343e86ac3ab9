import { KubeConfig } from '@kubernetes/client-node';
import { daemonPodsByNode, execInDaemon } from '../helpers/daemon-exec.js';
import { probeScript } from '../helpers/node-os.js';
import { bootedImageProbe, kernelArgumentsProbe, packageProbe, fileProbe, unitProbe } from '../helpers/node-probes.js';
const kc = new KubeConfig(); kc.loadFromFile(process.env.KUBECONFIG!);
const pods = [...(await daemonPodsByNode(kc)).values()];
const script = probeScript([bootedImageProbe, kernelArgumentsProbe, packageProbe('usbguard'), fileProbe('/etc/ocp-e2e/layered-image.conf'), unitProbe('ocp-e2e-layered.service')]);
for (const [label, cmd] of [['true', ['chroot', '/rootfs', 'true']], ['probes', ['chroot', '/rootfs', 'sh', '-c', script]]] as const) {
  for (const par of [1, 4, 8]) {
    const n = 24; const t0 = Date.now(); const c0 = process.cpuUsage();
    let i = 0;
    await Promise.all(Array.from({ length: par }, async () => { while (i < n) { const p = pods[i++ % pods.length]!; await execInDaemon(kc, p, [...cmd]); } }));
    const c = process.cpuUsage(c0);
    console.log(`${label} x${n} at ${par}: ${((Date.now() - t0) / n).toFixed(0)} ms wall each, client CPU ${((c.user + c.system) / 1000 / n).toFixed(0)} ms each`);
  }
}
