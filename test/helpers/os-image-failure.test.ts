/**
 * The two classes of a custom image the daemon cannot move a node to (specs 06 and 08), read in each release's own
 * words: 4.12's inspection and legacy path, 4.14's rpm-ostree stderr, 4.16-4.21's bare retry timeout (the class then
 * only in the daemon's log), 4.22's last error, and past the table QE's tolerant reading. Each reason is of one class,
 * never of the other.
 */
import { expect } from 'chai';
import { osImageFailureClassInDaemonLog, readOsImageFailure } from '../../helpers/facts/os-image-failure.js';
import { releaseRules } from '../../helpers/releases/select.js';

const IMAGE = `127.0.0.1:5000/ocp-e2e/layered@sha256:${'1'.repeat(64)}`;
const OTHER = 'quay.io/other:1';
const REPO = '/run/mco-machine-os-content/os-content-42/srv/repo';
const PULL_ERROR = `error: Creating importer: failed to invoke method OpenImage: reading manifest sha256:${'1'.repeat(64)} in 127.0.0.1:5000/ocp-e2e/layered: manifest unknown`;
const BOOT_ERROR = 'error: Image is not bootable: missing label ostree.bootable';
const rebase = (error: string) => `error running rpm-ostree rebase --experimental ostree-unverified-registry:${IMAGE}: ${error}\n: exit status 1`;

const NOT_PULLABLE_412 = `Error checking type of update image: failed to run command podman (6 tries): [timed out waiting for the condition, running podman pull -q --authfile /var/lib/kubelet/config.json ${IMAGE} failed: Error: initializing source docker://${IMAGE}: manifest unknown\n: exit status 125]`;
const NOT_BOOTABLE_412 = `failed to update OS to ${IMAGE} : error running ostree refs --repo ${REPO}: exit status 1\nerror: opening repo: opendir(${REPO}): No such file or directory\n`;
const TIMEOUT_416 = `Failed to update OS to ${IMAGE} after retries: timed out waiting for the condition`;
const LAST_ERROR_422 = (error: string) => `failed to update OS to ${IMAGE} after retries: ${rebase(error)}: timed out waiting for the condition`;

const on = (version: string) => releaseRules(version);
const classOf = (reason: string, version: string, image = IMAGE) => readOsImageFailure(reason, image, on(version))?.class;

describe('helpers: why a node could not move to a custom OS image, per release', () => {
  it("4.12's and 4.13's inspection failure is not pullable, their legacy-path failure not bootable", () => {
    for (const version of ['4.12.0', '4.13.4']) {
      expect(classOf(NOT_PULLABLE_412, version), version).to.equal('not pullable');
      expect(classOf(NOT_BOOTABLE_412, version), version).to.equal('not bootable');
    }
    expect(classOf(`failed to update OS to ${IMAGE} : ${rebase(BOOT_ERROR)}`, '4.12.0'), 'rpm-ostree naming ostree.bootable').to.equal('not bootable');
  });

  it("4.14-4.15 read rpm-ostree's stderr in the reason; 4.12's words are not theirs", () => {
    expect(classOf(`failed to update OS to ${IMAGE} : ${rebase(PULL_ERROR)}`, '4.14.10')).to.equal('not pullable');
    expect(classOf(`failed to update OS to ${IMAGE} : ${rebase(BOOT_ERROR)}`, '4.15.2')).to.equal('not bootable');
    expect(readOsImageFailure(NOT_PULLABLE_412, IMAGE, on('4.14.10')), 'the inspection path was removed in 4.14').to.equal(undefined);
  });

  it('4.16-4.21: the reason is a failed update whose class it does not say; the daemon log says it', () => {
    for (const version of ['4.16.0', '4.18.20', '4.21.3']) {
      const reading = readOsImageFailure(TIMEOUT_416, IMAGE, on(version));
      expect(reading, version).to.deep.equal({ wording: 'retries-timeout' });
    }
    const log = (error: string) =>
      [`I1207 10:00:00.000000 1 update.go:2641] Running: rpm-ostree rebase --experimental ostree-unverified-registry:${IMAGE}`, `E1207 10:00:05.000000 1 update.go:2702] Failed to update OS to ${IMAGE} (will retry): ${rebase(error)}`].join('\n');
    expect(osImageFailureClassInDaemonLog(log(PULL_ERROR), IMAGE)).to.equal('not pullable');
    expect(osImageFailureClassInDaemonLog(log(BOOT_ERROR), IMAGE)).to.equal('not bootable');
    expect(osImageFailureClassInDaemonLog(log(BOOT_ERROR), OTHER), 'a log about another image').to.equal(undefined);
    expect(osImageFailureClassInDaemonLog(`${log(PULL_ERROR)}\n${log(BOOT_ERROR).split('\n')[1]}`, IMAGE), 'the last try counts').to.equal('not bootable');
  });

  it('4.22 reads the last rpm-ostree error, and the bare timeout of its earlier z-streams', () => {
    expect(classOf(LAST_ERROR_422(PULL_ERROR), '4.22.5')).to.equal('not pullable');
    expect(classOf(LAST_ERROR_422(BOOT_ERROR), '4.22.5')).to.equal('not bootable');
    expect(readOsImageFailure(TIMEOUT_416, IMAGE, on('4.22.0'))).to.deep.equal({ wording: 'retries-timeout' });
  });

  it("past the table, QE's tolerant reading accepts every release's words", () => {
    expect(on('4.23.0').vouched).to.equal(false);
    expect(classOf(NOT_PULLABLE_412, '4.23.0')).to.equal('not pullable');
    expect(classOf(NOT_BOOTABLE_412, '4.23.0')).to.equal('not bootable');
    expect(classOf(LAST_ERROR_422(PULL_ERROR), '4.23.0')).to.equal('not pullable');
    expect(classOf(LAST_ERROR_422(BOOT_ERROR).replace('failed to update', 'Failed to update'), '4.23.0')).to.equal('not bootable');
    expect(readOsImageFailure(TIMEOUT_416, IMAGE, on('4.23.0'))).to.deep.equal({ wording: 'tolerant' });
  });

  it('a reason about another image, or another failure, is no reading of either class', () => {
    expect(readOsImageFailure(NOT_PULLABLE_412, OTHER, on('4.12.0'))).to.equal(undefined);
    expect(readOsImageFailure(NOT_BOOTABLE_412.replace(IMAGE, OTHER), IMAGE, on('4.12.0'))).to.equal(undefined);
    expect(readOsImageFailure(TIMEOUT_416, OTHER, on('4.20.1'))).to.equal(undefined);
    expect(readOsImageFailure(TIMEOUT_416, OTHER, on('4.23.0'))).to.equal(undefined);
    for (const version of ['4.12.0', '4.14.1', '4.22.5']) {
      const noRepos = version === '4.22.5' ? LAST_ERROR_422('error: No enabled repositories') : `failed to update OS to ${IMAGE} : ${rebase('error: No enabled repositories')}`;
      expect(readOsImageFailure(noRepos, IMAGE, on(version)), version).to.equal(undefined);
    }
  });
});
