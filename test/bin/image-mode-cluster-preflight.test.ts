/**
 * The image-mode specs' preflight through the real-cluster code path (`run --target cluster` against `ocp-e2e cluster
 * up --profile 4.20-to-4.21`, whose registry takes pushes and pulls with credentials only): a push secret the
 * registry refuses, and nodes whose global pull secret lacks the registry, each skip spec 15 before any cluster time
 * with the reason, and nothing is made on the cluster.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { ReferenceInfoConfigMap } from '../../helpers/capabilities.js';
import { Cluster } from '../../helpers/cluster.js';
import { clusterUp, lastLine, ocpE2e } from '../support/cli.js';

const GREP = 'E2E-015';

describe('ocp-e2e run --target cluster: the image-mode specs\' preflight of the push target (cluster up --profile 4.20-to-4.21)', function () {
  this.timeout(300_000);
  let up: Awaited<ReturnType<typeof clusterUp>> | undefined;
  let registry: string;

  before(async () => {
    up = await clusterUp(['--profile', '4.20-to-4.21']);
    const info = await Cluster.fromKubeconfig(up.kubeconfig).getConfigMap(ReferenceInfoConfigMap.namespace, ReferenceInfoConfigMap.name);
    registry = (info?.data?.imageRepo ?? '').split('/')[0] ?? '';
  });
  after(async () => {
    await up?.stop();
  });

  const run = (extra: string[] = []) => ocpE2e(['run', '--target', 'cluster', '--kubeconfig', up!.kubeconfig, '--allow-disruptive', '--grep', GREP, ...extra], { env: up!.env, timeoutMs: 200_000 });

  it('a push secret the registry refuses: skipped before cluster time, naming the repository and the refusal', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ocp-e2e-im-preflight-'));
    const wrong = join(dir, 'pull-secret.json');
    writeFileSync(wrong, JSON.stringify({ auths: { [registry]: { auth: Buffer.from('ocp-e2e:not-the-password').toString('base64') } } }), { mode: 0o600 });
    const r = await run(['--pull-secret', wrong]);
    expect(r.exitCode, r.output.slice(-3000)).to.equal(0);
    expect(r.output).to.match(/SKIP \[sig-mco\] MCO on-cluster image mode: .*: the image-mode build cannot push to \S+\/ocp-e2e\/layered-os \(reference registry\) with its push secret's credentials \(the run's entry for it\): Registry \S+ refused/);
    expect(r.output).to.not.include('▶ phase prepare');
    expect(lastLine(r.output)).to.equal('0 passed, 0 failed, 1 skipped');
  });

  it('nodes whose global pull secret lacks the registry: skipped before cluster time, with the way to add it', async () => {
    const cluster = Cluster.fromKubeconfig(up!.kubeconfig);
    const data = await cluster.getSecretData('openshift-config', 'pull-secret');
    const elsewhere = JSON.stringify({ auths: { 'quay.io': { auth: Buffer.from('someone:else').toString('base64') } } });
    await cluster.client.patch('Secret', 'pull-secret', { data: { '.dockerconfigjson': Buffer.from(elsewhere).toString('base64') } }, 'openshift-config');
    try {
      const r = await run();
      expect(r.exitCode, r.output.slice(-3000)).to.equal(0);
      expect(r.output).to.match(new RegExp(`SKIP \\[sig-mco\\] MCO on-cluster image mode: .*: the nodes pull the image-mode build from \\S+/ocp-e2e/layered-os with the cluster's global pull secret, and the cluster's pull secret openshift-config/pull-secret has no entry for ${registry.replace(/\./g, '\\.')}, while ${registry.replace(/\./g, '\\.')} refuses a pull without credentials: add it to the cluster's pull secret: oc get secret/pull-secret`));
      expect(r.output).to.not.include('▶ phase prepare');
      expect(await cluster.listIfServed('MachineOSConfig'), 'nothing was made').to.deep.equal([]);
    } finally {
      await cluster.client.patch('Secret', 'pull-secret', { data: { '.dockerconfigjson': Buffer.from(data!['.dockerconfigjson']!).toString('base64') } }, 'openshift-config');
    }
  });
});

describe('ocp-e2e run --target cluster: the image-mode specs refuse multi-arch compute before cluster time (cluster up --arch multi)', function () {
  this.timeout(300_000);
  let up: Awaited<ReturnType<typeof clusterUp>> | undefined;

  before(async () => {
    up = await clusterUp(['--profile', '4.20-to-4.21', '--arch', 'multi']);
  });
  after(async () => {
    await up?.stop();
  });

  it('an amd64 and an arm64 worker: spec 15 is skipped, naming both architectures, and no phase starts', async () => {
    const r = await ocpE2e(['run', '--target', 'cluster', '--kubeconfig', up!.kubeconfig, '--allow-disruptive', '--grep', GREP], { env: up!.env, timeoutMs: 200_000 });
    expect(r.exitCode, r.output.slice(-3000)).to.equal(0);
    expect(r.output).to.match(/SKIP \[sig-mco\] MCO on-cluster image mode: .*: pool worker has nodes of several architectures \(amd64: \S+; arm64: \S+\): on-cluster image mode does not support multi-arch compute/);
    expect(r.output).to.not.include('▶ phase prepare');
    expect(lastLine(r.output)).to.equal('0 passed, 0 failed, 1 skipped');
  });
});
