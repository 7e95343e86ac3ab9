/**
 * Request bodies decoded as kube-apiserver decodes them: the media types each verb takes (415 otherwise, in the real
 * server's words), the size limit checked as the bytes arrive (413), the nesting and alias bounds of JSON and YAML
 * (400), the operations of a JSON patch (413). Fast: one server, no kubectl.
 */
import { expect } from 'chai';
import { request as httpRequest } from 'node:http';
import { startApiServer, type RunningApiServer } from '../../mock/index.js';
import { openShiftCrds } from '../../reference/crds/index.js';
import { decodeYaml } from '../../mock/yaml-decode.js';
import { ApiError } from '../../mock/errors.js';
import { request } from './support.js';

const MC = '/apis/machineconfiguration.openshift.io/v1/machineconfigs';
const CM = '/api/v1/namespaces/default/configmaps';
const mc = (name: string, config: unknown = {}) => ({ apiVersion: 'machineconfiguration.openshift.io/v1', kind: 'MachineConfig', metadata: { name }, spec: { config } });
const UNKNOWN_FORMAT = 'the body of the request was in an unknown format - accepted media types include: ';

describe('mock API server: decoding request bodies as kube-apiserver bounds them', function () {
  this.timeout(30_000);
  let s: RunningApiServer;
  before(async () => {
    s = await startApiServer({ tls: false, crds: openShiftCrds() });
    expect((await request(s, 'POST', MC, { body: mc('target') })).status).to.equal(201);
    expect((await request(s, 'POST', CM, { body: { metadata: { name: 'target' }, data: { a: '1' } } })).status).to.equal(201);
  });
  after(async () => { await s?.close(); });

  describe('media types per verb', () => {
    it('takes JSON, YAML and protobuf for a create or update, in any case and with parameters, JSON when none is said', async () => {
      for (const contentType of ['application/json', 'APPLICATION/JSON', 'application/json; charset=utf-8', 'application/json;', '']) {
        const r = await request(s, 'PUT', `${MC}/target`, { rawBody: JSON.stringify(mc('target')), contentType });
        expect(r.status, `${JSON.stringify(contentType)}: ${r.text}`).to.equal(200);
      }
      const yaml = 'apiVersion: machineconfiguration.openshift.io/v1\nkind: MachineConfig\nmetadata:\n  name: from-yaml\nspec: {}\n';
      expect((await request(s, 'POST', MC, { rawBody: yaml, contentType: 'application/yaml' })).status).to.equal(201);
    });

    it('answers 415 naming json, yaml and protobuf to any other body of a create or update, before reading it', async () => {
      for (const contentType of ['application/merge-patch+json', 'application/apply-patch+yaml', 'application/cbor', 'text/plain', 'application/x-yaml', '*/*', 'application/json;;;', 'application/json; a=1; a=2', 'application/json x']) {
        for (const [method, path] of [['POST', MC], ['PUT', `${MC}/target`], ['PUT', `${CM}/target`]] as const) {
          const r = await request(s, method, path, { rawBody: JSON.stringify(mc('target')), contentType });
          expect(r.status, `${method} ${path} ${contentType}`).to.equal(415);
          expect(r.json.message).to.equal(`${UNKNOWN_FORMAT}application/json, application/yaml, application/vnd.kubernetes.protobuf`);
        }
      }
    });

    it('takes the four patch types for a built-in kind and three for a custom resource, compared as sent', async () => {
      const builtin = await request(s, 'PATCH', `${CM}/target`, { rawBody: '{"data":{"b":"2"}}', contentType: 'application/strategic-merge-patch+json' });
      expect(builtin.status, builtin.text).to.equal(200);
      const custom = await request(s, 'PATCH', `${MC}/target`, { rawBody: '{"spec":{}}', contentType: 'application/strategic-merge-patch+json' });
      expect(custom.status).to.equal(415);
      expect(custom.json.message).to.equal(`${UNKNOWN_FORMAT}application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml`);
      const json = await request(s, 'PATCH', `${CM}/target`, { rawBody: '{}', contentType: 'application/json' });
      expect(json.json.message).to.equal(`${UNKNOWN_FORMAT}application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml`);
      expect((await request(s, 'PATCH', `${MC}/target`, { rawBody: '{}', contentType: 'application/merge-patch+json; charset=utf-8' })).status).to.equal(200);
      // kube-apiserver cuts the header at its first ";" and compares the rest exactly: no lower-casing, no trimming.
      expect((await request(s, 'PATCH', `${MC}/target`, { rawBody: '{}', contentType: 'Application/Merge-Patch+Json' })).status).to.equal(415);
      expect((await request(s, 'PATCH', `${MC}/target`, { rawBody: '{}', contentType: 'application/merge-patch+json ; x=1' })).status).to.equal(415);
      expect((await request(s, 'PATCH', `${MC}/target?fieldManager=t`, { rawBody: '{}', contentType: 'application/apply-patch+cbor' })).status).to.equal(415);
    });

    it('reads a DeleteOptions body only when there is one', async () => {
      expect((await request(s, 'DELETE', `${MC}/target?dryRun=All`, { rawBody: '', contentType: 'text/plain' })).status).to.equal(200);
      expect((await request(s, 'DELETE', `${MC}/target?dryRun=All`, { rawBody: '{}', contentType: 'text/plain' })).status).to.equal(415);
      expect((await request(s, 'DELETE', `${MC}/target?dryRun=All`, { rawBody: 'kind: DeleteOptions\napiVersion: v1\n', contentType: 'application/yaml' })).status).to.equal(200);
    });
  });

  describe('sizes', () => {
    it('answers 413 as soon as a streamed body passes 3 MiB, without waiting for the rest', async () => {
      const url = new URL(MC, s.url);
      const answer = await new Promise<{ status: number; body: string; ended: boolean }>((resolve, reject) => {
        let ended = false;
        const req = httpRequest(url, { method: 'POST', headers: { Authorization: `Bearer ${s.token}`, 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' } }, (res) => {
          let body = '';
          res.on('data', (c: Buffer) => { body += c.toString(); });
          res.on('end', () => { resolve({ status: res.statusCode ?? 0, body, ended }); req.destroy(); });
        });
        req.on('error', (e) => { if (!ended) reject(e); });
        // 4 MiB of a string value, and the request left open: the answer must come before the client ends it.
        req.write('{"a":"');
        for (let i = 0; i < 64; i++) req.write('x'.repeat(64 * 1024));
        setTimeout(() => { ended = true; req.destroy(); }, 10_000);
      });
      expect(answer.ended, 'answered before the client gave up').to.equal(false);
      expect(answer.status).to.equal(413);
      expect(JSON.parse(answer.body).message).to.equal('Request entity too large: limit is 3145728');
    });

    it('answers 413 to a JSON patch of more than 10000 operations, in kube-apiserver words', async () => {
      const ops = Array.from({ length: 10_001 }, (_, i) => ({ op: 'add', path: `/metadata/labels/l${i}`, value: 'v' }));
      const r = await request(s, 'PATCH', `${CM}/target`, { rawBody: JSON.stringify(ops), contentType: 'application/json-patch+json' });
      expect(r.status).to.equal(413);
      expect(r.json.message).to.equal('Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001');
    });
  });

  describe('nesting and aliases', () => {
    const nestJson = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
    const nestYaml = (depth: number) => '{a: '.repeat(depth) + '1' + '}'.repeat(depth);

    it('takes JSON 1000 levels deep and refuses 1001, before parsing', async () => {
      // The object and its spec are two levels; the value of spec.config brings the rest.
      const ok = await request(s, 'POST', MC, { rawBody: JSON.stringify(mc('deep-json')).replace('"config":{}', `"config":${nestJson(998)}`) });
      expect(ok.status, ok.text.slice(0, 200)).to.equal(201);
      const deep = await request(s, 'POST', MC, { rawBody: JSON.stringify(mc('deeper-json')).replace('"config":{}', `"config":${nestJson(999)}`) });
      expect(deep.status).to.equal(400);
      expect(deep.json.message).to.equal('the request body is not valid JSON: exceeded max depth of 1000');
    });

    it('takes YAML 256 levels deep and refuses 257, in every style', async () => {
      const doc = (name: string, depth: number) => `apiVersion: machineconfiguration.openshift.io/v1\nkind: MachineConfig\nmetadata: {name: ${name}}\nspec:\n  config: ${nestYaml(depth)}\n`;
      expect((await request(s, 'POST', MC, { rawBody: doc('deep-yaml', 254), contentType: 'application/yaml' })).status).to.equal(201);
      const deep = await request(s, 'POST', MC, { rawBody: doc('deeper-yaml', 255), contentType: 'application/yaml' });
      expect(deep.status).to.equal(400);
      expect(deep.json.message).to.equal('the request body is not valid YAML: exceeded max depth of 256');
      for (const text of ['- '.repeat(257) + 'x', '? '.repeat(257) + 'x', Array.from({ length: 257 }, (_, i) => ' '.repeat(i) + 'a:').join('\n') + ' x']) {
        const r = await request(s, 'PATCH', `${MC}/target?fieldManager=t`, { rawBody: text, contentType: 'application/apply-patch+yaml' });
        expect(r.json.message, text.slice(0, 20)).to.equal('the request body is not valid YAML: exceeded max depth of 256');
      }
    });

    it('reads a 3 MiB YAML body nested to the end in milliseconds, stopping at the limit', () => {
      for (const text of ['['.repeat(3_000_000), '- '.repeat(1_500_000), '{a: '.repeat(750_000)]) {
        const started = Date.now();
        expect(() => decodeYaml(text)).to.throw(ApiError, 'exceeded max depth of 256');
        expect(Date.now() - started, text.slice(0, 4)).to.be.below(500);
      }
    });

    it('expands aliases into copies within go-yaml\'s bound: billion laughs and self references are 400', async () => {
      const laughs = ['a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]']
        .concat(['b', 'c', 'd', 'e', 'f', 'g', 'h'].map((k, i) => `${k}: &${k} [${Array(9).fill(`*${'abcdefg'[i]}`).join(', ')}]`)).join('\n');
      const refused = await request(s, 'PATCH', `${MC}/target?fieldManager=t`, { rawBody: laughs, contentType: 'application/apply-patch+yaml' });
      expect(refused.status).to.equal(400);
      expect(refused.json.message).to.equal('the request body is not valid YAML: yaml: document contains excessive aliasing');
      expect(() => decodeYaml('a: &a [*a]')).to.throw(ApiError, "yaml: anchor 'a' value contains itself");
      expect(() => decodeYaml('a: *nope')).to.throw(ApiError, "yaml: unknown anchor 'nope' referenced");
      // An alias is a copy of its anchor's value, not the same object: changing one leaves the other.
      const value = decodeYaml('a: &x {b: [1, 2]}\nc: *x\n') as { a: { b: number[] }; c: { b: number[] } };
      expect(value).to.deep.equal({ a: { b: [1, 2] }, c: { b: [1, 2] } });
      value.a.b.push(3);
      expect(value.c.b).to.deep.equal([1, 2]);
    });

    it('applies a YAML object with aliases, and keeps "__proto__" an ordinary key', async () => {
      const applied = 'apiVersion: machineconfiguration.openshift.io/v1\nkind: MachineConfig\nmetadata:\n  name: aliased\n  labels: &l {a: b}\n  annotations: *l\nspec: {}\n';
      const r = await request(s, 'PATCH', `${MC}/aliased?fieldManager=t`, { rawBody: applied, contentType: 'application/apply-patch+yaml' });
      expect(r.status, r.text).to.equal(201);
      expect(r.json.metadata.annotations).to.deep.equal({ a: 'b' });
      const proto = decodeYaml('__proto__: {polluted: true}') as Record<string, unknown>;
      expect(Object.keys(proto)).to.deep.equal(['__proto__']);
      expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
    });

    it('answers 400 to an apply patch that is not an object, as kube-apiserver decoding it into a map', async () => {
      const r = await request(s, 'PATCH', `${MC}/target?fieldManager=t`, { rawBody: '[1, 2]', contentType: 'application/apply-patch+yaml' });
      expect(r.status).to.equal(400);
      expect(r.json.message).to.equal('error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type map[string]interface {}');
    });
  });
});
