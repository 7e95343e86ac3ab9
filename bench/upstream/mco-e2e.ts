/**
 * Benchmark: the wall time of the MCO's own e2e tests on the reference, as npm test runs them (the read-only ones each
 * alone on a fresh cluster, the seven node tests together on one), split into cluster start and the test process, with
 * go test's own time of each test.
 *
 *   node --import tsx bench/upstream/mco-e2e.ts
 */
import { performance } from 'node:perf_hooks';
import { startHarness } from '../../test/reference/support/cluster.js';
import { ALONE, ON_NODES, runUpstreamTests } from '../../test/reference/upstream/support/mco-e2e.js';

const rows: string[] = [];
const total = performance.now();
for (const names of [...ALONE.map((n) => [n]), ON_NODES]) {
  const started = performance.now();
  const h = await startHarness({ profile: '4.12-ga' });
  const startMs = performance.now() - started;
  try {
    const run = await runUpstreamTests(h.cluster.kubeconfigPath, names, 12);
    const own = names.map((n) => `${n} ${run.verdicts.get(n) ?? '?'} ${/--- \w+: \S+ \((\S+)\)/.exec(run.output.split('\n').find((l) => l.includes(` ${n} (`)) ?? '')?.[1] ?? '?'}`);
    rows.push(`cluster start ${(startMs / 1000).toFixed(1)} s, process ${(run.wallMs / 1000).toFixed(1)} s: ${own.join(', ')}`);
  } finally {
    await h.cluster.stop();
  }
}
console.log(rows.join('\n'));
console.log(`total ${((performance.now() - total) / 1000).toFixed(1)} s wall`);
