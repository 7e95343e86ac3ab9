/**
 * What real clients still missed from the mock: /openapi/v2 (kubectl's client-side validation of a `kind: List`),
 * the `-o wide` columns of nodes and pods, the apps/v1 workload kinds, and `pods/log` proxied to a node's kubelet
 * (played here by a tiny HTTP server) with the API server's own container checks.
 */
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request, startTestServer, type TestServer } from './support.js';

describe('mock API server: openapi/v2, -o wide, workloads and pods/log', function () {
  this.timeout(60_000);
  let t: TestServer;
  let kubelet: Server;
  const asked: string[] = [];

  before(async () => {
    kubelet = createServer((req, res) => {
      asked.push(req.url ?? '');
      const m = /^\/containerLogs\/([^/]+)\/([^/]+)\/([^/?]+)/.exec(req.url ?? '');
      if (m?.[3] === 'waiting') {
        res.writeHead(400);
        res.end(`container "waiting" in pod "${m[2]}" is waiting to start: ContainerCreating`);
        return;
      }
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end(`line 1 of ${m?.[1]}/${m?.[2]}/${m?.[3]}\nline 2\n`);
    });
    await new Promise<void>((r) => kubelet.listen(0, '127.0.0.1', () => r()));
    t = await startTestServer({ kubeletHost: '127.0.0.1' });
    const port = (kubelet.address() as AddressInfo).port;
    await t.kubectlOk(['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } }));
    await t.kubectlOk(['patch', 'node', 'n1', '--subresource=status', '--type=merge', '-p', JSON.stringify({
      status: {
        addresses: [{ type: 'InternalIP', address: '10.0.0.7' }],
        daemonEndpoints: { kubeletEndpoint: { Port: port } },
        nodeInfo: { osImage: 'Red Hat Enterprise Linux CoreOS 412', kernelVersion: '4.18.0', containerRuntimeVersion: 'cri-o://1.25.0', kubeletVersion: 'v1.25.0' },
        conditions: [{ type: 'Ready', status: 'True' }],
      },
    })]);
    const pod = (name: string, nodeName?: string) => ({
      apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' },
      spec: { nodeName, containers: [{ name: 'a', image: 'x' }, { name: 'b', image: 'x' }, { name: 'waiting', image: 'x' }] },
    });
    await t.kubectlOk(['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [pod('p1', 'n1'), pod('unscheduled')] }));
  });
  after(async () => {
    await t?.stop();
    kubelet?.close();
  });

  it('kubectl create -f of a kind: List validates without --validate=false (/openapi/v2 is served)', async () => {
    const r = await t.kubectl(['create', '-f', '-'], 'apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: l1, namespace: default}}\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: l2, namespace: default}}\n');
    expect(r.exitCode, r.stderr).to.equal(0);
    expect(r.stdout).to.include('configmap/l1 created').and.include('configmap/l2 created');
    const v2 = await request(t.server, 'GET', '/openapi/v2');
    expect(v2.json).to.include({ swagger: '2.0' });
  });

  it('-o wide prints the nodes\' and pods\' extra columns', async () => {
    const nodes = (await t.kubectlOk(['get', 'nodes', '-o', 'wide'])).split('\n');
    expect(nodes[0]!.split(/\s{2,}/)).to.deep.equal(['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION', 'INTERNAL-IP', 'EXTERNAL-IP', 'OS-IMAGE', 'KERNEL-VERSION', 'CONTAINER-RUNTIME']);
    expect(nodes[1]).to.include('10.0.0.7').and.include('Red Hat Enterprise Linux CoreOS 412').and.include('cri-o://1.25.0');
    const pods = (await t.kubectlOk(['get', 'pods', '-o', 'wide'])).split('\n');
    expect(pods[0]!.split(/\s{2,}/)).to.deep.equal(['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE', 'IP', 'NODE', 'NOMINATED NODE', 'READINESS GATES']);
    expect(pods.find((l) => l.startsWith('p1 '))).to.include('n1');
  });

  it('serves Deployments, ReplicaSets and DaemonSets with the real columns', async () => {
    const template = { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'c', image: 'img' }] } };
    await t.kubectlOk(['create', '-f', '-'], JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'default' }, spec: { replicas: 1, selector: { matchLabels: { app: 'x' } }, template } }));
    await t.kubectlOk(['create', '-f', '-'], JSON.stringify({ apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'ds', namespace: 'default' }, spec: { selector: { matchLabels: { app: 'x' } }, template } }));
    expect((await t.kubectlOk(['get', 'deploy'])).split('\n')[0]!.split(/\s+/)).to.deep.equal(['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE']);
    expect((await t.kubectlOk(['get', 'ds', '-o', 'wide'])).split('\n')[0]!.split(/\s{2,}/)).to.deep.equal(['NAME', 'DESIRED', 'CURRENT', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'NODE SELECTOR', 'AGE', 'CONTAINERS', 'IMAGES', 'SELECTOR']);
    expect((await t.kubectlOk(['get', 'deploy', 'd', '-o', 'jsonpath={.metadata.generation}']))).to.equal('1');
  });

  it('pods/log proxies to the node\'s kubelet with the kubelet\'s parameters', async () => {
    expect(await t.kubectlOk(['logs', 'p1', '-c', 'b', '--tail=1', '--timestamps'])).to.equal('line 1 of default/p1/b\nline 2');
    expect(asked.at(-1)).to.match(/^\/containerLogs\/default\/p1\/b\?/).and.include('tailLines=1').and.include('timestamps=true');
  });

  it('pods/log answers bad requests as the real API server does', async () => {
    const bad = await t.kubectl(['logs', 'p1', '-c', 'nope']);
    expect(bad.stderr).to.include('container nope is not valid for pod p1');
    const none = await request(t.server, 'GET', '/api/v1/namespaces/default/pods/p1/log');
    expect(none.status).to.equal(400);
    expect(none.json.message).to.equal('a container name must be specified for pod p1, choose one of: [a b waiting]');
    const missing = await t.kubectl(['logs', 'nope']);
    expect(missing.stderr).to.include('pods "nope" not found');
    const waiting = await t.kubectl(['logs', 'p1', '-c', 'waiting']);
    expect(waiting.stderr).to.include('container "waiting" in pod "p1" is waiting to start: ContainerCreating');
    const unscheduled = await request(t.server, 'GET', '/api/v1/namespaces/default/pods/unscheduled/log?container=a');
    expect([unscheduled.status, unscheduled.text]).to.deep.equal([200, '']);
  });

  it('without kubeletHost, a node whose address is not loopback is never contacted', async () => {
    const alone = await startTestServer();
    try {
      await alone.kubectlOk(['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } }));
      await alone.kubectlOk(['patch', 'node', 'n1', '--subresource=status', '--type=merge', '-p', '{"status":{"addresses":[{"type":"InternalIP","address":"10.0.0.7"}],"daemonEndpoints":{"kubeletEndpoint":{"Port":10250}}}}']);
      await alone.kubectlOk(['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: { nodeName: 'n1', containers: [{ name: 'a', image: 'x' }] } }));
      const r = await alone.kubectl(['logs', 'p']);
      expect(r.exitCode).to.equal(1);
      expect(r.stderr).to.include('reaches kubelets on loopback only');
    } finally {
      await alone.stop();
    }
  });
});
