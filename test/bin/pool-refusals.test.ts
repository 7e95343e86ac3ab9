/**
 * Pools a spec must not change, refused before any cluster time (issue 43): a paused pool (EUS-to-EUS and control-plane-
 * first procedures pause the workers by design) and a pool in on-cluster image mode (a MachineOSConfig names it: its
 * nodes boot the image the MCO builds, whatever an osImageURL override says). Against `cluster up --profile
 * 4.20-to-4.21` with `run --target cluster`, as QE runs the suite; the real oc makes the changes.
 */
import { expect } from 'chai';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startReportSession, type ReportSession } from '../reference/support/report-session.js';

const BIN = path.resolve(fileURLToPath(new URL('../../', import.meta.url)), 'bin', 'ocp-e2e');

describe('specs refuse a paused pool and a pool in on-cluster image mode before any cluster time (run --target cluster)', function () {
  this.timeout(240_000);
  let session: ReportSession;
  const sh = (command: string) => session.sh(command);
  const runSpec = (grep: string) => sh(`${BIN} run --target cluster --allow-disruptive --grep ${grep} --reports-dir ${session.dir}/reports 2>&1`);

  before(async function () {
    session = await startReportSession('4.20-to-4.21', 150_000);
  });

  after(async () => {
    if (!session) return;
    const result = await session.stop();
    expect(result.exitCode, result.all).to.equal(0);
  });

  it('a paused worker pool: the worker spec is skipped, saying how to unpause it; nothing was created', async () => {
    expect((await sh(`oc patch mcp worker --type merge -p '{"spec":{"paused":true}}'`)).exitCode).to.equal(0);
    const r = await runSpec('E2E-002');
    expect(r.exitCode, r.all).to.equal(0);
    expect(r.all).to.include(`pool worker is paused (spec.paused: true): its nodes take no new config, so this spec's changes would never roll out; unpause it (oc patch mcp worker --type merge -p '{"spec":{"paused":false}}') or run the spec on another cluster`);
    expect(r.all).to.match(/0 passed, 0 failed, 1 skipped\s*$/);
    expect((await sh('oc get mc -o name')).stdout).to.not.include('tc-e2e-002');
    expect((await sh(`oc patch mcp worker --type merge -p '{"spec":{"paused":false}}'`)).exitCode).to.equal(0);
  });

  it('a MachineOSConfig on the worker pool: the worker spec is skipped naming it', async () => {
    const mosc = `apiVersion: machineconfiguration.openshift.io/v1
kind: MachineOSConfig
metadata:
  name: worker
spec:
  machineConfigPool:
    name: worker
  imageBuilder:
    imageBuilderType: Job
  renderedImagePushSecret:
    name: push-secret
  renderedImagePushSpec: ${session.registry}/ocp-e2e/os-image:latest
`;
    const created = await sh(`oc create -f - <<'EOF'\n${mosc}EOF`);
    expect(created.exitCode, created.all).to.equal(0);
    const r = await runSpec('E2E-002');
    expect(r.exitCode, r.all).to.equal(0);
    expect(r.all).to.include('pool worker is in on-cluster image mode (MachineOSConfig worker): its nodes boot the image the MCO builds for it, whatever an osImageURL override says');
    expect(r.all).to.match(/0 passed, 0 failed, 1 skipped\s*$/);
    expect((await sh('oc delete machineosconfig worker')).exitCode).to.equal(0);
  });
});
