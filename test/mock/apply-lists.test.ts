/**
 * Server-side apply merges lists and maps by the CRD's schema, as kube-apiserver's structured-merge-diff does: map
 * lists item by item by their keys, sets as sets, atomic lists and maps whole; managers own list items (`k:`/`v:` in
 * fieldsV1), lose what they stop applying, and an apply that changes another manager's field is a 409 unless forced.
 * Over HTTP and through `kubectl apply --server-side`.
 */
import { expect } from 'chai';
import { request, useTestServer } from './support.js';

const WIDGET_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.test.example.com' },
  spec: {
    group: 'test.example.com', scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [{
      name: 'v1', served: true, storage: true, subresources: { status: {} },
      schema: {
        openAPIV3Schema: {
          type: 'object',
          properties: {
            spec: {
              type: 'object',
              properties: {
                ports: {
                  type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name', 'protocol'],
                  items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, protocol: { type: 'string', default: 'TCP' }, port: { type: 'integer' }, note: { type: 'string' } } },
                },
                tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
                args: { type: 'array', items: { type: 'string' } },
                selector: { type: 'object', 'x-kubernetes-map-type': 'atomic', additionalProperties: { type: 'string' } },
                config: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } } },
              },
            },
            status: {
              type: 'object',
              properties: {
                conditions: {
                  type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'],
                  items: { type: 'object', properties: { type: { type: 'string' }, status: { type: 'string' } } },
                },
              },
            },
          },
        },
      },
    }],
  },
};

const WIDGETS = '/apis/test.example.com/v1/namespaces/default/widgets';
const APPLY = 'application/apply-patch+yaml';

describe('mock API server: server-side apply merges by list type', function () {
  this.timeout(60_000);
  const t = useTestServer({ crds: [WIDGET_CRD] });

  const apply = (name: string, manager: string, spec: Record<string, unknown>, query = '') => request(t.server, 'PATCH', `${WIDGETS}/${name}?fieldManager=${manager}${query}`, {
    body: { apiVersion: 'test.example.com/v1', kind: 'Widget', metadata: { name }, spec }, contentType: APPLY,
  });
  const ok = async (r: Promise<{ status: number; json: any; text: string }>) => {
    const res = await r;
    expect(res.status, res.text).to.be.oneOf([200, 201]);
    return res.json;
  };
  const fieldsOf = (obj: any, manager: string) => obj.metadata.managedFields?.find((e: any) => e.manager === manager)?.fieldsV1;

  describe('x-kubernetes-list-type: map', () => {
    it('merges items by their keys and records each manager\'s items in fieldsV1', async () => {
      await ok(apply('ports', 'a', { ports: [{ name: 'http', port: 80 }, { name: 'https', port: 443 }] }));
      const w = await ok(apply('ports', 'b', { ports: [{ name: 'metrics', port: 9090 }] }));
      expect(w.spec.ports).to.deep.equal([
        { name: 'http', port: 80, protocol: 'TCP' }, { name: 'https', port: 443, protocol: 'TCP' }, { name: 'metrics', port: 9090, protocol: 'TCP' },
      ]);
      // The default of a key field counts as its value when the item omits it.
      expect(fieldsOf(w, 'a')).to.deep.equal({ 'f:spec': { 'f:ports': {
        'k:{"name":"http","protocol":"TCP"}': { '.': {}, 'f:name': {}, 'f:port': {} },
        'k:{"name":"https","protocol":"TCP"}': { '.': {}, 'f:name': {}, 'f:port': {} },
      } } });
      expect(fieldsOf(w, 'b')).to.deep.equal({ 'f:spec': { 'f:ports': { 'k:{"name":"metrics","protocol":"TCP"}': { '.': {}, 'f:name': {}, 'f:port': {} } } } });
    });

    it('removes an item its manager stops applying, keeping the other managers\' items', async () => {
      const w = await ok(apply('ports', 'a', { ports: [{ name: 'http', port: 80 }] }));
      expect(w.spec.ports.map((p: any) => p.name)).to.deep.equal(['http', 'metrics']);
    });

    it('merges an applied item into the live one field by field, and removes only the fields nobody else owns', async () => {
      let w = await ok(apply('ports', 'b', { ports: [{ name: 'metrics', port: 9090 }, { name: 'http', note: 'public' }] }));
      // b's order now: metrics, then http, merged with a's port.
      expect(w.spec.ports).to.deep.equal([{ name: 'metrics', port: 9090, protocol: 'TCP' }, { name: 'http', port: 80, protocol: 'TCP', note: 'public' }]);
      // a stops applying http: its port goes, the item and b's note stay.
      w = await ok(apply('ports', 'a', { ports: [] }));
      expect(w.spec.ports).to.deep.equal([{ name: 'metrics', port: 9090, protocol: 'TCP' }, { name: 'http', protocol: 'TCP', note: 'public' }]);
      expect(w.metadata.managedFields.map((e: any) => e.manager)).to.deep.equal(['b']);
    });

    it('orders the merged list as applied, live items not applied staying in place', async () => {
      await ok(apply('order', 'a', { ports: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] }));
      const w = await ok(apply('order', 'a', { ports: [{ name: 'c' }, { name: 'a' }, { name: 'd' }] }));
      expect(w.spec.ports.map((p: any) => p.name)).to.deep.equal(['c', 'a', 'd']);
      await ok(apply('order', 'other', { ports: [{ name: 'x' }] }));
      const w2 = await ok(apply('order', 'a', { ports: [{ name: 'd' }, { name: 'c' }] }));
      // x, not applied by a, keeps its place after d; c follows in a's order.
      expect(w2.spec.ports.map((p: any) => p.name)).to.deep.equal(['d', 'x', 'c']);
    });

    it('refuses an applied item without its key, and two items with one key (400, as the typed conversion does)', async () => {
      const missing = await apply('bad', 'a', { ports: [{ port: 1 }] });
      expect(missing.status).to.equal(400);
      expect(missing.json.message).to.equal('failed to create typed patch object (test.example.com/v1, Kind=Widget): .spec.ports: element 0: associative list with keys has an element that omits key field "name" (and doesn\'t have default value)');
      const twice = await apply('bad', 'a', { ports: [{ name: 'x' }, { name: 'x', port: 2 }] });
      expect(twice.status).to.equal(400);
      expect(twice.json.message).to.contain('.spec.ports: duplicate entries for key [name="x",protocol="TCP"]');
    });
  });

  describe('conflicts', () => {
    it('answers 409 with kube-apiserver\'s Status when another applier owns the field with another value, and hands it over with force', async () => {
      await ok(apply('conflict', 'a', { ports: [{ name: 'http', port: 80 }], config: { a: 'x' } }));
      // The same value is no conflict: both own it.
      let w = await ok(apply('conflict', 'b', { ports: [{ name: 'http', port: 80 }] }));
      expect(fieldsOf(w, 'b')).to.deep.equal({ 'f:spec': { 'f:ports': { 'k:{"name":"http","protocol":"TCP"}': { '.': {}, 'f:name': {}, 'f:port': {} } } } });
      const refused = await apply('conflict', 'b', { ports: [{ name: 'http', port: 8080 }], config: { a: 'y' } });
      expect(refused.status).to.equal(409);
      expect(refused.json).to.deep.include({ kind: 'Status', status: 'Failure', reason: 'Conflict', code: 409 });
      expect(refused.json.message).to.equal('Apply failed with 2 conflicts: conflicts with "a":\n- .spec.config.a\n- .spec.ports[name="http",protocol="TCP"].port');
      expect(refused.json.details.causes).to.deep.equal([
        { reason: 'FieldManagerConflict', message: 'conflict with "a"', field: '.spec.config.a' },
        { reason: 'FieldManagerConflict', message: 'conflict with "a"', field: '.spec.ports[name="http",protocol="TCP"].port' },
      ]);
      w = await ok(apply('conflict', 'b', { ports: [{ name: 'http', port: 8080 }], config: { a: 'y' } }, '&force=true'));
      expect(w.spec.ports[0].port).to.equal(8080);
      expect(w.spec.config.a).to.equal('y');
      // a keeps the item and its name, not the port it lost.
      expect(fieldsOf(w, 'a')).to.deep.equal({ 'f:spec': { 'f:ports': { 'k:{"name":"http","protocol":"TCP"}': { '.': {}, 'f:name': {} } } } });
    });

    it('names an Update manager with its apiVersion, and a single conflict in one line', async () => {
      await ok(apply('editor', 'a', { config: { a: 'x' } }));
      const patched = await request(t.server, 'PATCH', `${WIDGETS}/editor?fieldManager=editor`, { body: { spec: { config: { a: 'edited' } } }, contentType: 'application/merge-patch+json' });
      expect(patched.status).to.equal(200);
      const refused = await apply('editor', 'a', { config: { a: 'x' } });
      expect(refused.status).to.equal(409);
      expect(refused.json.message).to.equal('Apply failed with 1 conflict: conflict with "editor" using test.example.com/v1: .spec.config.a');
    });
  });

  describe('x-kubernetes-list-type: set', () => {
    it('unites the managers\' items and removes an item when the last manager that applied it stops', async () => {
      await ok(apply('tags', 'a', { tags: ['x', 'y'] }));
      let w = await ok(apply('tags', 'b', { tags: ['y', 'z'] }));
      expect(w.spec.tags).to.deep.equal(['x', 'y', 'z']);
      expect(fieldsOf(w, 'b')).to.deep.equal({ 'f:spec': { 'f:tags': { 'v:"y"': {}, 'v:"z"': {} } } });
      w = await ok(apply('tags', 'a', { tags: ['x'] }));
      expect(w.spec.tags).to.deep.equal(['x', 'y', 'z']); // y is b's too
      w = await ok(apply('tags', 'b', { tags: ['z'] }));
      expect(w.spec.tags).to.deep.equal(['x', 'z']);
    });
  });

  describe('atomic lists and maps, granular maps', () => {
    it('replaces a list without a list type whole, and owns it as one field', async () => {
      let w = await ok(apply('atomic', 'a', { args: ['--one', '--two'], selector: { app: 'x', tier: 'web' } }));
      expect(fieldsOf(w, 'a')).to.deep.equal({ 'f:spec': { 'f:args': {}, 'f:selector': {} } });
      const refused = await apply('atomic', 'b', { args: ['--three'], selector: { app: 'x' } });
      expect(refused.status).to.equal(409);
      expect(refused.json.message).to.equal('Apply failed with 2 conflicts: conflicts with "a":\n- .spec.args\n- .spec.selector');
      w = await ok(apply('atomic', 'b', { args: ['--three'], selector: { app: 'x' } }, '&force=true'));
      expect(w.spec.args).to.deep.equal(['--three']);
      expect(w.spec.selector).to.deep.equal({ app: 'x' });
      expect(w.metadata.managedFields.map((e: any) => e.manager)).to.deep.equal(['b']);
    });

    it('merges an object field by field', async () => {
      await ok(apply('granular', 'a', { config: { a: '1' } }));
      let w = await ok(apply('granular', 'b', { config: { b: '2' } }));
      expect(w.spec.config).to.deep.equal({ a: '1', b: '2' });
      w = await ok(apply('granular', 'a', {}));
      expect(w.spec.config).to.deep.equal({ b: '2' });
    });
  });

  it('merges status conditions by type through the status subresource', async () => {
    await ok(apply('status', 'a', { tags: ['x'] }));
    const applyStatus = (manager: string, conditions: unknown[]) => request(t.server, 'PATCH', `${WIDGETS}/status/status?fieldManager=${manager}`, {
      body: { apiVersion: 'test.example.com/v1', kind: 'Widget', metadata: { name: 'status' }, status: { conditions } }, contentType: APPLY,
    });
    await ok(applyStatus('c1', [{ type: 'Ready', status: 'True' }]));
    const w = await ok(applyStatus('c2', [{ type: 'Degraded', status: 'False' }]));
    expect(w.status.conditions).to.deep.equal([{ type: 'Ready', status: 'True' }, { type: 'Degraded', status: 'False' }]);
    expect(w.spec.tags).to.deep.equal(['x']);
    expect(fieldsOf(w, 'c2')).to.deep.equal({ 'f:status': { 'f:conditions': { 'k:{"type":"Degraded"}': { '.': {}, 'f:status': {}, 'f:type': {} } } } });
    const refused = await applyStatus('c2', [{ type: 'Ready', status: 'False' }]);
    expect(refused.status).to.equal(409);
    expect(refused.json.message).to.equal('Apply failed with 1 conflict: conflict with "c1": .status.conditions[type="Ready"].status');
  });

  it('merges metadata as ObjectMeta (finalizers a set, labels key by key) and built-in lists by their merge keys', async () => {
    const meta = (manager: string, metadata: Record<string, unknown>) => request(t.server, 'PATCH', `${WIDGETS}/meta?fieldManager=${manager}`, {
      body: { apiVersion: 'test.example.com/v1', kind: 'Widget', metadata: { name: 'meta', ...metadata } }, contentType: APPLY,
    });
    await ok(meta('a', { finalizers: ['example.com/a'], labels: { team: 'a' } }));
    let w = await ok(meta('b', { finalizers: ['example.com/b'], labels: { tier: 'web' } }));
    expect(w.metadata.finalizers).to.deep.equal(['example.com/a', 'example.com/b']);
    expect(w.metadata.labels).to.deep.equal({ team: 'a', tier: 'web' });
    w = await ok(meta('a', {}));
    expect(w.metadata.finalizers).to.deep.equal(['example.com/b']);
    expect(w.metadata.labels).to.deep.equal({ tier: 'web' });
    // A built-in kind's list keyed by a name-only guess (ports by containerPort) takes items without that key.
    const slice = { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'web' }, addressType: 'IPv4', endpoints: [], ports: [{ name: 'http', port: 80 }] };
    const created = await request(t.server, 'PATCH', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/web?fieldManager=a', { body: slice, contentType: APPLY });
    expect(created.status, created.text).to.equal(201);
  });

  describe('through kubectl apply --server-side', () => {
    const manifest = (spec: Record<string, unknown>) => JSON.stringify({ apiVersion: 'test.example.com/v1', kind: 'Widget', metadata: { name: 'kubectl', namespace: 'default' }, spec });

    it('merges two field managers\' map-list items and sets, and removes what one stops applying', async () => {
      await t.kubectlOk(['apply', '--server-side', '--field-manager=team-a', '-f', '-'], manifest({ ports: [{ name: 'http', port: 80 }, { name: 'admin', port: 8443 }], tags: ['a'] }));
      await t.kubectlOk(['apply', '--server-side', '--field-manager=team-b', '-f', '-'], manifest({ ports: [{ name: 'metrics', port: 9090 }], tags: ['b'] }));
      await t.kubectlOk(['apply', '--server-side', '--field-manager=team-a', '-f', '-'], manifest({ ports: [{ name: 'http', port: 80 }], tags: ['a'] }));
      const w = JSON.parse(await t.kubectlOk(['get', 'widget', 'kubectl', '-n', 'default', '-o', 'json', '--show-managed-fields']));
      expect(w.spec.ports.map((p: any) => `${p.name}:${p.port}`)).to.deep.equal(['http:80', 'metrics:9090']);
      expect(w.spec.tags).to.deep.equal(['a', 'b']);
      expect(w.metadata.managedFields.map((e: any) => `${e.manager}/${e.operation}`)).to.have.members(['team-a/Apply', 'team-b/Apply']);
    });

    it('stops at a conflict with kube-apiserver\'s words, and goes through with --force-conflicts', async () => {
      const refused = await t.kubectl(['apply', '--server-side', '--field-manager=team-b', '-f', '-'], manifest({ ports: [{ name: 'metrics', port: 9090 }, { name: 'http', port: 8080 }], tags: ['b'] }));
      expect(refused.exitCode).to.not.equal(0);
      expect(refused.stderr).to.contain('Apply failed with 1 conflict: conflict with "team-a": .spec.ports[name="http",protocol="TCP"].port');
      await t.kubectlOk(['apply', '--server-side', '--force-conflicts', '--field-manager=team-b', '-f', '-'], manifest({ ports: [{ name: 'metrics', port: 9090 }, { name: 'http', port: 8080 }], tags: ['b'] }));
      expect(await t.kubectlOk(['get', 'widget', 'kubectl', '-n', 'default', '-o', 'jsonpath={.spec.ports[?(@.name=="http")].port}'])).to.equal('8080');
    });
  });
});
