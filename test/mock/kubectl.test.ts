/**
 * Acceptance with the real kubectl: generators (protobuf bodies), server-side apply, every patch type, wait for a
 * condition, delete with finalizers, chunked lists, schema errors, dry run, explain.
 */
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { stringify } from 'yaml';
import { eventually, useTestServer } from './support.js';

describe('mock API server: kubectl acceptance', function () {
  this.timeout(90_000);
  const t = useTestServer();

  it('creates built-ins with kubectl generators (protobuf request bodies)', async () => {
    await t.kubectlOk(['create', 'namespace', 'gen']);
    await t.kubectlOk(['create', 'configmap', 'cm1', '-n', 'gen', '--from-literal=k=v']);
    await t.kubectlOk(['create', 'secret', 'generic', 's1', '-n', 'gen', '--from-literal=password=hunter2']);
    await t.kubectlOk(['create', 'serviceaccount', 'sa1', '-n', 'gen']);
    expect(await t.kubectlOk(['get', 'cm', 'cm1', '-n', 'gen', '-o', 'jsonpath={.data.k}'])).to.equal('v');
    expect(await t.kubectlOk(['get', 'secret', 's1', '-n', 'gen', '-o', 'jsonpath={.type} {.data.password}'])).to.equal(`Opaque ${Buffer.from('hunter2').toString('base64')}`);
    expect(await t.kubectlOk(['get', 'ns', 'gen', '-o', 'jsonpath={.status.phase}'])).to.equal('Active');
    const secrets = await t.kubectlOk(['get', 'secrets', '-n', 'gen']);
    expect(secrets.split('\n')[0]!.split(/\s+/)).to.deep.equal(['NAME', 'TYPE', 'DATA', 'AGE']);
  });

  it('applies server-side, then client-side, the same object', async () => {
    const manifest = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: applied, namespace: gen}\ndata: {a: "1"}\n';
    expect(await t.kubectlOk(['apply', '--server-side', '-f', '-'], manifest)).to.contain('serverside-applied');
    expect(await t.kubectlOk(['apply', '--server-side', '-f', '-'], manifest.replace('"1"', '"2"'))).to.contain('serverside-applied');
    expect(await t.kubectlOk(['get', 'cm', 'applied', '-n', 'gen', '-o', 'jsonpath={.data.a}'])).to.equal('2');
    await t.kubectlOk(['apply', '-f', '-'], manifest.replace('a: "1"', 'a: "3", b: "4"'));
    expect(await t.kubectlOk(['get', 'cm', 'applied', '-n', 'gen', '-o', 'jsonpath={.data}'])).to.equal('{"a":"3","b":"4"}');
  });

  it('patches a built-in with strategic, merge and JSON patches', async () => {
    await t.kubectlOk(['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'worker-0', labels: { 'node-role.kubernetes.io/worker': '' } }, status: { nodeInfo: { kubeletVersion: 'v1.25.0' } } }));
    await t.kubectlOk(['patch', 'node', 'worker-0', '--subresource=status', '-p', '{"status":{"conditions":[{"type":"Ready","status":"True"}]}}']);
    await t.kubectlOk(['patch', 'node', 'worker-0', '--subresource=status', '-p', '{"status":{"conditions":[{"type":"DiskPressure","status":"False"}]}}']);
    await t.kubectlOk(['patch', 'node', 'worker-0', '--type=merge', '-p', '{"spec":{"unschedulable":true}}']);
    await t.kubectlOk(['patch', 'node', 'worker-0', '--type=json', '-p', '[{"op":"add","path":"/metadata/annotations","value":{"x":"y"}}]']);
    const nodes = await t.kubectlOk(['get', 'nodes']);
    expect(nodes).to.match(/^worker-0\s+Ready,SchedulingDisabled\s+worker\s+\d+s\s+v1\.25\.0$/m);
    expect(await t.kubectlOk(['get', 'node', 'worker-0', '-o', 'jsonpath={.status.conditions[*].type}'])).to.equal('Ready DiskPressure');
  });

  it('describes a node and prints events with the columns of a real server', async () => {
    const uid = await t.kubectlOk(['get', 'node', 'worker-0', '-o', 'jsonpath={.metadata.uid}']);
    // describe finds a node's events by involvedObject kind, name, namespace ("") and uid.
    await t.kubectlOk(['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Event', metadata: { name: 'worker-0.reboot', namespace: 'default' }, involvedObject: { kind: 'Node', name: 'worker-0', uid }, reason: 'Rebooted', type: 'Normal', message: 'Node will reboot', lastTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z') }));
    const events = await t.kubectlOk(['get', 'events', '-n', 'default']);
    expect(events.split('\n')[0]!.split(/\s+/)).to.deep.equal(['LAST', 'SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE']);
    expect(events).to.match(/Normal\s+Rebooted\s+node\/worker-0\s+Node will reboot/);
    const described = await t.kubectlOk(['describe', 'node', 'worker-0']);
    expect(described).to.match(/^Name:\s+worker-0$/m);
    expect(described).to.match(/Rebooted\s+.*Node will reboot/);
  });

  it('waits for a condition with kubectl wait', async () => {
    await t.kubectlOk(['create', '-f', '-'], JSON.stringify({ apiVersion: 'machineconfiguration.openshift.io/v1', kind: 'MachineConfigPool', metadata: { name: 'worker' }, spec: {} }));
    const waiting = t.kubectl(['wait', 'mcp/worker', '--for=condition=Updated', '--timeout=20s']);
    await new Promise((r) => setTimeout(r, 500));
    await t.kubectlOk(['patch', 'mcp', 'worker', '--subresource=status', '--type=merge', '-p', '{"status":{"conditions":[{"type":"Updated","status":"True"}]}}']);
    const r = await waiting;
    expect(r.exitCode, r.stderr).to.equal(0);
    expect(r.stdout).to.contain('condition met');
    expect((await t.kubectl(['wait', 'crd/machineconfigs.machineconfiguration.openshift.io', '--for=condition=Established', '--timeout=5s'])).exitCode).to.equal(0);
  });

  it('deletes an object held by a finalizer once the finalizer goes', async () => {
    await t.kubectlOk(['create', '-f', '-'], JSON.stringify({ apiVersion: 'machineconfiguration.openshift.io/v1', kind: 'MachineConfig', metadata: { name: 'held', finalizers: ['example.com/hold'] }, spec: {} }));
    expect(await t.kubectlOk(['delete', 'mc', 'held', '--wait=false'])).to.contain('deleted');
    expect(await t.kubectlOk(['get', 'mc', 'held', '-o', 'jsonpath={.metadata.deletionTimestamp}'])).to.match(/^\d{4}-\d\d-\d\dT/);
    const deleting = t.kubectl(['delete', 'mc', 'held', '--timeout=20s']);
    await new Promise((r) => setTimeout(r, 500));
    await t.kubectlOk(['patch', 'mc', 'held', '--type=json', '-p', '[{"op":"remove","path":"/metadata/finalizers"}]']);
    expect((await deleting).exitCode).to.equal(0);
    expect((await t.kubectl(['get', 'mc', 'held'])).stderr).to.contain('NotFound');
  });

  it('lists in chunks with --chunk-size', async () => {
    const items = Array.from({ length: 25 }, (_, i) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `chunk-${String(i).padStart(2, '0')}`, namespace: 'gen', labels: { chunk: 'on-page' } } }));
    // Separate documents rather than a v1 List: kubectl validates a List on the client with OpenAPI v2, not served here.
    await t.kubectlOk(['create', '-f', '-'], items.map((i) => stringify(i)).join('---\n'));
    const r = await t.kubectl(['get', 'cm', '-n', 'gen', '-l', 'chunk=on-page', '--chunk-size=10', '-o', 'name', '-v=6']);
    expect(r.stdout.trim().split('\n')).to.have.length(25);
    const requests = r.stderr.split('\n').filter((l) => /GET .*configmaps\?.*limit=10/.test(l));
    expect(requests.length).to.equal(3);
    expect(requests.filter((l) => l.includes('continue=')).length).to.equal(2);
    const table = await t.kubectlOk(['get', 'cm', '-n', 'gen', '-l', 'chunk=on-page', '--chunk-size=7']);
    expect(table.trim().split('\n')).to.have.length(26);
  });

  it('reports schema errors and unknown fields as kubectl users see them', async () => {
    const bad = await t.kubectl(['create', '-f', '-'], JSON.stringify({ apiVersion: 'machineconfiguration.openshift.io/v1', kind: 'MachineConfigPool', metadata: { name: 'badpool' }, spec: { paused: 'sometimes' } }));
    expect(bad.exitCode).to.not.equal(0);
    expect(bad.stderr).to.contain('The MachineConfigPool "badpool" is invalid');
    expect(bad.stderr).to.contain('spec.paused: Invalid value: "string": spec.paused in body must be of type boolean');
    const unknown = await t.kubectl(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'machineconfiguration.openshift.io/v1', kind: 'MachineConfig', metadata: { name: 'typo' }, spec: { osImageUrl: 'x' } }));
    expect(unknown.exitCode).to.not.equal(0);
    expect(unknown.stderr).to.contain('unknown field "spec.osImageUrl"');
    const lenient = await t.kubectl(['apply', '--validate=false', '-f', '-'], JSON.stringify({ apiVersion: 'machineconfiguration.openshift.io/v1', kind: 'MachineConfig', metadata: { name: 'typo' }, spec: { osImageUrl: 'x' } }));
    expect(lenient.exitCode, lenient.stderr).to.equal(0);
    expect(await t.kubectlOk(['get', 'mc', 'typo', '-o', 'jsonpath={.spec}'])).to.equal('{}');
  });

  it('answers dry runs without storing', async () => {
    expect(await t.kubectlOk(['create', 'configmap', 'dry', '-n', 'gen', '--dry-run=server'])).to.contain('(server dry run)');
    expect((await t.kubectl(['get', 'cm', 'dry', '-n', 'gen'])).exitCode).to.not.equal(0);
  });

  it('explains the OpenShift kinds from their CRD schemas', async () => {
    const out = await t.kubectlOk(['explain', 'machineconfig.spec']);
    expect(out).to.contain('osImageURL');
  });

  it('prints watch events for `kubectl get -w` on a custom resource', async () => {
    const child = spawn('kubectl', ['get', 'mcp', '-w'], { env: { ...process.env, KUBECONFIG: t.kubeconfig, HOME: t.dir } });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    try {
      await eventually(() => /^worker/m.test(out), 'the initial listing', 10_000);
      await t.kubectlOk(['patch', 'mcp', 'worker', '--subresource=status', '--type=merge', '-p', '{"status":{"machineCount":2}}']);
      await eventually(() => out.split('\n').filter((l) => l.startsWith('worker')).length >= 2, 'the update line', 10_000);
      expect(out.split('\n')[0]).to.match(/^NAME\s+CONFIG\s+UPDATED/);
      expect(out.split('\n').filter((l) => l.startsWith('NAME'))).to.have.length(1);
    } finally {
      child.kill();
    }
  });
});
