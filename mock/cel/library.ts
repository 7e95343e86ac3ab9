/**
 * The Kubernetes CEL library functions (k8s.io/apiserver pkg/cel/library) that CRD rules use, over @bufbuild/cel:
 * the behaviour of each follows the upstream library's documentation and tests; the code is this project's own.
 * Values of the library's own types (IP, CIDR, URL, Format) travel as CEL maps tagged with their type name, so `==`
 * and the methods below can tell them apart.
 */
import { isIP as nodeIsIP } from 'node:net';
import { RE2JS } from '@bufbuild/re2';
import { celFunc, celMethod, CelScalar, isCelList, isCelMap, listType, type CelFunc, type CelList, type CelValue } from '@bufbuild/cel';
import { none, some } from './optional.js';

const TYPE = '\u0000type';
const DYN = CelScalar.DYN, STRING = CelScalar.STRING, BOOL = CelScalar.BOOL, INT = CelScalar.INT;
const fail = (message: string): never => { throw new Error(message); };

function tagged(type: string, fields: Record<string, unknown>): Map<string, unknown> {
  return new Map<string, unknown>([[TYPE, type], ...Object.entries(fields)]);
}
function fieldsOf(v: unknown, type: string): ReadonlyMap<string, unknown> {
  if ((v instanceof Map || isCelMap(v)) && (v as ReadonlyMap<unknown, unknown>).get(TYPE) === type) return v as ReadonlyMap<string, unknown>;
  return fail(`no such overload: expected ${type}`);
}

// ------------------------------------------------------------------------------------------------ IP and CIDR

/** Parses an address as Go's netip does for the library: no zones, no IPv4-mapped IPv6, no leading zeros in IPv4. */
function parseIp(s: string): { family: 4 | 6; bytes: number[] } | undefined {
  if (s.includes('%')) return undefined;
  const family = nodeIsIP(s);
  if (family === 4) {
    const parts = s.split('.');
    if (parts.some((p) => p.length > 1 && p.startsWith('0'))) return undefined;
    return { family: 4, bytes: parts.map(Number) };
  }
  if (family === 6) {
    const bytes = ipv6Bytes(s);
    if (!bytes) return undefined;
    if (bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff) return undefined; // IPv4-mapped
    return { family: 6, bytes };
  }
  return undefined;
}

function ipv6Bytes(s: string): number[] | undefined {
  let text = s;
  const tail: number[] = [];
  const dotted = text.match(/^(.*:)(\d+\.\d+\.\d+\.\d+)$/);
  if (dotted) { text = `${dotted[1]}0:0`; tail.push(...dotted[2]!.split('.').map(Number)); }
  const [head, rest] = text.split('::') as [string, string | undefined];
  const groups = (g: string) => (g ? g.split(':').map((x) => parseInt(x, 16)) : []);
  const h = groups(head), r = rest === undefined ? [] : groups(rest);
  const words = rest === undefined ? h : [...h, ...new Array(8 - h.length - r.length).fill(0), ...r];
  if (words.length !== 8 || words.some((w) => Number.isNaN(w))) return undefined;
  const bytes = words.flatMap((w) => [w >> 8, w & 0xff]);
  if (tail.length) bytes.splice(12, 4, ...tail);
  return bytes;
}

function ipString(family: 4 | 6, bytes: number[]): string {
  if (family === 4) return bytes.join('.');
  const words = Array.from({ length: 8 }, (_, i) => (bytes[2 * i]! << 8) | bytes[2 * i + 1]!);
  // Longest run of zero words (at least two) becomes "::", as the canonical form writes it.
  let best = -1, bestLen = 1;
  for (let i = 0; i < 8;) {
    if (words[i] !== 0) { i++; continue; }
    let j = i;
    while (j < 8 && words[j] === 0) j++;
    if (j - i > bestLen) { best = i; bestLen = j - i; }
    i = j;
  }
  const hex = words.map((w) => w.toString(16));
  if (best < 0) return hex.join(':');
  return `${hex.slice(0, best).join(':')}::${hex.slice(best + bestLen).join(':')}`;
}

const ipValue = (family: 4 | 6, bytes: number[]) => tagged('net.IP', { family: BigInt(family), addr: ipString(family, bytes) });
function ipOf(s: string) {
  const ip = parseIp(s);
  return ip ? ipValue(ip.family, ip.bytes) : fail(`IP Address ${JSON.stringify(s)} parse error during conversion from string: invalid IP address`);
}
const ipParts = (v: unknown) => {
  const addr = String(fieldsOf(v, 'net.IP').get('addr'));
  return { addr, ...parseIp(addr)! };
};

function parseCidr(s: string): { family: 4 | 6; bytes: number[]; prefix: number } | undefined {
  const slash = s.indexOf('/');
  if (slash < 0) return undefined;
  const ip = parseIp(s.slice(0, slash));
  const prefixText = s.slice(slash + 1);
  if (!ip || !/^\d+$/.test(prefixText) || (prefixText.length > 1 && prefixText.startsWith('0'))) return undefined;
  const prefix = Number(prefixText);
  if (prefix > (ip.family === 4 ? 32 : 128)) return undefined;
  return { ...ip, prefix };
}
const cidrValue = (c: { family: 4 | 6; bytes: number[]; prefix: number }) =>
  tagged('net.IPPrefix', { cidr: `${ipString(c.family, c.bytes)}/${c.prefix}`, prefix: BigInt(c.prefix) });
function cidrOf(s: string) {
  const c = parseCidr(s);
  return c ? cidrValue(c) : fail(`network address ${JSON.stringify(s)} parse error during conversion from string: invalid CIDR`);
}
const cidrParts = (v: unknown) => parseCidr(String(fieldsOf(v, 'net.IPPrefix').get('cidr')))!;
const masked = (bytes: number[], prefix: number) => bytes.map((b, i) => {
  const bits = Math.max(0, Math.min(8, prefix - i * 8));
  return b & ((0xff << (8 - bits)) & 0xff);
});
function cidrContains(c: { family: 4 | 6; bytes: number[]; prefix: number }, ip: { family: number; bytes: number[] }, prefix = c.prefix): boolean {
  if (ip.family !== c.family || prefix < c.prefix) return false;
  const a = masked(c.bytes, c.prefix), b = masked(ip.bytes, c.prefix);
  return a.every((x, i) => x === b[i]);
}

const IP_FUNCS: CelFunc[] = [
  celFunc('isIP', [STRING], BOOL, (s: string) => parseIp(s) !== undefined),
  celFunc('ip', [STRING], DYN, (s: string) => ipOf(s) as never),
  celFunc('ip.isCanonical', [STRING], BOOL, (s: string) => {
    const ip = parseIp(s);
    return ip ? ipString(ip.family, ip.bytes) === s : fail(`IP Address ${JSON.stringify(s)} parse error during conversion from string`);
  }),
  celMethod('family', DYN, [], INT, function (this: CelValue) { return fieldsOf(this, 'net.IP').get('family') as bigint; }),
  celMethod('isUnspecified', DYN, [], BOOL, function (this: CelValue) { return ipParts(this).bytes.every((b) => b === 0); }),
  celMethod('isLoopback', DYN, [], BOOL, function (this: CelValue) {
    const ip = ipParts(this);
    return ip.family === 4 ? ip.bytes[0] === 127 : ip.bytes.slice(0, 15).every((b) => b === 0) && ip.bytes[15] === 1;
  }),
  celMethod('isLinkLocalMulticast', DYN, [], BOOL, function (this: CelValue) {
    const ip = ipParts(this);
    return ip.family === 4 ? ip.bytes[0] === 224 && ip.bytes[1] === 0 && ip.bytes[2] === 0 : ip.bytes[0] === 0xff && (ip.bytes[1]! & 0x0f) === 0x02;
  }),
  celMethod('isLinkLocalUnicast', DYN, [], BOOL, function (this: CelValue) {
    const ip = ipParts(this);
    return ip.family === 4 ? ip.bytes[0] === 169 && ip.bytes[1] === 254 : ip.bytes[0] === 0xfe && (ip.bytes[1]! & 0xc0) === 0x80;
  }),
  celMethod('isGlobalUnicast', DYN, [], BOOL, function (this: CelValue) {
    const ip = ipParts(this);
    if (ip.bytes.every((b) => b === 0)) return false;
    if (ip.family === 4) {
      const [a, b] = ip.bytes as [number, number];
      return !(a === 127 || (a === 169 && b === 254) || a >= 224);
    }
    const loopback = ip.bytes.slice(0, 15).every((x) => x === 0) && ip.bytes[15] === 1;
    return !(loopback || ip.bytes[0] === 0xff || (ip.bytes[0] === 0xfe && (ip.bytes[1]! & 0xc0) === 0x80));
  }),
  celFunc('isCIDR', [STRING], BOOL, (s: string) => parseCidr(s) !== undefined),
  celFunc('cidr', [STRING], DYN, (s: string) => cidrOf(s) as never),
  celMethod('containsIP', DYN, [DYN], BOOL, function (this: CelValue, other: CelValue) {
    const ip = typeof other === 'string' ? parseIp(other) ?? fail(`IP Address ${JSON.stringify(other)} parse error`) : ipParts(other);
    return cidrContains(cidrParts(this), ip);
  }),
  celMethod('containsCIDR', DYN, [DYN], BOOL, function (this: CelValue, other: CelValue) {
    const c = typeof other === 'string' ? parseCidr(other) ?? fail(`network address ${JSON.stringify(other)} parse error`) : cidrParts(other);
    return cidrContains(cidrParts(this), c, c.prefix);
  }),
  celMethod('ip', DYN, [], DYN, function (this: CelValue) { const c = cidrParts(this); return ipValue(c.family, c.bytes) as never; }),
  celMethod('masked', DYN, [], DYN, function (this: CelValue) { const c = cidrParts(this); return cidrValue({ ...c, bytes: masked(c.bytes, c.prefix) }) as never; }),
  celMethod('prefixLength', DYN, [], INT, function (this: CelValue) { return BigInt(cidrParts(this).prefix); }),
];

// ------------------------------------------------------------------------------------------------ URLs

/** Go's url.ParseRequestURI, as far as the library relies on it: an absolute URL, or an absolute path. */
function parseRequestUri(s: string): URL | undefined {
  if (s === '' || /[\s\x00-\x1f\x7f]/.test(s)) return undefined;
  if (s.startsWith('/')) return new URL(s, 'http://path-only.invalid');
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:/.test(s)) return undefined;
  try { return new URL(s); } catch { return undefined; }
}
const urlValue = (s: string) => (parseRequestUri(s) ? tagged('net.URL', { url: s }) : fail(`URL parse error during conversion from string: ${s}`));
const urlParts = (v: unknown) => {
  const s = String(fieldsOf(v, 'net.URL').get('url'));
  const u = parseRequestUri(s)!;
  const pathOnly = s.startsWith('/');
  const authority = pathOnly ? '' : (s.match(/^[A-Za-z][A-Za-z0-9+.-]*:\/\/([^/?#]*)/)?.[1] ?? '').replace(/^.*@/, '');
  return { s, u, pathOnly, authority };
};

const URL_FUNCS: CelFunc[] = [
  celFunc('isURL', [STRING], BOOL, (s: string) => parseRequestUri(s) !== undefined),
  celFunc('url', [STRING], DYN, (s: string) => urlValue(s) as never),
  celMethod('getScheme', DYN, [], STRING, function (this: CelValue) { const p = urlParts(this); return p.pathOnly ? '' : p.u.protocol.replace(/:$/, ''); }),
  celMethod('getHost', DYN, [], STRING, function (this: CelValue) { return urlParts(this).authority; }),
  celMethod('getHostname', DYN, [], STRING, function (this: CelValue) {
    const a = urlParts(this).authority;
    const bracket = a.match(/^\[([^\]]*)\]/);
    return bracket ? bracket[1]! : a.replace(/:\d*$/, '');
  }),
  celMethod('getPort', DYN, [], STRING, function (this: CelValue) { return urlParts(this).authority.match(/:(\d*)$/)?.[1] ?? ''; }),
  celMethod('getEscapedPath', DYN, [], STRING, function (this: CelValue) {
    const p = urlParts(this);
    return p.s.replace(/^[A-Za-z][A-Za-z0-9+.-]*:(\/\/[^/?#]*)?/, '').replace(/[?#].*$/, '');
  }),
  celMethod('getQuery', DYN, [], DYN, function (this: CelValue) {
    const query = new Map<string, string[]>();
    for (const [k, v] of urlParts(this).u.searchParams) query.set(k, [...(query.get(k) ?? []), v]);
    return query as never;
  }),
];

// ------------------------------------------------------------------------------------------------ formats

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const QUALIFIED_NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const LABEL_MSG = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const SUBDOMAIN_MSG = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const DNS1035_MSG = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";

function checkLength(s: string, max: number): string[] { return s.length > max ? [`must be no more than ${max} characters`] : []; }
function dns1123Label(s: string): string[] { return [...checkLength(s, 63), ...(DNS1123_LABEL.test(s) ? [] : [LABEL_MSG])]; }
function dns1123Subdomain(s: string): string[] { return [...checkLength(s, 253), ...(DNS1123_SUBDOMAIN.test(s) ? [] : [SUBDOMAIN_MSG])]; }
function dns1035Label(s: string): string[] { return [...checkLength(s, 63), ...(DNS1035_LABEL.test(s) ? [] : [DNS1035_MSG])]; }
const asPrefix = (check: (s: string) => string[]) => (s: string) => check(s.endsWith('-') ? `${s}a` : s);
function qualifiedName(s: string): string[] {
  const parts = s.split('/');
  const name = parts[parts.length - 1]!;
  const errs: string[] = [];
  if (parts.length > 2) return ["a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character with an optional DNS subdomain prefix and '/'"];
  if (parts.length === 2) {
    if (parts[0] === '') errs.push('prefix part must be non-empty');
    else errs.push(...dns1123Subdomain(parts[0]!).map((m) => `prefix part ${m}`));
  }
  if (name === '') errs.push('name part must be non-empty');
  else if (name.length > 63) errs.push('name part must be no more than 63 characters');
  if (name !== '' && !QUALIFIED_NAME_PART.test(name)) errs.push("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character");
  return errs;
}
function labelValue(s: string): string[] {
  return [...checkLength(s, 63), ...(LABEL_VALUE.test(s) ? [] : ["a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"])];
}

/** The named formats of the library's `format` values, each a check returning the problems it finds. */
export const FORMATS: Record<string, (s: string) => string[]> = {
  dns1123Label, dns1123Subdomain, dns1035Label, qualifiedName, labelValue,
  dns1123LabelPrefix: asPrefix(dns1123Label),
  dns1123SubdomainPrefix: asPrefix(dns1123Subdomain),
  dns1035LabelPrefix: asPrefix(dns1035Label),
  uri: (s) => (parseRequestUri(s) ? [] : ['invalid URI']),
  uuid: (s) => (UUID.test(s) ? [] : ['does not match the UUID format']),
  byte: (s) => (/^[A-Za-z0-9+/]*={0,2}$/.test(s) && s.length % 4 === 0 ? [] : ['invalid base64']),
  date: (s) => (/^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(Date.parse(s)) ? [] : ['invalid date']),
  datetime: (s) => (/^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(s) && !Number.isNaN(Date.parse(s)) ? [] : ['invalid datetime']),
};

const FORMAT_FUNCS: CelFunc[] = [
  ...Object.keys(FORMATS).map((name) => celFunc(`format.${name}`, [], DYN, () => tagged('kubernetes.NamedFormat', { name }) as never)),
  celFunc('format.named', [STRING], DYN, (name: string) => (FORMATS[name] ? some(tagged('kubernetes.NamedFormat', { name })) : none()) as never),
  celMethod('validate', DYN, [STRING], DYN, function (this: CelValue, s: string) {
    const problems = FORMATS[String(fieldsOf(this, 'kubernetes.NamedFormat').get('name'))]!(s);
    return (problems.length ? some(problems) : none()) as never;
  }),
];

// ------------------------------------------------------------------------------------------------ lists, strings, regex

function compare(a: CelValue, b: CelValue): number {
  if (typeof a === typeof b && (typeof a === 'bigint' || typeof a === 'number' || typeof a === 'string' || typeof a === 'boolean')) {
    const x = a as number, y = b as number;
    return x < y ? -1 : x > y ? 1 : 0;
  }
  return fail('no such overload: the list\'s elements are not comparable');
}
const items = (l: CelList) => [...l];
function equalValues(a: CelValue, b: CelValue): boolean {
  if (a === b) return true;
  if (isCelList(a) && isCelList(b)) return a.size === b.size && items(a).every((x, i) => equalValues(x, b.get(i)!));
  if (isCelMap(a) && isCelMap(b)) return a.size === b.size && [...a.keys()].every((k) => b.has(k) && equalValues(a.get(k)!, b.get(k)!));
  return false;
}
const LIST = listType(DYN);

const LIST_FUNCS: CelFunc[] = [
  celMethod('isSorted', LIST, [], BOOL, function (this: CelList) { const l = items(this); return l.every((v, i) => i === 0 || compare(l[i - 1]!, v) <= 0); }),
  celMethod('sum', LIST, [], DYN, function (this: CelList) {
    const l = items(this);
    if (l.length === 0) return 0n as never;
    return l.reduce((acc, v) => {
      if (typeof acc === 'bigint' && typeof v === 'bigint') return acc + v;
      if (typeof acc === 'number' && typeof v === 'number') return acc + v;
      return fail('no such overload: sum() of mixed or non-numeric elements');
    }) as never;
  }),
  celMethod('min', LIST, [], DYN, function (this: CelList) {
    const l = items(this);
    return (l.length ? l.reduce((a, b) => (compare(b, a) < 0 ? b : a)) : fail('min called on empty list')) as never;
  }),
  celMethod('max', LIST, [], DYN, function (this: CelList) {
    const l = items(this);
    return (l.length ? l.reduce((a, b) => (compare(b, a) > 0 ? b : a)) : fail('max called on empty list')) as never;
  }),
  celMethod('indexOf', LIST, [DYN], INT, function (this: CelList, x: CelValue) { return BigInt(items(this).findIndex((v) => equalValues(v, x))); }),
  celMethod('lastIndexOf', LIST, [DYN], INT, function (this: CelList, x: CelValue) {
    const l = items(this);
    for (let i = l.length - 1; i >= 0; i--) if (equalValues(l[i]!, x)) return BigInt(i);
    return -1n;
  }),
];

/**
 * `matches` uses RE2 (@bufbuild/re2, what @bufbuild/cel itself uses) with each pattern compiled once: the library's
 * own `matches` compiles the pattern on every call, which made a MachineOSConfig's rules cost 80 µs.
 */
const re2s = new Map<string, RE2JS>();
export const CACHED_RE2 = {
  compile(pattern: string): { test(text: string): boolean } {
    let re = re2s.get(pattern);
    if (!re) {
      re = RE2JS.compile(pattern);
      if (re2s.size > 10_000) re2s.clear();
      re2s.set(pattern, re);
    }
    return re;
  },
};

/** `find` and `findAll` need match positions, which RE2JS does not give: JavaScript's RegExp, once per pattern. */
const regexes = new Map<string, RegExp>();
function regex(pattern: string, flags = ''): RegExp {
  const key = `${flags}/${pattern}`;
  let re = regexes.get(key);
  if (!re) {
    try { re = new RegExp(pattern, `u${flags}`); } catch (e) { return fail(`invalid regex ${JSON.stringify(pattern)}: ${(e as Error).message}`); }
    regexes.set(key, re);
  }
  return re;
}

const REGEX_FUNCS: CelFunc[] = [
  celFunc('matches', [STRING, STRING], BOOL, (s: string, p: string) => CACHED_RE2.compile(p).test(s)),
  celMethod('find', STRING, [STRING], STRING, function (this: string, p: string) { return regex(p).exec(this)?.[0] ?? ''; }),
  celMethod('findAll', STRING, [STRING], listType(STRING), function (this: string, p: string) { return [...this.matchAll(regex(p, 'g'))].map((m) => m[0]); }),
  celMethod('findAll', STRING, [STRING, INT], listType(STRING), function (this: string, p: string, n: bigint) {
    const all = [...this.matchAll(regex(p, 'g'))].map((m) => m[0]);
    return n < 0n ? all : all.slice(0, Number(n));
  }),
];

// ------------------------------------------------------------------------------------------------ quantity, semver, sets

const NANO = 1_000_000_000n;
const INT64_MAX = 2n ** 63n - 1n;
const BINARY: Record<string, bigint> = { Ki: 2n ** 10n, Mi: 2n ** 20n, Gi: 2n ** 30n, Ti: 2n ** 40n, Pi: 2n ** 50n, Ei: 2n ** 60n };
const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

/** A Kubernetes quantity as a count of nano-units (rounded up, as the API rounds below its nano precision). */
function parseQuantity(text: string): bigint | undefined {
  const m = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(?:(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])|[eE]([+-]?\d+))?$/.exec(text);
  if (!m) return undefined;
  const [, signText, digits, suffix, exponentText] = m as unknown as [string, string, string, string | undefined, string | undefined];
  const [whole, fraction = ''] = digits.split('.');
  let numerator = BigInt(`${whole || '0'}${fraction}`);
  let exponent = -fraction.length + (exponentText !== undefined ? Number(exponentText) : DECIMAL[suffix ?? ''] ?? 0) + 9;
  if (suffix && BINARY[suffix]) numerator *= BINARY[suffix]!;
  if (Math.abs(exponent) > 400) return undefined;
  let nanos: bigint;
  if (exponent >= 0) nanos = numerator * 10n ** BigInt(exponent);
  else {
    const divisor = 10n ** BigInt(-exponent);
    nanos = numerator / divisor + (numerator % divisor === 0n ? 0n : 1n);
  }
  return signText === '-' ? -nanos : nanos;
}
const quantityValue = (nanos: bigint) => tagged('kubernetes.Quantity', { nanos });
const nanosOf = (v: unknown): bigint => {
  if (typeof v === 'bigint') return v * NANO;
  return fieldsOf(v, 'kubernetes.Quantity').get('nanos') as bigint;
};

/** Semantic versions as the library reads them: MAJOR.MINOR.PATCH[-pre][+build], leading zeros refused. */
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;
function normalizeSemver(s: string): string {
  const stripped = s.replace(/^v/, '');
  const m = /^(\d+)(?:\.(\d+))?(?:\.(\d+))?(.*)$/.exec(stripped);
  if (!m) return s;
  const num = (x: string | undefined) => String(Number(x ?? '0'));
  return `${num(m[1])}.${num(m[2])}.${num(m[3])}${m[4]}`;
}
function semverParts(v: unknown): { nums: bigint[]; pre: string[] } {
  const m = SEMVER.exec(String(fieldsOf(v, 'kubernetes.Semver').get('version')))!;
  return { nums: [m[1], m[2], m[3]].map((x) => BigInt(x!)), pre: m[4] ? m[4].split('.') : [] };
}
function compareSemver(a: unknown, b: unknown): number {
  const x = semverParts(a), y = semverParts(b);
  for (let i = 0; i < 3; i++) if (x.nums[i] !== y.nums[i]) return x.nums[i]! < y.nums[i]! ? -1 : 1;
  if (!x.pre.length || !y.pre.length) return x.pre.length === y.pre.length ? 0 : x.pre.length ? -1 : 1;
  for (let i = 0; i < Math.min(x.pre.length, y.pre.length); i++) {
    const p = x.pre[i]!, q = y.pre[i]!;
    if (p === q) continue;
    const pn = /^\d+$/.test(p), qn = /^\d+$/.test(q);
    if (pn && qn) return BigInt(p) < BigInt(q) ? -1 : 1;
    if (pn !== qn) return pn ? -1 : 1;
    return p < q ? -1 : 1;
  }
  return Math.sign(x.pre.length - y.pre.length);
}

/** compareTo, isGreaterThan and isLessThan are shared by quantities and semantic versions. */
function compareTagged(a: unknown, b: unknown): number {
  if (fieldsOfAny(a) === 'kubernetes.Semver') return compareSemver(a, b);
  const x = nanosOf(a), y = nanosOf(b);
  return x < y ? -1 : x > y ? 1 : 0;
}
function fieldsOfAny(v: unknown): unknown {
  return (v instanceof Map || isCelMap(v)) ? (v as ReadonlyMap<unknown, unknown>).get(TYPE) : undefined;
}

const QUANTITY_SEMVER_SETS_FUNCS: CelFunc[] = [
  celFunc('isQuantity', [STRING], BOOL, (s: string) => parseQuantity(s) !== undefined),
  celFunc('quantity', [STRING], DYN, (s: string) => {
    const nanos = parseQuantity(s);
    return (nanos === undefined ? fail(`quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$': ${s}`) : quantityValue(nanos)) as never;
  }),
  celMethod('sign', DYN, [], INT, function (this: CelValue) { const n = nanosOf(this); return n < 0n ? -1n : n > 0n ? 1n : 0n; }),
  celMethod('isInteger', DYN, [], BOOL, function (this: CelValue) { const n = nanosOf(this); return n % NANO === 0n && n / NANO <= INT64_MAX && n / NANO >= -INT64_MAX - 1n; }),
  celMethod('asInteger', DYN, [], INT, function (this: CelValue) {
    const n = nanosOf(this);
    if (n % NANO !== 0n || n / NANO > INT64_MAX || n / NANO < -INT64_MAX - 1n) return fail('cannot convert value to integer');
    return n / NANO;
  }),
  celMethod('asApproximateFloat', DYN, [], CelScalar.DOUBLE, function (this: CelValue) { return Number(nanosOf(this)) / 1e9; }),
  celMethod('add', DYN, [DYN], DYN, function (this: CelValue, other: CelValue) { return quantityValue(nanosOf(this) + nanosOf(other)) as never; }),
  celMethod('sub', DYN, [DYN], DYN, function (this: CelValue, other: CelValue) { return quantityValue(nanosOf(this) - nanosOf(other)) as never; }),
  celMethod('compareTo', DYN, [DYN], INT, function (this: CelValue, other: CelValue) { return BigInt(compareTagged(this, other)); }),
  celMethod('isGreaterThan', DYN, [DYN], BOOL, function (this: CelValue, other: CelValue) { return compareTagged(this, other) > 0; }),
  celMethod('isLessThan', DYN, [DYN], BOOL, function (this: CelValue, other: CelValue) { return compareTagged(this, other) < 0; }),
  celFunc('isSemver', [STRING], BOOL, (s: string) => SEMVER.test(s)),
  celFunc('isSemver', [STRING, BOOL], BOOL, (s: string, normalize: boolean) => SEMVER.test(normalize ? normalizeSemver(s) : s)),
  celFunc('semver', [STRING], DYN, (s: string) => (SEMVER.test(s) ? tagged('kubernetes.Semver', { version: s }) : fail(`could not parse semver: ${s}`)) as never),
  celFunc('semver', [STRING, BOOL], DYN, (s: string, normalize: boolean) => {
    const v = normalize ? normalizeSemver(s) : s;
    return (SEMVER.test(v) ? tagged('kubernetes.Semver', { version: v }) : fail(`could not parse semver: ${s}`)) as never;
  }),
  celMethod('major', DYN, [], INT, function (this: CelValue) { return semverParts(this).nums[0]!; }),
  celMethod('minor', DYN, [], INT, function (this: CelValue) { return semverParts(this).nums[1]!; }),
  celMethod('patch', DYN, [], INT, function (this: CelValue) { return semverParts(this).nums[2]!; }),
  celFunc('sets.contains', [LIST, LIST], BOOL, (a: CelList, b: CelList) => items(b).every((x) => items(a).some((y) => equalValues(x, y)))),
  celFunc('sets.equivalent', [LIST, LIST], BOOL, (a: CelList, b: CelList) =>
    items(b).every((x) => items(a).some((y) => equalValues(x, y))) && items(a).every((x) => items(b).some((y) => equalValues(x, y)))),
  celFunc('sets.intersects', [LIST, LIST], BOOL, (a: CelList, b: CelList) => items(b).some((x) => items(a).some((y) => equalValues(x, y)))),
];

/** Every Kubernetes library function this mock provides, beyond CEL's standard ones and the strings extension. */
export const KUBERNETES_FUNCS: CelFunc[] = [...IP_FUNCS, ...URL_FUNCS, ...FORMAT_FUNCS, ...LIST_FUNCS, ...REGEX_FUNCS, ...QUANTITY_SEMVER_SETS_FUNCS];
