import { expect } from 'chai';
import { planPools, poolOf, PoolPlanConflict, workersNeeded, type SpecPoolNeeds } from '../../../helpers/plan/pool-plan.js';

const S01: SpecPoolNeeds = { spec: '01-both.spec.ts', needs: { master: { image: 'layered', own: true }, worker: { image: 'layered', own: true } } };
const S02: SpecPoolNeeds = { spec: '02-worker-only.spec.ts', needs: { worker: { image: 'layered' }, master: { image: 'release' } } };
const S03: SpecPoolNeeds = { spec: '03-baseline.spec.ts', needs: { master: { image: 'release' }, worker: { image: 'release' } } };
const S05: SpecPoolNeeds = { spec: '05-remove.spec.ts', needs: { master: { image: 'layered', alone: true }, worker: { image: 'layered', alone: true } } };
const workers = (n: number): string[] => Array.from({ length: n }, (_, i) => `worker-${i}`);

describe('helpers/plan/pool-plan: one upgrade shared by many specs', () => {
  it('gives the report its real pools, each other override a custom pool, and shares the release pool', () => {
    const plan = planPools([S01, S02, S03, S05], workers(4));
    expect(plan.assignments['01-both.spec.ts']).to.deep.equal({ master: 'master', worker: 'worker' });
    expect(plan.assignments['05-remove.spec.ts']).to.deep.equal({ master: 'ocp-e2e-05', worker: 'ocp-e2e-05' });
    expect(plan.assignments['02-worker-only.spec.ts']).to.deep.equal({ master: 'ocp-e2e-release', worker: 'ocp-e2e-02' });
    expect(plan.assignments['03-baseline.spec.ts']).to.deep.equal({ master: 'ocp-e2e-release', worker: 'ocp-e2e-release' });
    // the worker pool keeps worker-0; the custom pools take the last workers, stable by name
    expect(plan.customPools).to.deep.equal([
      { name: 'ocp-e2e-05', node: 'worker-1' },
      { name: 'ocp-e2e-release', node: 'worker-2' },
      { name: 'ocp-e2e-02', node: 'worker-3' },
    ]);
  });

  it('uses the real pools when one spec runs alone, as a per-file run does', () => {
    for (const s of [S01, S02, S03, S05]) {
      const plan = planPools([s], workers(2));
      expect(plan.customPools, s.spec).to.deep.equal([]);
      expect(poolOf(plan, s.spec, 'master')).to.equal('master');
      expect(poolOf(plan, s.spec, 'worker')).to.equal('worker');
    }
  });

  it('refuses a plan the workers cannot hold, naming every pool and its specs', () => {
    let error: unknown;
    try {
      planPools([S01, S02, S03, S05], workers(2));
    } catch (e) {
      error = e;
    }
    expect(error).to.be.instanceOf(PoolPlanConflict);
    const message = (error as Error).message;
    expect(message).to.match(/needs 4 worker node\(s\).*the cluster has 2/);
    expect(message).to.include('custom pool ocp-e2e-release: 02-worker-only.spec.ts, 03-baseline.spec.ts (no override)');
    expect(message).to.include('pool master: 01-both.spec.ts (layered image of 01-both.spec.ts)');
    // what a cluster for them must have (run --one-cluster sizes its reference cluster with it)
    expect(workersNeeded([S01, S02, S03, S05])).to.equal(4);
    expect(workersNeeded([S05, S03])).to.equal(2); // 05 on the real pools, 03 on one custom pool
  });

  it('refuses two specs that are each about the same real pool with different images', () => {
    const other: SpecPoolNeeds = { spec: '09-other.spec.ts', needs: { master: { image: 'release', own: true } } };
    expect(() => planPools([S01, other], workers(9))).to.throw(PoolPlanConflict, '09-other.spec.ts needs pool master with no override (the release OS image), and that very pool, but 01-both.spec.ts already uses it with another image');
  });

  it('never puts another spec on a pool a spec must have alone', () => {
    const plan = planPools([S05, S03], workers(3));
    // 05 alone on its pool (both roles want its image: one custom pool); 03 shares nothing with it
    const of05 = new Set(Object.values(plan.assignments['05-remove.spec.ts']!));
    for (const pool of Object.values(plan.assignments['03-baseline.spec.ts']!)) expect(of05.has(pool), pool).to.equal(false);
  });
});
