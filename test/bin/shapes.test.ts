/**
 * The suite on the cluster shapes beside the default (issue 43): a compact cluster (three masters that are the
 * workers) and single-node OpenShift, whose worker pool has no node, and a cluster with an infra pool. Every spec passes
 * or is skipped before cluster time with the reason; the specs that judge both pools (01, 03, 05, 13) judge the masters
 * there.
 */
import { expect } from 'chai';
import { lastLine, ocpE2e } from '../support/cli.js';
import { SPEC_COUNT } from './support/spec-files.js';

/** The specs that judge the master and the worker pool alike: on a cluster whose workers are its masters, the masters. */
const BOTH_POOLS = ['01', '03', '05', '13'];

describe('ocp-e2e run on a compact and a single-node reference cluster', function () {
  this.timeout(300_000);

  for (const [topology, shape] of [
    ['compact', 'a compact cluster: its 3 masters are the workers'],
    ['sno', 'a single-node cluster: its one master is the worker'],
  ] as const) {
    it(`--topology ${topology}: the specs of both pools pass on the masters, every spec that judges workers alone is skipped before cluster time, saying why`, async () => {
      const r = await ocpE2e(['run', '--topology', topology], { timeoutMs: 280_000 });
      expect(r.exitCode, r.output.slice(-4000)).to.equal(0);
      expect(lastLine(r.output)).to.equal(`${BOTH_POOLS.length} passed, 0 failed, ${SPEC_COUNT - BOTH_POOLS.length} skipped`);
      for (const spec of BOTH_POOLS) expect(r.output).to.match(new RegExp(`${spec}-[\\w-]+\\.spec\\.ts: 1 passed, 0 failed, 0 skipped`));
      expect(r.output).to.include(`topology ${topology}`);
      const skips = r.output.split('\n').filter((l) => /\bSKIP \[sig-mco\]/.test(l));
      expect(skips).to.have.length(SPEC_COUNT - BOTH_POOLS.length);
      // specs 15 to 19 need on-cluster image mode, which 4.12 (the default profile) does not have: that is their reason here
      const IMAGE_MODE = 'the release has no on-cluster image mode (no MachineOSConfig API)';
      expect(skips.filter((l) => l.includes(IMAGE_MODE))).to.have.length(5);
      for (const skip of skips.filter((l) => !l.includes(IMAGE_MODE))) expect(skip).to.include(`the cluster has no node in pool worker (${shape}): this spec judges what the nodes of that pool boot`);
      // skipped before any cluster time: no phase of theirs started
      expect(r.output.match(/▶ phase prepare/g) ?? []).to.have.length(BOTH_POOLS.length);
    });
  }

  it('--infra-nodes 1 --one-cluster: the shared upgrade passes with an infra pool beside the plan\'s custom pools, whose nodes are workers only', async () => {
    const r = await ocpE2e(['run', '--infra-nodes', '1', '--one-cluster'], { timeoutMs: 280_000 });
    expect(r.exitCode, r.output.slice(-4000)).to.equal(0);
    // specs 15 to 19 are skipped on 4.12 (no on-cluster image mode), with their reason
    expect(lastLine(r.output)).to.match(/^\d+ passed, 0 failed, 5 skipped$/);
    expect(r.output).to.include('the release has no on-cluster image mode');
    // spec 1's worker override rolls onto the infra pool, waited for with worker; the plan took no infra node
    expect(r.output).to.match(/waiting for pools worker, master, infra to roll out/);
    expect(r.output).to.not.match(/custom pool \S+ created with node ip-10-0-144-/);
  });

  it('a compact or single-node cluster with --workers, or an unknown shape, is refused with the way out', async () => {
    const withWorkers = await ocpE2e(['cluster', 'up', '--topology', 'sno', '--workers', '2', '--env-out', '/dev/null'], { timeoutMs: 60_000 });
    expect(withWorkers.exitCode).to.not.equal(0);
    expect(withWorkers.output).to.include('a single-node cluster has no worker nodes (its masters are the workers): leave out --workers 2, or use --topology ha');
    const unknown = await ocpE2e(['run', '--topology', 'tiny'], { timeoutMs: 60_000 });
    expect(unknown.exitCode).to.equal(2);
    expect(unknown.output).to.match(/option '--topology <shape>' argument 'tiny' is invalid\. Allowed choices are ha, compact, sno/);
    const onCluster = await ocpE2e(['run', '--target', 'cluster', '--topology', 'sno'], { timeoutMs: 60_000 });
    expect(onCluster.exitCode).to.equal(2);
    expect(onCluster.output).to.include('--topology applies to --target reference only');
  });
});
