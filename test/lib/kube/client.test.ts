/** lib/kube's parts that need no server: the kind table's paths, error classification, the retry policy. */
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeconfigError, loadKubeConfig } from '../../../lib/kube/kubeconfig.js';
import { classifyApiError, isConflict, isNotFound, isUnauthorized, isUnreachable, KubeApiError } from '../../../lib/kube/errors.js';
import { apiVersionOf, collectionPath, KINDS } from '../../../lib/kube/kinds.js';
import { DEFAULT_RETRY_POLICY, retryDelayMs, withRetry } from '../../../lib/kube/retry.js';

const apiError = (code: number, body: object, headers?: Record<string, string>) =>
  Object.assign(new Error(`HTTP-Code: ${code}`), { code, body, headers });

describe('lib/kube: kinds', () => {
  it('gives the collection path and apiVersion of core and group kinds', () => {
    expect(collectionPath(KINDS.Node)).to.equal('/api/v1/nodes');
    expect(collectionPath(KINDS.ConfigMap, 'kube-system')).to.equal('/api/v1/namespaces/kube-system/configmaps');
    expect(collectionPath(KINDS.ConfigMap)).to.equal('/api/v1/configmaps');
    expect(collectionPath(KINDS.MachineConfigPool, 'ignored')).to.equal('/apis/machineconfiguration.openshift.io/v1/machineconfigpools');
    expect(apiVersionOf(KINDS.ClusterVersion)).to.equal('config.openshift.io/v1');
    expect(apiVersionOf(KINDS.Node)).to.equal('v1');
  });
});

describe('lib/kube: error classification', () => {
  it('names the failure from the status, the Status body or the network error underneath', () => {
    expect(classifyApiError(apiError(401, {}))).to.include({ kind: 'unauthorized', code: 401, retryable: false });
    expect(isUnauthorized(apiError(401, {}))).to.equal(true);
    expect(isNotFound(apiError(404, { reason: 'NotFound', message: 'x' }))).to.equal(true);
    expect(isConflict(apiError(409, { reason: 'AlreadyExists' }))).to.equal(true);
    expect(classifyApiError(Object.assign(new Error('Gone'), { statusCode: 410 }))).to.include({ kind: 'gone', code: 410 });
    const refused = Object.assign(new Error('request to https://127.0.0.1:1/api failed'), { cause: Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }) });
    expect(isUnreachable(refused)).to.equal(true);
    expect(classifyApiError(refused).message).to.match(/^connection failed \(ECONNREFUSED\)/);
    expect(classifyApiError(new TypeError('x is undefined'))).to.include({ kind: 'other', retryable: false });
    const untrusted = Object.assign(new Error('request failed'), { code: 'FETCH_ERROR', cause: Object.assign(new Error('self-signed certificate'), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }) });
    expect(classifyApiError(untrusted)).to.include({ kind: 'unreachable', retryable: false });
    expect(classifyApiError(untrusted).message).to.match(/^TLS failed \(DEPTH_ZERO_SELF_SIGNED_CERT\)/);
    const invalid = classifyApiError(apiError(422, { message: 'MachineConfig "x" is invalid', details: { causes: [{ field: 'spec.osImageURL', message: 'Invalid value' }] } }));
    expect(invalid).to.include({ kind: 'invalid', code: 422, retryable: false });
    expect(invalid.message).to.include('spec.osImageURL: Invalid value');
  });

  it('reads Retry-After from the header or the Status details of a 429 or 503', () => {
    expect(classifyApiError(apiError(429, {}, { 'Retry-After': '3' })).retryAfterMs).to.equal(3000);
    expect(classifyApiError(apiError(503, { details: { retryAfterSeconds: 2 } })).retryAfterMs).to.equal(2000);
    expect(classifyApiError(apiError(500, {}, { 'retry-after': '3' })).retryAfterMs).to.equal(undefined);
  });
});

describe('lib/kube: the retry policy', () => {
  it('retries throttling, server errors and resets, then succeeds', async () => {
    let calls = 0;
    const value = await withRetry('get thing', async () => {
      calls++;
      if (calls === 1) throw apiError(429, { message: 'slow down', reason: 'TooManyRequests' });
      if (calls === 2) throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
      if (calls === 3) throw apiError(502, { reason: 'BadGateway' });
      return 'ok';
    }, { baseDelayMs: 1 });
    expect(value).to.equal('ok');
    expect(calls).to.equal(4);
  });

  it('fails at once on what retrying cannot fix', async () => {
    let calls = 0;
    const err = await withRetry('list MachineConfigPool', async () => {
      calls++;
      throw apiError(404, { message: 'the server could not find the requested resource', reason: 'NotFound' });
    }, { baseDelayMs: 1 }).catch((e: unknown) => e);
    expect(calls).to.equal(1);
    expect(err).to.be.instanceOf(KubeApiError);
    expect((err as KubeApiError).status).to.equal(404);
    expect((err as Error).message).to.equal('list MachineConfigPool failed: HTTP 404 NotFound: the server could not find the requested resource');
  });

  it('gives up after the bound of attempts and says how many', async () => {
    const err = await withRetry('get x', async () => { throw apiError(503, { message: 'unavailable' }); }, { attempts: 3, baseDelayMs: 1 }).catch((e: Error) => e);
    expect((err as Error).message).to.equal('get x failed: HTTP 503: unavailable (after 3 attempts)');
  });

  it('backs off exponentially with jitter, up to a bound, and never sooner than a Retry-After (itself bounded)', () => {
    const p = DEFAULT_RETRY_POLICY;
    const noRetryAfter = { kind: 'server', message: '', retryable: true } as const;
    expect(retryDelayMs(p, 1, noRetryAfter, () => 0)).to.equal(75);
    expect(retryDelayMs(p, 1, noRetryAfter, () => 1)).to.equal(125);
    expect(retryDelayMs(p, 4, noRetryAfter, () => 0.5)).to.equal(800);
    expect(retryDelayMs(p, 20, noRetryAfter, () => 0.5)).to.equal(p.maxDelayMs);
    expect(retryDelayMs(p, 1, { ...noRetryAfter, kind: 'throttled', retryAfterMs: 2000 }, () => 0.5)).to.equal(2000);
    expect(retryDelayMs(p, 1, { ...noRetryAfter, kind: 'throttled', retryAfterMs: 3_600_000 }, () => 0.5)).to.equal(p.maxRetryAfterMs);
  });

  it('stops retrying when its signal aborts, with the last failure', async () => {
    const abort = new AbortController();
    let calls = 0;
    const started = Date.now();
    setTimeout(() => abort.abort(), 50);
    const err = await withRetry('get x', async () => {
      calls++;
      throw apiError(500, { message: 'down' });
    }, { baseDelayMs: 5000, signal: abort.signal }).catch((e: Error) => e);
    expect(Date.now() - started).to.be.below(2000);
    expect(calls).to.equal(1);
    expect((err as Error).message).to.equal('get x failed: HTTP 500: down');
  });
});

describe('lib/kube: reading a kubeconfig', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ocp-e2e-kubeconfig-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };
  const problem = (path: string) => {
    try {
      loadKubeConfig(path);
      return 'loaded';
    } catch (error) {
      expect(error).to.be.instanceOf(KubeconfigError);
      return `${(error as KubeconfigError).problem}: ${(error as Error).message}`;
    }
  };
  const good = `apiVersion: v1
kind: Config
clusters: [{ name: c, cluster: { server: 'https://127.0.0.1:6443' } }]
users: [{ name: u, user: { token: t } }]
contexts: [{ name: x, context: { cluster: c, user: u } }]
current-context: x
`;

  it('says which of missing, not YAML, not a kubeconfig, or no usable context is the problem', () => {
    expect(problem(join(dir, 'nope'))).to.match(/^missing: cannot read the kubeconfig \S+nope: no such file/);
    expect(problem(file('tabs', 'clusters:\n  - a\n   b: [\n\t{'))).to.match(/^not-yaml: .*: it is not YAML \(/);
    expect(problem(file('plain', 'just some words'))).to.match(/^not-a-kubeconfig: .*no clusters, contexts or users/);
    expect(problem(file('no-context', good.replace('current-context: x', 'current-context: y')))).to.match(/^not-a-kubeconfig: .*current-context "y" is not among its contexts/);
    expect(problem(file('good', good))).to.equal('loaded');
    expect(loadKubeConfig(join(dir, 'good')).getCurrentCluster()?.server).to.equal('https://127.0.0.1:6443');
  });
});
