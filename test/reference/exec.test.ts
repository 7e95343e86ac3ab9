/**
 * `pods/exec` over WebSocket on the reference, judged by the clients that speak it: kubectl 1.32 (on PATH; v5/v4
 * channel protocols) and client-node's Exec. A command in a machine-config-daemon pod runs on its node's host through
 * /rootfs, returns its output and its exit status, reads its input, and runs on a terminal when asked; refusals are
 * the real server's and kubelet's. A missing kubectl
 * fails these tests; they do not skip.
 */
import { Exec, KubeConfig, type V1Status } from '@kubernetes/client-node';
import { expect } from 'chai';
import { execa } from 'execa';
import { PassThrough } from 'node:stream';
import { type Harness, type Obj, runningDaemonPod, startHarness, waitFor } from './support/cluster.js';

const MCO = 'openshift-machine-config-operator';
const MCD = 'machine-config-daemon';

interface Run {
  exitCode: number;
  stdout: string;
  stderr: string;
}

async function kubectl(h: Harness, args: string[], input?: string): Promise<Run> {
  const r = await execa('kubectl', args, { env: { KUBECONFIG: h.cluster.kubeconfigPath }, input, reject: false, timeout: 60_000 });
  return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
}

/** client-node's Exec: output, error output and the status its callback got. */
async function nodeExec(h: Harness, pod: string, container: string, command: string[]): Promise<{ stdout: string; stderr: string; status?: V1Status }> {
  const kc = new KubeConfig();
  kc.loadFromFile(h.cluster.kubeconfigPath);
  const out = new PassThrough();
  const err = new PassThrough();
  let stdout = '';
  let stderr = '';
  out.on('data', (c: Buffer) => { stdout += c.toString(); });
  err.on('data', (c: Buffer) => { stderr += c.toString(); });
  const status = await new Promise<V1Status | undefined>((resolve, reject) => {
    new Exec(kc).exec(MCO, pod, container, command, out, err, null, false, (s) => resolve(s))
      .then((ws) => ws.on('close', () => resolve(undefined)), reject);
  });
  return { stdout, stderr, status };
}

describe('pods/exec over WebSocket: kubectl and client-node into the daemon pods', function () {
  this.timeout(180_000);
  let h: Harness;
  let pod: Obj;

  before(async () => {
    h = await startHarness({ profile: '4.12-ga' });
    pod = await runningDaemonPod(h);
  });
  after(async () => h?.cluster.stop());

  it('kubectl exec reads the host through /rootfs: the node\'s kernel command line, and rpm through chroot', async () => {
    const cmdline = await kubectl(h, ['exec', '-n', MCO, pod.metadata.name!, '-c', MCD, '--', 'cat', '/rootfs/proc/cmdline']);
    expect(cmdline.stderr).to.equal('');
    expect(cmdline.exitCode).to.equal(0);
    expect(cmdline.stdout).to.match(/^BOOT_IMAGE=\(hd0,gpt3\)\/ostree\/rhcos-[0-9a-f]{64}\/vmlinuz-\S+ .*ostree=\/ostree\/boot\.1\/rhcos\//);
    const rpm = await kubectl(h, ['exec', '-n', MCO, pod.metadata.name!, '-c', MCD, '--', 'chroot', '/rootfs', 'rpm', '-q', 'kernel']);
    expect(rpm.exitCode, rpm.stderr).to.equal(0);
    expect(rpm.stdout).to.match(/^kernel-\S+\.x86_64$/);
  });

  it('kubectl exits with the command\'s exit status, and an unknown program is 127 with the runtime\'s words on stderr', async () => {
    const missing = await kubectl(h, ['exec', '-n', MCO, pod.metadata.name!, '-c', MCD, '--', 'chroot', '/rootfs', 'rpm', '-q', 'no-such-package']);
    expect(missing.exitCode).to.equal(1);
    expect(missing.stdout).to.equal('package no-such-package is not installed');
    const unknown = await kubectl(h, ['exec', '-n', MCO, pod.metadata.name!, '-c', MCD, '--', 'frobnicate', '--now']);
    expect(unknown.exitCode).to.equal(127);
    expect(unknown.stdout).to.equal('');
    expect(unknown.stderr).to.contain('exec: "frobnicate": executable file not found in $PATH');
    const exit = await kubectl(h, ['exec', '-n', MCO, pod.metadata.name!, '-c', MCD, '--', 'sh', '-c', 'echo before; exit 3']);
    expect(exit.exitCode).to.equal(3);
    expect(exit.stdout).to.equal('before');
  });

  it('client-node\'s Exec gets the output and a Success status, or NonZeroExitCode with the ExitCode cause', async () => {
    const ok = await nodeExec(h, pod.metadata.name!, MCD, ['cat', '/rootfs/proc/cmdline']);
    expect(ok.stdout).to.match(/^BOOT_IMAGE=/);
    expect(ok.status).to.deep.equal({ metadata: {}, status: 'Success' });
    const failed = await nodeExec(h, pod.metadata.name!, MCD, ['chroot', '/rootfs', 'no-such-program']);
    expect(failed.stderr).to.equal("chroot: failed to run command 'no-such-program': No such file or directory\n");
    expect(failed.status?.status).to.equal('Failure');
    expect(failed.status?.reason).to.equal('NonZeroExitCode');
    expect(failed.status?.details?.causes).to.deep.equal([{ reason: 'ExitCode', message: '127' }]);
  });

  it('kubectl exec -i gives the command its input, and the end of it (v5 closes stream 0)', async () => {
    const input = 'first line\nsecond line\n';
    const r = await kubectl(h, ['exec', '-i', '-n', MCO, pod.metadata.name!, '-c', MCD, '--', 'chroot', '/rootfs', 'sh', '-c', 'cat; echo "input ended"'], input);
    expect(r.exitCode, r.stderr).to.equal(0);
    expect(r.stdout).to.equal(`${input}input ended`);
  });

  it('client-node\'s Exec with a TTY: the command runs on a terminal of the client\'s size, and follows a resize', async () => {
    const kc = new KubeConfig();
    kc.loadFromFile(h.cluster.kubeconfigPath);
    // a stdout with columns and rows is what client-node takes for a terminal: it sends its size, then each change
    const out = Object.assign(new PassThrough(), { columns: 132, rows: 43 });
    const stdin = new PassThrough();
    let text = '';
    out.on('data', (c: Buffer) => { text += c.toString(); });
    const status = new Promise<V1Status | undefined>((resolve, reject) => {
      new Exec(kc).exec(MCO, pod.metadata.name!, MCD, ['chroot', '/rootfs', 'sh', '-c', 'tty; stty size; read line; stty size; echo "read $line"'], out, null, stdin, true, (s) => resolve(s))
        .then((ws) => ws.on('close', () => resolve(undefined)), reject);
    });
    await waitFor('the first size on the terminal', async () => /43 132/.test(text), 20_000, async () => text);
    out.columns = 100;
    out.rows = 30;
    out.emit('resize');
    await new Promise((resolve) => setTimeout(resolve, 300));
    stdin.write('typed\r');
    expect(await status).to.deep.equal({ metadata: {}, status: 'Success' });
    const lines = text.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
    expect(lines[0]).to.match(/^\/dev\/pts\/\d+$/);
    expect(lines).to.include.members(['43 132', '30 100', 'read typed']);
    // a terminal echoes what is typed, and carries output and errors together
    expect(lines).to.include('typed');
  });

  it('a client that drops the connection before the output leaves a server that goes on answering', async () => {
    const kc = new KubeConfig();
    kc.loadFromFile(h.cluster.kubeconfigPath);
    for (let i = 0; i < 5; i++) {
      const ws = await new Exec(kc).exec(MCO, pod.metadata.name!, MCD, ['cat', '/rootfs/proc/cmdline'], new PassThrough(), new PassThrough(), null, false);
      ws.terminate();
    }
    const after = await nodeExec(h, pod.metadata.name!, MCD, ['cat', '/rootfs/proc/cmdline']);
    expect(after.status).to.deep.equal({ metadata: {}, status: 'Success' });
  });

  it('a client that drops the connection mid-stream leaves no process of its command behind', async () => {
    const kc = new KubeConfig();
    kc.loadFromFile(h.cluster.kubeconfigPath);
    const marker = `${Date.now() % 100000 + 100000}`; // a sleep length no other process on the machine uses
    const out = new PassThrough();
    const first = new Promise<void>((resolve) => out.once('data', () => resolve()));
    const ws = await new Exec(kc).exec(MCO, pod.metadata.name!, MCD, ['chroot', '/rootfs', 'sh', '-c', `echo started; sleep ${marker} & sleep ${marker}`], out, new PassThrough(), null, false);
    await first; // the output streams before the command ends
    const running = async () => (await execa('pgrep', ['-f', `sleep ${marker}`], { reject: false })).stdout.trim();
    expect(await running(), 'the command runs while the client is there').to.not.equal('');
    ws.terminate();
    await waitFor('the command and its background child gone', async () => (await running()) === '', 10_000);
  });

  it('a client of a TTY session that goes away leaves no process behind, as a closed terminal hangs up', async () => {
    const kc = new KubeConfig();
    kc.loadFromFile(h.cluster.kubeconfigPath);
    const marker = `${Date.now() % 100000 + 200000}`;
    const out = Object.assign(new PassThrough(), { columns: 80, rows: 24 });
    const first = new Promise<void>((resolve) => out.once('data', () => resolve()));
    const ws = await new Exec(kc).exec(MCO, pod.metadata.name!, MCD, ['chroot', '/rootfs', 'sh', '-c', `echo started; sleep ${marker} & sleep ${marker}`], out, null, new PassThrough(), true);
    await first;
    const running = async () => (await execa('pgrep', ['-f', `sleep ${marker}`], { reject: false })).stdout.trim();
    expect(await running(), 'the command runs while the client is there').to.not.equal('');
    ws.terminate();
    await waitFor('the command and its background child gone', async () => (await running()) === '', 10_000);
  });

  it('refuses what a real server refuses: an unknown pod 404, an unknown container 400, a container that is not running', async () => {
    const noPod = await kubectl(h, ['exec', '-n', MCO, 'no-such-pod', '--', 'true']);
    expect(noPod.exitCode).to.equal(1);
    expect(noPod.stderr).to.contain('pods "no-such-pod" not found');
    const noContainer = await kubectl(h, ['exec', '-n', MCO, pod.metadata.name!, '-c', 'nope', '--', 'true']);
    expect(noContainer.exitCode).to.equal(1);
    expect(noContainer.stderr).to.contain(`container nope is not valid for pod ${pod.metadata.name}`);
    // a pod the kubelet cannot start (no container runtime for an arbitrary image) stays waiting: not running
    const node = pod.spec.nodeName as string;
    await h.k.create('Pod', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'waiting', namespace: 'default' }, spec: { nodeName: node, containers: [{ name: 'app', image: 'quay.io/x/app:1', command: ['sleep', '1000'] }] } } as Obj);
    await waitFor('the pod waiting on CreateContainerError', async () => (await h.k.get<Obj>('Pod', 'waiting', 'default'))?.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'CreateContainerError', 30_000);
    const waiting = await kubectl(h, ['exec', '-n', 'default', 'waiting', '--', 'true']);
    expect(waiting.exitCode).to.equal(1);
    expect(waiting.stderr).to.contain('container not found ("app")');
  });
});
