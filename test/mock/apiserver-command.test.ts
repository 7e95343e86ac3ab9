/**
 * `ocp-e2e apiserver` as a person runs it: prints the URL and kubeconfig path, serves the OpenShift CRDs to kubectl,
 * keeps objects in --data-dir across restarts and stops cleanly on SIGTERM.
 */
import { expect } from 'chai';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { spawnServer, stopChild, useChildServers } from './child-server.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** `ocp-e2e apiserver ARGS` in the background, ready once it printed its URL and kubeconfig path. */
async function startCommand(args: string[]): Promise<{ child: ChildProcess; output: () => string; url: string }> {
  const started = await spawnServer([join(ROOT, 'bin/ocp-e2e.ts'), 'apiserver', ...args], (out) => {
    const m = /API server ready at (\S+)/.exec(out);
    return m && /kubeconfig: /.test(out) ? m[1]! : undefined;
  }, { cwd: ROOT });
  return { child: started.child, output: started.output, url: started.ready };
}

const stopCommand = (child: ChildProcess) => stopChild(child, 'SIGTERM');

describe('ocp-e2e apiserver command', function () {
  this.timeout(60_000);
  const servers = useChildServers('apiserver-cmd-', 'SIGTERM');

  it('serves kubectl over HTTPS, persists with --data-dir and stops on SIGTERM', async () => {
    const dir = servers.dir();
    const kubeconfig = join(dir, 'kubeconfig');
    const args = ['--listen', '127.0.0.1:0', '--kubeconfig-out', kubeconfig, '--data-dir', join(dir, 'data')];
    const first = await startCommand(args);
    servers.track(first.child);
    expect(first.url).to.match(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(first.output()).to.contain(`kubeconfig: ${kubeconfig}`);
    const env = { KUBECONFIG: kubeconfig, HOME: dir };
    const resources = await execa('kubectl', ['api-resources', '-o', 'name'], { env });
    expect(resources.stdout.split('\n')).to.include.members(['clusteroperators.config.openshift.io', 'machineconfigpools.machineconfiguration.openshift.io']);
    await execa('kubectl', ['create', 'configmap', 'kept', '--from-literal=a=1'], { env });
    expect(await stopCommand(first.child)).to.equal(0);

    const second = await startCommand(args);
    servers.track(second.child);
    expect((await execa('kubectl', ['get', 'configmap', 'kept', '-o', 'jsonpath={.data.a}'], { env })).stdout).to.equal('1');
    expect(await stopCommand(second.child)).to.equal(0);
    servers.track(undefined);
  });

  it('refuses a malformed --listen with a usage error', async () => {
    const r = await execa(process.execPath, ['--import', 'tsx', join(ROOT, 'bin/ocp-e2e.ts'), 'apiserver', '--listen', 'nonsense'], { cwd: ROOT, reject: false });
    expect(r.exitCode).to.equal(2);
    expect(r.stderr).to.contain('expected HOST:PORT');
  });
});
