/**
 * The two classes of a custom image the daemon cannot move a node to (specs 06 and 08), read from 4.12's reasons
 * and from the later wording QE's case 54052 accepts: each reason is of one class, never of the other.
 */
import { expect } from 'chai';
import { osImageFailureClass } from '../../helpers/facts/os-image-failure.js';

const IMAGE = `127.0.0.1:5000/ocp-e2e/layered@sha256:${'1'.repeat(64)}`;
const REPO = '/run/mco-machine-os-content/os-content-42/srv/repo';
const NOT_PULLABLE = `Error checking type of update image: failed to run command podman (6 tries): [timed out waiting for the condition, running podman pull -q --authfile /var/lib/kubelet/config.json ${IMAGE} failed: Error: initializing source docker://${IMAGE}: manifest unknown\n: exit status 125]`;
const NOT_BOOTABLE = `failed to update OS to ${IMAGE} : error running ostree refs --repo ${REPO}: exit status 1\nerror: opening repo: opendir(${REPO}): No such file or directory\n`;

describe('helpers: why a node could not move to a custom OS image', () => {
  it('4.12\'s inspection failure is not pullable, its legacy-path failure not bootable', () => {
    expect(osImageFailureClass(NOT_PULLABLE, IMAGE)).to.equal('not pullable');
    expect(osImageFailureClass(NOT_BOOTABLE, IMAGE)).to.equal('not bootable');
  });
  it('a later release\'s rpm-ostree refusal naming ostree.bootable is not bootable', () => {
    expect(osImageFailureClass(`failed to update OS to ${IMAGE} : error running rpm-ostree rebase --experimental ostree-unverified-registry:${IMAGE}: error: Image is not bootable: missing label ostree.bootable\n: exit status 1`, IMAGE)).to.equal('not bootable');
  });
  it('a reason about another image, or another failure, has no class', () => {
    expect(osImageFailureClass(NOT_PULLABLE, 'quay.io/other:1')).to.equal(undefined);
    expect(osImageFailureClass(NOT_BOOTABLE.replace(IMAGE, 'quay.io/other:1'), IMAGE)).to.equal(undefined);
    expect(osImageFailureClass(`failed to update OS to ${IMAGE} : error running rpm-ostree rebase --experimental ostree-unverified-registry:${IMAGE}: error: No enabled repositories\n: exit status 1`, IMAGE)).to.equal(undefined);
  });
});
