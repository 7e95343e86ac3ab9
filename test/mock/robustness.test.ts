/**
 * Malformed input of every kind gets a 4xx Status, never a 500 or a crash: a battery of bad bodies, paths, query
 * parameters and content types against every verb, then a check that the server still serves.
 */
import { expect } from 'chai';
import { startApiServer, type RunningApiServer } from '../../mock/index.js';
import { openShiftCrds } from '../../reference/crds/index.js';
import { request } from './support.js';

const MC = '/apis/machineconfiguration.openshift.io/v1/machineconfigs';

describe('mock API server: robustness', function () {
  this.timeout(60_000);
  let s: RunningApiServer;
  before(async () => {
    s = await startApiServer({ tls: false, crds: openShiftCrds() });
    await request(s, 'POST', MC, { body: { apiVersion: 'machineconfiguration.openshift.io/v1', kind: 'MachineConfig', metadata: { name: 'target' }, spec: {} } });
  });
  after(async () => { await s?.close(); });

  const bodies: Array<[string, string]> = [
    ['empty', ''], ['null', 'null'], ['number', '42'], ['string', '"x"'], ['array', '[]'], ['truncated', '{"a":'],
    ['nested nulls', '{"metadata":null,"spec":null}'], ['metadata string', '{"metadata":"x"}'],
    ['labels string', '{"metadata":{"name":"target","labels":"x"}}'], ['labels numbers', '{"metadata":{"name":"target","labels":{"a":1}}}'],
    ['finalizers object', '{"metadata":{"name":"target","finalizers":{"a":1}}}'], ['owner refs junk', '{"metadata":{"name":"target","ownerReferences":[1]}}'],
    ['deep', '['.repeat(5000) + ']'.repeat(5000)], ['bad unicode', '{"metadata":{"name":"\\ud800"}}'],
    ['wrong kind', '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"target"}}'],
    ['json patch junk', '[{"op":"explode","path":"/x"}]'], ['json patch bad path', '[{"op":"replace","path":"/nope/deeper","value":1}]'],
    ['yaml bomb', 'a: &a ["x","x","x","x","x","x","x","x","x"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: [*d,*d,*d,*d,*d,*d,*d,*d,*d]'],
  ];
  const contentTypes = ['application/json', 'application/yaml', 'application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml', 'application/vnd.kubernetes.protobuf', 'text/html'];

  it('answers every malformed write with a 4xx Status', async () => {
    const failures: string[] = [];
    for (const [what, body] of bodies) {
      for (const contentType of contentTypes) {
        for (const [method, path] of [['POST', MC], ['PUT', `${MC}/target`], ['PATCH', `${MC}/target?fieldManager=fuzz`], ['PUT', `${MC}/target/status`], ['DELETE', `${MC}/target?dryRun=All`]] as const) {
          const r = await request(s, method, path, { rawBody: body, contentType });
          const ok = (r.status >= 400 && r.status < 500 && r.json?.kind === 'Status') || (r.status < 300 && (method === 'DELETE' || method === 'PATCH' || method === 'PUT'));
          if (!ok) failures.push(`${method} ${path} ${contentType} ${what}: ${r.status} ${r.text.slice(0, 120)}`);
        }
      }
    }
    expect(failures).to.deep.equal([]);
    const target = (await request(s, 'GET', `${MC}/target`)).json;
    expect(target.metadata.name).to.equal('target');
    expect(target.metadata.labels === undefined || typeof target.metadata.labels === 'object').to.equal(true);
  });

  // Issue 45: this one request ended the process (`FATAL ERROR: RegExpCompiler Allocation failed`), the YAML parser
  // recursing 100,000 levels until V8 could not compile a regular expression on what stack was left.
  const DEEP = '['.repeat(100_000) + ']'.repeat(100_000);

  it('answers the 100,000-deep apply-patch+yaml POST that killed it with 415, and keeps serving', async () => {
    const r = await request(s, 'POST', MC, { rawBody: DEEP, contentType: 'application/apply-patch+yaml' });
    expect(r.status, r.text).to.equal(415);
    expect(r.json).to.include({ kind: 'Status', reason: 'UnsupportedMediaType', code: 415 });
    expect(r.json.message).to.equal('the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf');
    expect((await request(s, 'GET', `${MC}/target`)).json.metadata.name).to.equal('target');
  });

  it('refuses the 100,000-deep document with a 4xx Status under every media type and verb, before parsing it', async () => {
    await request(s, 'POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'target' } } });
    const types = ['application/json', 'application/yaml', 'application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml', 'application/apply-patch+cbor', 'application/vnd.kubernetes.protobuf', 'application/cbor', 'text/plain', ''];
    const CM = '/api/v1/namespaces/default/configmaps';
    const calls = [['POST', MC], ['PUT', `${MC}/target`], ['PATCH', `${MC}/target?fieldManager=deep`], ['DELETE', `${MC}/target?dryRun=All`],
      ['POST', CM], ['PUT', `${CM}/target`], ['PATCH', `${CM}/target?fieldManager=deep`], ['DELETE', `${CM}/target?dryRun=All`]] as const;
    const started = Date.now();
    const wrong: string[] = [];
    for (const contentType of types) {
      for (const [method, path] of calls) {
        const r = await request(s, method, path, { rawBody: DEEP, contentType });
        // A media type the verb takes is decoded and refused for its depth; any other is 415 unread.
        const ok = r.json?.kind === 'Status' && (r.status === 415 || (r.status === 400 && /exceeded max depth|protobuf body lacks the k8s envelope/.test(r.json.message)));
        if (!ok) wrong.push(`${method} ${path} ${JSON.stringify(contentType)}: ${r.status} ${r.text.slice(0, 150)}`);
      }
    }
    expect(wrong).to.deep.equal([]);
    expect(Date.now() - started, 'ms for 88 refusals').to.be.below(10_000);
    expect((await request(s, 'GET', `${MC}/target`)).status).to.equal(200);
  });

  it('answers malformed paths and query parameters with 4xx', async () => {
    const paths = [
      '/api/v1/namespaces/%ZZ/configmaps', '/apis/machineconfiguration.openshift.io/v1/machineconfigs/a/b/c/d',
      `${MC}?limit=-1`, `${MC}?limit=abc`, `${MC}?labelSelector=%3D%3D%3D`, `${MC}?fieldSelector=nonsense`, `${MC}?continue=%00%01`,
      `${MC}?watch=1&resourceVersion=abc`, `${MC}?watch=1&timeoutSeconds=-5`, '/api/v1/configmaps/x', `${MC}/target/scale`, '/openapi/v1',
    ];
    for (const path of paths) {
      const r = await request(s, 'GET', path);
      expect(r.status, `${path}: ${r.text}`).to.be.within(400, 499);
      expect(r.json?.kind, path).to.equal('Status');
    }
    expect((await request(s, 'GET', MC)).status).to.equal(200);
  });
});
