/**
 * A pod's in-cluster config as a kubeconfig (lib/kube/in-cluster.ts) and the order in which `--target cluster`
 * chooses its kubeconfig (bin/run/targets/kubeconfig-path.ts): fast, on temporary folders; oc and the suite reading
 * such a file against a cluster are in test/bin/rbac-suite.test.ts.
 */
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { chooseKubeconfig } from '../../../bin/run/targets/kubeconfig-path.js';
import { inClusterKubeconfig } from '../../../lib/kube/in-cluster.js';
import { loadKubeConfig } from '../../../lib/kube/kubeconfig.js';

describe('the in-cluster config as a kubeconfig, and which kubeconfig --target cluster takes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ocp-e2e-in-cluster-test-'));
  const saDir = join(dir, 'serviceaccount');
  mkdirSync(saDir);
  writeFileSync(join(saDir, 'token'), 'a-token-value');
  writeFileSync(join(saDir, 'ca.crt'), 'not read here');
  writeFileSync(join(saDir, 'namespace'), 'ocp-e2e\n');
  const pod = { KUBERNETES_SERVICE_HOST: '172.30.0.1', KUBERNETES_SERVICE_PORT: '443' };

  it('points at the service host with the CA and token files (names, not contents) and the pod\'s namespace', () => {
    const text = inClusterKubeconfig({ env: pod, serviceAccountDir: saDir })!;
    expect(text).to.not.include('a-token-value');
    const doc = parse(text);
    expect(doc.clusters[0].cluster).to.deep.equal({ server: 'https://172.30.0.1:443', 'certificate-authority': join(saDir, 'ca.crt') });
    expect(doc.users[0].user).to.deep.equal({ tokenFile: join(saDir, 'token'), 'token-file': join(saDir, 'token') });
    expect(doc.contexts[0].context.namespace).to.equal('ocp-e2e');
    const file = join(dir, 'kubeconfig');
    writeFileSync(file, text);
    const kc = loadKubeConfig(file);
    expect(kc.getCurrentUser()?.token, 'client-node reads token-file').to.equal('a-token-value');
    expect(kc.getCurrentCluster()?.caFile).to.equal(join(saDir, 'ca.crt'));
    expect(parse(inClusterKubeconfig({ env: { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '6443' }, serviceAccountDir: saDir })!).clusters[0].cluster.server).to.equal('https://[fd00::1]:6443');
  });

  it('is nothing outside a pod: no service host, or no token', () => {
    expect(inClusterKubeconfig({ env: {}, serviceAccountDir: saDir })).to.equal(undefined);
    expect(inClusterKubeconfig({ env: pod, serviceAccountDir: join(dir, 'nowhere') })).to.equal(undefined);
  });

  it('takes --kubeconfig, then $KUBECONFIG\'s first path, then ~/.kube/config, and only then the pod\'s own config', () => {
    const home = join(dir, 'home');
    const source = { env: { ...pod, KUBECONFIG: '/a/first:/b/second' }, serviceAccountDir: saDir };
    expect(chooseKubeconfig('given', source, home)).to.deep.equal({ path: join(process.cwd(), 'given'), source: 'option' });
    expect(chooseKubeconfig(undefined, source, home)).to.deep.equal({ path: '/a/first', source: 'KUBECONFIG' });
    const inPod = chooseKubeconfig(undefined, { env: pod, serviceAccountDir: saDir }, home);
    expect(inPod.source).to.equal('in-cluster');
    expect(statSync(inPod.path).mode & 0o777).to.equal(0o600);
    expect(readFileSync(inPod.path, 'utf8')).to.equal(inClusterKubeconfig({ env: pod, serviceAccountDir: saDir }));
    mkdirSync(join(home, '.kube'), { recursive: true });
    writeFileSync(join(home, '.kube', 'config'), 'apiVersion: v1\n');
    expect(chooseKubeconfig(undefined, { env: pod, serviceAccountDir: saDir }, home)).to.deep.equal({ path: join(home, '.kube', 'config'), source: 'home' });
    // neither: the missing ~/.kube/config, which the preflight reports (exit 3)
    expect(chooseKubeconfig(undefined, { env: {} }, join(dir, 'empty-home'))).to.deep.equal({ path: join(dir, 'empty-home', '.kube', 'config'), source: 'home' });
  });
});
