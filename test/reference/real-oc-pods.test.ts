/**
 * The reference's pods, logs and node debugging, judged by the real `oc` 4.12 (../shared/upstream/bin/oc): what a QE
 * engineer types on a real cluster must work the same here. A missing binary fails these tests; they do not skip.
 */
import { expect } from 'chai';
import { execa, type ResultPromise } from 'execa';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Cluster } from '../../helpers/cluster.js';
import { runOnNode } from '../../helpers/debug-pod.js';
import { readNode } from '../../helpers/node-os.js';
import { baseOsImage } from '../../reference/releases/release-info.js';
import { fileProbe, kernelArgumentsProbe, packageProbe, unitProbe } from '../../helpers/node-probes.js';
import { type Harness, type Obj, nodesOfRole, overrideMachineConfig, poolSettledOnNew, startHarness, waitFor } from './support/cluster.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const OC = path.resolve(REPO, '..', 'shared', 'upstream', 'bin', 'oc');
const MCO = 'openshift-machine-config-operator';
const WAIT_MS = 60_000;
const FIXED = '4.12-ga';

interface Run {
  exitCode: number;
  stdout: string;
  stderr: string;
}

function requireOc(): void {
  if (!existsSync(OC)) throw new Error(`the real oc 4.12 is missing: expected ${OC} (../shared/upstream/bin/oc, see its README); this test runs it and does not skip`);
}

async function oc(h: Harness, args: string[], timeoutMs = 60_000): Promise<Run> {
  const r = await execa(OC, args, { env: { KUBECONFIG: h.cluster.kubeconfigPath }, reject: false, timeout: timeoutMs });
  return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
}

function rows(table: string): string[][] {
  return table.trim().split('\n').slice(1).map((l) => l.trim().split(/\s{2,}/));
}

describe('the real oc against the reference: pods, logs, oc debug node', function () {
  this.timeout(180_000);
  let h: Harness;
  let worker: string;

  before(async () => {
    requireOc();
    h = await startHarness({ profile: FIXED });
    worker = (await h.k.list('Node')).items.map((n) => n.metadata.name!).find((n) => n.includes('-160-'))!;
    await waitFor('every component pod Running', async () => {
      const out = (await oc(h, ['get', 'pods', '-n', MCO])).stdout;
      return rows(out).length === 7 && rows(out).every((r) => r[2] === 'Running');
    }, WAIT_MS);
  });
  after(async () => h?.cluster.stop());

  it('oc get pods shows the operator, the controller and one daemon per node, Running and Ready; -o wide names the nodes', async () => {
    const table = rows((await oc(h, ['get', 'pods', '-n', MCO, '-o', 'wide'])).stdout);
    const names = table.map((r) => r[0]!);
    expect(names.filter((n) => /^machine-config-operator-[a-z0-9]+-[a-z0-9]{5}$/.test(n))).to.have.length(1);
    expect(names.filter((n) => /^machine-config-controller-[a-z0-9]+-[a-z0-9]{5}$/.test(n))).to.have.length(1);
    const daemons = table.filter((r) => /^machine-config-daemon-[a-z0-9]{5}$/.test(r[0]!));
    const nodes = (await h.k.list('Node')).items.map((n) => n.metadata.name!);
    expect(daemons.map((r) => r[6]).sort()).to.deep.equal([...nodes].sort());
    for (const r of daemons) expect(r.slice(1, 3)).to.deep.equal(['2/2', 'Running']);
    const cvo = rows((await oc(h, ['get', 'pods', '-n', 'openshift-cluster-version'])).stdout);
    expect(cvo).to.have.length(1);
    expect(cvo[0]![0]).to.match(/^cluster-version-operator-/);
    expect(cvo[0]!.slice(1, 3)).to.deep.equal(['1/1', 'Running']);
    const ds = rows((await oc(h, ['get', 'ds', '-n', MCO])).stdout);
    expect(ds[0]!.slice(0, 6)).to.deep.equal(['machine-config-daemon', '5', '5', '5', '5', '5']);
  });

  it('oc debug node/N -- chroot /host rpm-ostree status --json prints the booted deployment, then removes its pod and namespace', async () => {
    const r = await oc(h, ['debug', `node/${worker}`, '--', 'chroot', '/host', 'rpm-ostree', 'status', '--json']);
    expect(r.exitCode, r.stderr).to.equal(0);
    const booted = (JSON.parse(r.stdout) as { deployments: Array<Record<string, unknown>> }).deployments.find((d) => d.booted)!;
    expect(booted['container-image-reference']).to.equal(`ostree-unverified-registry:${baseOsImage(h.cluster.releases.current)}`);
    expect(booted['container-image-reference-digest']).to.match(/^sha256:[0-9a-f]{64}$/);
    const ns = /Temporary namespace (openshift-debug-[a-z0-9]+) was removed/.exec(r.stderr)?.[1];
    expect(ns, r.stderr).to.be.a('string');
    await waitFor(`namespace ${ns} gone`, async () => (await oc(h, ['get', 'ns', ns!])).stderr.includes('NotFound'), WAIT_MS);
  });

  it('the debug pod reads the booted image\'s own files and package database; a non-zero exit reaches oc', async () => {
    const release = await oc(h, ['debug', `node/${worker}`, '--', 'chroot', '/host', 'cat', '/etc/os-release']);
    expect(release.exitCode, release.stderr).to.equal(0);
    expect(release.stdout).to.match(/^PRETTY_NAME="Red Hat Enterprise Linux CoreOS/m);
    const rpm = await oc(h, ['debug', `node/${worker}`, '--', 'chroot', '/host', 'rpm', '-q', 'bash', 'zsh']);
    expect(rpm.stdout).to.match(/^bash-[^\s]+\.x86_64$/m);
    expect(rpm.stdout).to.include('package zsh is not installed');
    expect(rpm.exitCode).to.equal(1);
    expect(rpm.stderr).to.include('error: non-zero exit code from debug container');
    const missing = await oc(h, ['debug', `node/${worker}`, '--', 'chroot', '/host', 'no-such-tool']);
    expect(missing.stdout).to.include("chroot: failed to run command 'no-such-tool': No such file or directory");
    expect(missing.exitCode).to.equal(1);
  });

  it('oc debug of a node that does not exist gives the API\'s NotFound', async () => {
    const r = await oc(h, ['debug', 'node/no-such-node', '--', 'chroot', '/host', 'true']);
    expect(r.exitCode).to.equal(1);
    expect(r.stderr).to.include('Error from server (NotFound): nodes "no-such-node" not found');
  });

  it('without oc, the same debug pod through the API: output, exit code, a missing node refused, the namespace gone', async () => {
    const kc = h.k.kubeConfig;
    const ok = await runOnNode(kc, worker, ['chroot', '/host', 'sh', '-c', 'rpm -q bash && hostname']);
    expect(ok.exitCode).to.equal(0);
    expect(ok.output).to.match(new RegExp(`^bash-\\S+\\n${worker.replace(/\./g, '\\.')}\\n$`));
    const failed = await runOnNode(kc, worker, ['chroot', '/host', 'sh', '-c', 'rpm -q zsh; exit 3']);
    expect([failed.exitCode, failed.output]).to.deep.equal([3, 'package zsh is not installed\n']);
    await waitFor(`namespace of ${failed.pod} gone`, async () => !(await h.k.get('Namespace', failed.pod.split('/')[0]!)), WAIT_MS);
    const missing = await runOnNode(kc, 'no-such-node', ['chroot', '/host', 'true']).then(() => undefined, (e: Error) => e.message);
    expect(missing).to.match(/^cannot debug node no-such-node: .*nodes "no-such-node" not found/);
  });

  it('oc logs serves each component\'s log, --tail and -c; unknown containers and pods get the API\'s errors', async () => {
    const op = await oc(h, ['logs', '-n', MCO, 'deployment/machine-config-operator']);
    expect(op.exitCode, op.stderr).to.equal(0);
    expect(op.stdout).to.match(/^I\d{4} [\d:.]+ +1 sync\.go\] Synced clusteroperator\/machine-config for 4\.12/m);
    const tail = await oc(h, ['logs', '-n', MCO, 'deployment/machine-config-operator', '--tail=1']);
    expect(tail.stdout.trim().split('\n')).to.have.length(1);
    const daemon = rows((await oc(h, ['get', 'pods', '-n', MCO, '-l', 'k8s-app=machine-config-daemon', '-o', 'wide'])).stdout).find((r) => r[6] === worker)![0]!;
    const withC = await oc(h, ['logs', '-n', MCO, daemon, '-c', 'machine-config-daemon']);
    expect(withC.stdout).to.include(`machine-config-daemon on node ${worker}`);
    const proxy = await oc(h, ['logs', '-n', MCO, daemon, '-c', 'oauth-proxy']);
    expect(proxy.stdout).to.include('[oauth-proxy] listening on');
    const badContainer = await oc(h, ['logs', '-n', MCO, daemon, '-c', 'nope']);
    expect(badContainer.exitCode).to.equal(1);
    expect(badContainer.stderr).to.include(`container nope is not valid for pod ${daemon}`);
    const badPod = await oc(h, ['logs', '-n', MCO, 'no-such-pod']);
    expect(badPod.stderr).to.include('pods "no-such-pod" not found');
  });

  it('oc logs -f follows a daemon while it applies a new config, and the daemon names the configs', async () => {
    const daemon = rows((await oc(h, ['get', 'pods', '-n', MCO, '-l', 'k8s-app=machine-config-daemon', '-o', 'wide'])).stdout).find((r) => r[6] === worker)![0]!;
    const follow: ResultPromise = execa(OC, ['logs', '-f', '-n', MCO, daemon, '-c', 'machine-config-daemon'], { env: { KUBECONFIG: h.cluster.kubeconfigPath }, reject: false, timeout: WAIT_MS });
    let seen = '';
    follow.stdout!.on('data', (c: Buffer) => (seen += c.toString()));
    try {
      // a worker config change (no OS change) makes every worker daemon apply a new rendered config
      const mc = overrideMachineConfig('99-worker-i12-follow', 'worker', '');
      delete (mc.spec as Record<string, unknown>).osImageURL;
      (mc.spec as Record<string, unknown>).config = { ignition: { version: '3.2.0' }, storage: { files: [{ path: '/etc/i12-follow', contents: { source: 'data:,x' }, mode: 420 }] } };
      await h.k.create('MachineConfig', mc);
      const done = await waitFor('the followed log to show the update completed', async () => /Update completed for config (rendered-worker-[0-9a-f]+)/.exec(seen)?.[1], WAIT_MS);
      expect(seen).to.match(new RegExp(`Starting update from rendered-worker-[0-9a-f]+ to ${done}`));
    } finally {
      follow.kill();
      await follow.catch(() => undefined);
    }
  });

  it('a MachineConfig with a file, a unit, a kernel argument and an extension: every worker shows each through the probes, the kernel argument reboots it, removing the config takes them away', async () => {
    const name = '99-worker-e2e-probes';
    const unit = '[Unit]\nDescription=e2e probe\n[Service]\nExecStart=/bin/true\n[Install]\nWantedBy=multi-user.target\n';
    const mc = overrideMachineConfig(name, 'worker', '');
    mc.spec = {
      config: {
        ignition: { version: '3.2.0' },
        storage: { files: [{ path: '/etc/e2e-probe.conf', mode: 0o640, overwrite: true, contents: { source: `data:text/plain;charset=utf-8;base64,${Buffer.from('probe=1\n').toString('base64')}` } }] },
        systemd: { units: [{ name: 'e2e-probe.service', enabled: true, contents: unit }] },
      },
      kernelArguments: ['e2e.probe=1'],
      extensions: ['usbguard'],
    };
    const cluster = new Cluster(h.k.kubeConfig);
    const probes = { file: fileProbe('/etc/e2e-probe.conf'), unit: unitProbe('e2e-probe.service'), usbguard: packageProbe('usbguard') };
    const all = [probes.file, probes.unit, kernelArgumentsProbe, probes.usbguard];
    const read = async (node: Obj) => (await readNode(cluster, h.cluster.kubeconfigPath, node as never, all)).readings;
    const workers = await nodesOfRole(h.k, 'worker');
    const bootIds = new Map(workers.map((n) => [n.metadata.name!, (n.status as { nodeInfo?: { bootID?: string } })?.nodeInfo?.bootID]));
    for (const node of workers) {
      const before = await read(node);
      expect(before.get(probes.file).exists, 'no probe file before the MachineConfig').to.equal(false);
      expect(before.get(kernelArgumentsProbe)).to.not.include('e2e.probe=1');
    }
    const previous = (await h.k.get<Obj>('MachineConfigPool', 'worker'))?.status?.configuration?.name;
    await h.k.create('MachineConfig', mc);
    const applied = await waitFor('the worker pool to roll out the probe config', () => poolSettledOnNew(h.k, 'worker', previous), WAIT_MS);
    expect((applied.status?.configuration?.source as Array<{ name: string }>).map((x) => x.name)).to.include(name);
    for (const node of await nodesOfRole(h.k, 'worker')) {
      const r = await read(node);
      expect(r.get(probes.file)).to.deep.equal({ exists: true, mode: 0o640, contents: 'probe=1\n' });
      expect(r.get(probes.unit)).to.deep.equal({ state: 'enabled', enabled: true });
      expect(r.get(kernelArgumentsProbe)).to.include('e2e.probe=1');
      expect(r.get(probes.usbguard)).to.match(/^usbguard-\d/);
      const bootId = (node.status as { nodeInfo?: { bootID?: string } })?.nodeInfo?.bootID;
      expect(bootId, `node ${node.metadata.name} rebooted for the kernel argument`).to.be.a('string').and.not.equal(bootIds.get(node.metadata.name!));
    }
    await h.k.delete('MachineConfig', name);
    await waitFor('the worker pool to roll out the config without it', () => poolSettledOnNew(h.k, 'worker', applied.status?.configuration?.name), WAIT_MS);
    for (const node of await nodesOfRole(h.k, 'worker')) {
      const r = await read(node);
      expect(r.get(probes.file).exists).to.equal(false);
      expect(r.get(probes.unit).enabled).to.equal(false);
      expect(r.get(kernelArgumentsProbe)).to.not.include('e2e.probe=1');
      expect(r.get(probes.usbguard)).to.equal(undefined);
    }
  });

  it('an SSH key for core is written to authorized_keys (core\'s, 0600) without a reboot: uptime keeps growing; a kernel argument reboots (uptime restarts)', async () => {
    const onWorker = async (...argv: string[]): Promise<string> => {
      const r = await oc(h, ['debug', `node/${worker}`, '--', 'chroot', '/host', ...argv]);
      expect(r.exitCode, `${argv.join(' ')}: ${r.stderr}`).to.equal(0);
      return r.stdout;
    };
    const uptime = async (): Promise<number> => Number((await onWorker('cat', '/proc/uptime')).split(' ')[0]);
    const bootId = async (): Promise<string | undefined> => ((await h.k.get<Obj>('Node', worker))?.status as { nodeInfo?: { bootID?: string } })?.nodeInfo?.bootID;
    const roll = async (create: Obj | undefined, remove?: string): Promise<void> => {
      const previous = (await h.k.get<Obj>('MachineConfigPool', 'worker'))?.status?.configuration?.name;
      if (create) await h.k.create('MachineConfig', create);
      if (remove) await h.k.delete('MachineConfig', remove);
      await waitFor(`the worker pool to roll out (${create?.metadata.name ?? `without ${remove}`})`, () => poolSettledOnNew(h.k, 'worker', previous), WAIT_MS);
    };
    const key = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIE2eNoReboot e2e@ocp-e2e';
    const ssh = overrideMachineConfig('99-worker-e2e-ssh', 'worker', '');
    ssh.spec = { config: { ignition: { version: '3.2.0' }, passwd: { users: [{ name: 'core', sshAuthorizedKeys: [key] }] } } };
    const before = { uptime: await uptime(), bootId: await bootId() };
    await roll(ssh);
    expect(await onWorker('cat', '/home/core/.ssh/authorized_keys')).to.include(key);
    expect((await onWorker('stat', '-c', '%U %G %a', '/home/core/.ssh/authorized_keys', '/home/core/.ssh')).trim().split('\n')).to.deep.equal(['core core 600', 'core core 700']);
    const afterKey = await uptime();
    expect(afterKey, 'uptime after the SSH key (no reboot)').to.be.greaterThan(before.uptime);
    expect(await bootId(), 'bootID after the SSH key').to.equal(before.bootId);
    await roll(undefined, ssh.metadata.name);
    expect(await onWorker('cat', '/home/core/.ssh/authorized_keys')).to.not.include(key);
    expect(await uptime(), 'uptime after removing the key (no reboot)').to.be.greaterThan(afterKey);

    const karg = overrideMachineConfig('99-worker-e2e-karg', 'worker', '');
    karg.spec = { kernelArguments: ['e2e.reboot=1'] };
    const beforeKarg = await uptime();
    await roll(karg);
    expect(await uptime(), 'uptime after the kernel argument (a reboot)').to.be.lessThan(beforeKarg);
    expect(await bootId(), 'bootID after the kernel argument').to.not.equal(before.bootId);
    await roll(undefined, karg.metadata.name);
  });

  it('an upgrade replaces the operator\'s pod as a Deployment rollout does', async () => {
    const before = rows((await oc(h, ['get', 'pods', '-n', MCO, '-l', 'k8s-app=machine-config-operator'])).stdout).map((r) => r[0]!);
    expect(before).to.have.length(1);
    const up = await oc(h, ['adm', 'upgrade', '--to-image', h.cluster.releases.next.image, '--allow-explicit-upgrade', '--force']);
    expect(up.exitCode, up.stderr).to.equal(0);
    const after = await waitFor('a new operator pod, Running, and the old one gone', async () => {
      const now = rows((await oc(h, ['get', 'pods', '-n', MCO, '-l', 'k8s-app=machine-config-operator'])).stdout);
      return now.length === 1 && now[0]![0] !== before[0] && now[0]![2] === 'Running' ? now[0]![0] : undefined;
    }, WAIT_MS);
    const rs = rows((await oc(h, ['get', 'rs', '-n', MCO, '-l', 'k8s-app=machine-config-operator'])).stdout);
    expect(rs.map((r) => r.slice(1, 4)).sort()).to.deep.equal([['0', '0', '0'], ['1', '1', '1']]);
    const env = (await oc(h, ['get', 'pod', '-n', MCO, after, '-o', 'jsonpath={.spec.containers[0].env[0].value}'])).stdout;
    expect(env).to.equal(h.cluster.releases.next.version);
    const log = await oc(h, ['logs', '-n', MCO, after]);
    expect(log.stdout).to.include(`Version: ${h.cluster.releases.next.version}`);
  });
});

describe('the real oc against the reference: the operator\'s log says why its sync fails (the report\'s nightly)', function () {
  this.timeout(180_000);
  let h: Harness;

  before(async () => {
    requireOc();
    h = await startHarness({ profile: '4.12-nightly-2022-09-08' });
  });
  after(async () => h?.cluster.stop());

  it('a master override of osImageURL: `oc logs deployment/machine-config-operator` quotes the osImageURL mismatch', async () => {
    // any real image in the registry will do as the override: the buggy check compares it with machine-os-content
    await h.k.create('MachineConfig', overrideMachineConfig('tc-54183-new-os-image-upgrade-master', 'master', baseOsImage(h.cluster.releases.current)));
    const line = await waitFor('the operator log to quote the failing check', async () => {
      const out = (await oc(h, ['logs', '-n', MCO, 'deployment/machine-config-operator'])).stdout;
      return out.split('\n').find((l) => l.includes('osImageURL mismatch for master in rendered-master-'));
    }, WAIT_MS);
    expect(line).to.match(/^E\d{4} .* sync\.go\] Error syncing operator openshift-machine-config-operator\/machine-config \(task RequiredPools\): error during syncRequiredMachineConfigPools: \[timed out waiting for the condition, pool master has not progressed to latest configuration: osImageURL mismatch/);
    expect(line).to.include(`got: ${baseOsImage(h.cluster.releases.current)}`);
  });
});

