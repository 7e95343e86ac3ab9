import { expect } from 'chai';
import { probeScript, splitProbeOutput } from '../../../helpers/node-os.js';
import { bootedImageProbe, fileProbe, kernelArgumentsProbe, kernelTypeProbe, packageProbe, unitProbe } from '../../../helpers/node-probes.js';
import { runDebugCommand, type HostFiles } from '../../../reference/kubelet/host-shell.js';
import { NodeHosts } from '../../../reference/kubelet/hosts.js';
import { nodeConfigOf } from '../../../reference/mcd/node-config.js';

const D1 = `sha256:${'a'.repeat(64)}`;
const OS = `r/ocp-v4.0-art-dev@${D1}`;
const EXT = `r/ocp-v4.0-art-dev@sha256:${'e'.repeat(64)}`;
const RPMDB = '/usr/share/rpm/ocp-e2e-rpmdb.tsv';

/** An OS image with a kernel and bash, an extensions image with usbguard and the realtime kernel, and machine-os-content-style /extensions. */
const files: HostFiles = {
  async readFile(image, path) {
    const images: Record<string, Record<string, string>> = {
      [OS]: {
        [RPMDB]: 'kernel\t4.18.0\t372.26.1.el8_6\tx86_64\nbash\t4.4.20\t4.el8_6\tx86_64\n',
        '/etc/os-release': 'NAME="RHCOS"\n',
        '/usr/bin/bash': '#!',
        '/usr/lib/systemd/system/chronyd.service': '[Unit]\n[Install]\nWantedBy=multi-user.target\n',
        '/extensions/usbguard/package': 'usbguard\t0.9\t1.el8\tx86_64\n',
      },
      [EXT]: Object.fromEntries(
        ['usbguard\t1.0.0\t8.el8', 'kernel-rt-core\t4.18.0\t372.26.1.rt7.183.el8_6', 'kernel-rt-kvm\t4.18.0\t372.26.1.rt7.183.el8_6'].map((l) => [`/usr/share/rpm-ostree/extensions/${l.split('\t')[0]}/package`, `${l}\tx86_64\n`]),
      ),
    };
    const text = images[image]?.[path];
    return text === undefined ? undefined : Buffer.from(text);
  },
};

function hosts(): NodeHosts {
  return new NodeHosts({ pullspec: OS, content: { digest: D1, osRelease: {}, packages: [] }, timestampMs: 1_000 });
}

async function shell(h: NodeHosts, script: string): Promise<{ output: string; exitCode: number }> {
  return runDebugCommand(['chroot', '/host', 'sh', '-c', script], { node: 'w1', os: h.get('w1'), files });
}

describe('reference host: what a node answers the suite\'s probes, from what it booted and what the daemon applied', () => {
  const [usbguard, kernel, kernelRt] = [packageProbe('usbguard'), packageProbe('kernel'), packageProbe('kernel-rt-core')];
  const probes = [bootedImageProbe, kernelArgumentsProbe, kernelTypeProbe, usbguard, kernel, kernelRt, fileProbe('/etc/motd-e2e'), fileProbe('/etc/os-release'), unitProbe('e2e.service'), unitProbe('chronyd.service')];

  it('a freshly installed node: the image\'s kernel and files, no extras', async () => {
    const h = hosts();
    const r = splitProbeOutput('w1', (await shell(h, probeScript(probes))).output, probes, 'debug pod');
    expect(r.get(bootedImageProbe).image).to.equal(OS);
    expect(r.get(kernelArgumentsProbe)[0]).to.match(/^BOOT_IMAGE=\(hd0,gpt3\)\/ostree\/rhcos-[0-9a-f]{64}\/vmlinuz-4\.18\.0-372\.26\.1\.el8_6\.x86_64$/);
    expect(r.get(kernelArgumentsProbe)).to.include('rw').and.not.include('nosmt');
    expect(r.get(kernelTypeProbe)).to.deep.equal({ kernelType: 'default', release: '4.18.0-372.26.1.el8_6.x86_64' });
    expect(r.get(usbguard)).to.equal(undefined);
    expect(r.get(kernel)).to.equal('kernel-4.18.0-372.26.1.el8_6');
    expect(r.get(fileProbe('/etc/motd-e2e'))).to.deep.equal({ exists: false, says: "stat: cannot stat '/etc/motd-e2e': No such file or directory" });
    expect(r.get(fileProbe('/etc/os-release'))).to.deep.equal({ exists: true, mode: 0o644, contents: 'NAME="RHCOS"\n' });
    expect(r.get(unitProbe('e2e.service'))).to.deep.equal({ state: 'Failed to get unit file state for e2e.service: No such file or directory', enabled: false });
    expect(r.get(unitProbe('chronyd.service')).state).to.equal('disabled');
  });

  it('after the daemon applied a config: its files over the image\'s, its units, the booted kernel arguments, extensions and the realtime kernel', async () => {
    const h = hosts();
    const target = nodeConfigOf({
      metadata: { name: 'rendered-worker-1' },
      spec: {
        config: {
          ignition: { version: '3.2.0' },
          storage: { files: [{ path: '/etc/motd-e2e', mode: 0o600, contents: { source: 'data:,no%20newline' } }, { path: '/etc/os-release', contents: { source: 'data:,NAME=mine%0A' } }] },
          systemd: { units: [{ name: 'e2e.service', enabled: true, contents: '[Unit]\n[Install]\nWantedBy=multi-user.target\n' }] },
        },
        kernelArguments: ['nosmt', 'z=1'], extensions: ['usbguard'], kernelType: 'realtime', baseOSExtensionsContainerImage: EXT,
      },
    });
    h.write('w1', target.files, target.units);
    // written files are on disk at once; kernel arguments and packages wait for the reboot
    let r = splitProbeOutput('w1', (await shell(h, probeScript(probes))).output, probes, 'debug pod');
    expect(r.get(fileProbe('/etc/motd-e2e'))).to.deep.equal({ exists: true, mode: 0o600, contents: 'no newline' });
    expect(r.get(kernelArgumentsProbe)).to.not.include('nosmt');
    h.boot('w1', h.get('w1').booted, target.deployment, 2_000);
    r = splitProbeOutput('w1', (await shell(h, probeScript(probes))).output, probes, 'oc debug');
    expect(r.get(kernelArgumentsProbe).slice(-2)).to.deep.equal(['nosmt', 'z=1']);
    expect(r.get(kernelArgumentsProbe)[0]).to.match(/vmlinuz-4\.18\.0-372\.26\.1\.rt7\.183\.el8_6\.x86_64$/);
    expect(r.get(kernelTypeProbe).kernelType).to.equal('realtime');
    expect(r.get(usbguard)).to.equal('usbguard-1.0.0-8.el8');
    expect(r.get(kernel)).to.equal(undefined);
    expect(r.get(kernelRt)).to.equal('kernel-rt-core-4.18.0-372.26.1.rt7.183.el8_6');
    expect(r.get(fileProbe('/etc/os-release')).exists && r.get(fileProbe('/etc/os-release'))).to.deep.include({ contents: 'NAME=mine\n' });
    expect(r.get(unitProbe('e2e.service'))).to.deep.equal({ state: 'enabled', enabled: true });
    // the config removed: the daemon's files go (the image's show through again), the plain deployment boots
    const plain = nodeConfigOf(undefined);
    h.write('w1', plain.files, plain.units);
    h.boot('w1', h.get('w1').booted, plain.deployment, 3_000);
    r = splitProbeOutput('w1', (await shell(h, probeScript(probes))).output, probes, 'oc debug');
    expect(r.get(fileProbe('/etc/motd-e2e')).exists).to.equal(false);
    expect(r.get(fileProbe('/etc/os-release'))).to.deep.include({ contents: 'NAME="RHCOS"\n' });
    expect(r.get(kernelArgumentsProbe)).to.not.include('nosmt');
    expect(r.get(usbguard)).to.equal(undefined);
    expect(r.get(kernelTypeProbe).kernelType).to.equal('default');
  });

  it('without an extensions image (before 4.12 FIX) extensions come from the OS image\'s /extensions', async () => {
    const h = hosts();
    h.boot('w1', h.get('w1').booted, { kernelArguments: [], extensions: ['usbguard'], kernelType: 'default' });
    expect((await shell(h, 'rpm -q usbguard')).output).to.equal('usbguard-0.9-1.el8.x86_64\n');
  });

  it('a layered image\'s own files and units: modes as its layers record them, units enabled by the links `systemctl enable` left', async () => {
    const LAYERED = `r/layered@sha256:${'c'.repeat(64)}`;
    const unit = '[Unit]\n[Install]\nWantedBy=multi-user.target\n';
    const image: Record<string, { text: string; mode: number }> = {
      '/etc/ocp-e2e/layered-image.conf': { text: 'layered\n', mode: 0o640 },
      '/etc/systemd/system/on.service': { text: unit, mode: 0o644 },
      // a link of multi-user.target.wants, as the registry client reads it: followed to the unit's bytes
      '/etc/systemd/system/multi-user.target.wants/on.service': { text: unit, mode: 0o644 },
      '/etc/systemd/system/off.service': { text: unit, mode: 0o644 },
      '/usr/lib/systemd/system/plain.service': { text: '[Unit]\nDescription=no install section\n', mode: 0o644 },
    };
    const layered: HostFiles = {
      readFile: async (ref, path) => (ref === LAYERED && image[path] ? Buffer.from(image[path]!.text) : undefined),
      readFileEntry: async (ref, path) => (ref === LAYERED && image[path] ? { data: Buffer.from(image[path]!.text), mode: image[path]!.mode } : undefined),
    };
    const h = new NodeHosts({ pullspec: LAYERED, content: { digest: D1, osRelease: {}, packages: [] }, timestampMs: 1_000 });
    const run = (script: string) => runDebugCommand(['chroot', '/host', 'sh', '-c', script], { node: 'w1', os: h.get('w1'), files: layered });
    expect(await run("stat -c '%a' /etc/ocp-e2e/layered-image.conf")).to.deep.equal({ output: '640\n', exitCode: 0 });
    expect(await run('systemctl is-enabled on.service')).to.deep.equal({ output: 'enabled\n', exitCode: 0 });
    expect(await run('systemctl is-enabled off.service')).to.deep.equal({ output: 'disabled\n', exitCode: 1 });
    expect(await run('systemctl is-enabled plain.service')).to.deep.equal({ output: 'static\n', exitCode: 0 });
    // what the daemon wrote comes first: a MachineConfig that disables the image's unit wins
    h.write('w1', [], [{ name: 'on.service', enabled: false }]);
    expect(await run('systemctl is-enabled on.service')).to.deep.equal({ output: 'disabled\n', exitCode: 1 });
  });

  it('systemctl, stat and uname answer with their own words and exit codes', async () => {
    const h = hosts();
    h.write('w1', [], [{ name: 'off.service', enabled: false }, { name: 'masked.service', mask: true }, { name: 'static.service', contents: '[Unit]\n' }]);
    expect(await shell(h, 'systemctl is-enabled off.service')).to.deep.equal({ output: 'disabled\n', exitCode: 1 });
    expect(await shell(h, 'systemctl is-enabled masked.service')).to.deep.equal({ output: 'masked\n', exitCode: 1 });
    expect(await shell(h, 'systemctl is-enabled static.service')).to.deep.equal({ output: 'static\n', exitCode: 0 });
    expect((await shell(h, 'systemctl restart x.service')).exitCode).to.equal(1);
    expect(await shell(h, "stat -c '%n %a %s' /usr/bin/bash /proc/cmdline")).to.deep.include({ exitCode: 0 });
    expect((await shell(h, "stat -c '%n %a %s' /usr/bin/bash")).output).to.equal('/usr/bin/bash 755 2\n');
    expect(await shell(h, 'stat /etc/os-release')).to.deep.include({ exitCode: 1 });
    expect(await shell(h, 'uname -n -r')).to.deep.equal({ output: 'w1 4.18.0-372.26.1.el8_6.x86_64\n', exitCode: 0 });
    expect(await shell(h, 'echo; echo x')).to.deep.equal({ output: '\nx\n', exitCode: 0 });
  });
});
