/**
 * The cost of validating custom resources: creates N MachineConfigs and M MachineOSConfigs (names matching their
 * pools, so every CEL rule runs and passes) against a mock API server serving a CRD folder (default: the OpenShift
 * 4.20 fixtures), 50 requests in flight, and reports the wall time and the server's CPU time per create. The server
 * runs in a child process (this file with `serve`), so the client's CPU is not counted.
 *
 *   node --import tsx bench/mock/validation.ts [--crds DIR] [--machineconfigs 10000] [--machineosconfigs 1000] [--concurrency 50]
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const SELF = fileURLToPath(import.meta.url);

if (process.argv[2] === 'serve') {
  const { startApiServer } = await import('../../mock/index.js');
  const { loadCrdsFrom } = await import('../../reference/crds/index.js');
  const server = await startApiServer({ tls: false, crds: loadCrdsFrom(process.argv[3]!), token: 'bench-token' });
  createInterface({ input: process.stdin }).on('line', () => {
    const cpu = process.cpuUsage();
    console.log(JSON.stringify({ cpuMicros: cpu.user + cpu.system }));
  });
  console.log(JSON.stringify({ url: server.url }));
} else {
  const { values } = parseArgs({
    options: {
      crds: { type: 'string', default: '/work/shared/fixtures/openshift-4.20-crds' },
      machineconfigs: { type: 'string', default: '10000' },
      machineosconfigs: { type: 'string', default: '1000' },
      concurrency: { type: 'string', default: '50' },
    },
  });
  const child = spawn(process.execPath, ['--import', 'tsx', SELF, 'serve', values.crds!], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async () => JSON.parse((await lines.next()).value as string);
  const { url } = await next();
  const cpu = async () => { child.stdin!.write('cpu\n'); return (await next()).cpuMicros as number; };

  async function createAll(path: string, count: number, body: (i: number) => object): Promise<{ seconds: number; cpuPerCreate: number }> {
    const cpu0 = await cpu();
    const t0 = performance.now();
    let nextIndex = 0;
    const worker = async () => {
      while (nextIndex < count) {
        const i = nextIndex++;
        const res = await fetch(`${url}${path}`, { method: 'POST', body: JSON.stringify(body(i)), headers: { authorization: 'Bearer bench-token', 'content-type': 'application/json' } });
        const text = await res.text();
        if (res.status !== 201) throw new Error(`create ${i} of ${path}: ${res.status} ${text.slice(0, 300)}`);
      }
    };
    await Promise.all(Array.from({ length: Number(values.concurrency) }, worker));
    const seconds = (performance.now() - t0) / 1000;
    return { seconds, cpuPerCreate: (await cpu() - cpu0) / count };
  }

  const mcCount = Number(values.machineconfigs), moscCount = Number(values.machineosconfigs);
  const mc = await createAll('/apis/machineconfiguration.openshift.io/v1/machineconfigs', mcCount, (i) => ({
    apiVersion: 'machineconfiguration.openshift.io/v1', kind: 'MachineConfig',
    metadata: { name: `99-bench-${i}`, labels: { 'machineconfiguration.openshift.io/role': 'worker' } },
    spec: {
      osImageURL: 'quay.io/openshift/os@sha256:0000000000000000000000000000000000000000000000000000000000000000',
      kernelArguments: ['nosmt', `bench=${i}`],
      config: { ignition: { version: '3.2.0' }, storage: { files: [{ path: `/etc/bench-${i}`, mode: 420, contents: { source: 'data:,hello' } }] } },
    },
  }));
  const mosc = await createAll('/apis/machineconfiguration.openshift.io/v1/machineosconfigs', moscCount, (i) => ({
    apiVersion: 'machineconfiguration.openshift.io/v1', kind: 'MachineOSConfig', metadata: { name: `pool-${i}` },
    spec: {
      machineConfigPool: { name: `pool-${i}` }, imageBuilder: { imageBuilderType: 'Job' },
      renderedImagePushSecret: { name: 'push' }, renderedImagePushSpec: `quay.io/bench/os-${i}:latest`,
    },
  }));
  child.kill('SIGTERM');
  const row = (what: string, n: number, r: { seconds: number; cpuPerCreate: number }) =>
    `| create ${n} ${what}, ${values.concurrency} in flight | ${r.seconds.toFixed(2)} s (${Math.round(n / r.seconds)} creates/s) | ${Math.round(r.cpuPerCreate)} µs |`;
  console.log(`CRDs: ${values.crds}\n\n| measure | wall time | server CPU per create |\n|---|---|---|`);
  console.log(row('MachineConfigs', mcCount, mc));
  console.log(row('MachineOSConfigs', moscCount, mosc));
}
