/**
 * `pods/exec` over SPDY/3.1 on the reference, judged by the real `oc` 4.12 (../shared/upstream/bin/oc; client-go of
 * its age speaks only SPDY for exec): `oc exec` and a non-interactive `oc rsh POD CMD` into a machine-config-daemon pod
 * run the command on its node's host through /rootfs, return stdout and stderr apart, and oc exits with the
 * command's exit status; `oc exec -i` feeds the command, and an interactive `oc rsh` in a real terminal (tmux) gets a
 * shell on a terminal of the window's size; refusals are the real API server's and kubelet's. A missing binary fails these tests.
 */
import { expect } from 'chai';
import { execa } from 'execa';
import { existsSync } from 'node:fs';
import { connect } from 'node:tls';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Harness, type Obj, runningDaemonPod, startHarness, waitFor } from './support/cluster.js';
import { openTerminal } from '../support/terminal.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const OC = path.resolve(REPO, '..', 'shared', 'upstream', 'bin', 'oc');
const MCO = 'openshift-machine-config-operator';
const MCD = 'machine-config-daemon';

describe('pods/exec over SPDY/3.1: the real oc 4.12 into the daemon pods', function () {
  this.timeout(180_000);
  let h: Harness;
  let pod: Obj;
  const oc = async (args: string[], input?: string) => {
    const r = await execa(OC, args, { env: { KUBECONFIG: h.cluster.kubeconfigPath }, input, stdin: input === undefined ? 'ignore' : undefined, reject: false, timeout: 60_000 });
    return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
  };
  const inMcd = (...command: string[]) => ['exec', '-n', MCO, pod.metadata.name!, '-c', MCD, '--', ...command];

  before(async () => {
    if (!existsSync(OC)) throw new Error(`the real oc 4.12 is missing: expected ${OC} (../shared/upstream/bin/oc, see its README); this test runs it and does not skip`);
    h = await startHarness({ profile: '4.12-ga' });
    pod = await runningDaemonPod(h);
  });
  after(async () => h?.cluster.stop());

  it('oc exec cat /rootfs/etc/os-release prints the os-release of the image the pod\'s node booted', async () => {
    const r = await oc(inMcd('cat', '/rootfs/etc/os-release'));
    expect(r.exitCode, r.stderr).to.equal(0);
    expect(r.stderr).to.equal('');
    const node = await h.k.get<Obj>('Node', pod.spec.nodeName);
    expect(r.stdout).to.include(`PRETTY_NAME="${node!.status.nodeInfo.osImage}"`);
    expect(r.stdout).to.include(`OPENSHIFT_VERSION="${h.cluster.releases.current.version}"`);
  });

  it('oc exits with the command\'s exit status, the program\'s complaint on stderr and the output on stdout', async () => {
    const missing = await oc(inMcd('chroot', '/rootfs', 'rpm', '-q', 'no-such-package'));
    expect([missing.exitCode, missing.stdout]).to.deep.equal([1, 'package no-such-package is not installed']);
    expect(missing.stderr).to.equal('command terminated with exit code 1');
    const exit = await oc(inMcd('sh', '-c', 'echo before; exit 3'));
    expect([exit.exitCode, exit.stdout]).to.deep.equal([3, 'before']);
    const unknown = await oc(inMcd('frobnicate', '--now'));
    expect([unknown.exitCode, unknown.stdout]).to.deep.equal([127, '']);
    expect(unknown.stderr).to.equal('exec: "frobnicate": executable file not found in $PATH\ncommand terminated with exit code 127');
  });

  it('oc rsh POD CMD (no terminal) and oc exec -i with input run the same way', async () => {
    const rsh = await oc(['rsh', '-n', MCO, '-c', MCD, pod.metadata.name!, 'cat', '/rootfs/proc/cmdline']);
    expect(rsh.exitCode, rsh.stderr).to.equal(0);
    expect(rsh.stdout).to.match(/^BOOT_IMAGE=\(hd0,gpt3\)\/ostree\/rhcos-[0-9a-f]{64}\/vmlinuz-/);
    const failed = await oc(['rsh', '-n', MCO, '-c', MCD, pod.metadata.name!, 'sh', '-c', 'exit 5']);
    expect(failed.exitCode).to.equal(5);
    const withInput = await oc(['exec', '-i', '-n', MCO, pod.metadata.name!, '-c', MCD, '--', 'chroot', '/rootfs', 'rpm', '-q', 'kernel'], 'ignored input\n');
    expect(withInput.exitCode, withInput.stderr).to.equal(0);
    expect(withInput.stdout).to.match(/^kernel-\S+\.x86_64$/);
  });

  it('oc exec -i gives the command its input and its end (the stdin stream\'s FIN), past SPDY\'s 64 KiB window', async () => {
    const small = await oc(['exec', '-i', '-n', MCO, pod.metadata.name!, '-c', MCD, '--', 'sh', '-c', 'cat; echo "input ended"'], 'hello\nworld\n');
    expect(small.exitCode, small.stderr).to.equal(0);
    expect(small.stdout).to.equal('hello\nworld\ninput ended');
    const big = await oc(['exec', '-i', '-n', MCO, pod.metadata.name!, '-c', MCD, '--', 'wc', '-c'], 'x'.repeat(300 * 1024));
    expect(big.exitCode, big.stderr).to.equal(0);
    expect(big.stdout.trim()).to.equal(String(300 * 1024));
  });

  it('oc rsh at a terminal (tmux): a shell on a terminal of the window\'s size, following a resize, that exits cleanly', async () => {
    const term = await openTerminal(`${OC} rsh -n ${MCO} -c ${MCD} ${pod.metadata.name!}; echo "rsh exited $?"`, { KUBECONFIG: h.cluster.kubeconfigPath }, { cols: 111, rows: 33 });
    try {
      await term.waitFor(/#\s*$/, 30_000);
      let seen = (await term.screen()).length;
      await term.typeLine('stty size; tty');
      await term.waitFor(/33 111[\s\S]*\/dev\/pts\/\d+/, 20_000, seen);
      await term.resize({ cols: 97, rows: 29 });
      seen = (await term.screen()).length;
      await term.typeLine('stty size');
      await term.waitFor(/29 97/, 20_000, seen);
      await term.typeLine('exit 4');
      await term.waitFor(/rsh exited 4/, 30_000);
    } finally {
      await term.close();
    }
  });

  it('refuses what a real server refuses: an unknown pod, an unknown container, a container that is not running', async () => {
    const noPod = await oc(['exec', '-n', MCO, 'no-such-pod', '--', 'true']);
    expect([noPod.exitCode, noPod.stderr]).to.deep.equal([1, 'Error from server (NotFound): pods "no-such-pod" not found']);
    const noContainer = await oc(inMcd('true').map((a) => (a === MCD ? 'nope' : a)));
    expect([noContainer.exitCode, noContainer.stderr]).to.deep.equal([1, `Error from server (BadRequest): container nope is not valid for pod ${pod.metadata.name}`]);
    await h.k.create('Pod', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'waiting', namespace: 'default' }, spec: { nodeName: pod.spec.nodeName, containers: [{ name: 'app', image: 'quay.io/x/app:1', command: ['sleep', '1000'] }] } } as Obj);
    await waitFor('the pod waiting on CreateContainerError', async () => (await h.k.get<Obj>('Pod', 'waiting', 'default'))?.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'CreateContainerError', 30_000);
    const waiting = await oc(['exec', '-n', 'default', 'waiting', '--', 'true']);
    expect([waiting.exitCode, waiting.stderr]).to.deep.equal([1, 'error: unable to upgrade connection: container not found ("app")']);
  });

  it('clients that go away after the upgrade, before opening their streams, leave a server that goes on answering', async () => {
    const api = new URL(h.cluster.apiUrl);
    const token = (h.k.kubeConfig.getCurrentUser()?.token) ?? '';
    for (let i = 0; i < 5; i++) {
      const upgraded = await new Promise<string>((resolve, reject) => {
        const socket = connect({ host: api.hostname, port: Number(api.port), rejectUnauthorized: false }, () => {
          socket.write(`POST /api/v1/namespaces/${MCO}/pods/${pod.metadata.name}/exec?command=true&container=${MCD}&stdout=true HTTP/1.1\r\nHost: ${api.host}\r\n`
            + `Authorization: Bearer ${token}\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: v4.channel.k8s.io\r\nContent-Length: 0\r\n\r\n`);
        });
        socket.once('data', (d: Buffer) => {
          socket.destroy();
          resolve(d.toString().split('\r\n')[0]!);
        });
        socket.once('error', reject);
      });
      expect(upgraded).to.equal('HTTP/1.1 101 Switching Protocols');
    }
    const after = await oc(inMcd('cat', '/rootfs/proc/cmdline'));
    expect(after.exitCode, after.stderr).to.equal(0);
  });
});
