import { expect } from 'chai';
import { gzipSync } from 'node:zlib';
import { changedFilePaths, configDiff, decodeFileContents, invalidExtensions, nodeConfigOf, osChangesString, postConfigChangeAction } from '../../../reference/mcd/node-config.js';
import type { MachineConfig, MachineConfigSpec } from '../../../reference/mco/types.js';

const mc = (spec: MachineConfigSpec): MachineConfig => ({ metadata: { name: 'rendered-worker-x' }, spec: { config: { ignition: { version: '3.2.0' } }, ...spec } });
const files = (...f: Array<{ path: string; source: string; mode?: number }>): MachineConfigSpec => ({
  config: { ignition: { version: '3.2.0' }, storage: { files: f.map((x) => ({ path: x.path, mode: x.mode, contents: { source: x.source } })) } },
});

describe('reference daemon: what a MachineConfig puts on a node and what changing it costs (4.12 update.go)', () => {
  it('decodes Ignition file contents: percent-encoded and base64 data: URLs, gzip, an empty source', () => {
    expect(decodeFileContents({ path: '/a', contents: { source: 'data:,hello%20world%0A' } }).toString()).to.equal('hello world\n');
    expect(decodeFileContents({ path: '/a', contents: { source: `data:text/plain;charset=utf-8;base64,${Buffer.from('b64\n').toString('base64')}` } }).toString()).to.equal('b64\n');
    expect(decodeFileContents({ path: '/a', contents: { source: `data:;base64,${gzipSync(new Uint8Array(Buffer.from('zipped'))).toString('base64')}`, compression: 'gzip' } }).toString()).to.equal('zipped');
    expect(decodeFileContents({ path: '/a' }).length).to.equal(0);
    expect(() => decodeFileContents({ path: '/a', contents: { source: 'https://example.com/x' } })).to.throw(/reads only data: URLs/);
    // upstream writeFiles' errors (DecodeIgnitionFileContents over Go's gzip reader), not zlib's
    expect(() => decodeFileContents({ path: '/etc/a', contents: { source: 'data:,plain', compression: 'gzip' } })).to.throw('could not decode file "/etc/a": could not create gzip reader: unexpected EOF');
    expect(() => decodeFileContents({ path: '/etc/a', contents: { source: 'data:,plain%20text%20long%20enough', compression: 'gzip' } })).to.throw('could not decode file "/etc/a": could not create gzip reader: gzip: invalid header');
    expect(() => decodeFileContents({ path: '/etc/a', contents: { source: 'data:,x', compression: 'xz' } })).to.throw('could not decode file "/etc/a": unsupported compression type "xz"');
  });

  it('records files (mode 0644 unless given), units, kernel arguments, extensions, kernel type and the extensions image', () => {
    const config = nodeConfigOf(mc({
      ...files({ path: '/etc/a', source: 'data:,x', mode: 0o600 }, { path: '/etc/b', source: 'data:,y' }),
      kernelArguments: ['nosmt'], extensions: ['usbguard'], kernelType: 'realtime', baseOSExtensionsContainerImage: 'r/ext@sha256:1',
    }));
    expect(config.files.map((f) => [f.path, f.mode, f.contents.toString()])).to.deep.equal([['/etc/a', 0o600, 'x'], ['/etc/b', 0o644, 'y']]);
    expect(config.deployment).to.deep.equal({ kernelArguments: ['nosmt'], extensions: ['usbguard'], extensionsImage: 'r/ext@sha256:1', kernelType: 'realtime' });
    expect(nodeConfigOf(undefined).deployment).to.deep.equal({ kernelArguments: [], extensions: [], extensionsImage: undefined, kernelType: 'default' });
  });

  it('reboots for OS image, kernel arguments, extensions, kernel type, units and most files; not for SSH keys and the few files 4.12 lists', () => {
    const base = mc({ osImageURL: 'r/os@1', ...files({ path: '/etc/kubernetes/kubelet-ca.crt', source: 'data:,ca1' }) });
    const action = (spec: MachineConfigSpec) => {
      const from = nodeConfigOf(base);
      const to = nodeConfigOf(mc({ osImageURL: 'r/os@1', ...files({ path: '/etc/kubernetes/kubelet-ca.crt', source: 'data:,ca1' }), ...spec }));
      return postConfigChangeAction(configDiff(from, to), changedFilePaths(from, to));
    };
    expect(action({})).to.equal('none');
    expect(action({ osImageURL: 'r/os@2' })).to.equal('reboot');
    expect(action({ kernelArguments: ['nosmt'] })).to.equal('reboot');
    expect(action({ extensions: ['usbguard'] })).to.equal('reboot');
    expect(action({ kernelType: 'realtime' })).to.equal('reboot');
    // an empty kernelType is the default kernel, and an empty list is no list
    expect(action({ kernelType: 'default', kernelArguments: [], extensions: null })).to.equal('none');
    expect(action({ config: { ignition: { version: '3.2.0' }, storage: { files: [{ path: '/etc/kubernetes/kubelet-ca.crt', contents: { source: 'data:,ca1' } }] }, systemd: { units: [{ name: 'a.service', enabled: true }] } } })).to.equal('reboot');
    expect(action(files({ path: '/etc/kubernetes/kubelet-ca.crt', source: 'data:,ca2' }))).to.equal('none');
    expect(action(files({ path: '/etc/kubernetes/kubelet-ca.crt', source: 'data:,ca1' }, { path: '/etc/containers/registries.conf', source: 'data:,r' }))).to.equal('reload crio');
    expect(action(files({ path: '/etc/kubernetes/kubelet-ca.crt', source: 'data:,ca1' }, { path: '/etc/containers/registries.conf', source: 'data:,r' }, { path: '/etc/other', source: 'data:,o' }))).to.equal('reboot');
    // removing a file is a change of that path too
    expect(action(files())).to.equal('none');
    expect(changedFilePaths(nodeConfigOf(base), nodeConfigOf(mc(files())))).to.deep.equal(['/etc/kubernetes/kubelet-ca.crt']);
    const ssh = { config: { ignition: { version: '3.2.0' }, storage: { files: [{ path: '/etc/kubernetes/kubelet-ca.crt', contents: { source: 'data:,ca1' } }] }, passwd: { users: [{ name: 'core', sshAuthorizedKeys: ['ssh-ed25519 AAAA new'] }] } } };
    expect(action(ssh)).to.equal('none');
    expect(configDiff(nodeConfigOf(base), nodeConfigOf(mc({ osImageURL: 'r/os@1', ...ssh }))).passwd).to.equal(true);
  });

  it('refuses extensions 4.12 does not ship, in validateExtensions\' words, and names the OS changes as osChangesString does', () => {
    expect(invalidExtensions(['usbguard', 'kerberos', 'kernel-devel', 'sandboxed-containers'])).to.equal(undefined);
    expect(invalidExtensions(['usbguard', 'zsh', 'wasm'])).to.equal('invalid extensions found: [zsh wasm]');
    const diff = configDiff(nodeConfigOf(mc({})), nodeConfigOf(mc({ osImageURL: 'x', kernelArguments: ['a'], extensions: ['usbguard'], kernelType: 'realtime' })));
    expect(osChangesString(diff)).to.equal('Upgrading OS; Installing extensions; Changing kernel type; Changing kernel arguments');
  });
});
