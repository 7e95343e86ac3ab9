/**
 * Credentials as a user of a real cluster has them (docs/credentials.md), on `cluster up`: the push credentials
 * only in $REGISTRY_AUTH_FILE (no --pull-secret), and an --image-repo whose registry gives the cluster's pull secret
 * a pull-only account, as a quay.io robot is (test/bin/support/auth-proxy.ts in front of an open test registry).
 * The run must push with the file the preflight checked (it used to push with the cluster's pull-only entry), print
 * which file and hosts, no secret, and the nodes must pull with the cluster's pull secret; before that entry is in the
 * pull secret, the preflight must refuse the repository with the `oc set data` hint, before any spec.
 */
import { expect } from 'chai';
import { execa } from 'execa';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startTestRegistry, type TestRegistry } from '../lib/oci/support/fixtures.js';
import { clusterUp, lastLine, ocpE2e, ROOT } from '../support/cli.js';
import { startAuthProxy, type AuthProxy } from './support/auth-proxy.js';

const OC = resolve(ROOT, '..', 'shared', 'upstream', 'bin', 'oc');
const PULLER = { name: 'node-puller', password: 'ocp-e2e-MARKER-puller-61c2a7', mayPush: false };
const PUSHER = { name: 'e2e-pusher', password: 'ocp-e2e-MARKER-pusher-0b9d44', mayPush: true };
const authEntry = (user: { name: string; password: string }) => ({ auth: Buffer.from(`${user.name}:${user.password}`).toString('base64') });

describe('ocp-e2e run --target cluster: push credentials from $REGISTRY_AUTH_FILE, node pulls from the cluster\'s pull secret', function () {
  this.timeout(600_000);
  let up: Awaited<ReturnType<typeof clusterUp>> | undefined;
  let open: TestRegistry | undefined;
  let proxy: AuthProxy | undefined;
  let dir: string;
  let env: Record<string, string>;
  let repo: string;

  before(async () => {
    if (!existsSync(OC)) throw new Error(`the real oc is missing: expected ${OC} (../shared/upstream/bin/oc); this test runs \`oc set data\` as README says and does not skip`);
    dir = mkdtempSync(join(tmpdir(), 'ocp-e2e-credentials-'));
    [up, open] = await Promise.all([clusterUp(), startTestRegistry()]);
    proxy = await startAuthProxy(open.address, [PULLER, PUSHER]);
    repo = `${proxy.address}/e2e/layered`;
    const authFile = join(dir, 'auth.json');
    writeFileSync(authFile, JSON.stringify({ auths: { [proxy.address]: authEntry(PUSHER) } }), { mode: 0o600 });
    for (const sub of ['home', 'run', 'docker']) mkdirSync(join(dir, sub));
    // Only REGISTRY_AUTH_FILE holds credentials: no docker or podman file anywhere the run could find instead.
    env = { SSL_CERT_FILE: up.env.SSL_CERT_FILE!, REGISTRY_AUTH_FILE: authFile, XDG_RUNTIME_DIR: join(dir, 'run'), XDG_CONFIG_HOME: join(dir, 'home'), DOCKER_CONFIG: join(dir, 'docker') };
  });
  after(async () => {
    await Promise.allSettled([up?.stop(), proxy?.stop(), open?.dispose()]);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const run = () => ocpE2e(['run', '--target', 'cluster', '--kubeconfig', up!.kubeconfig, '--allow-disruptive', '--image-repo', repo, '--grep', '54183'], { timeoutMs: 480_000, env });

  it('refuses --image-repo before any spec while the cluster\'s pull secret has no entry for it, saying how to add one', async () => {
    const r = await run();
    expect(r.exitCode, r.output).to.equal(2);
    const errors = r.output.split('\n').filter((l) => l.startsWith('ocp-e2e run: '));
    expect(errors, r.output).to.have.length(1);
    expect(errors[0]).to.include(`--image-repo ${repo}: the nodes pull the layered image with the cluster's pull secret, and the cluster's pull secret openshift-config/pull-secret has no entry for ${proxy!.address}, while ${proxy!.address} refuses a pull without credentials`);
    expect(errors[0]).to.include('oc set data secret/pull-secret -n openshift-config --from-file=.dockerconfigjson=pull-secret.json');
    expect(r.output, 'no spec started').to.not.match(/passing|✔/);
    expect(proxy!.log.filter((l) => l.method === 'POST' && l.user === PUSHER.name).length, 'the push check asked with the file\'s pusher').to.be.greaterThan(0);
  });

  it('after `oc set data` adds a pull-only entry: pushes with $REGISTRY_AUTH_FILE, names it and its hosts, and the nodes pull with the pull secret', async () => {
    const ocEnv = { ...process.env, KUBECONFIG: up!.kubeconfig };
    const current = await execa(OC, ['get', 'secret/pull-secret', '-n', 'openshift-config', '--template={{index .data ".dockerconfigjson" | base64decode}}'], { env: ocEnv });
    const merged = JSON.parse(current.stdout) as { auths: Record<string, unknown> };
    merged.auths[proxy!.address] = authEntry(PULLER);
    const secretFile = join(dir, 'pull-secret.json');
    writeFileSync(secretFile, JSON.stringify(merged), { mode: 0o600 });
    await execa(OC, ['set', 'data', 'secret/pull-secret', '-n', 'openshift-config', `--from-file=.dockerconfigjson=${secretFile}`], { env: ocEnv });
    proxy!.log.length = 0;

    const r = await run();
    expect(r.exitCode, r.output).to.equal(0);
    expect(lastLine(r.output)).to.match(/^1 passed, 0 failed/);
    expect(r.output).to.include(`registry credentials: ${env.REGISTRY_AUTH_FILE} (REGISTRY_AUTH_FILE) for ${proxy!.address}\n`);
    expect(r.output).to.include(`node pulls: the nodes pull ${repo} with the entry for ${proxy!.address} in the cluster's pull secret openshift-config/pull-secret\n`);
    for (const secret of [PULLER.password, PUSHER.password]) {
      expect(r.output).to.not.include(secret);
      expect(r.output).to.not.include(Buffer.from(secret).toString('base64'));
    }
    const manifestPuts = proxy!.log.filter((l) => l.method === 'PUT' && /\/manifests\//.test(l.path));
    expect(manifestPuts.length, 'the layered image was pushed').to.be.greaterThan(0);
    expect(manifestPuts.every((l) => l.user === PUSHER.name && l.status === 201), JSON.stringify(manifestPuts)).to.equal(true);
    expect(proxy!.log.filter((l) => l.status === 403), 'no write was tried with the pull-only account').to.deep.equal([]);
    const nodeReads = proxy!.log.filter((l) => l.method === 'GET' && /\/manifests\//.test(l.path) && l.user === PULLER.name && l.status === 200);
    expect(nodeReads.length, 'the nodes read the image with the cluster\'s pull secret').to.be.greaterThan(0);
  });
});
