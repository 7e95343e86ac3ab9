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
