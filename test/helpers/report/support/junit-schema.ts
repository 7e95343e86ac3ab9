/**
 * Checks a JUnit file the way the two CI readers this project targets read it:
 *  - Jenkins: the rules of junit-10.xsd (jenkinsci/xunit-plugin): which elements may nest where, which attributes each
 *    may carry and which it must, the time format;
 *  - Prow's JUnit lens (testgrid metadata/junit): a testcase's message is the failure's `message` attribute and its
 *    text joined by a newline, its status failed when it holds <failure> or <error>.
 * The rules are restated here from the schema's text, not copied; the XML is parsed with fast-xml-parser.
 */
import { XMLParser } from 'fast-xml-parser';

type Node = Record<string, unknown>;

const ELEMENTS: Record<string, { attributes: string[]; required: string[]; children: string[]; text?: boolean }> = {
  testsuites: { attributes: ['name', 'time', 'tests', 'failures', 'errors'], required: [], children: ['testsuite'] },
  testsuite: {
    attributes: ['name', 'tests', 'failures', 'errors', 'group', 'time', 'skipped', 'timestamp', 'hostname', 'id', 'package', 'file', 'log', 'url'],
    required: ['name', 'tests', 'failures', 'errors'],
    children: ['testsuite', 'properties', 'testcase', 'system-out', 'system-err'],
  },
  properties: { attributes: [], required: [], children: ['property'] },
  property: { attributes: ['name', 'value'], required: ['name', 'value'], children: [] },
  testcase: {
    attributes: ['name', 'time', 'classname', 'group'],
    required: ['name'],
    children: ['skipped', 'error', 'failure', 'rerunFailure', 'rerunError', 'flakyFailure', 'flakyError', 'system-out', 'system-err'],
  },
  failure: { attributes: ['type', 'message'], required: [], children: [], text: true },
  error: { attributes: ['type', 'message'], required: [], children: [], text: true },
  skipped: { attributes: ['type', 'message'], required: [], children: [], text: true },
  'system-out': { attributes: [], required: [], children: [], text: true },
  'system-err': { attributes: [], required: [], children: [], text: true },
};

/** junit-10.xsd's SUREFIRE_TIME: digits with optional thousands commas and a fraction. */
const SUREFIRE_TIME = /^(?:(?:[0-9]{0,3},)*[0-9]{3}|[0-9]{0,3})*(?:\.[0-9]*)?$/;

const ordered = new XMLParser({ preserveOrder: true, ignoreAttributes: false, attributeNamePrefix: '', parseTagValue: false, parseAttributeValue: false, trimValues: false });

/** The junit-10.xsd violations of a document (empty when it conforms). */
export function jenkinsSchemaViolations(xml: string): string[] {
  const problems: string[] = [];
  const visit = (name: string, node: Node, path: string) => {
    const rule = ELEMENTS[name];
    if (!rule) return void problems.push(`${path}: element <${name}> is not in the schema`);
    const attrs = (node[':@'] as Record<string, string> | undefined) ?? {};
    for (const a of Object.keys(attrs)) if (!rule.attributes.includes(a)) problems.push(`${path}: attribute ${a} is not allowed on <${name}>`);
    for (const a of rule.required) if (attrs[a] === undefined) problems.push(`${path}: <${name}> needs attribute ${a}`);
    if ((name === 'testsuite' || name === 'testsuites') && attrs.time !== undefined && !SUREFIRE_TIME.test(attrs.time)) problems.push(`${path}: time="${attrs.time}" is not a SUREFIRE_TIME`);
    for (const child of (node[name] as Node[]) ?? []) {
      const childName = Object.keys(child).find((k) => k !== ':@')!;
      if (childName === '#text') {
        if (!rule.text && String(child['#text']).trim()) problems.push(`${path}: <${name}> holds text`);
        continue;
      }
      if (!rule.children.includes(childName)) problems.push(`${path}: <${childName}> may not appear in <${name}>`);
      visit(childName, child, `${path}/${childName}`);
    }
  };
  const roots = (ordered.parse(xml) as Node[]).filter((n) => !('?xml' in n));
  if (roots.length !== 1) problems.push(`expected one root element, found ${roots.length}`);
  for (const root of roots) {
    const name = Object.keys(root).find((k) => k !== ':@')!;
    if (name !== 'testsuites' && name !== 'testsuite') problems.push(`root <${name}> is neither testsuites nor testsuite`);
    visit(name, root, name);
  }
  return problems;
}

export interface ProwResult {
  suite: string;
  name: string;
  classname: string;
  status: 'passed' | 'failed' | 'skipped';
  /** What the lens shows for the test: message attribute and text, joined. */
  message: string;
  output?: string;
}

const plain = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', parseTagValue: false, parseAttributeValue: false, trimValues: false, isArray: (name) => ['testsuite', 'testcase', 'property'].includes(name) });

/** The test results as Prow's lens reads them. */
export function prowResults(xml: string): ProwResult[] {
  const doc = plain.parse(xml) as { testsuites?: { testsuite?: Node[] }; testsuite?: Node[] };
  const suites = doc.testsuites?.testsuite ?? doc.testsuite ?? [];
  const text = (v: unknown): string => (typeof v === 'string' ? v : v && typeof v === 'object' ? String((v as Node)['#text'] ?? '') : '');
  const attr = (v: unknown, a: string): string => (v && typeof v === 'object' ? String((v as Node)[a] ?? '') : '');
  const compose = (...parts: string[]) => parts.filter((p) => p !== '').join('\n');
  const results: ProwResult[] = [];
  for (const suite of suites) {
    for (const tc of (suite.testcase as Node[]) ?? []) {
      const problem = tc.error ?? tc.failure;
      const status = tc.skipped !== undefined ? 'skipped' : problem !== undefined ? 'failed' : 'passed';
      const message = problem !== undefined ? compose(attr(problem, 'message'), text(problem)) : tc.skipped !== undefined ? compose(attr(tc.skipped, 'message'), text(tc.skipped)) : text(tc['system-out']);
      results.push({ suite: String(suite.name), name: String(tc.name), classname: String(tc.classname ?? ''), status, message, output: tc['system-out'] !== undefined ? text(tc['system-out']) : undefined });
    }
  }
  return results;
}

/** The counts a testsuite claims next to the elements it holds. */
export function suiteCounts(xml: string): { claimed: Record<string, number>; found: Record<string, number> }[] {
  const doc = plain.parse(xml) as { testsuites?: { testsuite?: Node[] } };
  return (doc.testsuites?.testsuite ?? []).map((suite) => {
    const cases = (suite.testcase as Node[]) ?? [];
    return {
      claimed: { tests: Number(suite.tests), failures: Number(suite.failures), errors: Number(suite.errors), skipped: Number(suite.skipped) },
      found: { tests: cases.length, failures: cases.filter((c) => c.failure !== undefined).length, errors: cases.filter((c) => c.error !== undefined).length, skipped: cases.filter((c) => c.skipped !== undefined).length },
    };
  });
}
