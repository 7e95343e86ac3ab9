/**
 * API semantics over raw HTTP: errors as Status objects, auth, validation, pruning, patches, selectors, paging,
 * watch (resume, 410, bookmarks, timeouts), dry run, deletion with finalizers, garbage collection, namespaces.
 */
import { expect } from 'chai';
import { startApiServer, type RunningApiServer } from '../../mock/index.js';
import { openShiftCrds } from '../../reference/crds/index.js';
import { eventually, openWatch, request } from './support.js';

const MCP = '/apis/machineconfiguration.openshift.io/v1/machineconfigpools';
const MC = '/apis/machineconfiguration.openshift.io/v1/machineconfigs';
const CM = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;

function mc(name: string, extra: Record<string, unknown> = {}) {
  return { apiVersion: 'machineconfiguration.openshift.io/v1', kind: 'MachineConfig', metadata: { name, ...extra }, spec: { osImageURL: `img-${name}` } };
}

describe('mock API server: semantics over HTTP', function () {
  this.timeout(30_000);
  let s: RunningApiServer;
  let clock = new Date('2022-09-12T10:00:00Z');

  before(async () => {
    s = await startApiServer({ tls: false, crds: openShiftCrds(), now: () => clock, bookmarkIntervalMs: 100 });
  });
  after(async () => { await s?.close(); });

  describe('auth and errors', () => {
    it('answers 401 with a Status without a valid token', async () => {
      for (const token of [null, 'wrong']) {
        const r = await request(s, 'GET', '/api/v1/namespaces', { token });
        expect(r.status).to.equal(401);
        expect(r.json).to.include({ kind: 'Status', status: 'Failure', reason: 'Unauthorized', code: 401 });
      }
    });

    it('answers 404 NotFound for a missing object and an unknown path', async () => {
      const r = await request(s, 'GET', `${MC}/nope`);
      expect(r.status).to.equal(404);
      expect(r.json).to.include({ reason: 'NotFound', message: 'machineconfigs.machineconfiguration.openshift.io "nope" not found' });
      expect((await request(s, 'GET', '/apis/nothing.example.com/v1/things')).status).to.equal(404);
    });

    it('answers 400 to malformed JSON and YAML, never 500', async () => {
      const bad = await request(s, 'POST', MC, { rawBody: '{"apiVersion": ', contentType: 'application/json' });
      expect(bad.status).to.equal(400);
      expect(bad.json.reason).to.equal('BadRequest');
      const badYaml = await request(s, 'POST', MC, { rawBody: 'a: [unclosed', contentType: 'application/yaml' });
      expect(badYaml.status).to.equal(400);
      const notObject = await request(s, 'POST', MC, { body: [1, 2] });
      expect(notObject.status).to.equal(400);
      const badMeta = await request(s, 'POST', MC, { body: { ...mc('x'), metadata: 'str' } });
      expect(badMeta.status).to.equal(400);
      const badPatch = await request(s, 'POST', `${MC}`, { body: { ...mc('y'), metadata: { name: 7 } } });
      expect(badPatch.status).to.equal(400);
    });

    it('answers 413 to a body over the limit', async () => {
      const big = 'x'.repeat(3 * 1024 * 1024 + 10);
      const r = await request(s, 'POST', CM('default'), { body: { metadata: { name: 'big' }, data: { big } } });
      expect(r.status).to.equal(413);
      expect(r.json.reason).to.equal('RequestEntityTooLarge');
    });

    it('answers 415 to a strategic merge patch of a custom resource and to unknown media types', async () => {
      await request(s, 'POST', MC, { body: mc('smp') });
      const r = await request(s, 'PATCH', `${MC}/smp`, { body: { spec: {} }, contentType: 'application/strategic-merge-patch+json' });
      expect(r.status).to.equal(415);
      expect(r.json.reason).to.equal('UnsupportedMediaType');
      expect((await request(s, 'PATCH', `${MC}/smp`, { body: {}, contentType: 'text/plain' })).status).to.equal(415);
    });

    it('answers 405 to a method a path does not take', async () => {
      expect((await request(s, 'POST', `${MC}/smp`, { body: mc('smp') })).status).to.equal(405);
      expect((await request(s, 'PUT', MC, { body: mc('smp') })).status).to.equal(405);
    });
  });

  describe('create and update', () => {
    it('gives generateName a random suffix, uid, creationTimestamp from the clock, generation 1', async () => {
      const r = await request(s, 'POST', MC, { body: { ...mc(''), metadata: { generateName: 'rendered-worker-' } } });
      expect(r.status).to.equal(201);
      expect(r.json.metadata.name).to.match(/^rendered-worker-[a-z0-9]{5}$/);
      expect(r.json.metadata).to.include({ creationTimestamp: '2022-09-12T10:00:00Z', generation: 1 });
      expect(Number(r.json.metadata.resourceVersion)).to.be.greaterThan(0);
    });

    it('rejects duplicates (409 AlreadyExists) and invalid names (422)', async () => {
      await request(s, 'POST', MC, { body: mc('dup') });
      const again = await request(s, 'POST', MC, { body: mc('dup') });
      expect(again.status).to.equal(409);
      expect(again.json).to.include({ reason: 'AlreadyExists', message: 'machineconfigs.machineconfiguration.openshift.io "dup" already exists' });
      const bad = await request(s, 'POST', MC, { body: mc('Not_Valid') });
      expect(bad.status).to.equal(422);
      expect(bad.json.details.causes[0]).to.include({ field: 'metadata.name' });
    });

    it('validates against the CRD schema with 422 Invalid and causes per field', async () => {
      const r = await request(s, 'POST', MCP, { body: { apiVersion: 'machineconfiguration.openshift.io/v1', kind: 'MachineConfigPool', metadata: { name: 'bad' }, spec: { paused: 'yes', machineConfigSelector: { matchExpressions: [{ key: 'a' }] } } } });
      expect(r.status).to.equal(422);
      expect(r.json.reason).to.equal('Invalid');
      const fields = r.json.details.causes.map((c: { field: string }) => c.field);
      expect(fields).to.include.members(['spec.paused', 'spec.machineConfigSelector.matchExpressions[0].operator']);
      expect(r.json.message).to.match(/^MachineConfigPool\.machineconfiguration\.openshift\.io "bad" is invalid: /);
    });

    it('prunes unknown fields, warns with fieldValidation=Warn and refuses them with Strict', async () => {
      const body = { ...mc('pruned'), spec: { osImageURL: 'x', unknownField: 1 }, extraTop: true };
      const strict = await request(s, 'POST', `${MC}?fieldValidation=Strict`, { body });
      expect(strict.status).to.equal(400);
      expect(strict.json.message).to.contain('unknown field "spec.unknownField"');
      const warn = await request(s, 'POST', `${MC}?fieldValidation=Warn`, { body });
      expect(warn.status).to.equal(201);
      expect(String(warn.headers.warning)).to.contain('unknown field');
      expect(warn.json.spec).to.deep.equal({ osImageURL: 'x' });
      expect(warn.json).to.not.have.property('extraTop');
    });

    it('keeps preserve-unknown-fields subtrees as they are', async () => {
      const r = await request(s, 'POST', MC, { body: { ...mc('ign'), spec: { config: { ignition: { version: '3.2.0' }, storage: { files: [{ path: '/etc/x' }] } } } } });
      expect(r.json.spec.config.storage.files[0].path).to.equal('/etc/x');
    });

    it('answers 409 Conflict to an update with a stale resourceVersion and bumps generation only on spec changes', async () => {
      const created = (await request(s, 'POST', MC, { body: mc('conflict') })).json;
      const first = await request(s, 'PUT', `${MC}/conflict`, { body: { ...created, metadata: { ...created.metadata, labels: { a: 'b' } } } });
      expect(first.status).to.equal(200);
      expect(first.json.metadata.generation).to.equal(1);
      const stale = await request(s, 'PUT', `${MC}/conflict`, { body: { ...created, spec: { osImageURL: 'other' } } });
      expect(stale.status).to.equal(409);
      expect(stale.json).to.include({ reason: 'Conflict' });
      expect(stale.json.message).to.equal('Operation cannot be fulfilled on machineconfigs.machineconfiguration.openshift.io "conflict": the object has been modified; please apply your changes to the latest version and try again');
      const fresh = await request(s, 'PUT', `${MC}/conflict`, { body: { ...first.json, spec: { osImageURL: 'other' } } });
      expect(fresh.json.metadata.generation).to.equal(2);
    });

    it('writes status only through the status subresource', async () => {
      const created = (await request(s, 'POST', MCP, { body: { apiVersion: 'machineconfiguration.openshift.io/v1', kind: 'MachineConfigPool', metadata: { name: 'st' }, spec: {}, status: { machineCount: 5 } } })).json;
      expect(created.status).to.equal(undefined);
      const put = await request(s, 'PUT', `${MCP}/st/status`, { body: { ...created, spec: { paused: true }, status: { machineCount: 2 } } });
      expect(put.json.status.machineCount).to.equal(2);
      expect(put.json.spec.paused).to.equal(undefined);
      expect(put.json.metadata.generation).to.equal(1);
      const main = await request(s, 'PATCH', `${MCP}/st`, { body: { status: { machineCount: 9 }, spec: { paused: true } }, contentType: 'application/merge-patch+json' });
      expect(main.json.status.machineCount).to.equal(2);
      expect(main.json.metadata.generation).to.equal(2);
      expect((await request(s, 'GET', `${MC}/ign/status`)).status).to.equal(404);
    });

    it('answers dryRun=All without storing', async () => {
      const r = await request(s, 'POST', `${MC}?dryRun=All`, { body: mc('dry') });
      expect(r.status).to.equal(201);
      expect((await request(s, 'GET', `${MC}/dry`)).status).to.equal(404);
      await request(s, 'POST', MC, { body: mc('dry') });
      expect((await request(s, 'DELETE', `${MC}/dry?dryRun=All`)).status).to.equal(200);
      expect((await request(s, 'GET', `${MC}/dry`)).status).to.equal(200);
      expect((await request(s, 'POST', `${MC}?dryRun=Some`, { body: mc('dry2') })).status).to.equal(400);
    });
  });

  describe('patches', () => {
    it('applies JSON patch (with test) and merge patch', async () => {
      await request(s, 'POST', MC, { body: mc('p') });
      const ok = await request(s, 'PATCH', `${MC}/p`, { body: [{ op: 'test', path: '/spec/osImageURL', value: 'img-p' }, { op: 'add', path: '/spec/kernelArguments', value: ['a'] }], contentType: 'application/json-patch+json' });
      expect(ok.json.spec.kernelArguments).to.deep.equal(['a']);
      const failed = await request(s, 'PATCH', `${MC}/p`, { body: [{ op: 'test', path: '/spec/osImageURL', value: 'other' }], contentType: 'application/json-patch+json' });
      expect(failed.status).to.be.oneOf([409, 422]);
      const merged = await request(s, 'PATCH', `${MC}/p`, { body: { spec: { kernelArguments: null, fips: true } }, contentType: 'application/merge-patch+json' });
      expect(merged.json.spec).to.deep.equal({ osImageURL: 'img-p', fips: true });
    });

    it('merges lists by key with a strategic merge patch of a built-in (node conditions)', async () => {
      await request(s, 'POST', '/api/v1/nodes', { body: { metadata: { name: 'n1' }, status: { conditions: [{ type: 'Ready', status: 'True' }, { type: 'DiskPressure', status: 'False' }] } } });
      const r = await request(s, 'PATCH', '/api/v1/nodes/n1/status', { body: { status: { conditions: [{ type: 'Ready', status: 'False' }] } }, contentType: 'application/strategic-merge-patch+json' });
      expect(r.json.status.conditions).to.deep.equal([{ type: 'Ready', status: 'False' }, { type: 'DiskPressure', status: 'False' }]);
      const table = await request(s, 'GET', '/api/v1/nodes/n1', { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
      expect(table.json.rows[0].cells.slice(0, 3)).to.deep.equal(['n1', 'NotReady', '<none>']);
    });

    it('creates and updates with server-side apply, recording the field manager', async () => {
      const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa', namespace: 'default' }, data: { a: '1' } };
      const created = await request(s, 'PATCH', `${CM('default')}/ssa?fieldManager=tester`, { body, contentType: 'application/apply-patch+yaml' });
      expect(created.status).to.equal(201);
      expect(created.json.metadata.managedFields[0]).to.include({ manager: 'tester', operation: 'Apply' });
      const updated = await request(s, 'PATCH', `${CM('default')}/ssa?fieldManager=tester`, { rawBody: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ssa}\ndata: {b: "2"}\n', contentType: 'application/apply-patch+yaml' });
      expect(updated.status).to.equal(200);
      expect(updated.json.data).to.include({ b: '2' });
      expect((await request(s, 'PATCH', `${CM('default')}/ssa`, { body, contentType: 'application/apply-patch+yaml' })).status).to.equal(400);
    });

    it('removes what a manager stops applying, unless another manager owns it', async () => {
      const apply = (data: Record<string, string>, labels: Record<string, string>) => request(s, 'PATCH', `${CM('default')}/owned?fieldManager=deployer`, {
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owned', labels }, data }, contentType: 'application/apply-patch+yaml',
      });
      await apply({ a: '1', b: '2', c: '3' }, { team: 'x', tier: 'y' });
      await request(s, 'PATCH', `${CM('default')}/owned?fieldManager=operator`, { body: { data: { c: '30', d: '4' } }, contentType: 'application/merge-patch+json' });
      const after = (await apply({ a: '1' }, { team: 'x' })).json;
      // b and the tier label were only the deployer's: gone. c was changed by the operator, d is the operator's: kept.
      expect(after.data).to.deep.equal({ a: '1', c: '30', d: '4' });
      expect(after.metadata.labels).to.deep.equal({ team: 'x' });
      const managers = after.metadata.managedFields.map((e: any) => `${e.manager}/${e.operation}`);
      expect(managers).to.have.members(['deployer/Apply', 'operator/Update']);
      const operator = after.metadata.managedFields.find((e: any) => e.manager === 'operator');
      expect(operator.fieldsV1).to.deep.equal({ 'f:data': { 'f:c': {}, 'f:d': {} } });
    });
  });

  describe('list', () => {
    before(async () => {
      for (let i = 0; i < 7; i++) {
        await request(s, 'POST', MC, { body: mc(`sel-${i}`, { labels: { role: i % 2 ? 'worker' : 'master', idx: String(i) } }) });
      }
    });

    it('filters by equality and set-based label selectors', async () => {
      const names = async (sel: string) => (await request(s, 'GET', `${MC}?labelSelector=${encodeURIComponent(sel)}`)).json.items.map((o: any) => o.metadata.name);
      expect(await names('role=worker')).to.deep.equal(['sel-1', 'sel-3', 'sel-5']);
      expect(await names('role!=worker,idx')).to.deep.equal(['sel-0', 'sel-2', 'sel-4', 'sel-6']);
      expect(await names('idx in (1,2),role notin (master)')).to.deep.equal(['sel-1']);
      expect(await names('!idx,role')).to.deep.equal([]);
      expect((await request(s, 'GET', `${MC}?labelSelector=${encodeURIComponent('a in b')}`)).status).to.equal(400);
    });

    it('filters by field selectors and refuses unknown fields', async () => {
      const r = await request(s, 'GET', `${MC}?fieldSelector=metadata.name%3Dsel-3`);
      expect(r.json.items.map((o: any) => o.metadata.name)).to.deep.equal(['sel-3']);
      expect((await request(s, 'GET', `${MC}?fieldSelector=spec.osImageURL%3Dx`)).status).to.equal(400);
      await request(s, 'POST', '/api/v1/namespaces/default/events', { body: { metadata: { name: 'e1' }, involvedObject: { kind: 'Node', name: 'n1' }, reason: 'Rebooted', type: 'Normal' } });
      const ev = await request(s, 'GET', '/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Dn1,reason%3DRebooted');
      expect(ev.json.items).to.have.length(1);
      const v1 = await request(s, 'GET', '/apis/events.k8s.io/v1/namespaces/default/events');
      expect(v1.json.items[0].apiVersion).to.equal('events.k8s.io/v1');
    });

    it('pages with limit and continue', async () => {
      const seen: string[] = [];
      let cont = '';
      let pages = 0;
      do {
        const r = await request(s, 'GET', `${MC}?labelSelector=idx&limit=3${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`);
        seen.push(...r.json.items.map((o: any) => o.metadata.name));
        cont = r.json.metadata.continue ?? '';
        if (cont) expect(r.json.metadata.remainingItemCount).to.be.a('number');
        pages++;
      } while (cont);
      expect(pages).to.equal(3);
      expect(seen).to.deep.equal(['sel-0', 'sel-1', 'sel-2', 'sel-3', 'sel-4', 'sel-5', 'sel-6']);
      expect((await request(s, 'GET', `${MC}?limit=2&continue=garbage`)).status).to.equal(400);
    });

    it('prints a Table from the printer columns', async () => {
      const r = await request(s, 'GET', `${MC}?labelSelector=idx%3D1`, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' });
      expect(r.json.kind).to.equal('Table');
      expect(r.json.columnDefinitions.map((c: any) => c.name)).to.deep.equal(['Name', 'GeneratedByController', 'IgnitionVersion', 'Age']);
      expect(r.json.rows[0].object.kind).to.equal('PartialObjectMetadata');
    });

    it('deletes a collection by label selector', async () => {
      const r = await request(s, 'DELETE', `${MC}?labelSelector=role%3Dmaster`);
      expect(r.status).to.equal(200);
      expect(r.json.items).to.have.length(4);
      expect((await request(s, 'GET', `${MC}?labelSelector=idx`)).json.items).to.have.length(3);
    });
  });

  describe('watch', () => {
    it('resumes from a resourceVersion, filters by labels and ends after timeoutSeconds', async () => {
      const start = (await request(s, 'GET', MC)).json.metadata.resourceVersion;
      await request(s, 'POST', MC, { body: mc('w1', { labels: { w: 'yes' } }) });
      await request(s, 'POST', MC, { body: mc('w2') });
      const w = await openWatch(s, `${MC}?watch=1&resourceVersion=${start}&labelSelector=w&timeoutSeconds=1`);
      await request(s, 'PATCH', `${MC}/w1`, { body: { metadata: { labels: { w: null } } }, contentType: 'application/merge-patch+json' });
      await w.ended;
      // w1 was added, then left the selector: a DELETED event, as the real server sends. w2 never matched.
      expect(w.events.map((e) => `${e.type} ${e.object.metadata.name}`)).to.deep.equal(['ADDED w1', 'DELETED w1']);
    });

    it('sends the current objects first when no resourceVersion is given, then live events', async () => {
      const w = await openWatch(s, `${MC}?watch=true&fieldSelector=metadata.name%3Dw2`);
      await eventually(() => w.events.length === 1, 'the initial ADDED');
      await request(s, 'DELETE', `${MC}/w2`);
      await eventually(() => w.events.length === 2, 'the DELETED event');
      expect(w.events.map((e) => e.type)).to.deep.equal(['ADDED', 'DELETED']);
      w.close();
    });

    it('sends BOOKMARK events when allowed', async () => {
      const w = await openWatch(s, `${MC}?watch=1&allowWatchBookmarks=true&resourceVersion=${(await request(s, 'GET', MC)).json.metadata.resourceVersion}`);
      await eventually(() => w.events.some((e) => e.type === 'BOOKMARK'), 'a bookmark');
      const b = w.events.find((e) => e.type === 'BOOKMARK')!;
      expect(b.object.kind).to.equal('MachineConfig');
      expect(b.object.metadata.resourceVersion).to.match(/^\d+$/);
      w.close();
    });

    it('answers a too-old resourceVersion with an ERROR event carrying 410 Expired', async () => {
      s.compactHistory();
      const w = await openWatch(s, `${MC}?watch=1&resourceVersion=1`);
      await w.ended;
      expect(w.events).to.have.length(1);
      expect(w.events[0]!.type).to.equal('ERROR');
      expect(w.events[0]!.object).to.include({ kind: 'Status', code: 410, reason: 'Expired' });
    });
  });

  describe('deletion', () => {
    it('holds an object with finalizers until they are removed', async () => {
      clock = new Date('2022-09-12T11:00:00Z');
      await request(s, 'POST', MC, { body: mc('fin', { finalizers: ['example.com/hold'] }) });
      const del = await request(s, 'DELETE', `${MC}/fin`);
      expect(del.status).to.equal(202);
      const held = (await request(s, 'GET', `${MC}/fin`)).json;
      expect(held.metadata.deletionTimestamp).to.equal('2022-09-12T11:00:00Z');
      const added = await request(s, 'PATCH', `${MC}/fin`, { body: { metadata: { finalizers: ['example.com/hold', 'example.com/more'] } }, contentType: 'application/merge-patch+json' });
      expect(added.status).to.equal(422);
      await request(s, 'PATCH', `${MC}/fin`, { body: { metadata: { finalizers: null } }, contentType: 'application/merge-patch+json' });
      expect((await request(s, 'GET', `${MC}/fin`)).status).to.equal(404);
    });

    it('collects dependents whose owner is gone, and orphans them when asked', async () => {
      const owner = (await request(s, 'POST', MCP, { body: { apiVersion: 'machineconfiguration.openshift.io/v1', kind: 'MachineConfigPool', metadata: { name: 'owner' }, spec: {} } })).json;
      const ref = { apiVersion: 'machineconfiguration.openshift.io/v1', kind: 'MachineConfigPool', name: 'owner', uid: owner.metadata.uid, controller: true };
      await request(s, 'POST', MC, { body: mc('dependent', { ownerReferences: [ref] }) });
      await request(s, 'DELETE', `${MCP}/owner`);
      await eventually(async () => (await request(s, 'GET', `${MC}/dependent`)).status === 404, 'the dependent to be collected');

      const owner2 = (await request(s, 'POST', MCP, { body: { apiVersion: 'machineconfiguration.openshift.io/v1', kind: 'MachineConfigPool', metadata: { name: 'owner2' }, spec: {} } })).json;
      await request(s, 'POST', MC, { body: mc('orphan', { ownerReferences: [{ ...ref, name: 'owner2', uid: owner2.metadata.uid }] }) });
      await request(s, 'DELETE', `${MCP}/owner2`, { body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Orphan' } });
      await eventually(async () => (await request(s, 'GET', `${MC}/orphan`)).json.metadata.ownerReferences === undefined, 'the reference to be dropped');
    });

    it('deletes in the foreground: the owner waits, with foregroundDeletion, until its dependents are gone', async () => {
      const owner = (await request(s, 'POST', MCP, { body: { apiVersion: 'machineconfiguration.openshift.io/v1', kind: 'MachineConfigPool', metadata: { name: 'fg-owner' }, spec: {} } })).json;
      const ref = { apiVersion: 'machineconfiguration.openshift.io/v1', kind: 'MachineConfigPool', name: 'fg-owner', uid: owner.metadata.uid, blockOwnerDeletion: true };
      await request(s, 'POST', MC, { body: mc('fg-dep', { ownerReferences: [ref], finalizers: ['example.com/slow'] }) });
      const del = await request(s, 'DELETE', `${MCP}/fg-owner`, { body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Foreground' } });
      expect(del.json.metadata.finalizers).to.deep.equal(['foregroundDeletion']);
      await eventually(async () => (await request(s, 'GET', `${MC}/fg-dep`)).json.metadata.deletionTimestamp, 'the dependent to be deleting');
      expect((await request(s, 'GET', `${MCP}/fg-owner`)).status).to.equal(200);
      await request(s, 'PATCH', `${MC}/fg-dep`, { body: { metadata: { finalizers: null } }, contentType: 'application/merge-patch+json' });
      await eventually(async () => (await request(s, 'GET', `${MCP}/fg-owner`)).status === 404, 'the owner to go after its dependent');
    });

    it('deletes a namespace with its contents', async () => {
      await request(s, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'doomed' } } });
      await request(s, 'POST', CM('doomed'), { body: { metadata: { name: 'c1' } } });
      await request(s, 'POST', CM('doomed'), { body: { metadata: { name: 'c2', finalizers: ['example.com/x'] } } });
      const del = await request(s, 'DELETE', '/api/v1/namespaces/doomed');
      expect(del.json.status.phase).to.equal('Terminating');
      expect((await request(s, 'POST', CM('doomed'), { body: { metadata: { name: 'late' } } })).status).to.equal(403);
      await eventually(async () => (await request(s, 'GET', `${CM('doomed')}/c1`)).status === 404, 'c1 to be deleted');
      expect((await request(s, 'GET', '/api/v1/namespaces/doomed')).status).to.equal(200);
      await request(s, 'PATCH', `${CM('doomed')}/c2`, { body: { metadata: { finalizers: null } }, contentType: 'application/merge-patch+json' });
      await eventually(async () => (await request(s, 'GET', '/api/v1/namespaces/doomed')).status === 404, 'the namespace to go');
      expect((await request(s, 'POST', CM('nowhere'), { body: { metadata: { name: 'x' } } })).status).to.equal(404);
    });
  });

  describe('CRDs as data', () => {
    it('serves a CRD created through the API within a second and stops serving it when deleted', async () => {
      const crd = {
        apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.example.com' },
        spec: {
          group: 'example.com', scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget', shortNames: ['wd'] },
          versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } } }],
        },
      };
      const created = await request(s, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd });
      expect(created.status).to.equal(201);
      expect(created.json.status.conditions.find((c: any) => c.type === 'Established').status).to.equal('True');
      const rl = await request(s, 'GET', '/apis/example.com/v1');
      expect(rl.json.resources[0]).to.include({ name: 'widgets', kind: 'Widget', namespaced: true });
      const w = await request(s, 'POST', '/apis/example.com/v1/namespaces/default/widgets', { body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 'big' } } });
      expect(w.status).to.equal(422);
      const ok = await request(s, 'POST', '/apis/example.com/v1/namespaces/default/widgets', { body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 3 } } });
      expect(ok.status).to.equal(201);
      const watch = await openWatch(s, '/apis/example.com/v1/widgets?watch=1');
      await eventually(() => watch.events.length === 1, 'the widget ADDED');
      await request(s, 'DELETE', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com');
      await watch.ended;
      expect(watch.events.map((e) => e.type)).to.deep.equal(['ADDED', 'DELETED']);
      expect((await request(s, 'GET', '/apis/example.com/v1/namespaces/default/widgets')).status).to.equal(404);
      expect((await request(s, 'GET', '/apis')).json.groups.map((g: any) => g.name)).to.not.include('example.com');
    });

    it('rejects a malformed CRD with 422', async () => {
      const r = await request(s, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'bad.example.com' }, spec: { group: 'example.com', names: { plural: 'things', kind: 'Thing' }, scope: 'Everywhere', versions: [] } } });
      expect(r.status).to.equal(422);
      expect(r.json.details.causes.map((c: any) => c.field)).to.include.members(['spec.scope', 'spec.versions', 'metadata.name']);
    });
  });
});
