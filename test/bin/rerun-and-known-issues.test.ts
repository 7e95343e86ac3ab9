/**
 * `ocp-e2e run --rerun-failed` and `--known-issues`, end to end on the reference: spec 3 is broken with the
 * keep-old-os-on-upgrade fault (spec 4 passes); a re-run runs only spec 3; a known-issues entry for its failure
 * turns it into a known issue with its link; expired and no-longer-failing entries are reported; bad files exit 2.
 */
import { expect } from 'chai';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lastLine, ocpE2e } from '../support/cli.js';
import { TIMESTAMP } from '../../bin/run/timestamps.js';

const BUG = 'https://issues.redhat.com/browse/OCPBUGS-0003';
const OTHER_BUG = 'https://issues.redhat.com/browse/OCPBUGS-0004';

function knownIssuesFile(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'ocp-e2e-known-')), 'known-issues.yaml');
  writeFileSync(path, text);
  return path;
}

describe('ocp-e2e run --rerun-failed and --known-issues', function () {
  this.timeout(300_000);
  let broken: Awaited<ReturnType<typeof ocpE2e>>;

  before(async () => {
    // An expired entry for the failure (masks nothing) and a live one for spec 4, which passes.
    const file = knownIssuesFile([
      `- case: E2E-003\n  message: none of the OS images\n  bug: ${BUG}\n  expires: 2020-01-31`,
      `- case: E2E-004\n  message: .*\n  bug: ${OTHER_BUG}\n  expires: 2999-12-31`,
    ].join('\n'));
    broken = await ocpE2e(['run', '--grep', 'E2E-00[34]', '--fault', 'keep-old-os-on-upgrade', '--known-issues', file], { timeoutMs: 280_000 });
  });

  it('without a live entry the failure stays a failure; expired and no-longer-failing entries are reported', () => {
    expect(broken.exitCode, broken.output).to.equal(1);
    expect(lastLine(broken.output)).to.equal('1 passed, 1 failed, 0 skipped');
    expect(broken.output).to.include(`known-issues entry 1 (${BUG}) expired on 2020-01-31: it masks nothing; 1 failure(s) it matched count as failures`);
    expect(broken.output).to.include(`known-issues entry 2 (${OTHER_BUG}): case E2E-004 ran and did not fail`);
  });

  it('--rerun-failed runs only the test that failed, and it passes once the cluster is fixed', async () => {
    const r = await ocpE2e(['run', '--rerun-failed', broken.reportsDir], { timeoutMs: 280_000 });
    expect(r.exitCode, r.output).to.equal(0);
    expect(lastLine(r.output)).to.equal('1 passed, 0 failed, 0 skipped');
    expect(r.output).to.match(new RegExp(`--rerun-failed: 1 failed test\\(s\\) in 1 spec file\\(s\\):\\n${TIMESTAMP}\\s+.*E2E-003`));
    expect(r.output).to.not.include('04-early-named-override');
    expect(readdirSync(join(r.reportsDir, 'junit'))).to.deep.equal(['03-upgrade-without-override.xml']);
  });

  it('a live entry reports the failure as a known issue with its link, in the console, Allure and JUnit', async () => {
    const file = knownIssuesFile(`- case: E2E-003\n  message: "gives master pools .* none of the OS images"\n  bug: ${BUG}\n  expires: 2999-12-31\n`);
    const r = await ocpE2e(['run', '--grep', 'E2E-003', '--fault', 'keep-old-os-on-upgrade', '--known-issues', file], { timeoutMs: 280_000 });
    expect(r.exitCode, r.output).to.equal(0);
    expect(lastLine(r.output)).to.equal('0 passed, 0 failed, 1 skipped');
    expect(r.output).to.match(new RegExp(`known issue \\(not counted as a failure\\): .*E2E-003.*: ${BUG}`));
    const junit = readFileSync(join(r.reportsDir, 'junit', '03-upgrade-without-override.xml'), 'utf8');
    expect(junit).to.match(new RegExp(`<skipped message="Known issue ${BUG}`));
    expect(junit).to.not.match(/<failure/);
    const results = readdirSync(join(r.reportsDir, 'allure-results')).filter((f) => f.endsWith('-result.json'))
      .map((f) => JSON.parse(readFileSync(join(r.reportsDir, 'allure-results', f), 'utf8')));
    expect(results.map((x) => x.status)).to.deep.equal(['skipped']);
    expect(results[0].links).to.deep.include({ type: 'issue', name: BUG, url: BUG });
  });

  it('a bad known-issues file is refused before anything runs (exit 2)', async () => {
    const r = await ocpE2e(['run', '--known-issues', knownIssuesFile(`- case: E2E-003\n  message: "(unclosed"\n  bug: ${BUG}\n  expires: 2999-12-31\n`)]);
    expect(r.exitCode, r.output).to.equal(2);
    expect(r.output).to.match(/entry 1: message is not a regular expression/);
    expect(r.output).to.not.match(/reference cluster .* ready/);
  });
});
