/**
 * The upstream differential at a larger count than CI runs: render and required-pool cases per commit, with the time
 * spent in the reference, in the oracle, and for the whole comparison, and the differences found by kind.
 *
 *   node --import tsx bench/upstream/differential.ts [--render N] [--pools N] [--seed S]
 */
import { parseArgs } from 'node:util';
import { createRng } from '../../reference/rng.js';
import { COMMITS, runOracle } from '../../test/reference/upstream/support/oracle.js';
import { comparePools, poolCase, referencePoolAnswer } from '../../test/reference/upstream/support/pool-cases.js';
import { oracleRenderInput, renderCase } from '../../test/reference/upstream/support/render-cases.js';
import { compareRender, describeDifference, referenceOutcome } from '../../test/reference/upstream/support/render-diff.js';

const { values } = parseArgs({ options: { render: { type: 'string', default: '10000' }, pools: { type: 'string', default: '20000' }, seed: { type: 'string', default: '20261201' } } });
const renderCount = Number(values.render);
const poolCount = Number(values.pools);
const seed = Number(values.seed);

const ms = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e6;
const rate = (n: number, millis: number): string => `${Math.round((n / millis) * 1000)}/s`;
const kindOf = (text: string): string => text.replace(/^\$\.rendered\.\d+\./, '').replace(/[:\s].*$/, '');

console.log(`seed ${seed}; render ${renderCount} and required pools ${poolCount} cases per commit`);
console.log('| commit | check | cases | upstream errors | reference alone | oracle alone | compare (both, overlapped) | differences |');
console.log('|---|---|---|---|---|---|---|---|');
for (const commit of COMMITS) {
  let rng = createRng(seed);
  const renderCases = Array.from({ length: renderCount }, () => renderCase(rng, commit));
  let t = process.hrtime.bigint();
  for (const c of renderCases) referenceOutcome(c, commit);
  const refMs = ms(t);
  t = process.hrtime.bigint();
  for (let i = 0; i < renderCases.length; i += 500) await runOracle(commit, 'render', renderCases.slice(i, i + 500).map((c) => oracleRenderInput(c, commit)));
  const oracleMs = ms(t);
  t = process.hrtime.bigint();
  const render = await compareRender(commit, renderCases);
  const bothMs = ms(t);
  const kinds = new Map<string, number>();
  for (const d of render.differences) {
    const k = kindOf(describeDifference(d));
    kinds.set(k, (kinds.get(k) ?? 0) + 1);
  }
  console.log(`| ${commit.label} | render | ${renderCount} | ${render.errors} | ${rate(renderCount, refMs)} | ${rate(renderCount, oracleMs)} | ${(bothMs / 1000).toFixed(1)} s (${rate(renderCount, bothMs)}) | ${render.differences.length}${kinds.size ? ` (${[...kinds].map(([k, n]) => `${k}: ${n}`).join(', ')})` : ''} |`);

  rng = createRng(seed);
  const poolCases = Array.from({ length: poolCount }, () => poolCase(rng));
  t = process.hrtime.bigint();
  for (const c of poolCases) referencePoolAnswer(c, commit);
  const poolRefMs = ms(t);
  t = process.hrtime.bigint();
  for (let i = 0; i < poolCases.length; i += 2000) await runOracle(commit, 'pool-valid', poolCases.slice(i, i + 2000));
  const poolOracleMs = ms(t);
  t = process.hrtime.bigint();
  const pools = await comparePools(commit, poolCases);
  const poolBothMs = ms(t);
  console.log(`| ${commit.label} | required pools | ${poolCount} | ${pools.errors} | ${rate(poolCount, poolRefMs)} | ${rate(poolCount, poolOracleMs)} | ${(poolBothMs / 1000).toFixed(1)} s (${rate(poolCount, poolBothMs)}) | ${pools.differences.length} |`);
}
