/**
 * The first promise of the mock API server: real kubectl and a real client-node informer work against it
 * (apply, get, get -w, patch, Table columns, status subresource, resourceVersion conflicts, relist after 410).
 */
import { expect } from 'chai';
import * as k8s from '@kubernetes/client-node';
import { spawn } from 'node:child_process';
import { eventually, MC_WORKER, useTestServer } from './support.js';

describe('mock API server: kubectl and client-node basics', function () {
  this.timeout(60_000);
  const t = useTestServer();

  it('serves discovery with the OpenShift short names', async () => {
    const out = await t.kubectlOk(['api-resources', '--no-headers']);
    const rows = out.split('\n').map((l) => l.trim().split(/\s+/));
    const find = (name: string) => rows.find((r) => r[0] === name);
    expect(find('machineconfigs')?.[1]).to.equal('mc');
    expect(find('machineconfigpools')?.[1]).to.equal('mcp');
    expect(find('clusteroperators')?.[1]).to.equal('co');
    expect(find('clusterversions')?.[1]).to.equal('config.openshift.io/v1');
    expect(out).to.match(/^nodes\s+no\s+v1\s+false\s+Node$/m);
  });

  it('creates the report\'s MachineConfig with kubectl and reads it back as YAML, JSON and JSONPath', async () => {
    expect(await t.kubectlOk(['create', '-f', '-'], MC_WORKER)).to.contain('created');
    const obj = JSON.parse(await t.kubectlOk(['get', 'mc', 'tc-54183-new-os-image-upgrade-worker', '-o', 'json']));
    expect(obj.spec.osImageURL).to.equal('quay.io/sregidor/sregidor-os:mco_layering');
    expect(obj.metadata.generation).to.equal(1);
    expect(obj.metadata.uid).to.match(/^[0-9a-f-]{36}$/);
    expect(await t.kubectlOk(['get', 'mc', 'tc-54183-new-os-image-upgrade-worker', '-o', 'jsonpath={.metadata.labels.machineconfiguration\\.openshift\\.io/role}'])).to.equal('worker');
    expect(await t.kubectlOk(['get', 'mc', 'tc-54183-new-os-image-upgrade-worker', '-o', 'yaml'])).to.match(/osImageURL: quay.io\/sregidor\/sregidor-os:mco_layering/);
  });

  it('applies a changed manifest and bumps generation only for spec changes', async () => {
    await t.kubectlOk(['apply', '-f', '-'], MC_WORKER.replace('mco_layering', 'v2'));
    expect(await t.kubectlOk(['get', 'mc', 'tc-54183-new-os-image-upgrade-worker', '-o', 'jsonpath={.metadata.generation} {.spec.osImageURL}']))
      .to.equal('2 quay.io/sregidor/sregidor-os:v2');
    await t.kubectlOk(['label', 'mc', 'tc-54183-new-os-image-upgrade-worker', 'extra=yes']);
    expect(await t.kubectlOk(['get', 'mc', '-l', 'extra=yes', '-o', 'jsonpath={.items[*].metadata.generation}'])).to.equal('2');
    expect(await t.kubectlOk(['get', 'mc', '-l', 'extra notin (yes)', '-o', 'name'])).to.equal('');
  });

  it('patches with merge and JSON patches and refuses strategic merge for a custom resource', async () => {
    await t.kubectlOk(['patch', 'mc', 'tc-54183-new-os-image-upgrade-worker', '--type=merge', '-p', '{"spec":{"kernelType":"realtime"}}']);
    await t.kubectlOk(['patch', 'mc', 'tc-54183-new-os-image-upgrade-worker', '--type=json', '-p', '[{"op":"add","path":"/spec/fips","value":true}]']);
    const spec = JSON.parse(await t.kubectlOk(['get', 'mc', 'tc-54183-new-os-image-upgrade-worker', '-o', 'jsonpath={.spec}']));
    expect(spec).to.include({ kernelType: 'realtime', fips: true });
    const smp = await t.kubectl(['patch', 'mc', 'tc-54183-new-os-image-upgrade-worker', '--type=strategic', '-p', '{"spec":{"fips":false}}']);
    expect(smp.exitCode).to.not.equal(0);
    expect(smp.stderr).to.match(/strategic-merge-patch\+json is not supported|unknown format/);
  });

  it('prints `kubectl get mcp` and `get co` with the columns of the bug report', async () => {
    await t.kubectlOk(['create', '-f', '-'], JSON.stringify({
      apiVersion: 'machineconfiguration.openshift.io/v1', kind: 'MachineConfigPool', metadata: { name: 'master' }, spec: {},
    }));
    await t.kubectlOk(['patch', 'mcp', 'master', '--subresource=status', '--type=merge', '-p', JSON.stringify({
      status: {
        configuration: { name: 'rendered-master-53b475e3fbcf4f5f99ebd2fe1a3a4151' }, machineCount: 3, readyMachineCount: 3,
        updatedMachineCount: 3, degradedMachineCount: 0,
        conditions: [{ type: 'Updated', status: 'True' }, { type: 'Updating', status: 'False' }, { type: 'Degraded', status: 'False' }],
      },
    })]);
    const mcp = await t.kubectlOk(['get', 'mcp']);
    expect(mcp.split('\n')[0]!.split(/\s+/)).to.deep.equal(['NAME', 'CONFIG', 'UPDATED', 'UPDATING', 'DEGRADED', 'MACHINECOUNT', 'READYMACHINECOUNT', 'UPDATEDMACHINECOUNT', 'DEGRADEDMACHINECOUNT', 'AGE']);
    expect(mcp).to.match(/^master\s+rendered-master-53b475e3fbcf4f5f99ebd2fe1a3a4151\s+True\s+False\s+False\s+3\s+3\s+3\s+0\s+\d+s$/m);

    await t.kubectlOk(['create', '-f', '-'], JSON.stringify({ apiVersion: 'config.openshift.io/v1', kind: 'ClusterOperator', metadata: { name: 'machine-config' }, spec: {} }));
    const since = new Date(Date.now() - 173 * 60_000).toISOString().replace(/\.\d+Z$/, 'Z');
    const message = 'Failed to resync 4.12.0-0.nightly-2022-09-08-002336 because: error during syncRequiredMachineConfigPools';
    await t.kubectlOk(['patch', 'co', 'machine-config', '--subresource=status', '--type=merge', '-p', JSON.stringify({
      status: {
        versions: [{ name: 'operator', version: '4.12.0-0.nightly-2022-09-08-002336' }],
        conditions: [
          { type: 'Available', status: 'True', lastTransitionTime: since },
          { type: 'Progressing', status: 'True', lastTransitionTime: since },
          { type: 'Degraded', status: 'True', lastTransitionTime: since, message },
        ],
      },
    })]);
    const co = await t.kubectlOk(['get', 'co', 'machine-config']);
    expect(co.split('\n')[0]!.split(/\s+/)).to.deep.equal(['NAME', 'VERSION', 'AVAILABLE', 'PROGRESSING', 'DEGRADED', 'SINCE', 'MESSAGE']);
    expect(co).to.match(/^machine-config\s+4\.12\.0-0\.nightly-2022-09-08-002336\s+True\s+True\s+True\s+173m\s+Failed to resync/m);
  });

  it('ignores status on the main endpoint of a kind with a status subresource', async () => {
    await t.kubectlOk(['patch', 'mcp', 'master', '--type=merge', '-p', '{"status":{"machineCount":99}}']);
    expect(await t.kubectlOk(['get', 'mcp', 'master', '-o', 'jsonpath={.status.machineCount}'])).to.equal('3');
  });

  it('rejects a replace with a stale resourceVersion (409 Conflict)', async () => {
    const obj = JSON.parse(await t.kubectlOk(['get', 'mc', 'tc-54183-new-os-image-upgrade-worker', '-o', 'json']));
    await t.kubectlOk(['annotate', 'mc', 'tc-54183-new-os-image-upgrade-worker', 'touched=1']);
    obj.spec.kernelType = 'default';
    const r = await t.kubectl(['replace', '-f', '-'], JSON.stringify(obj));
    expect(r.exitCode).to.not.equal(0);
    expect(r.stderr).to.contain('Operation cannot be fulfilled on machineconfigs.machineconfiguration.openshift.io "tc-54183-new-os-image-upgrade-worker": the object has been modified; please apply your changes to the latest version and try again');
  });

  it('streams changes to `kubectl get -w`', async () => {
    await t.kubectlOk(['create', 'configmap', 'watched', '-n', 'default', '--from-literal=a=1']);
    const child = spawn('kubectl', ['get', 'cm', '-n', 'default', '-w', '--output-watch-events'], { env: { ...process.env, KUBECONFIG: t.kubeconfig, HOME: t.dir } });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    try {
      await eventually(() => /watched/.test(out) || child.exitCode !== null, 'kubectl get -w to list the existing config map', 10_000);
      await t.kubectlOk(['patch', 'configmap', 'watched', '-n', 'default', '-p', '{"data":{"b":"2"}}']);
      await t.kubectlOk(['delete', 'configmap', 'watched', '-n', 'default']);
      await eventually(() => /DELETED\s+watched/.test(out), 'the DELETED event in kubectl get -w output', 10_000);
      expect(out).to.match(/ADDED\s+watched\s+1\s/);
      expect(out).to.match(/MODIFIED\s+watched\s+2\s/);
    } finally {
      child.kill();
    }
  });

  it('feeds a client-node informer every change and a relist after 410 Expired', async () => {
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(t.kubeconfig);
    const custom = kc.makeApiClient(k8s.CustomObjectsApi);
    const group = 'machineconfiguration.openshift.io', version = 'v1', plural = 'machineconfigpools';
    let lists = 0;
    const informer = k8s.makeInformer<k8s.KubernetesObject>(kc, `/apis/${group}/${version}/${plural}`,
      () => { lists++; return custom.listClusterCustomObject({ group, version, plural }) as any; });
    const seen: string[] = [];
    informer.on('add', (o) => seen.push(`add ${o.metadata?.name}`));
    informer.on('update', (o) => seen.push(`update ${o.metadata?.name} ${(o as any).spec?.paused ?? ''}`));
    informer.on('delete', (o) => seen.push(`delete ${o.metadata?.name}`));
    informer.on('error', () => { /* the informer restarts itself; the assertions below notice if it does not */ });
    await informer.start();
    try {
      await eventually(() => seen.includes('add master'), 'the existing pool to be listed');
      await custom.createClusterCustomObject({ group, version, plural, body: { apiVersion: `${group}/${version}`, kind: 'MachineConfigPool', metadata: { name: 'worker' }, spec: {} } });
      await eventually(() => seen.includes('add worker'), 'ADDED worker');
      await custom.patchClusterCustomObject({ group, version, plural, name: 'worker', body: [{ op: 'add', path: '/spec/paused', value: true }] });
      await eventually(() => seen.includes('update worker true'), 'MODIFIED worker');

      // History is dropped and the stream cut: the informer's re-watch gets 410 and must relist to see later changes.
      t.server.compactHistory();
      t.server.dropWatches();
      await eventually(() => lists >= 2, 'the informer to relist after 410 Expired', 10_000);
      await custom.patchClusterCustomObject({ group, version, plural, name: 'worker', body: [{ op: 'replace', path: '/spec/paused', value: false }] });
      await eventually(() => seen.includes('update worker false'), 'the change made after the relist', 10_000);
      await custom.deleteClusterCustomObject({ group, version, plural, name: 'worker' });
      await eventually(() => seen.includes('delete worker'), 'DELETED worker', 10_000);
    } finally {
      await informer.stop();
    }
  });
});
