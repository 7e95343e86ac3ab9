/**
 * The report's flow typed by hand on a 4.12 cluster upgraded to 4.13 (`cluster up --profile 4.12-to-4.13`), with the
 * real `oc` 4.12 and docker: a layered image built on the 4.12 base, both pools overridden, `oc adm upgrade --to-image
 * <4.13> --allow-explicit-upgrade --force`. The upgrade completes, the operator is not Degraded, and `oc debug node`
 * shows the custom image still booted (the MCO does not upgrade an overridden pool's OS: docs/UsingLayering.md). Then
 * the image is rebuilt FROM 4.13's `rhel-coreos` (in place of the report's `rhel-coreos-8`) and the nodes boot RHEL 9.2.
 */
import { expect } from 'chai';
import { getProfile } from '../../reference/profiles/index.js';
import { startReportSession, type ReportSession } from './support/report-session.js';
import { columns, reportFlow, type ReportFlow } from './support/report-flow.js';
import { reportMachineConfigCommand } from './support/report-steps.js';

const { current: CURRENT, next: NEXT } = getProfile('4.12-to-4.13').releases;

describe('the report\'s commands by hand on `cluster up --profile 4.12-to-4.13` with the real oc: 4.12 upgraded to 4.13', function () {
  this.timeout(240_000);
  let session: ReportSession;
  let registry: string;
  let flow: ReportFlow;
  let worker: string;
  let master: string;
  const sh = (command: string) => session.sh(command);
  const until = (command: string, done: (stdout: string) => boolean, timeoutMs = 90_000) => session.until(command, done, timeoutMs);

  before(async function () {
    session = await startReportSession('4.12-to-4.13', 150_000);
    ({ registry } = session);
    flow = reportFlow(session);
    worker = (await sh('oc get nodes -l node-role.kubernetes.io/worker -o name')).stdout.split('\n')[0]!.replace(/^node\//, '');
    master = (await sh('oc get nodes -l node-role.kubernetes.io/master -o name')).stdout.split('\n')[0]!.replace(/^node\//, '');
  });

  after(async () => {
    if (!session) return;
    const result = await session.stop();
    expect(result.exitCode, result.all).to.equal(0);
  });

  it('the 4.12 payload names rhel-coreos-8 and machine-os-content; the 4.13 payload rhel-coreos and rhel-coreos-extensions (and still machine-os-content)', async () => {
    const now = await sh('oc adm release info --pullspecs 2> /dev/null | grep -E "rhel|machine-os"');
    expect(now.stdout).to.match(/^\s+rhel-coreos-8\s+\S+@sha256:[0-9a-f]{64}$/m);
    expect(now.stdout).to.match(/^\s+rhel-coreos-8-extensions\s/m);
    const next = await sh(`oc adm release info --pullspecs ${registry}/ocp/release:${NEXT.version} 2> /dev/null | grep -E "rhel|machine-os"`);
    expect(next.exitCode, next.all).to.equal(0);
    expect(next.stdout).to.match(/^\s+rhel-coreos\s+\S+@sha256:[0-9a-f]{64}$/m);
    expect(next.stdout).to.match(/^\s+rhel-coreos-extensions\s/m);
    expect(next.stdout).to.match(/^\s+machine-os-content\s/m);
    expect(next.stdout).not.to.match(/rhel-coreos-8/);
    const base = await sh(`oc adm release info --image-for=rhel-coreos ${registry}/ocp/release:${NEXT.version}`);
    const os = await sh(`docker run --rm ${base.stdout.trim()} cat /etc/os-release`);
    expect(os.stdout, os.all).to.include('RHEL_VERSION="9.2"');
    expect(os.stdout).to.include('PLATFORM_ID="platform:el9"');
  });

  it('steps 2-5 on 4.12: the image built FROM rhel-coreos-8 overrides both pools, which roll out', async () => {
    const base = (await sh('oc adm release info --image-for=rhel-coreos-8')).stdout.trim();
    expect(base).to.match(/@sha256:[0-9a-f]{64}$/);
    const image = `${registry}/sregidor/sregidor-os:mco_layering`;
    await flow.buildAndPush(base, image);
    const before = await flow.poolConfigs();
    for (const role of ['master', 'worker'] as const) {
      const r = await sh(reportMachineConfigCommand(role, image));
      expect(r.exitCode, r.all).to.equal(0);
    }
    await flow.poolsUpdatedAway(before);
  });

  it('step 6: `oc adm upgrade --to-image <4.13> --allow-explicit-upgrade --force` completes, machine-config is not Degraded, the nodes still boot the custom 4.12-based image', async () => {
    const before = await flow.poolConfigs();
    const upgrade = await sh(`oc adm upgrade --to-image ${registry}/ocp/release:${NEXT.version} --allow-explicit-upgrade --force`);
    expect(upgrade.exitCode, upgrade.all).to.equal(0);
    expect(upgrade.stdout).to.include(`Requesting update to ${NEXT.version}`);
    const cv = await until('oc get clusterversion', (out) => columns(out.split('\n')[1]).slice(0, 4).join(' ') === `version ${NEXT.version} True False`);
    expect(cv.split('\n')[1]).to.match(new RegExp(`Cluster version is ${NEXT.version.replace(/\./g, '\\.')}$`));
    const co = await until('oc get co machine-config', (out) => columns(out.split('\n')[1]).slice(0, 5).join(' ') === `machine-config ${NEXT.version} True False False`);
    expect(co).not.to.include('osImageURL mismatch');
    await flow.poolsUpdatedAway(before);
    for (const node of [worker, master]) {
      const status = await sh(`oc debug node/${node} -- chroot /host rpm-ostree status`);
      expect(status.exitCode, status.all).to.equal(0);
      expect(status.stdout, `node ${node}`).to.match(/^\* ostree-unverified-registry:\S+\/sregidor\/sregidor-os:mco_layering$/m);
      const os = await sh(`oc debug node/${node} -- chroot /host cat /etc/os-release`);
      expect(os.stdout, `node ${node} keeps the 4.12 base under its custom image`).to.include('RHEL_VERSION="8.6"');
    }
    expect(CURRENT.version).to.equal('4.12.0');
  });

  it('the image rebuilt FROM 4.13\'s rhel-coreos (in place of rhel-coreos-8) moves the nodes to RHEL 9.2 with the layered zsh', async () => {
    const base = (await sh(`oc adm release info --image-for=rhel-coreos`)).stdout.trim();
    expect(base).to.match(/@sha256:[0-9a-f]{64}$/);
    const image = `${registry}/sregidor/sregidor-os:mco_layering_413`;
    await flow.buildAndPush(base, image);
    const before = await flow.poolConfigs();
    for (const role of ['master', 'worker']) {
      const r = await sh(`oc patch mc tc-54183-new-os-image-upgrade-${role} --type merge -p '{"spec":{"osImageURL":"${image}"}}'`);
      expect(r.exitCode, r.all).to.equal(0);
    }
    await flow.poolsUpdatedAway(before);
    const os = await sh(`oc debug node/${worker} -- chroot /host sh -c 'cat /etc/os-release; rpm -q zsh kernel; rpm-ostree status'`);
    expect(os.exitCode, os.all).to.equal(0);
    expect(os.stdout).to.include('RHEL_VERSION="9.2"');
    expect(os.stdout).to.match(/^zsh-\S+\.el9\.x86_64$/m);
    expect(os.stdout).to.match(/^kernel-5\.14\.0-\S+\.el9_2\.x86_64$/m);
    expect(os.stdout).to.match(/^\* ostree-unverified-registry:\S+\/sregidor\/sregidor-os:mco_layering_413$/m);
  });
});
