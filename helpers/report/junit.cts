/**
 * JUnit XML as CI systems read it. Jenkins (junit-10.xsd of its xunit plugin) shows `<failure message>` as "Error
 * Message" and the element's text as "Stacktrace"; Prow's JUnit lens joins the message attribute and the text. So
 * the message goes in the attribute once, the text is the stack trimmed to the project's frames, `type` names the
 * failure's kind, the counts are those of the elements written, and paths are relative so the file means the same on
 * the CI machine that archives it. The testcase element of that schema takes no `file` attribute and no properties: the
 * spec file and the links to the run's artefacts go on the testsuite, which takes both.
 *
 * CommonJS on purpose: the mocha reporter that writes it is loaded with a synchronous require().
 */

export interface JUnitFailure {
  message: string;
  /** The failure's kind (helpers/report/failure-kinds), or the error's class name. */
  type: string;
  /** The trimmed stack. */
  stack: string;
}

export interface JUnitCase {
  name: string;
  classname: string;
  /** Seconds. */
  time: number;
  /** A verdict on the product (assertion, wait that ended without the state). */
  failure?: JUnitFailure;
  /** The test itself could not run (a hook or set-up broke). */
  error?: JUnitFailure;
  skipped?: string;
  /** The console lines the spec printed while this test ran. */
  systemOut?: string;
}

export interface JUnitSuite {
  name: string;
  /** The spec file, relative to the project root. */
  file?: string;
  timestamp: string;
  /** Seconds. */
  time: number;
  hostname?: string;
  properties: Record<string, string>;
  cases: JUnitCase[];
  /** Console lines outside any test (hooks before and after). */
  systemOut?: string;
}

/** Characters XML 1.0 cannot hold, and terminal colour codes, which mean nothing in a report. */
function clean(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, '').replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '');
}

export function escapeText(text: string): string {
  return clean(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function escapeAttribute(text: string): string {
  return escapeText(text).replace(/"/g, '&quot;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;').replace(/\t/g, '&#9;');
}

const seconds = (s: number) => (Number.isFinite(s) && s > 0 ? s : 0).toFixed(3);

function properties(values: Record<string, string> | undefined, indent: string): string[] {
  const entries = Object.entries(values ?? {});
  if (!entries.length) return [];
  return [`${indent}<properties>`, ...entries.map(([k, v]) => `${indent}  <property name="${escapeAttribute(k)}" value="${escapeAttribute(v)}"/>`), `${indent}</properties>`];
}

function problem(tag: 'failure' | 'error', p: JUnitFailure): string {
  return `      <${tag} message="${escapeAttribute(p.message)}" type="${escapeAttribute(p.type)}">${escapeText(p.stack)}</${tag}>`;
}

export function counts(suite: Pick<JUnitSuite, 'cases'>): { tests: number; failures: number; errors: number; skipped: number } {
  return {
    tests: suite.cases.length,
    failures: suite.cases.filter((c) => c.failure).length,
    errors: suite.cases.filter((c) => c.error).length,
    skipped: suite.cases.filter((c) => c.skipped !== undefined).length,
  };
}

export function renderJUnit(suites: JUnitSuite[], name = 'ocp-e2e conformance'): string {
  const total = suites.map(counts).reduce((a, b) => ({ tests: a.tests + b.tests, failures: a.failures + b.failures, errors: a.errors + b.errors, skipped: a.skipped + b.skipped }), { tests: 0, failures: 0, errors: 0, skipped: 0 });
  const time = suites.reduce((t, s) => t + s.time, 0);
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>', `<testsuites name="${escapeAttribute(name)}" tests="${total.tests}" failures="${total.failures}" errors="${total.errors}" time="${seconds(time)}">`];
  for (const suite of suites) {
    const c = counts(suite);
    const attrs = [`name="${escapeAttribute(suite.name)}"`, `tests="${c.tests}"`, `failures="${c.failures}"`, `errors="${c.errors}"`, `skipped="${c.skipped}"`, `time="${seconds(suite.time)}"`, `timestamp="${escapeAttribute(suite.timestamp)}"`];
    if (suite.hostname) attrs.push(`hostname="${escapeAttribute(suite.hostname)}"`);
    if (suite.file) attrs.push(`file="${escapeAttribute(suite.file)}"`);
    lines.push(`  <testsuite ${attrs.join(' ')}>`);
    lines.push(...properties(suite.properties, '    '));
    for (const tc of suite.cases) {
      const open = `    <testcase name="${escapeAttribute(tc.name)}" classname="${escapeAttribute(tc.classname)}" time="${seconds(tc.time)}"`;
      const body: string[] = [];
      if (tc.failure) body.push(problem('failure', tc.failure));
      if (tc.error) body.push(problem('error', tc.error));
      if (tc.skipped !== undefined) body.push(tc.skipped ? `      <skipped message="${escapeAttribute(tc.skipped)}"/>` : '      <skipped/>');
      if (tc.systemOut) body.push(`      <system-out>${escapeText(tc.systemOut)}</system-out>`);
      lines.push(body.length ? `${open}>\n${body.join('\n')}\n    </testcase>` : `${open}/>`);
    }
    if (suite.systemOut) lines.push(`    <system-out>${escapeText(suite.systemOut)}</system-out>`);
    lines.push('  </testsuite>');
  }
  lines.push('</testsuites>', '');
  return lines.join('\n');
}
