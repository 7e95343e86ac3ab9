/**
 * What a reference node answers the suite's probes (helpers/node-probes.ts, run as one `sh -c` as a debug pod runs
 * them), from a real tree: the RHCOS-like image's own rpm, rpm-ostree, systemctl, uname
 * and stat (images/rhcos-like/rootfs/usr/bin) over what it booted and what the daemon applied.
 */
import { expect } from 'chai';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { probeScript, splitProbeOutput } from '../../../helpers/node-os.js';
import { bootedImageProbe, fileProbe, kernelArgumentsProbe, kernelTypeProbe, packageProbe, unitProbe } from '../../../helpers/node-probes.js';
import { NodeHosts } from '../../../reference/kubelet/hosts.js';
import { nodeConfigOf } from '../../../reference/mcd/node-config.js';
import { DeploymentTrees } from '../../../reference/node-fs/deployment-trees.js';
import { ImageTrees } from '../../../reference/node-fs/image-trees.js';
import { NodeRoots } from '../../../reference/node-fs/node-roots.js';
import { busyboxLayer, layer, memoryLayerSource, runOn, type LayerEntry } from './support.js';

const IMAGE_BIN = fileURLToPath(new URL('../../../images/rhcos-like/rootfs/usr/bin/', import.meta.url));
const D1 = `sha256:${'a'.repeat(64)}`;
const D2 = `sha256:${'b'.repeat(64)}`;
const DE = `sha256:${'e'.repeat(64)}`;
const OS = `r/ocp-v4.0-art-dev@${D1}`;
const NEXT = `r/ocp-v4.0-art-dev@${D2}`;
const EXT = `r/ocp-v4.0-art-dev@${DE}`;
const RPMDB = 'usr/share/rpm/ocp-e2e-rpmdb.tsv';
const APPLETS = ['awk', 'cat', 'cut', 'echo', 'grep', 'hostname', 'ls', 'mkdir', 'readlink', 'rm', 'sed', 'stat', 'tr', 'true', 'false', 'test', '[', 'uname'];
const UNIT = '[Unit]\n[Install]\nWantedBy=multi-user.target\n';

async function osImage(osRelease: string): Promise<Buffer[]> {
  const files: Record<string, LayerEntry> = {
    'tmp/': '', 'proc/': '', 'dev/': '', 'run/': '', 'var/lib/': '',
    'etc/os-release': osRelease,
    'etc/passwd': 'root:x:0:0:root:/root:/bin/sh\n',
    'etc/group': 'root:x:0:\n',
    [RPMDB]: 'kernel\t4.18.0\t372.26.1.el8_6\tx86_64\nkernel-core\t4.18.0\t372.26.1.el8_6\tx86_64\nbash\t4.4.20\t4.el8_6\tx86_64\n',
    'usr/lib/systemd/system/chronyd.service': UNIT,
    'etc/systemd/system/multi-user.target.wants/chronyd.service': { link: '/usr/lib/systemd/system/chronyd.service' },
    'usr/lib/systemd/system/plain.service': '[Unit]\nDescription=no install section\n',
    'etc/ocp-e2e/layered-image.conf': { text: 'layered\n', mode: 0o640 },
  };
  for (const tool of ['rpm', 'rpm-ostree', 'stat', 'systemctl', 'uname']) files[`usr/bin/${tool}`] = { text: await readFile(path.join(IMAGE_BIN, tool), 'utf8'), mode: 0o755 };
  return [await busyboxLayer(APPLETS), await layer(files)];
}

describe('reference node trees: the suite\'s probes answered by the image\'s own programs', function () {
  this.timeout(60_000);
  const [usbguard, kernel, kernelRt] = [packageProbe('usbguard'), packageProbe('kernel'), packageProbe('kernel-rt-core')];
  const probes = [bootedImageProbe, kernelArgumentsProbe, kernelTypeProbe, usbguard, kernel, kernelRt, fileProbe('/etc/motd-e2e'), fileProbe('/etc/os-release'), fileProbe('/etc/ocp-e2e/layered-image.conf'), unitProbe('e2e.service'), unitProbe('chronyd.service'), unitProbe('plain.service')];
  let dir: string;
  let roots: NodeRoots;
  let hosts: NodeHosts;
  // the script sends stderr down stdout itself (stat's complaint is part of an answer): stdout is the whole answer
  const read = async (node: string) => splitProbeOutput(node, (await runOn(roots, hosts, node, ['sh', '-c', probeScript(probes)])).stdout, probes, 'debug pod');

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'ocp-e2e-node-probes-'));
    const images: Record<string, { digest: string; layers: Buffer[] }> = {
      [OS]: { digest: D1, layers: await osImage('NAME="RHCOS"\n') },
      [NEXT]: { digest: D2, layers: await osImage('NAME="RHCOS next"\n') },
      [EXT]: { digest: DE, layers: [await layer({
        'usr/share/rpm-ostree/extensions/usbguard/package': 'usbguard\t1.0.0\t8.el8\tx86_64\n',
        ...Object.fromEntries(['kernel-rt-core', 'kernel-rt-modules', 'kernel-rt-modules-extra', 'kernel-rt-kvm'].map((n) => [`usr/share/rpm-ostree/extensions/${n}/package`, `${n}\t4.18.0\t372.26.1.rt7.183.el8_6\tx86_64\n`])),
      })] },
    };
    const cache = path.join(dir, 'cache');
    const source = memoryLayerSource((ref) => images[ref]!);
    roots = new NodeRoots(path.join(dir, 'nodes'), new DeploymentTrees(cache, new ImageTrees(cache, source)), () => 10_000);
    hosts = new NodeHosts({ pullspec: OS, content: { digest: D1, osRelease: {}, packages: [] }, timestampMs: 1_000 });
  });
  after(async () => dir && rm(dir, { recursive: true, force: true }));

  it('a freshly installed node: the image\'s kernel, files with their modes and units, no extras', async () => {
    const r = await read('w1');
    expect(r.get(bootedImageProbe)).to.deep.include({ image: OS, digest: D1 });
    expect(r.get(kernelArgumentsProbe)[0]).to.match(/^BOOT_IMAGE=\(hd0,gpt3\)\/ostree\/rhcos-[0-9a-f]{64}\/vmlinuz-4\.18\.0-372\.26\.1\.el8_6\.x86_64$/);
    expect(r.get(kernelArgumentsProbe)).to.include('rw').and.not.include('nosmt');
    expect(r.get(kernelTypeProbe)).to.deep.equal({ kernelType: 'default', release: '4.18.0-372.26.1.el8_6.x86_64' });
    expect(r.get(usbguard)).to.equal(undefined);
    expect(r.get(kernel)).to.equal('kernel-4.18.0-372.26.1.el8_6');
    expect(r.get(fileProbe('/etc/motd-e2e'))).to.deep.equal({ exists: false, says: "stat: cannot stat '/etc/motd-e2e': No such file or directory" });
    expect(r.get(fileProbe('/etc/os-release'))).to.deep.equal({ exists: true, mode: 0o644, contents: 'NAME="RHCOS"\n' });
    expect(r.get(fileProbe('/etc/ocp-e2e/layered-image.conf'))).to.deep.equal({ exists: true, mode: 0o640, contents: 'layered\n' });
    expect(r.get(unitProbe('e2e.service'))).to.deep.equal({ state: 'Failed to get unit file state for e2e.service: No such file or directory', enabled: false });
    expect(r.get(unitProbe('chronyd.service'))).to.deep.equal({ state: 'enabled', enabled: true });
    expect(r.get(unitProbe('plain.service'))).to.deep.equal({ state: 'static', enabled: true });
  });

  it('after the daemon applied a config: its files over the image\'s, its units, the booted kernel arguments, extensions and the realtime kernel; removing it restores the image\'s', async () => {
    const target = nodeConfigOf({
      metadata: { name: 'rendered-worker-1' },
      spec: {
        config: {
          ignition: { version: '3.2.0' },
          storage: { files: [{ path: '/etc/motd-e2e', mode: 0o600, contents: { source: 'data:,no%20newline' } }, { path: '/etc/os-release', contents: { source: 'data:,NAME=mine%0A' } }] },
          systemd: { units: [{ name: 'e2e.service', enabled: true, contents: UNIT }, { name: 'chronyd.service', enabled: false }] },
        },
        kernelArguments: ['nosmt', 'z=1'], extensions: ['usbguard'], kernelType: 'realtime', baseOSExtensionsContainerImage: EXT,
      },
    });
    hosts.write('w2', target.files, target.units);
    // written files are on disk at once; kernel arguments and packages wait for the reboot
    let r = await read('w2');
    expect(r.get(fileProbe('/etc/motd-e2e'))).to.deep.equal({ exists: true, mode: 0o600, contents: 'no newline' });
    expect(r.get(kernelArgumentsProbe)).to.not.include('nosmt');
    expect(r.get(unitProbe('chronyd.service')).state).to.equal('disabled');
    hosts.boot('w2', hosts.get('w2').booted, target.deployment, 2_000);
    r = await read('w2');
    expect(r.get(kernelArgumentsProbe).slice(-2)).to.deep.equal(['nosmt', 'z=1']);
    expect(r.get(kernelArgumentsProbe)[0]).to.match(/vmlinuz-4\.18\.0-372\.26\.1\.rt7\.183\.el8_6\.x86_64$/);
    expect(r.get(kernelTypeProbe).kernelType).to.equal('realtime');
    expect(r.get(usbguard)).to.equal('usbguard-1.0.0-8.el8');
    expect(r.get(kernel)).to.equal(undefined);
    expect(r.get(kernelRt)).to.equal('kernel-rt-core-4.18.0-372.26.1.rt7.183.el8_6');
    expect(r.get(fileProbe('/etc/os-release'))).to.deep.include({ contents: 'NAME=mine\n' });
    expect(r.get(unitProbe('e2e.service'))).to.deep.equal({ state: 'enabled', enabled: true });
    const plain = nodeConfigOf(undefined);
    hosts.write('w2', plain.files, plain.units);
    hosts.boot('w2', hosts.get('w2').booted, plain.deployment, 3_000);
    r = await read('w2');
    expect(r.get(fileProbe('/etc/motd-e2e')).exists).to.equal(false);
    expect(r.get(fileProbe('/etc/os-release'))).to.deep.include({ contents: 'NAME="RHCOS"\n' });
    expect(r.get(kernelArgumentsProbe)).to.not.include('nosmt');
    expect(r.get(usbguard)).to.equal(undefined);
    expect(r.get(kernelTypeProbe).kernelType).to.equal('default');
    expect(r.get(unitProbe('chronyd.service')).state).to.equal('enabled');
  });

  it('a rebase boots the new image and keeps the previous one as the rollback deployment; the node\'s own /etc changes go with it', async () => {
    expect((await runOn(roots, hosts, 'w3', ['sh', '-c', 'echo kept > /etc/by-hand'])).exitCode).to.equal(0);
    hosts.boot('w3', { pullspec: NEXT, content: { digest: D2, osRelease: {}, packages: [] }, timestampMs: 5_000 }, undefined, 5_000);
    const status = JSON.parse((await runOn(roots, hosts, 'w3', ['rpm-ostree', 'status', '--json'])).stdout) as { deployments: Array<Record<string, unknown>> };
    expect(status.deployments.map((d) => [d.booted, d['container-image-reference']])).to.deep.equal([[true, `ostree-unverified-registry:${NEXT}`], [false, `ostree-unverified-registry:${OS}`]]);
    const booted = JSON.parse((await runOn(roots, hosts, 'w3', ['rpm-ostree', 'status', '--json', '--booted'])).stdout) as { deployments: unknown[] };
    expect(booted.deployments).to.have.length(1);
    expect((await runOn(roots, hosts, 'w3', ['rpm-ostree', 'status'])).stdout).to.match(/^State: idle\nDeployments:\n\* ostree-unverified-registry:r\/ocp-v4\.0-art-dev@sha256:b+\n/);
    expect((await runOn(roots, hosts, 'w3', ['cat', '/etc/os-release', '/etc/by-hand'])).stdout).to.equal('NAME="RHCOS next"\nkept\n');
  });

  it('a masked unit is masked; rpm answers with its own exit codes and -qa with the packages a pattern matches', async () => {
    hosts.write('w4', [], [{ name: 'masked.service', mask: true }]);
    expect(await runOn(roots, hosts, 'w4', ['systemctl', 'is-enabled', 'masked.service'])).to.deep.include({ stdout: 'masked\n', exitCode: 1 });
    expect(await runOn(roots, hosts, 'w4', ['rpm', '-q', 'bash', 'zsh'])).to.deep.include({ stdout: 'bash-4.4.20-4.el8_6.x86_64\npackage zsh is not installed\n', exitCode: 1 });
    expect((await runOn(roots, hosts, 'w4', ['uname', '-n', '-r'])).stdout).to.equal('w4 4.18.0-372.26.1.el8_6.x86_64\n');
    // upstream's tests ask coreutils' long options
    expect(await runOn(roots, hosts, 'w4', ['stat', '--format=%U %G', '/etc/os-release'])).to.deep.include({ stdout: 'root root\n', exitCode: 0 });
    expect(await runOn(roots, hosts, 'w4', ['stat', '--format', '%a', '/etc/none'])).to.deep.equal({ stdout: '', stderr: "stat: cannot stat '/etc/none': No such file or directory\n", exitCode: 1 });
    // upstream's TestKernelType asks `rpm -qa kernel-rt-core`: only the packages that match
    expect(await runOn(roots, hosts, 'w4', ['rpm', '-qa', 'kernel-rt-core'])).to.deep.include({ stdout: '', exitCode: 0 });
    expect((await runOn(roots, hosts, 'w4', ['rpm', '-qa', 'kernel*'])).stdout).to.equal('kernel-4.18.0-372.26.1.el8_6.x86_64\nkernel-core-4.18.0-372.26.1.el8_6.x86_64\n');
  });
});
