/**
 * A node's root file system on disk and commands run over it as real processes: layers unpacked once per digest
 * with their whiteouts, a deployment with extensions and the realtime kernel, the daemon's files and units in the
 * node's own upper layer, /proc true to the node, and the exit codes of chroot and the shell.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstat, mkdir, mkdtemp, readdir, readFile, readlink, rm, stat, symlink, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { NodeHosts, type DeploymentConfig } from '../../../reference/kubelet/hosts.js';
import { DeploymentTrees } from '../../../reference/node-fs/deployment-trees.js';
import { pruneTrees, pruneTreesHourly } from '../../../reference/node-fs/cluster-roots.js';
import { ImageTrees } from '../../../reference/node-fs/image-trees.js';
import { startOnNode } from '../../../reference/node-fs/node-command.js';
import { NodeRoots } from '../../../reference/node-fs/node-roots.js';
import { nodeConfigOf } from '../../../reference/mcd/node-config.js';
import { busyboxLayer, layer, memoryLayerSource, runOn, type LayerEntry } from './support.js';

const D_OS = `sha256:${'a'.repeat(64)}`;
const D_EXT = `sha256:${'e'.repeat(64)}`;
const OS = `r/os@${D_OS}`;
const EXT = `r/ext@${D_EXT}`;
const RPMDB = 'usr/share/rpm/ocp-e2e-rpmdb.tsv';
const APPLETS = ['cat', 'cut', 'echo', 'stat', 'hostname', 'ls', 'awk', 'sed', 'grep', 'rm', 'touch', 'mkdir', 'readlink', 'uname', 'true', 'false', 'sleep', 'test', '['];

/** A layer of the OS, one of busybox and a shell, and one that whites out. */
async function osLayers(): Promise<Buffer[]> {
  const base: Record<string, LayerEntry> = {
    'tmp/': '', 'proc/': '', 'dev/': '', 'run/': '', 'var/lib/': '', 'etc/systemd/system/': '',
    'etc/os-release': 'NAME="RHCOS"\n',
    'etc/gone-later': 'x\n',
    'usr/share/doc/old/a': 'a\n',
    [RPMDB]: 'kernel\t4.18.0\t372.26.1.el8_6\tx86_64\nkernel-core\t4.18.0\t372.26.1.el8_6\tx86_64\nbash\t4.4.20\t4.el8_6\tx86_64\n',
    'usr/lib/systemd/system/chronyd.service': '[Unit]\n[Install]\nWantedBy=multi-user.target\n',
    'etc/systemd/system/multi-user.target.wants/chronyd.service': { link: '/usr/lib/systemd/system/chronyd.service' },
    'usr/bin/not-executable': { text: '#!/bin/sh\necho no\n', mode: 0o644 },
  };
  const first = await layer(base);
  const busybox = await busyboxLayer(APPLETS);
  const second = await layer({ 'etc/.wh.gone-later': '', 'usr/share/doc/old/.wh..wh..opq': '', 'usr/share/doc/old/b': 'b\n' });
  return [first, busybox, second];
}

async function extLayers(): Promise<Buffer[]> {
  const pkg = (line: string) => `${line}\tx86_64\n`;
  return [await layer({
    'usr/share/rpm-ostree/extensions/usbguard/package': pkg('usbguard\t1.0.0\t8.el8'),
    'usr/share/rpm-ostree/extensions/usbguard/files/usr/bin/usbguard': { text: '#!/bin/sh\necho usbguard 1.0.0\n', mode: 0o755 },
    'usr/share/rpm-ostree/extensions/kernel-rt-core/package': pkg('kernel-rt-core\t4.18.0\t372.26.1.rt7.183.el8_6'),
  })];
}

/** Every path of a tree with its type, mode and content or link target (not its times or inode numbers). */
async function describeTree(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (rel: string): Promise<void> => {
    for (const name of (await readdir(path.join(root, rel))).sort()) {
      const p = path.join(rel, name);
      const st = await lstat(path.join(root, p));
      const what = st.isSymbolicLink() ? `-> ${await readlink(path.join(root, p))}` : st.isDirectory() ? 'dir' : createHash('sha256').update(await readFile(path.join(root, p)) as unknown as Uint8Array).digest('hex');
      out[p] = `${(st.mode & 0o7777).toString(8)} ${st.uid}:${st.gid} ${what}`;
      if (st.isDirectory()) await walk(p);
    }
  };
  await walk('');
  return out;
}

const run = runOn;

describe('reference node trees: a root file system per node, and commands run over it for real', function () {
  this.timeout(60_000);
  let dir: string;
  let source: ReturnType<typeof memoryLayerSource>;
  let roots: NodeRoots;
  let images: ImageTrees;
  let hosts: NodeHosts;
  let now = 1_000;

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'ocp-e2e-node-tree-'));
    const os = await osLayers();
    const ext = await extLayers();
    source = memoryLayerSource((ref) => (ref === OS ? { digest: D_OS, layers: os } : { digest: D_EXT, layers: ext }));
    images = new ImageTrees(path.join(dir, 'cache'), source);
    roots = new NodeRoots(path.join(dir, 'nodes'), new DeploymentTrees(path.join(dir, 'cache'), images), () => now);
    hosts = new NodeHosts({ pullspec: OS, content: { digest: D_OS, osRelease: {}, packages: [] }, timestampMs: 1_000 });
  });
  after(async () => dir && rm(dir, { recursive: true, force: true }));

  it('unpacks an image once per digest, with its whiteouts and opaque folders applied', async () => {
    const [a, b] = await Promise.all([images.tree(OS), images.tree(OS)]);
    expect(a.root).to.equal(b.root);
    expect(source.reads.get(OS), 'each layer read once').to.equal(3);
    expect(await readFile(path.join(a.root, 'etc/os-release'), 'utf8')).to.equal('NAME="RHCOS"\n');
    expect(await stat(path.join(a.root, 'etc/gone-later')).then(() => true, () => false)).to.equal(false);
    expect(await stat(path.join(a.root, 'usr/share/doc/old/a')).then(() => true, () => false)).to.equal(false);
    expect(await readFile(path.join(a.root, 'usr/share/doc/old/b'), 'utf8')).to.equal('b\n');
    expect(await stat(path.join(a.root, 'etc/.wh.gone-later')).then(() => true, () => false)).to.equal(false);
    // an absolute link stays absolute: inside the node it names the node's own file
    expect(await readlink(path.join(a.root, 'etc/systemd/system/multi-user.target.wants/chronyd.service'))).to.equal('/usr/lib/systemd/system/chronyd.service');
  });

  it('an image over another one\'s layers starts from that tree: only its own layers are read, the lower tree stays as it was', async () => {
    const cache = path.join(dir, 'chain-cache');
    const os = { digest: D_OS, layers: await osLayers() };
    const upper = await layer({ 'etc/os-release': 'NAME="layered"\n', 'usr/bin/zsh': { text: '#!/bin/sh\necho zsh\n', mode: 0o755 }, 'usr/share/doc/old/.wh.b': '' });
    const layered = { digest: `sha256:${'b'.repeat(64)}`, layers: [...os.layers, upper] };
    const relabelled = { digest: `sha256:${'c'.repeat(64)}`, layers: layered.layers }; // another config, the same layers
    const byRef: Record<string, typeof os> = { os, layered, relabelled };
    const chained = memoryLayerSource((ref) => byRef[ref]!);
    const trees = new ImageTrees(cache, chained);
    const lower = await trees.tree('os');
    const top = await trees.tree('layered');
    expect(chained.reads.get('layered'), 'only the layer the OS image has not').to.equal(1);
    expect(await readFile(path.join(top.root, 'etc/os-release'), 'utf8')).to.equal('NAME="layered"\n');
    expect(await readFile(path.join(top.root, 'usr/bin/zsh'), 'utf8')).to.equal('#!/bin/sh\necho zsh\n');
    expect(await stat(path.join(top.root, 'usr/share/doc/old/b')).then(() => true, () => false)).to.equal(false);
    expect(await readFile(path.join(lower.root, 'etc/os-release'), 'utf8'), 'the lower tree untouched').to.equal('NAME="RHCOS"\n');
    expect(await readFile(path.join(lower.root, 'usr/share/doc/old/b'), 'utf8')).to.equal('b\n');
    const again = await trees.tree('relabelled');
    expect(chained.reads.get('relabelled') ?? 0, 'the same layers: nothing read').to.equal(0);
    expect(await describeTree(again.root)).to.deep.equal(await describeTree(top.root));

    const whole = new ImageTrees(path.join(dir, 'whole-cache'), memoryLayerSource(() => layered));
    expect(await describeTree(top.root), 'as unpacking every layer gives').to.deep.equal(await describeTree((await whole.tree('layered')).root));

    // a registry outage: a tree already made is still there for a new process, which cannot read the image's layers
    const down = new ImageTrees(cache, { digest: async () => os.digest, layerDigests: async () => { throw new Error('registry unreachable'); }, layer: async () => { throw new Error('registry unreachable'); } });
    expect((await down.tree('os')).root).to.equal(lower.root);
  });

  it('a boot starts making the booted tree at once (NodeRoots.warm through NodeHosts.onBoot), before any command', async () => {
    const osImage = { digest: D_OS, layers: await osLayers() };
    const local = new ImageTrees(path.join(dir, 'warm-cache'), memoryLayerSource(() => osImage));
    const warmRoots = new NodeRoots(path.join(dir, 'warm-nodes'), new DeploymentTrees(path.join(dir, 'warm-cache'), local), () => now);
    const warmHosts = new NodeHosts({ pullspec: OS, content: { digest: D_OS, osRelease: {}, packages: [] }, timestampMs: 1_000 });
    warmHosts.onBoot((_node, os) => warmRoots.warm(os));
    const treeDir = path.join(dir, 'warm-cache', 'images');
    expect(await readdir(treeDir).catch(() => [])).to.deep.equal([]);
    warmHosts.boot('node-a', { pullspec: OS, content: { digest: D_OS, osRelease: {}, packages: [] }, timestampMs: 2_000 });
    const deadline = Date.now() + 10_000;
    while (!(await readdir(treeDir).catch(() => [] as string[])).some((n) => !n.startsWith('.')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect((await readdir(treeDir)).filter((n) => !n.startsWith('.')), 'the tree was made without a command on the node').to.have.length(1);
  });

  it('runs the image\'s programs as real processes: output, hostname, exit codes 0, 3, 126, 127', async () => {
    expect(await run(roots, hosts, 'w1', ['cat', '/etc/os-release'])).to.deep.equal({ stdout: 'NAME="RHCOS"\n', stderr: '', exitCode: 0 });
    expect((await run(roots, hosts, 'w1', ['hostname'])).stdout).to.equal('w1\n');
    expect(await run(roots, hosts, 'w1', ['sh', '-c', 'echo before; echo oops >&2; exit 3'])).to.deep.equal({ stdout: 'before\n', stderr: 'oops\n', exitCode: 3 });
    const missing = await run(roots, hosts, 'w1', ['no-such-tool']);
    expect([missing.exitCode, missing.stderr]).to.deep.equal([127, "chroot: failed to run command 'no-such-tool': No such file or directory\n"]);
    expect((await run(roots, hosts, 'w1', ['/usr/bin/not-executable'])).exitCode).to.equal(126);
    expect((await run(roots, hosts, 'w1', ['sh', '-c', 'no-such-tool'])).exitCode).to.equal(127);
  });

  it('/usr is read-only, /etc is the node\'s own: a write there stays on that node and outlives the command', async () => {
    expect((await run(roots, hosts, 'w1', ['touch', '/usr/x'])).stderr).to.contain('Read-only file system');
    expect((await run(roots, hosts, 'w1', ['sh', '-c', 'echo mine > /etc/mine'])).exitCode).to.equal(0);
    expect((await run(roots, hosts, 'w1', ['cat', '/etc/mine'])).stdout).to.equal('mine\n');
    expect((await run(roots, hosts, 'w2', ['cat', '/etc/mine'])).exitCode).to.equal(1);
  });

  it('/proc/cmdline is the booted kernel arguments and /proc/uptime counts from the last boot', async () => {
    now = 61_000;
    const first = await run(roots, hosts, 'w1', ['cat', '/proc/cmdline', '/proc/uptime']);
    expect(first.stdout).to.match(/^BOOT_IMAGE=\(hd0,gpt3\)\/ostree\/rhcos-[0-9a-f]{64}\/vmlinuz-4\.18\.0-372\.26\.1\.el8_6\.x86_64 .* rw .*\n60\.00 /);
    const deployment: DeploymentConfig = { kernelArguments: ['nosmt'], extensions: [], kernelType: 'default' };
    hosts.boot('w1', hosts.get('w1').booted, deployment, 61_000);
    now = 66_000;
    const second = await run(roots, hosts, 'w1', ['cat', '/proc/cmdline', '/proc/uptime']);
    expect(second.stdout).to.match(/ nosmt\n5\.00 /);
  });

  it('the daemon\'s files (with their modes) and units are in the tree; removing them shows the image\'s again', async () => {
    const target = nodeConfigOf({
      metadata: { name: 'rendered-worker-1' },
      spec: {
        config: {
          ignition: { version: '3.2.0' },
          storage: { files: [{ path: '/etc/motd-e2e', mode: 0o600, contents: { source: 'data:,hello' } }, { path: '/etc/os-release', contents: { source: 'data:,NAME=mine%0A' } }] },
          systemd: { units: [{ name: 'e2e.service', enabled: true, contents: '[Unit]\n[Install]\nWantedBy=multi-user.target\n' }, { name: 'chronyd.service', enabled: false }, { name: 'masked.service', mask: true }] },
        },
      },
    });
    hosts.write('w2', target.files, target.units);
    expect((await run(roots, hosts, 'w2', ['sh', '-c', "stat -c '%a' /etc/motd-e2e; cat /etc/motd-e2e /etc/os-release"])).stdout).to.equal('600\nhelloNAME=mine\n');
    expect((await run(roots, hosts, 'w2', ['sh', '-c', 'ls /etc/systemd/system/multi-user.target.wants; readlink /etc/systemd/system/masked.service'])).stdout).to.equal('e2e.service\n/dev/null\n');
    const plain = nodeConfigOf(undefined);
    hosts.write('w2', plain.files, plain.units);
    const after = await run(roots, hosts, 'w2', ['sh', '-c', 'cat /etc/os-release; ls /etc/systemd/system/multi-user.target.wants; test -e /etc/motd-e2e || echo no-motd']);
    expect(after.stdout).to.equal('NAME="RHCOS"\nchronyd.service\nno-motd\n');
  });

  it('a deployment with an extension and the realtime kernel: the packages in the database and their files, the image tree untouched', async () => {
    hosts.boot('w3', hosts.get('w3').booted, { kernelArguments: [], extensions: ['usbguard'], extensionsImage: EXT, kernelType: 'realtime' }, 1_000);
    const r = await run(roots, hosts, 'w3', ['sh', '-c', `cut -f1 /${RPMDB}; usbguard; cat /proc/sys/kernel/osrelease`]);
    expect(r.stdout).to.equal('bash\nkernel-rt-core\nusbguard\nusbguard 1.0.0\n4.18.0-372.26.1.rt7.183.el8_6.x86_64\n');
    const image = await images.tree(OS);
    expect(await readFile(path.join(image.root, RPMDB), 'utf8')).to.contain('kernel\t4.18.0');
    expect(await stat(path.join(image.root, 'usr/bin/usbguard')).then(() => true, () => false)).to.equal(false);
  });

  it('a command in a container that mounts the host at /rootfs sees the node there', async () => {
    const r = await run(roots, hosts, 'w1', ['cat', '/rootfs/proc/cmdline'], '/rootfs');
    expect(r.exitCode, r.stderr).to.equal(0);
    expect(r.stdout).to.match(/^BOOT_IMAGE=/);
  });

  it('the cache keeps trees used in the last week and drops the others, half-made ones and the names of pruned ones; a use marks a tree', async () => {
    const cache = path.join(dir, 'prune');
    const day = 24 * 3600_000;
    const made = async (p: string, ageMs: number) => {
      await mkdir(path.join(cache, p), { recursive: true });
      const at = new Date(Date.now() - ageMs);
      await utimes(path.join(cache, p), at, at);
    };
    await made('images/old', 8 * day);
    await made('images/recent', 6 * day);
    await made('images/abc.partial-1-x', 2 * 3600_000);
    await made('images/def.partial-1-y', 60_000);
    await made('deployments/old', 30 * day);
    await mkdir(path.join(cache, 'chains'));
    await symlink('../images/old', path.join(cache, 'chains', 'of-old'));
    await symlink('../images/recent', path.join(cache, 'chains', 'of-recent'));
    await pruneTrees(cache);
    expect((await readdir(path.join(cache, 'images'))).sort()).to.deep.equal(['def.partial-1-y', 'recent']);
    expect(await readdir(path.join(cache, 'deployments'))).to.deep.equal([]);
    expect(await readdir(path.join(cache, 'chains')), 'the name of a pruned tree goes with it').to.deep.equal(['of-recent']);
    const tree = await images.tree(OS);
    await utimes(tree.root, new Date(0), new Date(0));
    await images.tree(OS);
    await new Promise((r) => setTimeout(r, 100));
    expect((await stat(tree.root)).mtimeMs).to.be.above(Date.now() - 60_000);
  });

  it('a cluster start looks through the cache at most once an hour', async () => {
    const cache = path.join(dir, 'prune-hourly');
    const day = 24 * 3600_000;
    const old = async (p: string) => {
      await mkdir(path.join(cache, p), { recursive: true });
      const at = new Date(Date.now() - 8 * day);
      await utimes(path.join(cache, p), at, at);
    };
    await old('images/first');
    await pruneTreesHourly(cache);
    expect(await readdir(path.join(cache, 'images'))).to.deep.equal([]);
    await old('images/second');
    await pruneTreesHourly(cache, Date.now() + 30 * 60_000);
    expect(await readdir(path.join(cache, 'images')), 'half an hour later: not looked through').to.deep.equal(['second']);
    await pruneTreesHourly(cache, Date.now() + 61 * 60_000);
    expect(await readdir(path.join(cache, 'images')), 'over an hour later: looked through').to.deep.equal([]);
  });

  it('where no namespace can be had, the error says what the machine refuses and how to allow it', async () => {
    const module = path.resolve('reference/node-fs/node-command.ts');
    const script = `const m = await import(${JSON.stringify(module)}); try { m.mechanism(); } catch (e) { console.log(e.message); }`;
    // no unshare on PATH: neither way can start
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', env: { PATH: '/nonexistent' } });
    expect(r.stdout).to.match(/^the reference runs node commands as real processes in Linux namespaces: .* This machine refuses both \((as root: .*; )?in a user namespace: spawnSync unshare ENOENT\): run as root with CAP_SYS_ADMIN/);
  });

  it('kill() ends the command and what it started', async () => {
    const p = startOnNode(await roots.prepare('w1', hosts.get('w1')), ['sh', '-c', 'sleep 30 & sleep 30; echo never']);
    await new Promise((r) => setTimeout(r, 300));
    const started = Date.now();
    p.kill();
    expect(await p.exit).to.equal(137);
    expect(Date.now() - started).to.be.below(5_000);
  });
});
