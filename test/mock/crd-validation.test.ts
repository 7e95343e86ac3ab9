/**
 * Custom resources validated as kube-apiserver validates them: structural schema semantics (defaults on write and on
 * read, nullable, int-or-string, list types and their keys, bounds, embedded resources), x-kubernetes-validations CEL
 * rules (message, messageExpression, reason, fieldPath, transition rules, optionalOldSelf) with kube-apiserver's
 * error texts and Status causes, ratcheting of unchanged values on update, and the OpenShift 4.20 CRDs' own rules
 * through the API, `kubectl create`, `oc create` and `ocp-e2e apiserver --crds`.
 */
import { expect } from 'chai';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { Agent, fetch } from 'undici';
import { makeSchemaCheck } from '../../mock/schema.js';
import { startApiServer, type RunningApiServer } from '../../mock/index.js';
import { loadCrdsFrom } from '../../reference/crds/index.js';
import { spawnServer, stopChild, useChildServers } from './child-server.js';
import { startTestServer, type TestServer } from './support.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CRDS_420 = '/work/shared/fixtures/openshift-4.20-crds';
const OC = resolve(ROOT, '..', 'shared', 'upstream', 'bin', 'oc');
const MOSC_MESSAGE = 'MachineOSConfig name must match the referenced MachineConfigPool name; can only have one MachineOSConfig per MachineConfigPool';

type Obj = Record<string, any>;

const agents = new WeakMap<RunningApiServer, Agent>();
async function call(server: RunningApiServer, method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<{ code: number; obj: Obj }> {
  if (!agents.has(server)) agents.set(server, new Agent({ connect: { ca: server.caPem } }));
  const res = await fetch(`${server.url}${path}`, {
    method, body: body === undefined ? undefined : JSON.stringify(body), dispatcher: agents.get(server),
    headers: { authorization: `Bearer ${server.token}`, 'content-type': contentType },
  });
  return { code: res.status, obj: (await res.json()) as Obj };
}

/** A CRD `widgets.example.com` (cluster-scoped, status subresource) with the given schema of its spec and status. */
function widgetCrd(spec: Obj, status: Obj = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, rootRules?: Obj[]): Obj {
  return {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com', scope: 'Cluster', names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [{
        name: 'v1', served: true, storage: true, subresources: { status: {} },
        schema: { openAPIV3Schema: { type: 'object', properties: { spec, status }, ...(rootRules ? { 'x-kubernetes-validations': rootRules } : {}) } },
      }],
    },
  };
}

function mosc(name: string, pool: string, pushSpec = 'quay.io/mco/renderedImg:latest'): Obj {
  return {
    apiVersion: 'machineconfiguration.openshift.io/v1', kind: 'MachineOSConfig', metadata: { name },
    spec: { machineConfigPool: { name: pool }, imageBuilder: { imageBuilderType: 'Job' }, renderedImagePushSecret: { name: 'push' }, renderedImagePushSpec: pushSpec },
  };
}

const W = '/apis/example.com/v1/widgets';

describe('mock API server: structural schemas, CEL rules and ratcheting', function () {
  this.timeout(60_000);

  describe('structural schema semantics (in-process)', () => {
    const check = makeSchemaCheck({
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            replicas: { type: 'integer', default: 1 },
            mode: { type: 'string', default: 'Auto', enum: ['Auto', 'Manual'] },
            nested: { type: 'object', default: {}, properties: { level: { type: 'string', default: 'info' } } },
            port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
            note: { type: 'string', nullable: true },
            dropped: { type: 'string' },
            tags: { type: 'array', maxItems: 2, items: { type: 'string', maxLength: 3 }, 'x-kubernetes-list-type': 'set' },
            ports: {
              type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name', 'protocol'],
              items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, protocol: { type: 'string', default: 'TCP' }, port: { type: 'integer' } } },
            },
            labels: { type: 'object', maxProperties: 1, additionalProperties: { type: 'string' } },
            template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
          },
        },
      },
    });
    const obj = (spec: Obj): any => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec });

    it('fills in defaults (nested, in map-list items) and drops non-nullable nulls, keeping nullable ones', () => {
      const o = obj({ note: null, dropped: null, ports: [{ name: 'http' }] });
      expect(check.prune(o)).to.deep.equal([]);
      expect(o.spec).to.deep.equal({ replicas: 1, mode: 'Auto', nested: { level: 'info' }, note: null, ports: [{ name: 'http', protocol: 'TCP' }] });
      expect(check.validate(o)).to.deep.equal([]);
      expect(check.withDefaults(o)).to.equal(undefined);
      const old: any = obj({ ports: [{ name: 'http' }] });
      const read = check.withDefaults(old) as any;
      expect(read.spec).to.deep.equal({ replicas: 1, mode: 'Auto', nested: { level: 'info' }, ports: [{ name: 'http', protocol: 'TCP' }] });
      expect(old.spec).to.deep.equal({ ports: [{ name: 'http' }] }); // the stored object itself is left as it is
    });

    it('words errors as kube-apiserver does, with the Status causes', () => {
      const o = obj({ port: 1.5, tags: ['a', 'abcd', 'a'], ports: [{ name: 'x', protocol: 'TCP' }, { name: 'x', protocol: 'TCP' }], labels: { a: 'x', b: 'y' }, template: { metadata: {} } });
      const causes = check.validate(o);
      expect(causes).to.deep.include.members([
        { reason: 'FieldValueTypeInvalid', field: 'spec.port', message: 'Invalid value: "number": spec.port in body must be of type integer-or-string: "number"' },
        { reason: 'FieldValueTooMany', field: 'spec.tags', message: 'Too many: 3: must have at most 2 items' },
        { reason: 'FieldValueDuplicate', field: 'spec.tags[2]', message: 'Duplicate value: "a"' },
        { reason: 'FieldValueTooLong', field: 'spec.tags[1]', message: 'Too long: may not be more than 3 bytes' },
        { reason: 'FieldValueDuplicate', field: 'spec.ports[1]', message: 'Duplicate value: map[string]interface {}{"name":"x", "protocol":"TCP"}' },
        { reason: 'FieldValueTooMany', field: 'spec.labels', message: 'Too many: 2: must have at most 1 item' },
        { reason: 'FieldValueRequired', field: 'spec.template.apiVersion', message: 'Required value: must not be empty' },
        { reason: 'FieldValueRequired', field: 'spec.template.kind', message: 'Required value: must not be empty' },
      ]);
      // After a failed type check the other checks that fit the value still run, as kube-openapi's validators do.
      expect(check.validate(obj({ mode: 1234 }))).to.deep.equal([
        { reason: 'FieldValueTypeInvalid', field: 'spec.mode', message: 'Invalid value: "integer": spec.mode in body must be of type string: "integer"' },
        { reason: 'FieldValueNotSupported', field: 'spec.mode', message: 'Unsupported value: 1234: supported values: "Auto", "Manual"' },
      ]);
      // minItems and minProperties show the size as the bad value, as kube-openapi's TooFewItems and TooFewProperties.
      const few = makeSchemaCheck({ type: 'object', properties: { spec: { type: 'object', properties: {
        list: { type: 'array', minItems: 1, items: { type: 'string' } },
        map: { type: 'object', minProperties: 2, additionalProperties: { type: 'string' } } } } } });
      expect(few.validate(obj({ list: [], map: { a: 'x' } })).map((c) => c.message)).to.deep.equal([
        'Invalid value: 0: spec.list in body should have at least 1 items',
        'Invalid value: 1: spec.map in body should have at least 2 properties',
      ]);
      expect(check.validate(obj({ port: '8080' }))).to.deep.equal([]);
      expect(check.validate(obj({ port: 8080 }))).to.deep.equal([]);
    });

    it('ratchets: an unchanged invalid value passes on update, a changed one does not', () => {
      const stored = obj({ tags: ['toolong'] });
      expect(check.validate(obj({ tags: ['toolong'], mode: 'Manual' }), stored)).to.deep.equal([]);
      expect(check.validate(obj({ tags: ['toolonger'] }), stored).map((c) => c.field)).to.deep.equal(['spec.tags[0]']);
      // Map-list items correlate by key, whatever their order.
      const withPorts = obj({ ports: [{ name: 'a', protocol: 'TCP', port: 'x' }, { name: 'b', protocol: 'TCP', port: 1 }] });
      expect(check.validate(obj({ ports: [{ name: 'b', protocol: 'TCP', port: 2 }, { name: 'a', protocol: 'TCP', port: 'x' }] }), withPorts)).to.deep.equal([]);
    });
  });

  describe('through the API', () => {
    let server: RunningApiServer;
    before(async () => {
      server = await startApiServer({ tls: false, crds: [widgetCrd({
        type: 'object',
        properties: {
          size: { type: 'integer' },
          min: { type: 'integer' },
          max: { type: 'integer' },
          phase: { type: 'string' },
          owner: { type: 'string' },
          url: { type: 'string', 'x-kubernetes-validations': [{ rule: 'isURL(self) && url(self).getScheme() == "https"', message: 'must be an https URL' }] },
          cidrs: { type: 'array', items: { type: 'string' }, 'x-kubernetes-validations': [{ rule: 'self.all(c, isCIDR(c) && cidr(c).prefixLength() <= 24)', messageExpression: '"bad CIDRs: " + self.filter(c, !isCIDR(c) || cidr(c).prefixLength() > 24).join(", ")' }] },
          name: { type: 'string', 'x-kubernetes-validations': [{ rule: '!format.dns1123Label().validate(self).hasValue()', message: 'must be a DNS label', reason: 'FieldValueForbidden' }] },
          future: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self.quantityLike() == 1', message: 'never passes silently' }] },
        },
        'x-kubernetes-validations': [
          { rule: 'has(self.min) ? self.min <= self.max : true', message: 'min must not exceed max', fieldPath: '.min', reason: 'FieldValueInvalid' },
          { rule: 'self.size >= oldSelf.size', message: 'size may only grow' },
          { rule: '!has(oldSelf.owner) || self.owner == oldSelf.owner', message: 'owner is immutable', reason: 'FieldValueForbidden' },
          { rule: 'oldSelf.hasValue() || self.?phase.orValue("") == "New"', optionalOldSelf: true, message: 'a new widget starts in phase New' },
        ],
      }, { type: 'object', properties: { count: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self >= oldSelf', message: 'count must not decrease' }] } } })] });
    });
    after(async () => { await server?.close(); });

    const widget = (name: string, spec: Obj) => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name }, spec });

    it('refuses a failed rule with the message, reason and fieldPath, as Status causes', async () => {
      const r = await call(server, 'POST', W, widget('w1', { size: 1, min: 5, max: 2, phase: 'New' }));
      expect(r.code).to.equal(422);
      expect(r.obj.message).to.equal('Widget.example.com "w1" is invalid: spec.min: Invalid value: "object": min must not exceed max');
      expect(r.obj.details.causes).to.deep.equal([{ reason: 'FieldValueInvalid', field: 'spec.min', message: 'Invalid value: "object": min must not exceed max' }]);
      const forbidden = await call(server, 'POST', W, widget('w1', { size: 1, phase: 'New', name: 'Not_A_Label' }));
      expect(forbidden.obj.details.causes).to.deep.equal([{ reason: 'FieldValueForbidden', field: 'spec.name', message: 'Forbidden: must be a DNS label' }]);
      const expression = await call(server, 'POST', W, widget('w1', { size: 1, phase: 'New', cidrs: ['10.0.0.0/8', '10.0.0.0/28', 'x'] }));
      expect(expression.obj.message).to.equal('Widget.example.com "w1" is invalid: spec.cidrs: Invalid value: "array": bad CIDRs: 10.0.0.0/28, x');
      const url = await call(server, 'POST', W, widget('w1', { size: 1, phase: 'New', url: 'http://example.com' }));
      expect(url.obj.message).to.contain('spec.url: Invalid value: "string": must be an https URL');
    });

    it('reports an evaluation error as kube-apiserver does (no such key)', async () => {
      const r = await call(server, 'POST', W, widget('w2', { size: 1, min: 1, phase: 'New' }));
      expect(r.obj.message).to.equal('Widget.example.com "w2" is invalid: spec: Invalid value: "object": no such key: max evaluating rule: min must not exceed max');
    });

    it('refuses, never passes, a rule with a function it does not support, naming it', async () => {
      const r = await call(server, 'POST', W, widget('w3', { size: 1, phase: 'New', future: 'x' }));
      expect(r.code).to.equal(422);
      expect(r.obj.message).to.contain('spec.future: Invalid value: "string": rule not evaluated: the mock API server does not support the CEL function(s) quantityLike');
    });

    it('runs transition rules on update only, optionalOldSelf rules on create too, and on the status subresource', async () => {
      expect((await call(server, 'POST', W, widget('w4', { size: 1 }))).obj.message).to.contain('spec: Invalid value: "object": a new widget starts in phase New');
      const created = await call(server, 'POST', W, widget('w4', { size: 3, owner: 'me', phase: 'New' }));
      expect(created.code).to.equal(201);
      const shrink = await call(server, 'PATCH', `${W}/w4`, { spec: { size: 2 } }, 'application/merge-patch+json');
      expect(shrink.obj.message).to.equal('Widget.example.com "w4" is invalid: spec: Invalid value: "object": size may only grow');
      const owner = await call(server, 'PATCH', `${W}/w4`, [{ op: 'replace', path: '/spec/owner', value: 'you' }], 'application/json-patch+json');
      expect(owner.obj.details.causes).to.deep.equal([{ reason: 'FieldValueForbidden', field: 'spec', message: 'Forbidden: owner is immutable' }]);
      expect((await call(server, 'PATCH', `${W}/w4`, { spec: { size: 4, phase: 'Later' } }, 'application/merge-patch+json')).code).to.equal(200);
      expect((await call(server, 'PATCH', `${W}/w4/status`, { status: { count: 5 } }, 'application/merge-patch+json')).code).to.equal(200);
      const down = await call(server, 'PATCH', `${W}/w4/status`, { status: { count: 4 } }, 'application/merge-patch+json');
      expect(down.obj.message).to.equal('Widget.example.com "w4" is invalid: status.count: Invalid value: "integer": count must not decrease');
    });

    it('ratchets CEL rules: an unchanged invalid value is not re-rejected on update', async () => {
      // Stored while the CRD had no rule on spec.name (as an object older than a rule is).
      const crdPath = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com';
      const crd = (await call(server, 'GET', crdPath)).obj;
      const loose = structuredClone(crd);
      delete loose.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.name['x-kubernetes-validations'];
      expect((await call(server, 'PUT', crdPath, loose)).code).to.equal(200);
      expect((await call(server, 'POST', W, widget('w5', { size: 1, phase: 'New', name: 'Bad_Name' }))).code).to.equal(201);
      const strict = (await call(server, 'GET', crdPath)).obj;
      strict.spec = crd.spec;
      expect((await call(server, 'PUT', crdPath, strict)).code).to.equal(200);
      expect((await call(server, 'PATCH', `${W}/w5`, { spec: { size: 2 } }, 'application/merge-patch+json')).code).to.equal(200);
      const changed = await call(server, 'PATCH', `${W}/w5`, { spec: { name: 'Still_Bad' } }, 'application/merge-patch+json');
      expect(changed.obj.message).to.contain('spec.name: Forbidden: must be a DNS label');
    });

    it('applies a default added after an object was stored when the object is read', async () => {
      expect((await call(server, 'POST', W, widget('w6', { size: 1, phase: 'New' }))).code).to.equal(201);
      expect((await call(server, 'GET', `${W}/w6`)).obj.spec).to.not.have.property('color'); // read (and cached) before
      const crdPath = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com';
      const crd = (await call(server, 'GET', crdPath)).obj;
      crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.color = { type: 'string', default: 'blue' };
      expect((await call(server, 'PUT', crdPath, crd)).code).to.equal(200);
      expect((await call(server, 'GET', `${W}/w6`)).obj.spec.color).to.equal('blue');
      const listed = (await call(server, 'GET', W)).obj.items.find((i: Obj) => i.metadata.name === 'w6');
      expect(listed.spec.color).to.equal('blue');
    });
  });

  describe('the OpenShift 4.20 CRDs\' rules', function () {
    let t: TestServer;
    before(async function () {
      if (!existsSync(CRDS_420)) {
        console.log(`    skipped: OpenShift 4.20 CRD fixtures not found at ${CRDS_420}`);
        this.skip();
      }
      t = await startTestServer({ crds: loadCrdsFrom(CRDS_420) });
    });
    after(async () => { await t?.stop(); });

    it('refuses a MachineOSConfig named other than its pool, with the upstream message, through the API and kubectl create', async () => {
      const r = await call(t.server, 'POST', '/apis/machineconfiguration.openshift.io/v1/machineosconfigs', mosc('other', 'worker'));
      expect(r.code).to.equal(422);
      expect(r.obj.message).to.equal(`MachineOSConfig.machineconfiguration.openshift.io "other" is invalid: <nil>: Invalid value: "object": ${MOSC_MESSAGE}`);
      expect(r.obj.details.causes).to.deep.equal([{ reason: 'FieldValueInvalid', field: '<nil>', message: `Invalid value: "object": ${MOSC_MESSAGE}` }]);
      const bad = await t.kubectl(['create', '-f', '-'], JSON.stringify(mosc('other', 'worker')));
      expect(bad.exitCode).to.not.equal(0);
      expect(bad.stderr).to.contain(`The MachineOSConfig "other" is invalid: <nil>: Invalid value: "object": ${MOSC_MESSAGE}`);
      expect(await t.kubectlOk(['create', '-f', '-'], JSON.stringify(mosc('worker', 'worker')))).to.contain('machineosconfig.machineconfiguration.openshift.io/worker created');
      const noTag = await t.kubectl(['create', '-f', '-'], JSON.stringify(mosc('infra', 'infra', 'quay.io/mco/renderedImg')));
      expect(noTag.stderr).to.contain('spec.renderedImagePushSpec: Invalid value: "string": the OCI Image name should follow the host[:port][/namespace]/name format');
    });

    it('refuses it through oc create too', async function () {
      if (!existsSync(OC)) throw new Error(`the real oc is missing: expected ${OC} (../shared/upstream/bin/oc)`);
      const r = await execa(OC, ['create', '-f', '-'], { input: JSON.stringify(mosc('other2', 'worker')), reject: false, env: { KUBECONFIG: t.kubeconfig, HOME: t.dir } });
      expect(r.exitCode).to.not.equal(0);
      expect(String(r.stderr)).to.contain(MOSC_MESSAGE);
    });

    it('refuses a change of a MachineOSBuild\'s spec (immutable) and accepts its status updates', async () => {
      const base = '/apis/machineconfiguration.openshift.io/v1/machineosbuilds';
      const build = {
        apiVersion: 'machineconfiguration.openshift.io/v1', kind: 'MachineOSBuild', metadata: { name: 'worker-build' },
        spec: { machineConfig: { name: 'rendered-worker-1' }, machineOSConfig: { name: 'worker' }, renderedImagePushSpec: 'quay.io/mco/img:latest' },
      };
      const created = await call(t.server, 'POST', base, build);
      expect(created.code, created.obj.message).to.equal(201);
      const changed = await call(t.server, 'PATCH', `${base}/worker-build`, { spec: { renderedImagePushSpec: 'quay.io/mco/img:other' } }, 'application/merge-patch+json');
      expect(changed.code).to.equal(422);
      expect(changed.obj.message).to.equal('MachineOSBuild.machineconfiguration.openshift.io "worker-build" is invalid: spec: Invalid value: "object": machineOSBuildSpec is immutable once set');
    });

    it('refuses a ClusterVersion desiredUpdate that names an architecture without a version, or both architecture and image', async () => {
      const base = '/apis/config.openshift.io/v1/clusterversions';
      const cv = (desiredUpdate: Obj) => ({ apiVersion: 'config.openshift.io/v1', kind: 'ClusterVersion', metadata: { name: 'version' }, spec: { clusterID: '00000000-0000-0000-0000-000000000000', desiredUpdate } });
      const noVersion = await call(t.server, 'POST', base, cv({ architecture: 'Multi' }));
      expect(noVersion.obj.message).to.contain('spec.desiredUpdate: Invalid value: "object": no such key: version evaluating rule: Version must be set if Architecture is set');
      const emptyVersion = await call(t.server, 'POST', base, cv({ architecture: 'Multi', version: '' }));
      expect(emptyVersion.obj.message).to.contain('spec.desiredUpdate: Invalid value: "object": Version must be set if Architecture is set');
      const both = await call(t.server, 'POST', base, cv({ architecture: 'Multi', version: '4.20.1', image: 'quay.io/x@sha256:0' }));
      expect(both.obj.message).to.contain('spec.desiredUpdate: Invalid value: "object": cannot set both Architecture and Image');
      expect((await call(t.server, 'POST', base, cv({ version: '4.20.1' }))).code).to.equal(201);
    });
  });

  describe('ocp-e2e apiserver --crds DIR', () => {
    const servers = useChildServers('apiserver-crds-', 'SIGTERM');
    it('serves any CRD folder with its rules: the 4.20 MachineOSConfig rule through kubectl', async function () {
      if (!existsSync(CRDS_420)) this.skip();
      const dir = servers.dir();
      const kubeconfig = join(dir, 'kubeconfig');
      const started = await spawnServer([join(ROOT, 'bin/ocp-e2e.ts'), 'apiserver', '--listen', '127.0.0.1:0', '--kubeconfig-out', kubeconfig, '--no-openshift-crds', '--crds', CRDS_420], (out) => {
        const m = /API server ready at (\S+)/.exec(out);
        return m && /kubeconfig: /.test(out) ? m[1]! : undefined;
      }, { cwd: ROOT });
      const child: ChildProcess = started.child;
      servers.track(child);
      const bad = await execa('kubectl', ['create', '-f', '-'], { input: JSON.stringify(mosc('other', 'worker')), reject: false, env: { KUBECONFIG: kubeconfig, HOME: dir } });
      expect(String(bad.stderr)).to.contain(MOSC_MESSAGE);
      expect(await stopChild(child, 'SIGTERM')).to.equal(0);
      servers.track(undefined);
    });
  });
});
