/**
 * The CVO's Upgradeable precondition, by hand with the real `oc` on `cluster up --profile 4.18-to-4.19`: a worker pool
 * degraded by an OS image that cannot be pulled makes machine-config Upgradeable=False (DegradedPool), ClusterVersion
 * carries it, and `oc adm upgrade --to 4.19.0` (a minor update) is refused with the CVO's precondition text until it is
 * forced; forced, the update is accepted and its history entry keeps the waived failure.
 */
import { expect } from 'chai';
import { getProfile } from '../../reference/profiles/index.js';
import { startReportSession, type ReportSession } from './support/report-session.js';

const { current: CURRENT, next: NEXT } = getProfile('4.18-to-4.19').releases;
const UNPULLABLE = `quay.io/ocp-e2e/never-pushed@sha256:${'e'.repeat(64)}`;
const DEGRADED_POOL_MESSAGE = 'Cluster operator machine-config should not be upgraded between minor versions: One or more machine config pools are degraded, please see `oc get mcp` for further details and resolve before upgrading';

describe('the CVO refuses a minor update while the cluster is not upgradeable, unless forced (real oc, cluster up --profile 4.18-to-4.19)', function () {
  this.timeout(240_000);
  let session: ReportSession;
  const sh = (command: string) => session.sh(command);
  const until = (command: string, done: (stdout: string) => boolean, timeoutMs = 120_000) => session.until(command, done, timeoutMs);
  const condition = (type: string) => `oc get clusterversion version -o jsonpath='{range .status.conditions[?(@.type=="${type}")]}{.status}|{.reason}|{.message}{end}'`;

  before(async function () {
    session = await startReportSession('4.18-to-4.19', 150_000);
  });

  after(async () => {
    if (!session) return;
    const result = await session.stop();
    expect(result.exitCode, result.all).to.equal(0);
  });

  it('a settled cluster has no Upgradeable condition on ClusterVersion (all checks pass) and offers 4.19.0', async () => {
    expect((await sh(condition('Upgradeable'))).stdout).to.equal('');
    const offered = await sh('oc adm upgrade');
    expect(offered.stdout, offered.all).to.match(new RegExp(`Cluster version is ${CURRENT.version.replaceAll('.', '\\.')}`));
    expect(offered.stdout).to.include(NEXT.version);
  });

  it('a worker pool degraded by an unpullable OS image: machine-config and then ClusterVersion say Upgradeable=False', async () => {
    const mc = `apiVersion: machineconfiguration.openshift.io/v1
kind: MachineConfig
metadata:
  name: 99-worker-unpullable-os
  labels:
    machineconfiguration.openshift.io/role: worker
spec:
  osImageURL: ${UNPULLABLE}
`;
    const created = await sh(`oc create -f - <<'EOF'\n${mc}EOF`);
    expect(created.exitCode, created.all).to.equal(0);
    await until(`oc get mcp worker -o jsonpath='{.status.degradedMachineCount}'`, (out) => Number(out) > 0, 180_000);
    await until(`oc get co machine-config -o jsonpath='{range .status.conditions[?(@.type=="Upgradeable")]}{.status}|{.reason}{end}'`, (out) => out === 'False|DegradedPool');
    // the CVO takes it up within its 2-minute throttle
    const up = await until(condition('Upgradeable'), (out) => out.startsWith('False|'));
    expect(up).to.equal(`False|DegradedPool|${DEGRADED_POOL_MESSAGE}`);
  });

  it('oc adm upgrade --to 4.19.0 without --force: ReleaseAccepted=False PreconditionChecks, the cluster stays at 4.18', async () => {
    const asked = await sh(`oc adm upgrade --to ${NEXT.version}`);
    expect(asked.exitCode, asked.all).to.equal(0);
    const refused = await until(condition('ReleaseAccepted'), (out) => out.startsWith('False|PreconditionChecks|'));
    expect(refused).to.match(
      new RegExp(`^False\\|PreconditionChecks\\|Preconditions failed for payload loaded version="${NEXT.version.replaceAll('.', '\\.')}" image="[^"]+": Precondition "ClusterVersionUpgradeable" failed because of "DegradedPool": `),
    );
    expect(refused).to.include(DEGRADED_POOL_MESSAGE);
    const history = await sh(`oc get clusterversion version -o jsonpath='{range .status.history[*]}{.version}|{.state}{"\\n"}{end}'`);
    expect(history.stdout.trim()).to.equal(`${CURRENT.version}|Completed`);
    // what a person sees: oc's status names the refusal
    const status = await sh('oc adm upgrade');
    expect(status.all).to.include('ReleaseAccepted=False').and.include('Preconditions failed');
  });

  it('forced: accepted, and the history entry of 4.19.0 keeps the waived precondition as an accepted risk', async () => {
    const forced = await sh(`oc adm upgrade --to ${NEXT.version} --force`);
    expect(forced.exitCode, forced.all).to.equal(0);
    await until(condition('ReleaseAccepted'), (out) => out.startsWith('True|PayloadLoaded|'));
    const risks = await until(`oc get clusterversion version -o jsonpath='{.status.history[0].version}|{.status.history[0].acceptedRisks}'`, (out) => out.startsWith(`${NEXT.version}|`));
    expect(risks).to.include(`Forced through blocking failures: Precondition "ClusterVersionUpgradeable" failed because of "DegradedPool": ${DEGRADED_POOL_MESSAGE}`);
  });

  it('4.19\'s CVO, once it runs: ClusterVersion is not upgradeable while the update is in progress (OTA-861)', async () => {
    const up = await until(condition('Upgradeable'), (out) => out.includes('UpdateInProgress'));
    expect(up).to.match(/^False\|(UpdateInProgress|MultipleReasons)\|/);
    expect(up).to.include('An update is already in progress and the details are in the Progressing condition');
  });
});
