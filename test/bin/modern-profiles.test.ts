/**
 * The whole suite on each profile of today's releases (issue 42's acceptance: every spec passes or is skipped with its
 * reason before cluster time), with what each release changes in the verdicts visible in the output: 4.16+'s failed
 * rebase worded as a retry timeout (the class then read from the daemon's log), 4.21's early override that wins, and
 * the kubelet an overridden pool keeps holding 4.22 back from 4.23 but not 4.21 from 4.22. The EUS path 4.20 -> 4.21 ->
 * 4.22 runs on one cluster (--one-cluster), its shared upgrade going hop by hop.
 */
import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { lastLine, ocpE2e, whatFailed } from '../support/cli.js';
import { SPEC_COUNT } from './support/spec-files.js';

/** Spec 19 judges an override on an image-mode pool as its build's base, which only 4.22 builds FROM: skipped on upgrades to 4.19-4.21. */
const OVERRIDE_BASE_SPECS = 1;

describe('ocp-e2e run: the whole suite on the profiles of 4.18 to 4.22', function () {
  // whole suites with five image-mode specs, each building its images for real: 2-5 minutes on a shared 2-core machine
  this.timeout(660_000);

  it('4.18-to-4.19: every spec passes; the daemon words a failed rebase as 4.16+ does', async () => {
    const r = await ocpE2e(['run', '--profile', '4.18-to-4.19'], { timeoutMs: 600_000 });
    expect(r.exitCode, whatFailed(r.output)).to.equal(0);
    expect(lastLine(r.output)).to.equal(`${SPEC_COUNT - OVERRIDE_BASE_SPECS} passed, 0 failed, ${OVERRIDE_BASE_SPECS} skipped`);
    expect(r.output).to.include('the upgrade goes to 4.19.0: on OpenShift 4.19 an image-mode build starts FROM the release\'s base OS image');
    expect(r.output).to.match(/degraded: Failed to update OS to \S+ after retries: timed out waiting for the condition/);
    expect(r.output).to.match(/kubelet skew: OpenShift 4\.19\.0 stays upgradeable: \d+ node\(s\) run an older kubelet \(v1\.31\) that OpenShift 4\.20 still supports/);
  });

  it('4.20-to-4.21: every spec passes; the early-named override loses on 4.20, the kept 4.20 kubelets leave 4.21 upgradeable', async () => {
    const r = await ocpE2e(['run', '--profile', '4.20-to-4.21'], { timeoutMs: 600_000 });
    expect(r.exitCode, whatFailed(r.output)).to.equal(0);
    expect(lastLine(r.output)).to.equal(`${SPEC_COUNT - OVERRIDE_BASE_SPECS} passed, 0 failed, ${OVERRIDE_BASE_SPECS} skipped`);
    expect(r.output).to.include('the upgrade goes to 4.21.0: on OpenShift 4.21 an image-mode build starts FROM the release\'s base OS image');
    expect(r.output).to.include('phase check: the worker pool still runs the release OS image');
    expect(r.output).to.match(/kubelet skew: OpenShift 4\.21\.0 stays upgradeable/);
  });

  it('4.20-to-4.22 on one cluster: the shared upgrade goes 4.20 -> 4.21 -> 4.22 hop by hop, every spec passes and judges both hops', async () => {
    const r = await ocpE2e(['run', '--profile', '4.20-to-4.22', '--one-cluster'], { timeoutMs: 600_000 });
    expect(r.exitCode, whatFailed(r.output)).to.equal(0);
    expect(lastLine(r.output)).to.match(/^\d+ passed, 0 failed, 0 skipped$/);
    expect(r.output).to.match(/upgrade path, hop by hop: 4\.21\.0 \(\S+:4\.21\.0\) -> 4\.22\.0 \(\S+:4\.22\.0\)/);
    // the second hop is asked for only once the first settled
    expect(r.output).to.match(/upgrade to \S+:4\.21\.0 requested[\s\S]*settle at 4\.21\.0[\s\S]*upgrade to \S+:4\.22\.0 requested/);
    // a pool kept on its 4.20 image is two kubelet minors behind 4.22: fine for 4.22, not for 4.23
    expect(r.output).to.match(/kubelet skew: OpenShift 4\.22\.0 is not upgradeable to 4\.23 \(KubeletMinorVersion_KubeletMinorVersionUnsupportedNextUpgrade\): nodes .* run kubelet v1\.33, the kubelet of the custom OS image they keep, built on OpenShift 4\.20/);
    // every upgrade spec's checkpoint holds the path: 4.20 to 4.22, with the 4.21 hop recorded before it
    const dir = join(r.reportsDir, 'checkpoints');
    const upgrades = readdirSync(dir).map((f) => (JSON.parse(readFileSync(join(dir, f), 'utf8')) as { upgrade?: { from: string; version: string; earlierHops?: Array<{ from: string; version: string }> } }).upgrade).filter((u) => u !== undefined);
    expect(upgrades.length).to.be.greaterThan(5);
    for (const u of upgrades) expect([u.from, u.earlierHops?.map((h) => `${h.from}->${h.version}`), u.version]).to.deep.equal(['4.20.0', ['4.20.0->4.21.0'], '4.22.0']);
  });

  it('4.21-to-4.22: every spec passes; the early-named override wins on 4.21, the kept 4.21 kubelets hold 4.22 back from 4.23', async () => {
    const r = await ocpE2e(['run', '--profile', '4.21-to-4.22'], { timeoutMs: 600_000 });
    expect(r.exitCode, whatFailed(r.output)).to.equal(0);
    expect(lastLine(r.output)).to.equal(`${SPEC_COUNT} passed, 0 failed, 0 skipped`);
    expect(r.output).to.include('phase check: the worker pool runs the override: on 4.21 the templates carry no osImageURL');
    expect(r.output).to.match(/kubelet skew: OpenShift 4\.22\.0 is not upgradeable to 4\.23 \(KubeletMinorVersion_KubeletMinorVersionUnsupportedNextUpgrade\): nodes \S+/);
    expect(r.output).to.match(/kubelet skew: OpenShift 4\.22\.0: every kubelet is the release's own \(v1\.35\)/);
  });
});
