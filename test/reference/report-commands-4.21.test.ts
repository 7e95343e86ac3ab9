/**
 * A 4.20 cluster upgraded to 4.21 by hand with the real `oc` (`cluster up --profile 4.20-to-4.21`), as issue 42's
 * acceptance asks: 4.20's template `00-worker` carries the release's OS image and 4.21's carries none; once 4.21's
 * daemons run, a worker override of an image that cannot be pulled leaves the 4.16-4.21 text on the node, the retry
 * loop's timeout alone (4.22 adds the last rpm-ostree error: report-commands-4.22.test.ts).
 */
import { expect } from 'chai';
import { getProfile } from '../../reference/profiles/index.js';
import { startReportSession, type ReportSession } from './support/report-session.js';
import { columns, reportFlow, type ReportFlow } from './support/report-flow.js';

const { next: NEXT } = getProfile('4.20-to-4.21').releases;

describe('by hand on `cluster up --profile 4.20-to-4.21` with the real oc: 4.20 upgraded to 4.21', function () {
  this.timeout(240_000);
  let session: ReportSession;
  let flow: ReportFlow;
  const sh = (command: string) => session.sh(command);
  const until = (command: string, done: (stdout: string) => boolean, timeoutMs = 90_000) => session.until(command, done, timeoutMs);

  before(async function () {
    session = await startReportSession('4.20-to-4.21', 150_000);
    flow = reportFlow(session);
  });

  after(async () => {
    if (!session) return;
    const result = await session.stop();
    expect(result.exitCode, result.all).to.equal(0);
  });

  it('on 4.20, 00-worker carries the release\'s rhel-coreos', async () => {
    const base = (await sh('oc adm release info --image-for=rhel-coreos')).stdout.trim();
    const template = await sh('oc get mc 00-worker -o jsonpath={.spec.osImageURL}');
    expect(template.stdout).to.equal(base);
  });

  it('oc adm upgrade --to 4.21.0 (an update the graph offers): it completes, and 00-worker then carries no osImageURL', async () => {
    const before = await flow.poolConfigs();
    const upgrade = await sh(`oc adm upgrade --to ${NEXT.version}`);
    expect(upgrade.exitCode, upgrade.all).to.equal(0);
    await until('oc get clusterversion', (out) => columns(out.split('\n')[1]).slice(0, 4).join(' ') === `version ${NEXT.version} True False`);
    await until('oc get co machine-config', (out) => columns(out.split('\n')[1]).slice(0, 5).join(' ') === `machine-config ${NEXT.version} True False False`);
    await flow.poolsUpdatedAway(before);
    const template = await sh('oc get mc 00-worker -o jsonpath={.spec.osImageURL}');
    expect(template.exitCode, template.all).to.equal(0);
    expect(template.stdout, 'after the upgrade 00-worker carries no osImageURL').to.equal('');
  });

  it('with 4.21\'s daemons, an unpullable worker override leaves the retry loop\'s timeout alone as the reason', async () => {
    const image = `${session.registry}/ocp-e2e/not-there:missing`;
    const mc = `apiVersion: machineconfiguration.openshift.io/v1\nkind: MachineConfig\nmetadata:\n  name: 99-worker-unpullable\n  labels:\n    machineconfiguration.openshift.io/role: worker\nspec:\n  osImageURL: ${image}\n`;
    const r = await sh(`oc create -f - <<'EOF'\n${mc}EOF`);
    expect(r.exitCode, r.all).to.equal(0);
    await until('oc get mcp worker', (out) => columns(out.split('\n')[1])[4] === 'True', 120_000);
    const nodes = JSON.parse((await sh('oc get nodes -l node-role.kubernetes.io/worker -o json')).stdout) as { items: Array<{ metadata: { annotations?: Record<string, string> } }> };
    const reason = nodes.items.map((n) => n.metadata.annotations?.['machineconfiguration.openshift.io/reason'] ?? '').find((text) => text.includes('after retries'));
    expect(reason).to.equal(`Failed to update OS to ${image} after retries: timed out waiting for the condition`);
  });
});
