/**
 * Regression cases: each file under fixtures/ is a small input on which the reference once differed from upstream
 * (`found` says how, and what fixed it). Each must now agree with the oracle of both commits.
 */
import { expect } from 'chai';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { COMMITS, oraclePath } from './support/oracle.js';
import { comparePools, type PoolCase } from './support/pool-cases.js';
import type { RenderCase } from './support/render-cases.js';
import { compareRender, describeDifference } from './support/render-diff.js';

const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));

function load<T>(kind: string): Array<{ name: string; found: string; input: T }> {
  const dir = path.join(FIXTURES, kind);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => ({ name: f.replace(/\.json$/, ''), ...(JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as { found: string; input: T }) }));
}

describe('upstream differential: regression fixtures', function () {
  this.timeout(60_000);
  const render = load<RenderCase>('render');
  const pools = load<PoolCase>('pool-valid');

  for (const commit of COMMITS) {
    it(`${commit.label}: the ${render.length} render fixtures render as upstream does`, async () => {
      const result = await compareRender(commit, render.map((f) => f.input));
      const failures = result.differences.map((d) => `${render[d.index]!.name} (${render[d.index]!.found.slice(0, 80)}…): ${describeDifference(d)}`);
      expect(failures).to.deep.equal([]);
    });
    it(`${commit.label}: the ${pools.length} required-pool fixtures give the upstream text`, async () => {
      const result = await comparePools(commit, pools.map((f) => f.input));
      const failures = result.differences.map((d) => `${pools[d.index]!.name}: upstream ${JSON.stringify(d.upstream)}, reference ${JSON.stringify(d.reference)}`);
      expect(failures).to.deep.equal([]);
    });
  }

  it('a missing oracle binary fails with where it comes from, not a skip', () => {
    const saved = process.env.OCP_E2E_UPSTREAM_BIN;
    process.env.OCP_E2E_UPSTREAM_BIN = mkdtempSync(path.join(tmpdir(), 'no-oracle-'));
    try {
      expect(() => oraclePath(COMMITS[0]!)).to.throw(/mco-oracle-cad20f710 is missing.*openshift\/machine-config-operator at cad20f7101719838aaa87c066430987303500fa6.*\.\.\/shared\/upstream\/README\.md.*OCP_E2E_UPSTREAM_BIN/s);
    } finally {
      if (saved === undefined) delete process.env.OCP_E2E_UPSTREAM_BIN;
      else process.env.OCP_E2E_UPSTREAM_BIN = saved;
    }
  });
});
