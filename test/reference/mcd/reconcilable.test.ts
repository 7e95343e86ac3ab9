/**
 * What the 4.12 daemon refuses to change on a running node (update.go reconcilable at 3943ef1d0), in its words,
 * and the authorized_keys it writes for core.
 */
import { expect } from 'chai';
import { authorizedKeysOf, unreconcilableMessage, unreconcilableReason } from '../../../reference/mcd/reconcilable.js';
import type { IgnitionConfig, MachineConfig } from '../../../reference/mco/types.js';

const KEY = 'ssh-ed25519 AAAA installer';
const mc = (config: IgnitionConfig, spec: Partial<MachineConfig['spec']> = {}): MachineConfig => ({
  metadata: { name: 'rendered-worker-x' },
  spec: { config: { ignition: { version: '3.2.0' }, ...config }, ...spec },
});
const base = mc({ passwd: { users: [{ name: 'core', sshAuthorizedKeys: [KEY] }] }, storage: { files: [{ path: '/etc/a', contents: { source: 'data:,a' } }] } });
const withStorage = (extra: Record<string, unknown>): MachineConfig => mc({ ...base.spec.config, storage: { ...base.spec.config!.storage, ...extra } });
const withUsers = (users: unknown[]): MachineConfig => mc({ ...base.spec.config, passwd: { users: users as never } });

describe('reference daemon: what cannot change in place (4.12 reconcilable)', () => {
  it('files, units, kernel arguments and core\'s SSH keys are reconcilable; an empty list is an absent one', () => {
    expect(unreconcilableReason(base, base)).to.equal(undefined);
    expect(unreconcilableReason(base, withUsers([{ name: 'core', sshAuthorizedKeys: [KEY, 'ssh-rsa BBBB test'] }]))).to.equal(undefined);
    expect(unreconcilableReason(base, withStorage({ disks: [] }))).to.equal(undefined);
    expect(unreconcilableReason(base, mc({ ...base.spec.config, systemd: { units: [{ name: 'a.service', enabled: true }] } }, { kernelArguments: ['nosmt'] }))).to.equal(undefined);
  });

  it('refuses disks, filesystems, raid, directories and new links, in the order the daemon checks them', () => {
    expect(unreconcilableReason(base, withStorage({ disks: [{ device: '/one' }] }))).to.equal('ignition disks section contains changes');
    expect(unreconcilableReason(base, withStorage({ filesystems: [{ device: '/dev/vdb', format: 'xfs' }] }))).to.equal('ignition filesystems section contains changes');
    expect(unreconcilableReason(base, withStorage({ raid: [{ name: 'md0', level: 'raid1', devices: ['/a', '/b'] }] }))).to.equal('ignition raid section contains changes');
    expect(unreconcilableReason(base, withStorage({ directories: [{ path: '/etc/d' }] }))).to.equal('ignition directories section contains changes');
    expect(unreconcilableReason(base, withStorage({ links: [{ path: '/etc/l', target: '/etc/a' }] }))).to.equal('ignition links section contains changes');
    expect(unreconcilableReason(base, withStorage({ disks: [{ device: '/one' }], directories: [{ path: '/d' }] }))).to.equal('ignition disks section contains changes');
    // links may go away (an old config's links dropped on upgrade)
    expect(unreconcilableReason(withStorage({ links: [{ path: '/etc/l', target: '/etc/a' }] }), base)).to.equal(undefined);
  });

  it('refuses an append, a FIPS change and every passwd change but core\'s keys', () => {
    expect(unreconcilableReason(base, withStorage({ files: [{ path: '/etc/b', append: [{ source: 'data:,x' }] }] }))).to.equal('ignition file /etc/b includes append');
    expect(unreconcilableReason(base, mc(base.spec.config!, { fips: true }))).to.equal('detected change to FIPS flag; refusing to modify FIPS on a running cluster');
    expect(unreconcilableReason(base, mc({ ...base.spec.config, passwd: { ...base.spec.config!.passwd, groups: [{ name: 'g' }] } }))).to.equal('ignition Passwd Groups section contains changes');
    expect(unreconcilableReason(base, withUsers([]))).to.equal('ignition passwd user section contains unsupported changes: user core may not be deleted');
    expect(unreconcilableReason(base, withUsers([{ name: 'core', sshAuthorizedKeys: [KEY] }, { name: 'bob', sshAuthorizedKeys: [KEY] }]))).to.equal('ignition passwd user section contains unsupported changes: non-core user');
    expect(unreconcilableReason(base, withUsers([{ name: 'core' }]))).to.equal('ignition passwd user section contains unsupported changes: user must be core and have 1 or more sshKeys');
    expect(unreconcilableReason(base, withUsers([{ name: 'core', sshAuthorizedKeys: [KEY], shell: '/bin/zsh' }]))).to.equal('ignition passwd user section contains unsupported changes: non-sshKey changes');
  });

  it('wraps the reason as update() does, and writes every key of every user, one per line', () => {
    expect(unreconcilableMessage('rendered-worker-a', 'rendered-worker-b', 'ignition disks section contains changes')).to.equal(
      "can't reconcile config rendered-worker-a with rendered-worker-b: ignition disks section contains changes",
    );
    expect(authorizedKeysOf({ passwd: { users: [{ name: 'core', sshAuthorizedKeys: ['k1', 'k2'] }, { name: 'core', sshAuthorizedKeys: ['k3'] }] } })).to.equal('k1\nk2\nk3\n');
    expect(authorizedKeysOf({})).to.equal(undefined);
  });
});
