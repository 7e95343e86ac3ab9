/**
 * The extensions repository an OS update needs (OCPBUGS-2271): which updates find none with the code of upstream's
 * buggy window (3943ef1d0 to 343475a^), and the node's reason, in upstream's words.
 */
import { expect } from 'chai';
import { missingExtensionsRepoFailure, rebaseFailureReason } from '../../../reference/mcd/extensions-repo.js';
import type { ConfigDiff } from '../../../reference/mcd/node-config.js';
import type { DeploymentConfig } from '../../../reference/kubelet/hosts.js';

const NO_CHANGE: ConfigDiff = { osUpdate: false, kargs: false, fips: false, passwd: false, files: false, units: false, kernelType: false, extensions: false };
const OS_ONLY: ConfigDiff = { ...NO_CHANGE, osUpdate: true };
const withUsbguard: DeploymentConfig = { kernelArguments: [], extensions: ['usbguard'], kernelType: 'default' };
const realtime: DeploymentConfig = { kernelArguments: [], extensions: [], kernelType: 'realtime' };
const plain: DeploymentConfig = { kernelArguments: [], extensions: [], kernelType: 'default' };
const IMAGE = 'registry.example/ocp/release@sha256:' + 'a'.repeat(64);

describe('reference daemon: the extensions repository of an OS update', () => {
  it('the buggy window: an OS-only update of a deployment with extensions or the realtime kernel fails its rebase', () => {
    const reason = `failed to update OS to ${IMAGE} : error running rpm-ostree rebase --experimental ostree-unverified-registry:${IMAGE}: error: No enabled repositories\n: exit status 1`;
    expect(missingExtensionsRepoFailure(true, IMAGE, OS_ONLY, withUsbguard)).to.equal(reason);
    expect(missingExtensionsRepoFailure(true, IMAGE, OS_ONLY, realtime)).to.equal(reason);
  });

  it('the buggy window: the repository is written when the extensions or the kernel type change with the OS', () => {
    expect(missingExtensionsRepoFailure(true, IMAGE, { ...OS_ONLY, extensions: true }, withUsbguard)).to.equal(undefined);
    expect(missingExtensionsRepoFailure(true, IMAGE, { ...OS_ONLY, kernelType: true }, realtime)).to.equal(undefined);
  });

  it('nothing to layer, or no OS update: no repository is needed', () => {
    expect(missingExtensionsRepoFailure(true, IMAGE, OS_ONLY, plain)).to.equal(undefined);
    expect(missingExtensionsRepoFailure(true, IMAGE, { ...NO_CHANGE, kargs: true }, withUsbguard)).to.equal(undefined);
  });

  it('the fixed code (343475a, 4.12 GA): an OS-only update writes the repository', () => {
    expect(missingExtensionsRepoFailure(false, IMAGE, OS_ONLY, withUsbguard)).to.equal(undefined);
    expect(missingExtensionsRepoFailure(false, IMAGE, OS_ONLY, realtime)).to.equal(undefined);
  });

  it('the reason is cut at 2000 bytes, as SetDegraded cuts it', () => {
    expect(rebaseFailureReason(`r/x:${'y'.repeat(3000)}`, 'boom')).to.have.length(2000);
  });
});
