/**
 * Bad input and targets the suite cannot use end before any spec prepares, with one message and the documented exit
 * code (bin/run/preflight/exit-codes.ts): an image pullspec that does not parse, an image that is not there or is no
 * release, a release older than the cluster's, a pull secret without `auths`, a repository that refuses a push, a
 * kubeconfig that is missing or not YAML, a server that does not answer or refuses the token, and a bare Kubernetes
 * API (the mock started by `ocp-e2e apiserver`, no ClusterVersion). Wall times are printed; the bound on them is
 * measured by bench/preflight.ts (bench/RESULTS.md), not asserted here.
 */
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkReleaseImage } from '../../helpers/preflight/release-image.js';
import { RegistryClient } from '../../lib/oci/image-files.js';
import { closedPort, startTestRegistry, type TestRegistry } from '../lib/oci/support/fixtures.js';
import { FROM, MockCluster, TO } from '../helpers/fixture.js';
import { ocpE2e, ROOT } from '../support/cli.js';
import { pushRawImage, releasePayloadFiles } from './support/raw-image.js';

const times: string[] = [];

function startBareApiServer(kubeconfig: string): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bin/ocp-e2e.ts'), 'apiserver', '--listen', '127.0.0.1:0', '--kubeconfig-out', kubeconfig], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      if (/API server ready at/.test(out) && /kubeconfig: /.test(out)) resolve(child);
    });
    child.stderr!.on('data', (d) => { out += d; });
    child.once('exit', (code) => reject(new Error(`apiserver exited early with ${code}: ${out}`)));
  });
}

describe('ocp-e2e run: bad input and unusable targets end at once with one message and their exit code', function () {
  this.timeout(180_000);
  let dir: string;
  let registry: TestRegistry;
  let authRegistry: TestRegistry;
  let mock: MockCluster;
  let bare: ChildProcess | undefined;
  let bareKubeconfig: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ocp-e2e-preflight-'));
    [registry, authRegistry, mock] = await Promise.all([startTestRegistry(), startTestRegistry({ auth: true }), MockCluster.start()]);
    await mock.seedSettledCluster();
    await pushRawImage(registry.address, 'ocp/release', TO, releasePayloadFiles(TO));
    await pushRawImage(registry.address, 'ocp/release', 'old', releasePayloadFiles('4.11.0'));
    await pushRawImage(registry.address, 'library/plain', '1', { 'etc/hello': 'not a release\n' });
    bareKubeconfig = join(dir, 'bare.kubeconfig');
    bare = await startBareApiServer(bareKubeconfig);
  });
  after(async () => {
    console.log(`preflight wall times: ${times.join(', ')}`);
    bare?.kill('SIGTERM');
    await Promise.allSettled([registry?.dispose(), authRegistry?.dispose(), mock?.stop()]);
    rmSync(dir, { recursive: true, force: true });
  });

  const cluster = (...more: string[]) => ['run', '--target', 'cluster', '--kubeconfig', mock.kubeconfigPath, ...more];
  const write = (name: string, text: string) => {
    const file = join(dir, name);
    writeFileSync(file, text);
    return file;
  };

  /** Runs the command; expects the exit code, one error line matching `message`, and no spec started. */
  async function expectRefusal(what: string, args: string[], exitCode: number, message: RegExp): Promise<void> {
    const r = await ocpE2e(args, { timeoutMs: 60_000 });
    times.push(`${what} ${(r.wallMs / 1000).toFixed(1)} s`);
    expect(r.exitCode, r.output).to.equal(exitCode);
    const errors = r.output.split('\n').filter((l) => l.startsWith('ocp-e2e run: '));
    expect(errors, r.output).to.have.length(1);
    expect(errors[0], r.output).to.match(message);
    expect(r.output, 'no stack trace').to.not.match(/\n\s+at /);
    expect(r.output, 'no spec started').to.not.match(/== tests|passing|preflight:/);
  }

  it('--to-image that is no pullspec: exit 2 before anything starts', async () => {
    await expectRefusal('not@@valid', ['run', '--to-image', 'not@@valid'], 2, /--to-image not@@valid is not an image pullspec: Invalid digest/);
  });

  it('--to-image of an image that is no release payload: exit 2, read from its registry', async () => {
    const image = `${registry.address}/library/plain:1`;
    await expectRefusal('non-release image', cluster('--to-image', image), 2, new RegExp(`--to-image ${image}: not an OpenShift release image \\(.*has no /release-manifests/image-references`));
  });

  it('a bare Kubernetes API (ocp-e2e apiserver, no ClusterVersion): exit 2, saying what is missing', async () => {
    await expectRefusal('bare Kubernetes API', ['run', '--target', 'cluster', '--kubeconfig', bareKubeconfig], 2,
      /https:\/\/127\.0\.0\.1:\d+ does not look like an OpenShift cluster: no ClusterVersion "version" .*; no machine-config pool master or worker; no nodes$/);
  });

  it('--to-image that is not in its registry, or a release older than the cluster\'s: exit 2', async () => {
    await expectRefusal('missing image', cluster('--to-image', `${registry.address}/ocp/release:nope`), 2, /--to-image \S+:nope: no such image in its registry/);
    await expectRefusal('older release', cluster('--to-image', `${registry.address}/ocp/release:old`), 2, new RegExp(`is release 4\\.11\\.0, older than the cluster's ${FROM.replace(/\./g, '\\.')}: give a newer release`));
  });

  it('an upgrade path (--to-image again) whose next hop is not newer than the one before: exit 2, naming the hop', async () => {
    const to = `${registry.address}/ocp/release:${TO}`;
    await expectRefusal('hop not newer', cluster('--to-image', to, '--to-image', to), 2, new RegExp(`--to-image ${to.replace(/\./g, '\\.')} is release ${TO.replace(/\./g, '\\.')}, the version of the hop before it, ${TO.replace(/\./g, '\\.')}: give a newer release`));
    await expectRefusal('hop older', cluster('--to-image', `${to},${registry.address}/ocp/release:old`), 2, new RegExp(`is release 4\\.11\\.0, older than the hop before it, ${TO.replace(/\./g, '\\.')}: give a newer release`));
  });

  it('a pull secret without auths, and an --image-repo that refuses a push: exit 2', async () => {
    await expectRefusal('pull secret without auths', ['run', '--pull-secret', write('no-auths.json', '{"registries": {}}')], 2, /the pull secret \S+ has no "auths" object/);
    await expectRefusal('image repo refuses push', cluster('--allow-disruptive', '--image-repo', `${authRegistry.address}/e2e/layered`), 2,
      /--image-repo \S+\/e2e\/layered: cannot push there: Registry \S+ refused access to e2e\/layered: it needs credentials/);
  });

  it('tells apart a kubeconfig that cannot be read (3), a server that does not answer (4) and refused credentials (5)', async () => {
    await expectRefusal('kubeconfig missing', ['run', '--target', 'cluster', '--kubeconfig', join(dir, 'nope')], 3, /cannot read the kubeconfig \S+nope: no such file/);
    await expectRefusal('kubeconfig not YAML', ['run', '--target', 'cluster', '--kubeconfig', write('bad.kubeconfig', 'apiVersion: v1\nclusters:\n  - name: a\n   server: x\n\t{')], 3, /cannot read the kubeconfig \S+: it is not YAML/);
    const yaml = mock.server.kubeconfigYaml();
    const port = await closedPort();
    await expectRefusal('server does not answer', ['run', '--target', 'cluster', '--kubeconfig', write('closed.kubeconfig', yaml.replace(/server: \S+/, `server: https://127.0.0.1:${port}`))], 4,
      new RegExp(`cannot reach the server https://127\\.0\\.0\\.1:${port} \\(kubeconfig \\S+\\): connection failed \\(ECONNREFUSED\\)`));
    await expectRefusal('token refused', ['run', '--target', 'cluster', '--kubeconfig', write('wrong-token.kubeconfig', yaml.replace(mock.server.token, 'not-the-token'))], 5,
      /the server \S+ refused the credentials of the kubeconfig \S+: .*HTTP 401.*log in again/);
  });

  it('learns the version of a release payload from its metadata', async () => {
    const client = new RegistryClient();
    expect(await checkReleaseImage(client, `${registry.address}/ocp/release:${TO}`, FROM)).to.deep.equal({ image: `${registry.address}/ocp/release:${TO}`, version: TO });
    const same = await checkReleaseImage(client, `${registry.address}/ocp/release:${TO}`, TO).catch((e: Error) => e);
    expect((same as Error).message).to.match(/the version the cluster already runs/);
  });
});
