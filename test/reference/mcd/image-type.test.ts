/**
 * What the 4.12 daemon makes of an osImageURL (IsBootableImage, then the legacy path's ostree commit) and the node's
 * reason for the two failures, in upstream's words: an image that cannot be inspected (QE 54054's class) and one that
 * is no OS image (QE 54052's).
 */
import { expect } from 'chai';
import { BOOTABLE_LABEL, isBootableImage, notAnOsImageReason, OSTREE_COMMIT_LABEL, uninspectableImageReason } from '../../../reference/mcd/image-type.js';
import { createRng } from '../../../reference/rng.js';

const IMAGE = `127.0.0.1:5000/ocp-e2e/layered@sha256:${'1'.repeat(64)}`;

describe('reference daemon: the type of the update image', () => {
  it('only ostree.bootable=true is the new format', () => {
    expect(isBootableImage({ [BOOTABLE_LABEL]: 'true' })).to.equal(true);
    expect(isBootableImage({ [BOOTABLE_LABEL]: 'false' })).to.equal(false);
    expect(isBootableImage({ [BOOTABLE_LABEL]: '' })).to.equal(false);
    expect(isBootableImage({})).to.equal(false);
  });

  it('an image that names its ostree commit, or is bootable, goes through; one with neither fails on ostree refs', () => {
    expect(notAnOsImageReason(IMAGE, { [BOOTABLE_LABEL]: 'true' }, createRng(1))).to.equal(undefined);
    expect(notAnOsImageReason(IMAGE, { [OSTREE_COMMIT_LABEL]: 'abc' }, createRng(1))).to.equal(undefined);
    const reason = notAnOsImageReason(IMAGE, { 'io.openshift.release': '4.12' }, createRng(1))!;
    const repo = /--repo (\/run\/mco-machine-os-content\/os-content-\d+\/srv\/repo):/.exec(reason)?.[1];
    expect(repo, reason).to.be.a('string');
    expect(reason).to.equal(`failed to update OS to ${IMAGE} : error running ostree refs --repo ${repo}: exit status 1\nerror: opening repo: opendir(${repo}): No such file or directory\n`);
    expect(notAnOsImageReason(IMAGE, {}, createRng(1)), 'the folder is drawn from the seed').to.equal(reason);
  });

  it('an image that cannot be inspected: the last podman pull of IsBootableImage, with the registry\'s answer in podman\'s words', () => {
    const cause = `Creating importer: failed to invoke method OpenImage: reading manifest sha256:${'1'.repeat(64)} in 127.0.0.1:5000/ocp-e2e/layered: manifest unknown: manifest unknown`;
    expect(uninspectableImageReason(IMAGE, cause)).to.equal(
      `Error checking type of update image: failed to run command podman (6 tries): [timed out waiting for the condition, running podman pull -q --authfile /var/lib/kubelet/config.json ${IMAGE} failed: Error: initializing source docker://${IMAGE}: reading manifest sha256:${'1'.repeat(64)} in 127.0.0.1:5000/ocp-e2e/layered: manifest unknown: manifest unknown\n: exit status 125]`,
    );
  });

  it('both reasons are cut at 2000 bytes as SetDegraded cuts them', () => {
    expect(uninspectableImageReason(IMAGE, 'x'.repeat(5000))).to.have.length(2000);
    expect(notAnOsImageReason(`r/${'y'.repeat(3000)}`, {}, createRng(2))).to.have.length(2000);
  });
});
