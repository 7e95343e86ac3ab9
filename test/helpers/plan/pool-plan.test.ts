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

  it('takes the specs in run order while their pools fit the workers and leaves the others over, each with why', () => {
    const plan = planPools([S01, S02, S03, S05], workers(2));
    // 01 keeps the real pools and worker-0; 02 needs two custom pools (its layered worker, a release master): one
    // worker is left, so 02 is left over, 03 takes the release pool, and 05 (a pool of its own) finds none left
    expect(Object.keys(plan.assignments)).to.deep.equal(['01-both.spec.ts', '03-baseline.spec.ts']);
    expect(plan.customPools).to.deep.equal([{ name: 'ocp-e2e-release', node: 'worker-1' }]);
    expect(plan.leftOver?.map((l) => l.spec)).to.deep.equal(['02-worker-only.spec.ts', '05-remove.spec.ts']);
    const why05 = plan.leftOver![1]!.why;
    expect(why05).to.include("this cluster's 2 worker node(s) hold the pools of the specs before it");
    expect(why05).to.include('custom pool ocp-e2e-05 (layered image of 05-remove.spec.ts)');
    expect(why05).to.include('one upgrade for every selected spec needs 4 worker node(s)');
    // what a cluster for all of them must have (run --one-cluster sizes its reference cluster with it)
    expect(workersNeeded([S01, S02, S03, S05])).to.equal(4);
    expect(workersNeeded([S05, S03])).to.equal(2); // 05 on the real pools, 03 on one custom pool
    expect(planPools([S01, S02, S03, S05], workers(4)).leftOver).to.equal(undefined);
  });

  it('refuses a cluster with no worker to make any pool of (compact, single node), naming every pool and its specs', () => {
    let error: unknown;
    try {
      planPools([S01, S02, S03, S05], []);
    } catch (e) {
      error = e;
    }
    expect(error).to.be.instanceOf(PoolPlanConflict);
    const message = (error as Error).message;
    expect(message).to.match(/needs 4 worker node\(s\).*the cluster has none/);
    expect(message).to.include('custom pool ocp-e2e-release: 02-worker-only.spec.ts, 03-baseline.spec.ts (no override)');
    expect(message).to.include('pool master: 01-both.spec.ts (layered image of 01-both.spec.ts)');
  });

  it("puts the specs of the suite's layered image on one pool, and keeps a spec's own image off it", () => {
    const suite = (spec: string): SpecPoolNeeds => ({ spec, needs: { worker: { image: 'suite' } } });
    const S01suite: SpecPoolNeeds = { spec: '01-both.spec.ts', needs: { master: { image: 'suite', own: true }, worker: { image: 'suite', own: true } } };
    const plan = planPools([S01suite, suite('09-extension.spec.ts'), suite('11-kargs.spec.ts'), S02], workers(3));
    expect(plan.assignments['09-extension.spec.ts']).to.deep.equal({ worker: 'worker' });
    expect(plan.assignments['11-kargs.spec.ts']).to.deep.equal({ worker: 'worker' });
    // 02's image is its own: a custom pool, as is its release master
    expect(plan.assignments['02-worker-only.spec.ts']).to.deep.equal({ master: 'ocp-e2e-release', worker: 'ocp-e2e-02' });
    expect(workersNeeded([S01suite, suite('09-extension.spec.ts'), suite('11-kargs.spec.ts')])).to.equal(1);
  });

  it('lets a spec that changes its pool after the upgrade share it only as the last of its users in run order', () => {
    const S01suite: SpecPoolNeeds = { spec: '01-both.spec.ts', needs: { master: { image: 'suite', own: true }, worker: { image: 'suite', own: true } } };
    const changes = (spec: string): SpecPoolNeeds => ({ spec, needs: { worker: { image: 'suite', changesAfterUpgrade: true } } });
    const later: SpecPoolNeeds = { spec: '20-later.spec.ts', needs: { worker: { image: 'suite' } } };
    const plan = planPools([S01suite, changes('14-skew.spec.ts'), later], workers(3));
    expect(plan.assignments['14-skew.spec.ts']).to.deep.equal({ worker: 'worker' });
    // judged after 14 changed pool worker: it gets a pool of the suite's image of its own
    expect(plan.assignments['20-later.spec.ts']).to.deep.equal({ worker: 'ocp-e2e-20' });
    expect(plan.customPools.map((p) => p.name)).to.deep.equal(['ocp-e2e-20']);
    // and a changing spec never joins a pool whose users judge after it
    const first = planPools([changes('03-first.spec.ts'), S01suite], workers(3));
    expect(first.assignments['03-first.spec.ts']).to.deep.equal({ worker: 'ocp-e2e-03' });
  });

  it('never puts specs on one pool whose settings the MCO refuses to render together (kernel-devel with the realtime kernel)', () => {
    const S01suite: SpecPoolNeeds = { spec: '01-both.spec.ts', needs: { master: { image: 'suite', own: true }, worker: { image: 'suite', own: true } } };
    const devel: SpecPoolNeeds = { spec: '09-devel.spec.ts', needs: { worker: { image: 'suite', settings: ['extension:kernel-devel'] } } };
    const rt: SpecPoolNeeds = { spec: '10-rt.spec.ts', needs: { worker: { image: 'suite', settings: ['kernelType:realtime'] } } };
    const args: SpecPoolNeeds = { spec: '11-args.spec.ts', needs: { worker: { image: 'suite', settings: ['kernelArguments:nosmt'] } } };
    const plan = planPools([S01suite, devel, rt, args], workers(3));
    expect(plan.assignments['09-devel.spec.ts']).to.deep.equal({ worker: 'worker' });
    expect(plan.assignments['10-rt.spec.ts']).to.deep.equal({ worker: 'ocp-e2e-10' });
    expect(plan.assignments['11-args.spec.ts']).to.deep.equal({ worker: 'worker' });
  });

  it('gives the specs that would only share a real pool no spec may change (image mode, paused) custom pools', () => {
    const S01suite: SpecPoolNeeds = { spec: '01-both.spec.ts', needs: { master: { image: 'suite', own: true }, worker: { image: 'suite', own: true } } };
    const shares: SpecPoolNeeds = { spec: '11-args.spec.ts', needs: { worker: { image: 'suite' } } };
    const plan = planPools([S01suite, shares, S03, S05], workers(6), { worker: 'pool infra-im takes its configs and is in image mode' });
    // 01 is about pool worker itself: it keeps it (and skips there with the pool's reason); the others go elsewhere
    expect(plan.assignments['01-both.spec.ts']).to.deep.equal({ master: 'master', worker: 'worker' });
    expect(plan.assignments['11-args.spec.ts']).to.deep.equal({ worker: 'ocp-e2e-11' });
    expect(plan.assignments['03-baseline.spec.ts']!.worker).to.equal('ocp-e2e-release');
    expect(plan.assignments['05-remove.spec.ts']).to.deep.equal({ master: 'ocp-e2e-05', worker: 'ocp-e2e-05' });
    // without the refusal, 11 shares pool worker with 01
    expect(planPools([S01suite, shares], workers(6)).assignments['11-args.spec.ts']).to.deep.equal({ worker: 'worker' });
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
