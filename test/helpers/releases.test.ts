/**
 * The suite's table of releases (helpers/releases/): chosen by the version ClusterVersion reports, each row the one
 * before it plus what changed upstream, a release past the table read with a warning, one before it refused.
 */
import { expect } from 'chai';
import { releaseRules, UnknownReleaseError } from '../../helpers/releases/select.js';
import { RELEASES } from '../../helpers/releases/table.js';
import { kubeletMinor, kubernetesMinorOf, parseOpenShiftVersion } from '../../helpers/releases/version.js';

const rules = (version: string) => releaseRules(version).rules;

describe('helpers: the releases the suite knows', () => {
  it('parses versions as ClusterVersion writes them, and nothing else', () => {
    expect(parseOpenShiftVersion('4.21.3')).to.deep.include({ major: 4, minor: 21, patch: 3 });
    expect(parseOpenShiftVersion('4.22.0-0.nightly-2026-08-21-101010')).to.deep.include({ minor: 22, patch: 0, pre: '0.nightly-2026-08-21-101010' });
    expect(parseOpenShiftVersion('4.12.0-rc.1')).to.deep.include({ minor: 12, pre: 'rc.1' });
    for (const bad of ['', 'quay.io/openshift-release-dev/ocp-release:4.21.3-x86_64', 'latest', '4']) expect(parseOpenShiftVersion(bad), bad).to.equal(undefined);
  });

  it('knows every minor from 4.12 to 4.22, once each, in order', () => {
    expect(RELEASES.map((r) => r.release)).to.deep.equal(['4.12', '4.13', '4.14', '4.15', '4.16', '4.17', '4.18', '4.19', '4.20', '4.21', '4.22']);
    expect(RELEASES.map((r) => r.minor)).to.deep.equal([12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22]);
  });

  it('chooses the row by minor, whatever the patch or pre-release', () => {
    expect(rules('4.21.0-ec.3').release).to.equal('4.21');
    expect(rules('4.18.27').release).to.equal('4.18');
    expect(releaseRules('4.20.1')).to.deep.include({ vouched: true, version: '4.20.1' });
  });

  it('reads a release past the table by the newest row, warning what it cannot vouch for', () => {
    const later = releaseRules('4.23.0');
    expect(later.vouched).to.equal(false);
    expect(later.rules.release).to.equal('4.22');
    expect(later.warning).to.match(/4\.23 \(4\.23\.0\) is newer than the releases ocp-e2e knows \(4\.12 to 4\.22\)/).and.match(/texts/);
  });

  it('refuses a release before the table, and what is no OpenShift 4 version, saying which it knows', () => {
    expect(() => releaseRules('4.11.9')).to.throw(UnknownReleaseError, /4\.11 \(4\.11\.9\) is older than any release ocp-e2e knows \(4\.12 to 4\.22\)/);
    expect(() => releaseRules('3.11.0')).to.throw(UnknownReleaseError, /not an OpenShift 4 version/);
    expect(() => releaseRules('')).to.throw(UnknownReleaseError);
  });

  it('says where each release records its OS image and how the merge treats the templates', () => {
    expect(rules('4.12.0').payload.baseOsTag).to.equal('rhel-coreos-8');
    expect(rules('4.13.0').payload.baseOsTag).to.equal('rhel-coreos');
    expect(rules('4.14.0').payload.osTags).to.include('machine-os-content');
    expect(rules('4.15.0').payload.osTags).to.not.include('machine-os-content');
    expect(rules('4.20.0').payload.osTags).to.not.include('rhel-coreos-10');
    expect(rules('4.21.0').payload.osTags).to.include.members(['rhel-coreos-10', 'rhel-coreos-10-extensions']);
    for (const r of RELEASES) {
      const before421 = r.minor <= 20;
      expect(r.render.templatesCarryOsImage, r.release).to.equal(before421);
      expect(r.render.generatedConfigsInOsImageMerge, r.release).to.equal(before421);
    }
  });

  it("says each release's daemon wording, booted-image check, operator loop and node signals", () => {
    expect(rules('4.13.0').daemon.failedRebase).to.deep.equal(['inspect-then-legacy']);
    expect(rules('4.15.0').daemon.failedRebase).to.deep.equal(['rebase-error']);
    expect(rules('4.21.0').daemon.failedRebase).to.deep.equal(['retries-timeout']);
    expect(rules('4.22.0').daemon.failedRebase).to.deep.equal(['retries-timeout', 'retries-last-error']);
    expect(['4.17.0', '4.18.0', '4.19.0'].map((v) => rules(v).daemon.bootedImageCheck)).to.deep.equal(['pullspec-or-commit', 'changed-in-z-stream', 'exact-pullspec']);
    expect(rules('4.13.0').operator.requiredPoolsTimeout).to.deep.equal({ minutes: 10, perRequiredMachine: false });
    expect(rules('4.14.0').operator).to.deep.include({ requiredPoolsTimeout: { minutes: 10, perRequiredMachine: true }, requiredPoolsNoun: 'MachineConfigPool' });
    expect(['4.19.0', '4.20.0'].map((v) => rules(v).operator.stopsOnAnyDegradedPool)).to.deep.equal([false, true]);
    expect(['4.15.0', '4.16.0', '4.19.0'].map((v) => rules(v).operator.poolUpdatingReason)).to.deep.equal(['yes', 'maybe', 'no']);
    expect(['4.15.0', '4.16.0', '4.19.0'].map((v) => rules(v).nodes.machineConfigNodes)).to.deep.equal(['none', 'gated', 'v1']);
    expect(['4.17.0', '4.18.0', '4.19.0', '4.22.0'].map((v) => rules(v).imageMode)).to.deep.equal(['gated', 'default-from-z', 'ga', 'ga']);
    expect(['4.19.0', '4.21.0', '4.22.0'].map((v) => rules(v).imageModeBuildBase)).to.deep.equal(['release-base', 'release-base', 'rendered-os-image']);
    expect(['4.18.0', '4.19.0', '4.20.0', '4.22.0'].map((v) => rules(v).imageModeNewImageOn)).to.deep.equal(['every-rendered-config', 'every-rendered-config', 'image-inputs-change', 'image-inputs-change']);
  });

  it('maps OpenShift minors to the Kubernetes minors their kubelets report', () => {
    expect(kubernetesMinorOf(12)).to.equal(25);
    expect(kubernetesMinorOf(22)).to.equal(35);
    expect(kubeletMinor('v1.34.2')).to.equal(34);
    expect(kubeletMinor('v1.31.14+a1b2c3d')).to.equal(31);
    expect(kubeletMinor('2.0.0')).to.equal(undefined);
  });
});
