/**
 * Benchmark: the report's whole buggy timeline on the reference cluster at the default time factor, in wall seconds:
 * start, override both pools (rollout), the steady-state "Failed to resync" Degraded message (10-minute poll), the
 * upgrade request, and ClusterVersion's "wait has exceeded 40 minutes" message. The layered image is stood in by the
 * next release's rhel-coreos-8 (any bootable image in the registry will do for timing).
 *
 *   node --import tsx bench/reference/report-timeline.ts [--time-factor 600] [--seed 1]
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { LABEL, MC_API_VERSION } from '../../reference/constants.js';
import { baseOsImage, startReferenceCluster } from '../../reference/index.js';
import { KubeClient, type KubeObject } from '../../lib/kube/client.js';

const { values } = parseArgs({ options: { 'time-factor': { type: 'string', default: '600' }, seed: { type: 'string', default: '1' } } });
interface Obj extends KubeObject { spec?: any; status?: any }
const cond = (o: Obj | undefined, t: string) => (o?.status?.conditions ?? []).find((c: { type: string }) => c.type === t) ?? {};

const t0 = performance.now();
const cluster = await startReferenceCluster({ profile: '4.12-nightly-2022-09-08', timeFactor: Number(values['time-factor']), seed: Number(values.seed) });
const k = KubeClient.fromFile(cluster.kubeconfigPath);
const marks: Record<string, number> = { started: performance.now() - t0 };
const until = async (what: string, probe: () => Promise<boolean>): Promise<void> => {
  while (!(await probe())) {
    if (performance.now() - t0 > 180_000) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  marks[what] = performance.now() - t0;
};
try {
  const custom = baseOsImage(cluster.releases.next);
  for (const role of ['master', 'worker']) {
    await k.create('MachineConfig', { apiVersion: MC_API_VERSION, kind: 'MachineConfig', metadata: { name: `tc-54183-new-os-image-upgrade-${role}`, labels: { [LABEL.role]: role } }, spec: { osImageURL: custom } } as Obj);
  }
  await until('master pool rolled out the override', async () => {
    const p = await k.get<Obj>('MachineConfigPool', 'master');
    const mc = p?.status?.configuration?.name ? await k.get<Obj>('MachineConfig', p.status.configuration.name) : undefined;
    return mc?.spec?.osImageURL === custom && cond(p, 'Updated').status === 'True';
  });
  await until('CO Degraded "Failed to resync" (steady state)', async () => /^Failed to resync .*osImageURL mismatch/.test(cond(await k.get<Obj>('ClusterOperator', 'machine-config'), 'Degraded').message ?? ''));
  await k.patch('ClusterVersion', 'version', { spec: { desiredUpdate: { version: '', image: cluster.releases.next.image, force: true } } });
  marks['upgrade requested'] = performance.now() - t0;
  await until('CV "wait has exceeded 40 minutes"', async () => /wait has exceeded 40 minutes/.test(cond(await k.get<Obj>('ClusterVersion', 'version'), 'Progressing').message ?? ''));
  await until('CO Degraded "Unable to apply NEW" with osImageURL mismatch', async () => /^Unable to apply .*osImageURL mismatch/.test(cond(await k.get<Obj>('ClusterOperator', 'machine-config'), 'Degraded').message ?? ''));
  console.log(JSON.stringify(Object.fromEntries(Object.entries(marks).map(([k, v]) => [k, +(v / 1000).toFixed(1)]))));
} finally {
  await cluster.stop();
}
