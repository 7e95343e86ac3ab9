/**
 * The CEL functions of mock/cel/ one by one, through the same compile-and-evaluate path rules take: the standard and
 * strings ones the OpenShift CRDs use, Kubernetes' IP, CIDR, URL, format, list and regex libraries, optionals, and a
 * function the mock lacks reported as unsupported rather than run.
 */
import { expect } from 'chai';
import { rulesOf } from '../../mock/cel/index.js';

/** Evaluates `rule` with `self` (and `oldSelf` when given) under a schema of `type`; true, false or the error text. */
function run(rule: string, self: unknown, opts: { type?: string; oldSelf?: unknown; optionalOldSelf?: boolean } = {}): boolean | string {
  const schema = { type: opts.type ?? 'object', 'x-kubernetes-validations': [{ rule, optionalOldSelf: opts.optionalOldSelf }] };
  const [compiled] = rulesOf(schema);
  if (compiled!.unsupported.length) return `unsupported: ${compiled!.unsupported.join(', ')}`;
  const out = compiled!.evaluate(self, schema, { present: 'oldSelf' in opts, value: opts.oldSelf });
  return 'error' in out ? out.error : out.pass;
}

type Row = [rule: string, self: unknown, type: string, expected: boolean | string];

/** One test per function group: every row's rule, evaluated on its value, gives the expected result. */
function table(title: string, rows: Row[]): void {
  it(title, () => {
    const got = rows.map(([rule, self, type]) => run(rule, self, { type }));
    expect(got).to.deep.equal(rows.map((r) => r[3]));
  });
}

describe('mock API server: CEL functions (mock/cel)', () => {
  table('has the standard and strings functions the CRDs use', [
    ["self.all(x, self.exists_one(y, x == y))", ['a', 'b'], 'array', true],
    ["self.all(x, self.exists_one(y, x == y))", ['a', 'a'], 'array', false],
    ["self.split('@').size() == 2 && self.split('@')[1].matches('^sha256:[a-f0-9]{4}$')", 'img@sha256:abcd', 'string', true],
    ["matches(self, '^arn:(aws|aws-cn):iam::[0-9]{12}:role/.*$')", 'arn:aws:iam::123456789012:role/x', 'string', true],
    ["self.lowerAscii().startsWith('ab') && self.trim().endsWith('Z')", 'ABcZ', 'string', true],
    ["timestamp(self.start) < timestamp(self.end)", { start: '2025-01-01T00:00:00Z', end: '2025-01-02T00:00:00Z' }, 'object', true],
    ['self.a == 1', {}, 'object', 'no such key: a'],
  ]);
  it('has the standard and strings functions the CRDs use: transition rules with optionalOldSelf', () => {
    expect(run('self >= oldSelf', 3, { type: 'integer', oldSelf: 4 })).to.equal(false);
  });

  table('has the IP and CIDR library', [
    ['isIP(self)', '10.0.0.1', 'string', true],
    ['isIP(self)', '010.0.0.1', 'string', false],
    ['isIP(self)', '::ffff:10.0.0.1', 'string', false],
    ['isIP(self)', 'fe80::1%eth0', 'string', false],
    ['ip(self[0]).family() != ip(self[1]).family()', ['10.0.0.1', 'fd00::1'], 'array', true],
    ['ip(self).isLoopback() && !ip(self).isGlobalUnicast()', '127.0.0.1', 'string', true],
    ['ip.isCanonical(self)', '2001:db8::1', 'string', true],
    ['ip.isCanonical(self)', '2001:db8:0:0::1', 'string', false],
    ['isCIDR(self) && cidr(self).prefixLength() == 16', '10.1.0.0/16', 'string', true],
    ['isCIDR(self)', '10.1.0.0/33', 'string', false],
    ["cidr(self).containsIP('10.1.2.3') && !cidr(self).containsIP('10.2.0.1') && cidr(self).containsCIDR('10.1.4.0/24')", '10.1.0.0/16', 'string', true],
    ["cidr(self).masked() == cidr('10.1.0.0/16')", '10.1.2.3/16', 'string', true],
  ]);

  table('has the URL library', [
    ['isURL(self)', 'https://example.com/a?b=c', 'string', true],
    ['isURL(self)', '/absolute/path', 'string', true],
    ['isURL(self)', '../relative', 'string', false],
    ["url(self).getScheme() == 'https' && url(self).getHostname() == 'example.com' && url(self).getPort() == '8443' && url(self).getEscapedPath() == '/a%20b'", 'https://example.com:8443/a%20b', 'string', true],
    ["url(self).getHost() == '[::1]:80' && url(self).getHostname() == '::1'", 'http://[::1]:80/', 'string', true],
    ["url(self).getQuery()['k'] == ['a', 'b']", 'http://x/?k=a&k=b', 'string', true],
  ]);

  table('has the format library, returning optional lists of problems', [
    ['!format.dns1123Subdomain().validate(self).hasValue()', 'a.b-c', 'string', true],
    ['!format.dns1123Subdomain().validate(self).hasValue()', 'A_b', 'string', false],
    ['!format.dns1123Label().validate(self).hasValue()', 'a.b', 'string', false],
    ['!format.dns1035Label().validate(self).hasValue()', '1abc', 'string', false],
    ["format.named('qualifiedName').value().validate(self).hasValue()", 'example.com/Name_1', 'string', false],
    ["!format.named('nope').hasValue()", '', 'string', true],
    ["format.dns1123Label().validate(self).value()[0].startsWith('must be no more than 63')", 'a'.repeat(64), 'string', true],
  ]);

  table('has the list and regex libraries', [
    ['self.isSorted() && self.sum() == 6 && self.min() == 1 && self.max() == 3', [1, 2, 3], 'array', true],
    ['[3, 1].isSorted()', [], 'array', false],
    ["self.indexOf('b') == 1 && self.lastIndexOf('a') == 2 && self.indexOf('z') == -1", ['a', 'b', 'a'], 'array', true],
    ["self.find('[0-9]+') == '12' && self.findAll('[0-9]+') == ['12', '3'] && self.findAll('[0-9]+', 1) == ['12']", 'a12b3', 'string', true],
  ]);

  table('has the quantity, semver and sets libraries', [
    ["isQuantity(self) && quantity(self).isGreaterThan(quantity('1Gi')) && quantity(self).compareTo(quantity('1536Mi')) == 0", '1.5Gi', 'string', true],
    ["quantity(self) == quantity('0.5') && quantity(self).add(1).asApproximateFloat() == 1.5 && !quantity(self).isInteger()", '500m', 'string', true],
    ["quantity(self).asInteger() == 2000 && quantity(self).sub(quantity('1k')).sign() == 1 && quantity('-1').sign() == -1", '2e3', 'string', true],
    ['isQuantity(self)', '1.5.5', 'string', false],
    ["isSemver(self) && semver(self).isLessThan(semver('1.10.0')) && semver(self).major() == 1 && semver(self).minor() == 9", '1.9.3', 'string', true],
    ["semver('1.0.0-alpha').compareTo(semver('1.0.0')) == -1 && semver('1.0.0-alpha.2').isGreaterThan(semver('1.0.0-alpha.10')) == false", '', 'string', true],
    ["!isSemver(self) && isSemver(self, true) && semver(self, true).patch() == 0", 'v1.2', 'string', true],
    ["sets.contains(self, ['a']) && !sets.equivalent(self, ['a']) && sets.intersects(self, ['b', 'z'])", ['a', 'b'], 'array', true],
  ]);

  const status = { status: { skew: { mode: 'Automatic' } } };
  table('has optionals: x.?f chains, orValue, optional.ofNonZeroValue', [
    ["self.?status.skew.mode.orValue('') == 'Automatic'", status, 'object', true],
    ["self.?spec.images.hasValue()", status, 'object', false],
    ["self.?status.missing.deeper.orValue('none') == 'none'", status, 'object', true],
    ["'.?x' == '.' + '?x'", {}, 'object', true], // not rewritten inside a string
    ['optional.ofNonZeroValue(self.n).hasValue()', { n: 0 }, 'object', false],
  ]);
  it('binds oldSelf as an optional under optionalOldSelf: none on create, the old value on update', () => {
    const rule = 'self.name == self.pool || oldSelf.hasValue() && oldSelf.pool.value() == self.pool';
    expect(run(rule, { name: 'a', pool: 'b' }, { optionalOldSelf: true })).to.equal(false);
    expect(run(rule, { name: 'a', pool: 'b' }, { optionalOldSelf: true, oldSelf: { name: 'a', pool: 'b' } })).to.equal(true);
  });

  it('sees a string of format byte as the bytes its base64 spells, as Kubernetes converts it', () => {
    const schema = { type: 'string', format: 'byte', 'x-kubernetes-validations': [{ rule: "string(self).startsWith('-----BEGIN') && size(self) == 12" }] };
    const [compiled] = rulesOf(schema);
    const encoded = Buffer.from('-----BEGIN x').toString('base64');
    expect(compiled!.evaluate(encoded, schema, { present: false })).to.deep.equal({ pass: true });
  });

  it('compiles a rule once per schema node, and reports a function it lacks instead of running the rule', () => {
    const schema = { type: 'string', 'x-kubernetes-validations': [{ rule: "math.greatest(1, 2) == 2 && base64.decode(self) == b'x'" }] };
    expect(rulesOf(schema)).to.equal(rulesOf(schema));
    expect(rulesOf(schema)[0]!.unsupported).to.deep.equal(['base64.decode', 'math.greatest']);
  });
});
