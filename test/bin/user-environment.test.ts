/**
 * A shell as users have it: podman and oc users keep REGISTRY_AUTH_FILE set, a registry operator has REGISTRY_*
 * variables (which the distribution registry reads as its configuration), DOCKER_CONFIG, KUBECONFIG and SSL_CERT_FILE
 * point at another cluster's files, or a `cluster up --env-out` file was sourced. None of that may change how the
 * reference's own processes behave: `cluster up` starts, and a reference run beside it passes spec 1. CAs added to
 * Node's trust (NODE_EXTRA_CA_CERTS) are not loaded by the processes of a reference run, which reach only loopback
 * under the run's own CA; a run against a real cluster keeps them.
 */
import { expect } from 'chai';
import { execa } from 'execa';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { clusterUp, lastLine, ocpE2e, type ClusterUp } from '../support/cli.js';

/** Values that would break a process which read them: files that do not exist or say something else. */
function unrelatedEnvironment(): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), 'ocp-e2e-user-env-'));
  writeFileSync(join(dir, 'auth.json'), JSON.stringify({ auths: { '127.0.0.1:1': { auth: Buffer.from('someone:else').toString('base64') } } }));
  writeFileSync(join(dir, 'ca.pem'), '-----BEGIN CERTIFICATE-----\nnot a certificate\n-----END CERTIFICATE-----\n');
  return {
    REGISTRY_AUTH_FILE: join(dir, 'auth.json'),
    // the distribution registry takes any REGISTRY_<SECTION>_<KEY> as configuration
    REGISTRY_HTTP_ADDR: '127.0.0.1:1',
    REGISTRY_STORAGE_FILESYSTEM_ROOTDIRECTORY: join(dir, 'nowhere'),
    REGISTRY_AUTH: 'htpasswd',
    DOCKER_CONFIG: join(dir, 'docker-config-that-does-not-exist'),
    KUBECONFIG: join(dir, 'kubeconfig-that-does-not-exist'),
    SSL_CERT_FILE: join(dir, 'ca.pem'),
  };
}

describe('the user\'s environment does not reach the reference\'s processes', function () {
  this.timeout(400_000);
  let first: ClusterUp | undefined;

  after(async () => {
    await first?.stop();
  });

  it('cluster up starts with REGISTRY_*, REGISTRY_AUTH_FILE, DOCKER_CONFIG, KUBECONFIG and SSL_CERT_FILE set to unrelated values', async () => {
    first = await clusterUp([], { env: unrelatedEnvironment() });
    expect(first.env.REGISTRY_AUTH_FILE).to.be.a('string');
  });

  it('after `source` of that cluster\'s env file and with the unrelated REGISTRY_* still set, a reference run passes spec 1', async () => {
    expect(first, 'the cluster of the test above').to.not.equal(undefined);
    const { REGISTRY_AUTH_FILE: _ignored, ...hostile } = unrelatedEnvironment();
    const run = await ocpE2e(['run', '--grep', '54183'], { env: { ...hostile, ...first!.env, KUBECONFIG: first!.kubeconfig }, timeoutMs: 300_000 });
    expect(run.exitCode, run.output.slice(-3000)).to.equal(0);
    expect(lastLine(run.output)).to.equal('1 passed, 0 failed, 0 skipped');
  });

  it('NODE_EXTRA_CA_CERTS is not loaded on the reference (node would warn of a file it cannot read), and is on --target cluster', async () => {
    // through the command users run (bin/ocp-e2e, the shell launcher), which is where it is left out
    const launcher = fileURLToPath(new URL('../../bin/ocp-e2e', import.meta.url));
    const env = { NODE_EXTRA_CA_CERTS: join(mkdtempSync(join(tmpdir(), 'ocp-e2e-extra-ca-')), 'missing.pem') };
    const warning = /Ignoring extra certs from `[^`]*missing\.pem`/;
    const onReference = await execa(launcher, ['run', '--list'], { env, all: true, reject: false, timeout: 120_000 });
    expect(onReference.exitCode, String(onReference.all).slice(-2000)).to.equal(0);
    expect(String(onReference.all)).to.not.match(warning);
    const onCluster = await execa(launcher, ['run', '--list', '--target', 'cluster'], { env, all: true, reject: false, timeout: 120_000 });
    expect(String(onCluster.all), 'a real cluster\'s run keeps the user\'s CAs').to.match(warning);
  });
});
