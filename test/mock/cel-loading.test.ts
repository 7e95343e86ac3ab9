/**
 * The CEL engine is loaded only when a schema with rules is stored (mock/cel/loader.ts): a server with the 4.12 CRDs,
 * which carry none, never loads it; a CRD with a rule created over the API has its rule judged from the very next
 * request; a schema checked outside the request pipeline before the engine is there fails naming what to await,
 * never passing the object unjudged. Each case runs in a process of its own, where nothing else has loaded the engine.
 */
import { expect } from 'chai';
import { execa } from 'execa';
import { fileURLToPath } from 'node:url';

const module = (p: string) => JSON.stringify(fileURLToPath(new URL(`../../${p}`, import.meta.url)));

/** Runs `body` (an async module body that prints one JSON line) in a new node process with tsx. */
async function inNewProcess(body: string): Promise<Record<string, unknown>> {
  const r = await execa(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', body]);
  return JSON.parse(String(r.stdout).trim().split('\n').pop()!) as Record<string, unknown>;
}

const WIDGET_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com', scope: 'Cluster', names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [{
      name: 'v1', served: true, storage: true,
      schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } },
        'x-kubernetes-validations': [{ rule: 'self.size < 10', message: 'size must be below 10' }] } } } },
    }],
  },
};

describe('mock API server: the CEL engine loaded when a rule is stored', function () {
  this.timeout(60_000);

  it('not loaded for the 4.12 CRDs; a CRD with a rule created over the API is judged from the next request', async () => {
    const out = await inNewProcess(`
      const { readdirSync, readFileSync } = await import('node:fs');
      const { parse } = await import('yaml');
      const { startApiServer } = await import(${module('mock/index.ts')});
      const { celLoaded } = await import(${module('mock/cel/loader.ts')});
      const dir = ${module('reference/crds')};
      const crds = readdirSync(dir).filter((f) => f.endsWith('.yaml')).map((f) => parse(readFileSync(dir + '/' + f, 'utf8')));
      const server = await startApiServer({ crds, tls: false });
      const out = { crds: crds.length, loadedAtStart: celLoaded() };
      const send = async (path, body) => {
        const res = await fetch(server.url + path, { method: 'POST', body: JSON.stringify(body), headers: { authorization: 'Bearer ' + server.token, 'content-type': 'application/json' } });
        return { code: res.status, message: (await res.json()).message };
      };
      out.crd = (await send('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', ${JSON.stringify(WIDGET_CRD)})).code;
      out.big = await send('/apis/example.com/v1/widgets', { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'big' }, spec: { size: 12 } });
      out.small = (await send('/apis/example.com/v1/widgets', { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'small' }, spec: { size: 3 } })).code;
      out.loadedAfter = celLoaded();
      await server.close();
      console.log(JSON.stringify(out));
    `);
    expect(out.crds).to.be.greaterThan(5);
    expect(out.loadedAtStart, 'a cluster of CRDs without rules').to.equal(false);
    expect(out.crd).to.equal(201);
    expect(out.big).to.deep.equal({ code: 422, message: 'Widget.example.com "big" is invalid: spec: Invalid value: "object": size must be below 10' });
    expect(out.small).to.equal(201);
    expect(out.loadedAfter).to.equal(true);
  });

  it('a schema checked before the engine is there fails naming loadCel, and judges once it is loaded', async () => {
    const out = await inNewProcess(`
      const { makeSchemaCheck } = await import(${module('mock/schema.ts')});
      const { celLoaded, loadCel } = await import(${module('mock/cel/loader.ts')});
      const check = makeSchemaCheck(${JSON.stringify(WIDGET_CRD.spec.versions[0]!.schema.openAPIV3Schema)});
      const out = {};
      try { out.early = check.validate({ metadata: { name: 'w' }, spec: { size: 12 } }); } catch (error) { out.early = error.message; }
      await loadCel();
      out.later = check.validate({ metadata: { name: 'w' }, spec: { size: 12 } }).map((c) => c.message);
      console.log(JSON.stringify(out));
    `);
    expect(out.early).to.match(/checked before the CEL engine was loaded: await loadCel\(\)/);
    expect(out.later).to.deep.equal(['Invalid value: "object": size must be below 10']);
  });

  it('a server started with a CRD that carries rules has loaded the engine once it is ready', async () => {
    const out = await inNewProcess(`
      const { startApiServer } = await import(${module('mock/index.ts')});
      const { celLoaded } = await import(${module('mock/cel/loader.ts')});
      const server = await startApiServer({ crds: [${JSON.stringify(WIDGET_CRD)}], tls: false });
      console.log(JSON.stringify({ loaded: celLoaded() }));
      await server.close();
    `);
    expect(out.loaded).to.equal(true);
  });
});
