import { expect } from 'chai';
import { overrideMachineConfig, type MachineConfigOverride } from '../../helpers/machineconfigs.js';
import { checkFileModes, parseIgnition } from '../../reference/mco/ignition/index.js';

const IMAGE = 'r/layered@sha256:1111111111111111111111111111111111111111111111111111111111111111';

/** What the MCO reads from a data URL (base64 or percent-encoded). */
function decodeDataUrl(source: string): string {
  const m = /^data:([^,]*),(.*)$/s.exec(source);
  if (!m) throw new Error(`not a data URL: ${source}`);
  return m[1]!.endsWith(';base64') ? Buffer.from(m[2]!, 'base64').toString('utf8') : decodeURIComponent(m[2]!);
}

describe('helpers: an override says what it sets, and its MachineConfig carries exactly that', () => {
  it("an override of the OS image alone is the report's MachineConfig, byte for byte", () => {
    const mc = overrideMachineConfig({ name: 'tc-54183-new-os-image-upgrade-worker', role: 'worker', osImageURL: IMAGE }, 'run-1');
    expect(JSON.stringify(mc)).to.equal(
      '{"apiVersion":"machineconfiguration.openshift.io/v1","kind":"MachineConfig","metadata":{"name":"tc-54183-new-os-image-upgrade-worker",' +
        '"labels":{"machineconfiguration.openshift.io/role":"worker","ocp-e2e.io/run-id":"run-1"}},' +
        `"spec":{"osImageURL":"${IMAGE}"}}`,
    );
  });

  it('kernel arguments, extensions, the kernel type, files and units, in the order of the MCO\'s MachineConfigSpec', () => {
    const override: MachineConfigOverride = {
      name: 'tc-e2e-kargs-worker',
      role: 'worker',
      osImageURL: IMAGE,
      kernelArguments: ['nosmt', 'ocp-e2e.marker=1'],
      extensions: ['usbguard'],
      kernelType: 'realtime',
      files: [
        { path: '/etc/ocp-e2e/marker', contents: 'layered 54183\nä, 100% & more\n' },
        { path: '/usr/local/bin/ocp-e2e-hello', contents: '#!/bin/sh\necho hello\n', mode: 0o755 },
      ],
      units: [
        { name: 'ocp-e2e-hello.service', enabled: true, contents: '[Unit]\nDescription=hello\n[Service]\nExecStart=/usr/local/bin/ocp-e2e-hello\n[Install]\nWantedBy=multi-user.target\n' },
        { name: 'chronyd.service', enabled: false },
      ],
    };
    const { spec } = overrideMachineConfig(override, 'run-1');
    expect(Object.keys(spec!)).to.deep.equal(['osImageURL', 'config', 'kernelArguments', 'extensions', 'kernelType']);
    expect(spec!.kernelArguments).to.deep.equal(['nosmt', 'ocp-e2e.marker=1']);
    expect(spec!.extensions).to.deep.equal(['usbguard']);
    expect(spec!.kernelType).to.equal('realtime');
    const config = spec!.config as { ignition: unknown; storage: { files: { path: string; mode: number; overwrite: boolean; contents: { source: string } }[] }; systemd: { units: unknown[] } };
    expect(config.ignition).to.deep.equal({ version: '3.2.0' });
    expect(config.storage.files.map((f) => [f.path, f.mode, f.overwrite, decodeDataUrl(f.contents.source)])).to.deep.equal([
      ['/etc/ocp-e2e/marker', 0o644, true, 'layered 54183\nä, 100% & more\n'],
      ['/usr/local/bin/ocp-e2e-hello', 0o755, true, '#!/bin/sh\necho hello\n'],
    ]);
    expect(config.systemd.units).to.deep.equal([
      { contents: override.units![0]!.contents, enabled: true, name: 'ocp-e2e-hello.service' },
      { enabled: false, name: 'chronyd.service' },
    ]);
  });

  it("the files and units pass the MCO's Ignition parsing (the reference's copy of its checks)", () => {
    const { spec } = overrideMachineConfig(
      { name: 'x', role: 'worker', files: [{ path: '/etc/a', contents: 'a' }, { path: '/etc/b', contents: '', mode: 0o600 }], units: [{ name: 'a.service', enabled: true, contents: '[Unit]\n' }] },
      'run-1',
    );
    const parsed = parseIgnition(spec!.config);
    expect(parsed.spec).to.equal('3.2');
    expect(() => checkFileModes(parsed)).to.not.throw();
    expect(() => parseIgnition(overrideMachineConfig({ name: 'x', role: 'worker', files: [{ path: 'etc/a', contents: 'a' }] }, 'r').spec!.config)).to.throw(/path not absolute/);
  });

  it('only what is set: no Ignition config without files or units, nothing empty', () => {
    expect(overrideMachineConfig({ name: 'x', role: 'master', kernelArguments: ['nosmt'], extensions: [] }, 'r').spec).to.deep.equal({ kernelArguments: ['nosmt'] });
    expect(() => overrideMachineConfig({ name: 'x', role: 'master' }, 'r')).to.throw(/override x sets nothing/);
  });
});
