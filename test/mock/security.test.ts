/**
 * Security of the mock API server and of the suite's outputs. The server refuses anonymous and wrong-token
 * requests (without echoing what was sent), serves TLS by default with a certificate only its CA vouches for, and
 * listens on loopback only. A run of the report's flow that fails (so artefacts are gathered) with a planted pull
 * secret, against a cluster whose kubeconfig carries a bearer token, never lets either reach the console output, the
 * reference cluster's log or any file under the reports folder.
 */
import { expect } from 'chai';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { startApiServer, type RunningApiServer } from '../../mock/index.js';
import { startReferenceCluster, type ReferenceCluster } from '../../reference/index.js';
import { agentFor, send, statusProblem } from '../support/http.js';
import { startCli } from '../support/cli-child.js';

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

function plainGet(url: string): Promise<string> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const req = httpRequest({ hostname: u.hostname, port: u.port, path: '/api', timeout: 3000 }, (res) => { res.resume(); resolve(`HTTP ${res.statusCode}`); });
    req.on('error', (e) => resolve(`error ${(e as NodeJS.ErrnoException).code ?? e.message}`));
    req.on('timeout', () => { req.destroy(); resolve('timeout'); });
    req.end();
  });
}

function tlsGetWithoutCa(url: string): Promise<string> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const req = httpsRequest({ hostname: u.hostname, port: u.port, path: '/healthz' }, (res) => { res.resume(); resolve(`HTTP ${res.statusCode}`); });
    req.on('error', (e) => resolve(`error ${(e as NodeJS.ErrnoException).code ?? e.message}`));
    req.end();
  });
}

function tcpConnect(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const s = connect({ host, port, timeout: 2000 }, () => { s.destroy(); resolve('connected'); });
    s.on('error', (e) => resolve(`error ${(e as NodeJS.ErrnoException).code}`));
    s.on('timeout', () => { s.destroy(); resolve('timeout'); });
  });
}

describe('reliability: security of the mock API server', function () {
  this.timeout(30_000);
  let server: RunningApiServer;
  before(async () => { server = await startApiServer({ token: 'the-right-token-0123456789' }); });
  after(async () => { await server?.close(); });

  it('refuses anonymous, wrong-token and non-bearer requests on every kind of endpoint with a 401 Status', async () => {
    const agent = agentFor(server, 4);
    const marker = 'WRONG-TOKEN-MARKER-5b1d';
    const paths = ['/api', '/apis', '/version', '/api/v1/namespaces', '/api/v1/namespaces/default', '/api/v1/nodes?watch=1', '/openapi/v3'];
    const headersVariants: Array<[string, { anonymous?: boolean; token?: string; headers?: Record<string, string> }]> = [
      ['anonymous', { anonymous: true }],
      ['wrong token', { token: marker }],
      ['right token with a suffix', { token: `${server.token}x` }],
      ['right token as a prefix', { token: server.token.slice(0, -1) }],
      ['basic auth', { anonymous: true, headers: { Authorization: `Basic ${Buffer.from(`admin:${server.token}`).toString('base64')}` } }],
    ];
    for (const path of paths) {
      for (const [name, how] of headersVariants) {
        const r = await send(server, agent, { method: 'GET', path, ...how });
        expect(r.status, `${name} GET ${path}`).to.equal(401);
        expect(statusProblem(r), `${name} GET ${path}`).to.equal(undefined);
        expect(r.text).to.not.include(marker);
      }
      const write = await send(server, agent, { method: 'POST', path: '/api/v1/namespaces', anonymous: true, headers: { 'Content-Type': 'application/json' }, body: '{"metadata":{"name":"intruder"}}' });
      expect(write.status).to.equal(401);
    }
    const check = await send(server, agent, { method: 'GET', path: '/api/v1/namespaces/intruder' });
    expect(check.status, 'nothing was created by the refused requests').to.equal(404);
    expect((await send(server, agent, { method: 'GET', path: '/api/v1/namespaces' })).status).to.equal(200);
    agent.destroy();
  });

  it('serves TLS by default: https URL, a CA, plain HTTP gets no answer, a client without the CA refuses the certificate', async () => {
    expect(server.url).to.match(/^https:\/\//);
    expect(server.caPem).to.include('BEGIN CERTIFICATE');
    expect(await plainGet(server.url)).to.not.match(/^HTTP 2/);
    expect(await tlsGetWithoutCa(server.url)).to.match(/SELF_SIGNED|UNABLE_TO_VERIFY|unable to verify|self[- ]signed/i);
    const kubeconfig = parse(server.kubeconfigYaml());
    expect(kubeconfig.clusters[0].cluster['certificate-authority-data'], 'the kubeconfig pins the CA').to.be.a('string');
    expect(kubeconfig.clusters[0].cluster['insecure-skip-tls-verify']).to.not.equal(true);
  });

  it('listens on loopback only', async () => {
    const { hostname, port } = new URL(server.url);
    expect(hostname).to.equal('127.0.0.1');
    const external = Object.values(networkInterfaces()).flat().find((i) => i && i.family === 'IPv4' && !i.internal);
    if (external) expect(await tcpConnect(external.address, Number(port)), `connect to ${external.address}:${port}`).to.equal('error ECONNREFUSED');
    expect(await tcpConnect('127.0.0.1', Number(port))).to.equal('connected');
  });
});

describe('reliability: secrets never reach the console, logs or reports', function () {
  this.timeout(240_000);
  let reference: ReferenceCluster | undefined;
  let dir: string;
  before(() => { dir = mkdtempSync(join(tmpdir(), 'ocp-e2e-secrets-')); });
  after(async () => {
    await reference?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a failing run of the report\'s flow with a planted pull secret and a bearer token leaks neither', async () => {
    const log: string[] = [];
    // The buggy profile makes the spec fail, so failure artefacts (objects, events, timeline) are gathered too.
    reference = await startReferenceCluster({ profile: '4.12-nightly-2022-09-08', log: (l) => log.push(l) });
    const token = parse(readFileSync(reference.kubeconfigPath, 'utf8')).users[0].user.token as string;
    expect(token, 'the reference kubeconfig carries a bearer token').to.be.a('string').with.length.above(10);
    const marker = 'PLANTED-PULL-SECRET-9e2f41';
    const auth = Buffer.from(`robot:${marker}`).toString('base64');
    const pullSecret = join(dir, 'pull-secret.json');
    writeFileSync(pullSecret, JSON.stringify({ auths: { [reference.registry]: { auth }, 'quay.io': { auth, email: 'x@example.com' } } }));
    const reports = join(dir, 'reports');
    const run = startCli(['run', '--target', 'cluster', '--kubeconfig', reference.kubeconfigPath, '--allow-disruptive', '--grep', '54183', '--pull-secret', pullSecret, '--reports-dir', reports]);
    const { code } = await run.exited;
    const output = run.output();
    expect(code, output.slice(-3000)).to.equal(1);
    expect(filesUnder(join(reports, 'artifacts')).length, 'failure artefacts were gathered').to.be.greaterThan(0);

    const secrets: Array<[string, string]> = [['pull secret password', marker], ['pull secret auth', auth], ['bearer token', token]];
    const places: Array<[string, string]> = [['console output', output], ['reference cluster log', log.join('\n')],
      ...filesUnder(reports).map((f) => [f, readFileSync(f).toString('latin1')] as [string, string])];
    const leaks = places.flatMap(([where, text]) => secrets.filter(([, s]) => text.includes(s)).map(([what]) => `${what} in ${where}`));
    console.log(`secrets: searched ${places.length} outputs (console, reference log, ${places.length - 2} report files) for 3 planted secrets: ${leaks.length} leaks`);
    expect(leaks).to.deep.equal([]);
  });
});
