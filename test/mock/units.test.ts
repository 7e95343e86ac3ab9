/** Unit tests of the mock's pure parts: selectors, patches, JSONPath, ages, schema checks, protobuf decoding. */
import { expect } from 'chai';
import { ApiError } from '../../mock/errors.js';
import { evaluate, toJsonPathPlus } from '../../mock/jsonpath.js';
import { mergePatch, strategicMerge } from '../../mock/patch.js';
import { decodeProtobuf } from '../../mock/protobuf.js';
import { makeSchemaCheck } from '../../mock/schema.js';
import { parseFieldSelector, parseLabelSelector } from '../../mock/selectors.js';
import { humanDuration } from '../../mock/table.js';
import { compareVersions } from '../../mock/discovery.js';

const obj = (labels: Record<string, string>) => ({ metadata: { name: 'x', namespace: 'ns', labels } });

describe('mock units', () => {
  describe('label selectors', () => {
    it('match equality, inequality, set-based and existence requirements', () => {
      const m = parseLabelSelector('a=1,b!=2,c in (x, y),d notin (z),e,!f')!;
      expect(m(obj({ a: '1', b: '3', c: 'x', d: 'w', e: '' }))).to.equal(true);
      expect(m(obj({ a: '1', b: '2', c: 'x', e: '' }))).to.equal(false);
      expect(m(obj({ a: '1', c: 'q', e: '' }))).to.equal(false);
      expect(m(obj({ a: '1', c: 'y', e: '', f: '1' }))).to.equal(false);
      expect(parseLabelSelector('a==1')!(obj({ a: '1' }))).to.equal(true);
      expect(parseLabelSelector('')).to.equal(undefined);
    });
    it('reject malformed selectors with 400', () => {
      for (const bad of ['a in b', 'a=(', '=x', 'a b']) {
        expect(() => parseLabelSelector(bad), bad).to.throw(ApiError).with.property('code', 400);
      }
    });
  });

  describe('field selectors', () => {
    it('match metadata and declared kind-specific fields, refuse others', () => {
      const m = parseFieldSelector('metadata.name=x,metadata.namespace!=other', 'ConfigMap')!;
      expect(m(obj({}) as any)).to.equal(true);
      expect(parseFieldSelector('involvedObject.name=n', 'Event', ['involvedObject.name'])!({ metadata: {}, involvedObject: { name: 'n' } } as any)).to.equal(true);
      expect(() => parseFieldSelector('spec.x=1', 'ConfigMap')).to.throw(/not a known field selector/);
    });
  });

  describe('patches', () => {
    it('merge patch follows RFC 7386', () => {
      expect(mergePatch({ a: { b: 1, c: 2 }, l: [1] }, { a: { b: null, d: 3 }, l: [2] })).to.deep.equal({ a: { c: 2, d: 3 }, l: [2] });
      expect(mergePatch({ a: 1 }, 'x')).to.equal('x');
    });
    it('strategic merge merges keyed lists, unions finalizers and honours directives', () => {
      const target = { metadata: { finalizers: ['a'] }, spec: { taints: [{ key: 'k1', effect: 'NoSchedule' }, { key: 'k2' }], other: [1, 2] } };
      const out = strategicMerge(target, {
        metadata: { finalizers: ['b'] }, spec: { taints: [{ key: 'k1', value: 'v' }, { key: 'k2', $patch: 'delete' }], other: [3], '$setElementOrder/taints': [{ key: 'k1' }] },
      });
      expect(out).to.deep.equal({ metadata: { finalizers: ['a', 'b'] }, spec: { taints: [{ key: 'k1', effect: 'NoSchedule', value: 'v' }], other: [3] } });
      expect(strategicMerge({ metadata: { finalizers: ['a', 'b'] } }, { metadata: { '$deleteFromPrimitiveList/finalizers': ['a'] } })).to.deep.equal({ metadata: { finalizers: ['b'] } });
      expect(strategicMerge({ spec: { a: 1, b: 2 } }, { spec: { $patch: 'replace', c: 3 } })).to.deep.equal({ spec: { c: 3 } });
    });
  });

  describe('JSONPath', () => {
    it('translates Kubernetes paths, escaped dots included, and evaluates filters', () => {
      expect(toJsonPathPlus('.metadata.annotations.a\\.b/c')).to.equal("$['metadata']['annotations']['a.b/c']");
      const o = { status: { conditions: [{ type: 'A', status: 'True' }, { type: 'B', status: 'False' }] } };
      expect(evaluate('.status.conditions[?(@.type=="B")].status', o)).to.deep.equal(['False']);
      expect(evaluate('{.status.conditions[*].type}', o)).to.deep.equal(['A', 'B']);
      expect(evaluate('.missing.path', o)).to.deep.equal([]);
    });
  });

  describe('ages', () => {
    it('print like kubectl', () => {
      const s = 1000, m = 60 * s, h = 60 * m, d = 24 * h;
      expect([0, 59 * s, 119 * s, 5 * m + 3 * s, 173 * m, 3 * h + 5 * m, 10 * h, 3 * d + 4 * h, 30 * d, 800 * d].map(humanDuration))
        .to.deep.equal(['0s', '59s', '119s', '5m3s', '173m', '3h5m', '10h', '3d4h', '30d', '2y70d']);
    });
  });

  describe('version priority', () => {
    it('orders GA before beta before alpha', () => {
      expect(['v1alpha1', 'v1beta1', 'v2', 'v1', 'v1beta2'].sort(compareVersions)).to.deep.equal(['v2', 'v1', 'v1beta2', 'v1beta1', 'v1alpha1']);
    });
  });

  describe('schema checks', () => {
    const check = makeSchemaCheck({
      type: 'object',
      properties: {
        spec: {
          type: 'object', required: ['name'],
          properties: {
            name: { type: 'string', minLength: 2 }, mode: { type: 'string', enum: ['a', 'b'] }, when: { type: 'string', format: 'date-time' },
            n: { anyOf: [{ type: 'integer' }, { type: 'string' }], 'x-kubernetes-int-or-string': true }, free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
            maybe: { type: 'string', nullable: true },
          },
        },
      },
    });
    it('prunes unknown fields but keeps preserved subtrees and metadata', () => {
      const o: any = { apiVersion: 'v', kind: 'K', metadata: { name: 'x', anything: 1 }, spec: { name: 'ok', junk: 1, free: { deep: { x: 1 } } }, top: 1 };
      expect(check.prune(o)).to.deep.equal(['spec.junk', 'top']);
      expect(o).to.deep.equal({ apiVersion: 'v', kind: 'K', metadata: { name: 'x', anything: 1 }, spec: { name: 'ok', free: { deep: { x: 1 } } } });
    });
    it('reports required, enum, format, length and type errors with field paths', () => {
      const causes = check.validate({ metadata: {}, spec: { mode: 'c', when: 'yesterday', n: true, maybe: null } } as any);
      const byField = Object.fromEntries(causes.map((c) => [c.field, c.message]));
      expect(byField['spec.name']).to.equal('Required value');
      expect(byField['spec.mode']).to.equal('Unsupported value: "c": supported values: "a", "b"');
      expect(byField['spec.when']).to.contain('date-time');
      expect(byField['spec.n']).to.contain('must be of type');
      expect(byField).to.not.have.property('spec.maybe');
      expect(check.validate({ metadata: {}, spec: { name: 'ok', n: 3 } } as any)).to.deep.equal([]);
    });
  });

  describe('protobuf bodies', () => {
    // A ConfigMap as kubectl 1.32 encodes it: k8s\0 envelope, runtime.Unknown{typeMeta, raw}, ConfigMap{metadata{name}, data{k: v}}.
    const field = (n: number, bytes: Buffer) => Buffer.concat([Buffer.from([(n << 3) | 2, bytes.length]), bytes] as unknown as Uint8Array[]);
    const str = (n: number, s: string) => field(n, Buffer.from(s));
    it('decode a ConfigMap and omit empty fields', () => {
      const meta = Buffer.concat([str(1, 'cm'), str(2, ''), str(3, 'default')] as unknown as Uint8Array[]);
      const cm = Buffer.concat([field(1, meta), field(2, Buffer.concat([str(1, 'k'), str(2, 'v')] as unknown as Uint8Array[]))] as unknown as Uint8Array[]);
      const unknown = Buffer.concat([field(1, Buffer.concat([str(1, 'v1'), str(2, 'ConfigMap')] as unknown as Uint8Array[])), field(2, cm)] as unknown as Uint8Array[]);
      const body = Buffer.concat([Buffer.from('k8s\0'), unknown] as unknown as Uint8Array[]);
      expect(decodeProtobuf(body)).to.deep.equal({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'default' }, data: { k: 'v' } });
    });
    it('answer 400 to garbage and 415 to kinds it cannot decode', () => {
      expect(() => decodeProtobuf(Buffer.from('nope'))).to.throw(ApiError).with.property('code', 400);
      const unknown = field(1, Buffer.concat([str(1, 'v1'), str(2, 'Pod')] as unknown as Uint8Array[]));
      expect(() => decodeProtobuf(Buffer.concat([Buffer.from('k8s\0'), unknown] as unknown as Uint8Array[]))).to.throw(ApiError).with.property('code', 415);
    });
  });
});
