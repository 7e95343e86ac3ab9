/**
 * The JUnit the suite writes, read as Jenkins and Prow read it: the conformance reporter run on a fixture with a
 * passing, a failing, a skipped test and a broken hook; the file checked against junit-10.xsd's rules and Prow's
 * lens, and for each field the issue names.
 */
import { expect } from 'chai';
import { execa } from 'execa';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderJUnit } from '../../../helpers/report/junit.cjs';
import { jenkinsSchemaViolations, prowResults, suiteCounts } from './support/junit-schema.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

describe('JUnit for CI: Jenkins and Prow read it', function () {
  this.timeout(60_000);
  let xml: string;
  let console: string;

  before(async () => {
    const reports = join(mkdtempSync(join(tmpdir(), 'ocp-e2e-junit-')), 'reports');
    const output = join(reports, 'junit', 'fixture.xml');
    const run = await execa('npx', ['--no-install', 'mocha', '--no-config', '--node-option', 'import=tsx', '--extension', 'ts', '--reporter', './helpers/mocha/suite-reporter.cts', 'test/helpers/mocha/fixtures/junit.fixture.ts'], {
      cwd: ROOT,
      reject: false,
      all: true,
      env: { OCP_E2E_JUNIT_FILE: output, OCP_E2E_REPORTS_DIR: reports, OCP_E2E_TARGET: 'reference', OCP_E2E_RUN_ID: 'r12010900-abcd' },
    });
    console = String(run.all);
    expect(run.exitCode, console).to.equal(2);
    xml = readFileSync(output, 'utf8');
  });

  it('conforms to Jenkins\' junit-10.xsd', () => {
    expect(jenkinsSchemaViolations(xml)).to.deep.equal([]);
  });

  it('the validator rejects what the schema forbids (control)', () => {
    expect(jenkinsSchemaViolations('<testsuites><testsuite name="s" tests="1"><testcase name="t" file="/abs/x.ts"><failure/><properties/></testcase></testsuite></testsuites>')).to.deep.equal([
      'testsuites/testsuite: <testsuite> needs attribute failures',
      'testsuites/testsuite: <testsuite> needs attribute errors',
      'testsuites/testsuite/testcase: attribute file is not allowed on <testcase>',
      'testsuites/testsuite/testcase: <properties> may not appear in <testcase>',
    ]);
  });

  it('puts message and type on <failure>, and only the trimmed stack in its text', () => {
    const failed = /<testcase name="fails quoting the operator"[\s\S]*?<\/testcase>/.exec(xml)![0];
    const failure = /<failure message="([^"]*)" type="([^"]*)">([\s\S]*?)<\/failure>/.exec(failed)!;
    expect(failure[1]).to.equal('[phase upgrade] upgrade failed: osImageURL mismatch for master in rendered-master-0123456789abcdef0123456789abcdef expected: a got: b &amp; &lt;c&gt;');
    expect(failure[2]).to.equal('upgrade-deadlock');
    const stack = failure[3]!.split('\n');
    expect(stack.length).to.be.greaterThan(0);
    for (const line of stack) expect(line).to.match(/^ {4}at .*test\/helpers\/mocha\/fixtures\/junit\.fixture\.ts:\d+:\d+\)?$/);
  });

  it('counts what it holds: a <failure> is a failure, a broken hook an error', () => {
    for (const s of suiteCounts(xml)) expect(s.claimed).to.deep.equal(s.found);
    // One testsuite per spec file; the test after the broken hook never ran, so mocha reports only the hook.
    expect(suiteCounts(xml).map((s) => s.found)).to.deep.equal([{ tests: 5, failures: 1, errors: 1, skipped: 2 }]);
    expect(xml).to.match(/<testsuites name="ocp-e2e conformance" tests="\d+" failures="1" errors="1"/);
  });

  it('names the spec file relative to the project, on the testsuite', () => {
    expect(xml).to.include('file="test/helpers/mocha/fixtures/junit.fixture.ts"');
    expect(xml).not.to.include(ROOT);
  });

  it('keeps each test\'s console lines in its system-out, and the verdict line out of it', () => {
    const results = prowResults(xml);
    const passed = results.find((r) => r.name === 'prints while it passes')!;
    expect(passed.output).to.include('upgrade to 127.0.0.1:5000/ocp/release:4.12.1 requested with merge patch');
    expect(passed.output).to.include('artefacts of the failure: none');
    expect(passed.output).not.to.match(/✔|passing/);
    expect(results.find((r) => r.name === 'fails quoting the operator')!.output).to.equal('    waiting for ClusterVersion\n');
  });

  it('links the artefacts folder', () => {
    expect(xml).to.include('<property name="artifacts" value="../artifacts"/>');
    expect(xml).to.include('<property name="run-id" value="r12010900-abcd"/>');
  });

  it('reads in Prow\'s lens as failed with the message first, then the frames', () => {
    const results = prowResults(xml);
    const failed = results.find((r) => r.name === 'fails quoting the operator')!;
    expect(failed.status).to.equal('failed');
    expect(failed.message.split('\n')[0]).to.equal('[phase upgrade] upgrade failed: osImageURL mismatch for master in rendered-master-0123456789abcdef0123456789abcdef expected: a got: b & <c>');
    expect(failed.message.split('\n').slice(1).every((l) => l.startsWith('    at '))).to.equal(true);
    expect(results.filter((r) => r.status === 'skipped').map((r) => r.name)).to.include('is skipped');
    expect(results.find((r) => r.name.includes('before all'))?.status).to.equal('failed');
    expect(results.find((r) => r.name === 'is skipped with the reason')!.message).to.equal('disruptive spec: pass --allow-disruptive to run it');
  });

  it('escapes what XML cannot hold', () => {
    const text = renderJUnit([{ name: 's', timestamp: 't', time: 1, properties: {}, cases: [{ name: 'a"b', classname: 'c', time: 0, failure: { message: 'x\u001b[31my\u0000\nz', type: 't', stack: '<at>' } }] }]);
    expect(text).to.include('message="xy&#10;z"');
    expect(text).to.include('&lt;at&gt;');
    expect(jenkinsSchemaViolations(text)).to.deep.equal([]);
  });
});
