/** `--known-issues FILE`: the file is checked whole; matching failures become known issues in Allure and JUnit. */
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyKnownIssues } from '../../../bin/run/known-issues/apply.js';
import { parseKnownIssues } from '../../../bin/run/known-issues/file.js';
import { failedCases, markKnownIssues } from '../../../bin/run/results/junit-known.js';

const BUG = 'https://issues.redhat.com/browse/OCPBUGS-1234';
const entry = (fields: Record<string, string>) => `- ${Object.entries(fields).map(([k, v]) => `${k}: ${JSON.stringify(v)}`).join('\n  ')}\n`;
const ok = { case: '54183', message: 'osImageURL mismatch', bug: BUG, expires: '2027-01-31' };

describe('run: the --known-issues file', () => {
  it('reads entries {case, message, bug, expires}', () => {
    const [issue] = parseKnownIssues(entry(ok), 'k.yaml');
    expect(issue).to.include({ entry: 1, case: '54183', bug: BUG, expires: '2027-01-31' });
    expect(issue!.message.test('... osImageURL mismatch for master')).to.equal(true);
    // YAML may read an unquoted date as a date: same entry.
    expect(parseKnownIssues(`- case: "54183"\n  message: x\n  bug: ${BUG}\n  expires: 2027-01-31\n`, 'k.yaml')[0]!.expires).to.equal('2027-01-31');
    expect(parseKnownIssues('', 'k.yaml')).to.deep.equal([]);
  });

  const bad: Array<[string, string, RegExp]> = [
    ['not YAML', '- case: [unclosed\n', /k\.yaml is not YAML/],
    ['not a list', 'case: 54183\n', /expected a list of entries/],
    ['a bad regular expression', entry({ ...ok, message: 'osImageURL (mismatch' }), /entry 1: message is not a regular expression/],
    ['a bad case regular expression', entry({ ...ok, case: '[54183' }), /entry 1: case is not a regular expression/],
    ['a bad date', entry({ ...ok, expires: '2027-02-30' }), /entry 1: expires must be a date YYYY-MM-DD, got "2027-02-30"/],
    ['a date in another format', entry({ ...ok, expires: '31.01.2027' }), /expires must be a date/],
    ['a bug that is not a URL', entry({ ...ok, bug: 'OCPBUGS-1234' }), /entry 1: bug must be the bug's http\(s\) URL/],
    ['a missing field', entry({ case: '54183', message: 'x', bug: BUG }), /entry 1: expires is missing/],
    ['an unknown field', entry({ ...ok, owner: 'me' }), /entry 1: unknown field owner/],
  ];
  for (const [what, text, message] of bad) {
    it(`refuses ${what}, naming the entry`, () => {
      // After a good entry, so that the message must name the right one.
      const file = message.source.includes('entry 1') ? entry(ok) + text : text;
      expect(() => parseKnownIssues(file, 'k.yaml')).to.throw(new RegExp(message.source.replace('entry 1', 'entry 2')));
    });
  }
});

// The shape helpers/report/junit.cts writes (escapes as there, and as mocha's xunit: named and numeric references).
const JUNIT = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="ocp-e2e conformance" tests="2" failures="1" errors="0" time="1.000">
  <testsuite name="01" tests="2" failures="1" errors="0" skipped="0" time="1.000" timestamp="2026-12-01T09:00:00" file="specs/01.spec.ts">
    <testcase name="case 54183 fails" classname="[sig-mco] suite &amp; more" time="1.000">
      <failure message="[phase upgrade] osImageURL mismatch for master" type="assertion">stack</failure>
      <system-out>what the test printed</system-out>
    </testcase>
    <testcase name="other passes" classname="[sig-mco] suite &#x26; more" time="1.000"/>
  </testsuite>
</testsuites>
`;

describe('run: known issues in JUnit', () => {
  it('turns the failure into a skipped case whose message names the bug, and recounts the suite', () => {
    expect(failedCases(JUNIT)).to.deep.equal(['[sig-mco] suite & more case 54183 fails']);
    const { xml, marked } = markKnownIssues(JUNIT, new Map([['[sig-mco] suite & more case 54183 fails', `Known issue ${BUG}: osImageURL mismatch`]]));
    expect(marked).to.equal(1);
    expect(failedCases(xml)).to.deep.equal([]);
    expect(xml).to.match(/<testsuite [^>]*failures="0" errors="0" skipped="1"/);
    expect(xml).to.match(/<testsuites [^>]*failures="0" errors="0"/);
    expect(xml).to.include('<system-out>what the test printed</system-out>');
    expect(xml).to.include(`<skipped message="Known issue ${BUG}: osImageURL mismatch"/>`);
    expect(xml).to.include('name="other passes"');
  });
});

describe('run: known issues applied to a run\'s reports', () => {
  function reportsWith(results: Array<{ name: string; status: string; message?: string; caseId?: string }>): string {
    const dir = mkdtempSync(join(tmpdir(), 'ocp-e2e-known-'));
    mkdirSync(join(dir, 'allure-results'));
    mkdirSync(join(dir, 'junit'));
    for (const [k, r] of results.entries()) {
      writeFileSync(join(dir, 'allure-results', `u${k}-result.json`), JSON.stringify({
        uuid: `u${k}`, name: r.name, status: r.status, testCaseId: r.caseId, statusDetails: r.message ? { message: r.message } : {},
        titlePath: ['ocp-e2e', 'specs', '01.spec.ts', '[sig-mco] suite & more'], stop: 1,
      }));
    }
    writeFileSync(join(dir, 'junit', '01.xml'), JUNIT);
    return dir;
  }
  const today = new Date('2026-12-01T12:00:00Z');

  it('reports a matching failure as a known issue with its link; a failure with another message stays a failure', async () => {
    const dir = reportsWith([
      { name: 'case 54183 fails', status: 'failed', caseId: '54183', message: '[phase upgrade] osImageURL mismatch for master' },
      { name: 'case 54184 fails otherwise', status: 'failed', caseId: '54184', message: 'timed out' },
    ]);
    const issues = parseKnownIssues(entry(ok) + entry({ ...ok, case: '54184' }), 'k.yaml');
    const outcome = await applyKnownIssues(dir, issues, today);
    expect(outcome.known.map((k) => k.title)).to.deep.equal(['[sig-mco] suite & more case 54183 fails']);
    const result = JSON.parse(readFileSync(join(dir, 'allure-results', 'u0-result.json'), 'utf8'));
    expect(result.status).to.equal('skipped');
    expect(result.statusDetails.known).to.equal(true);
    expect(result.statusDetails.message).to.match(/^Known issue https:\/\/issues\.redhat\.com\/browse\/OCPBUGS-1234 .*osImageURL mismatch/);
    expect(result.links).to.deep.include({ type: 'issue', name: BUG, url: BUG });
    expect(JSON.parse(readFileSync(join(dir, 'allure-results', 'u1-result.json'), 'utf8')).status).to.equal('failed');
    expect(failedCases(readFileSync(join(dir, 'junit', '01.xml'), 'utf8'))).to.deep.equal([]);
  });

  it('reports an entry whose case passed, and an expired entry, which masks nothing', async () => {
    const dir = reportsWith([
      { name: 'case 54183 fails', status: 'failed', caseId: '54183', message: 'osImageURL mismatch for master' },
      { name: 'case 54185 passes', status: 'passed', caseId: '54185' },
    ]);
    const issues = parseKnownIssues(entry({ ...ok, expires: '2026-11-30' }) + entry({ ...ok, case: '54185' }), 'k.yaml');
    const outcome = await applyKnownIssues(dir, issues, today);
    expect(outcome.known).to.deep.equal([]);
    expect(outcome.expired).to.deep.equal([{ entry: 1, bug: BUG, expires: '2026-11-30', failures: ['[sig-mco] suite & more case 54183 fails'] }]);
    expect(outcome.notFailing.map((n) => n.entry)).to.deep.equal([2]);
    expect(JSON.parse(readFileSync(join(dir, 'allure-results', 'u0-result.json'), 'utf8')).status).to.equal('failed');
  });

  it('an entry applies through its last day', async () => {
    const dir = reportsWith([{ name: 'case 54183 fails', status: 'failed', caseId: '54183', message: 'osImageURL mismatch' }]);
    const outcome = await applyKnownIssues(dir, parseKnownIssues(entry({ ...ok, expires: '2026-12-01' }), 'k.yaml'), new Date('2026-12-01T23:59:00Z'));
    expect(outcome.known).to.have.length(1);
  });
});
