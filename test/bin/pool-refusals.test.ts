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

describe('an infra pool, which takes the worker configs too, is waited for, judged and recovered with the worker pool (run --target cluster)', function () {
  this.timeout(300_000);
  let session: ReportSession;
  const sh = (command: string) => session.sh(command);
  const runSpec = (grep: string) => sh(`${BIN} run --target cluster --allow-disruptive --grep ${grep} --reports-dir ${session.dir}/reports-${grep} 2>&1`);
  const poolsSettled = async () => {
    const rows = (await sh('oc get mcp --no-headers')).stdout.split('\n').filter(Boolean).map((l) => l.trim().split(/\s+/));
    return Object.fromEntries(rows.map((r) => [r[0], `${r[2]}/${r[3]}/${r[4]}`]));
  };

  before(async function () {
    session = await startReportSession('4.12-ga', 150_000, ['--infra-nodes', '1']);
  });

  after(async () => {
    if (!session) return;
    const result = await session.stop();
    expect(result.exitCode, result.all).to.equal(0);
  });

  it('the unpullable worker override degrades the infra node too; the spec recovers both pools and leaves nothing degraded', async () => {
    const r = await runSpec('E2E-006');
    expect(r.exitCode, r.all.slice(-3000)).to.equal(0);
    expect(r.all).to.match(/waiting for pools worker, infra/);
    expect(await poolsSettled()).to.deep.equal({ infra: 'True/False/False', master: 'True/False/False', worker: 'True/False/False' });
  });

  it('a worker override rolls onto the infra node, which the check judges with the workers', async () => {
    const r = await runSpec('E2E-002');
    expect(r.exitCode, r.all.slice(-3000)).to.equal(0);
    const results = (await sh(`cat ${session.dir}/reports-E2E-002/allure-results/*-result.json`)).stdout;
    expect(results).to.match(/node ip-10-0-144-20\.us-east-2\.compute\.internal is on rendered-infra-[0-9a-f]+ and booted \S+layered-os@sha256:[0-9a-f]{64}/);
    expect(results).to.match(/mcp\/infra rendered config carries \S+layered-os@sha256:[0-9a-f]{64}/);
    expect(await poolsSettled()).to.deep.equal({ infra: 'True/False/False', master: 'True/False/False', worker: 'True/False/False' });
  });
});
