import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { lastLine, ocpE2e, ROOT } from '../support/cli.js';
import { outputTail } from '../support/cli-child.js';
import { KILL_MATRIX, rowSwitches, specsWithoutRow, type KillRow } from './support/kill-matrix.js';
import { specFiles } from './support/spec-files.js';

describe('kill matrix rows: every spec has one (no cluster)', () => {
  it('every spec file in specs/ has at least one row', () => {
    expect(specsWithoutRow(specFiles()), 'spec files without a kill-matrix row in test/bin/support/kill-matrix.ts').to.deep.equal([]);
  });

  it('the check names a spec file that has no row (a fixture list with one more spec)', () => {
    const fixture = [...specFiles(), '07-a-spec-nobody-can-break.spec.ts'];
    expect(specsWithoutRow(fixture)).to.deep.equal(['07-a-spec-nobody-can-break.spec.ts']);
    const withoutSpec3: KillRow[] = KILL_MATRIX.filter((row) => row.file !== '03-upgrade-without-override.spec.ts');
    expect(specsWithoutRow(specFiles(), withoutSpec3)).to.deep.equal(['03-upgrade-without-override.spec.ts']);
  });

  it('each row names a spec file of specs/ whose source carries the case id its --grep selects', () => {
    for (const row of KILL_MATRIX) {
      expect(specFiles(), `${row.spec}: file`).to.include(row.file);
      const source = readFileSync(join(ROOT, 'specs', row.file), 'utf8');
      expect(source, `${row.file} for --grep ${row.grep}`).to.match(new RegExp(`'${row.grep}'`));
    }
  });

  it('specs/README.md shows every row of the matrix', () => {
    const readme = readFileSync(join(ROOT, 'specs', 'README.md'), 'utf8');
    for (const row of KILL_MATRIX) {
      const breaker = rowSwitches(row).join(' ');
      expect(readme, `row for ${row.spec} / ${breaker}`).to.match(new RegExp(`\\|[^\\n]*${row.grep}[^\\n]*\\|[^\\n]*${breaker.replace(/[.-]/g, '\\$&')}`));
    }
  });
});

// On the clock that skips idle cluster time (the default): a spec must catch what it guards at the new speed too
// (issue 25), where every wait's budget is spent on the cluster's own clock. The report's bug is caught on the fixed
// clock as well (the last row), and test/bin/reference.test.ts passes spec 1 on it, so both clocks are judged.
describe('kill matrix: every spec fails when the reference breaks what it guards (--clock skip)', function () {
  this.timeout(300_000);

  for (const row of KILL_MATRIX) {
    const breaker = rowSwitches(row);
    it(`${row.spec} fails with ${breaker.join(' ')}`, async () => {
      const r = await ocpE2e(['run', '--clock', 'skip', '--grep', row.grep, ...breaker], { timeoutMs: 280_000 });
      expect(r.exitCode, r.output).to.equal(1);
      expect(lastLine(r.output)).to.match(/^0 passed, [1-9]\d* failed, 0 skipped$/);
      // the run's own words when the failure is another (chai cut the output short: row 12 once failed in a full
      // run without its message, and what it said instead was lost)
      for (const pattern of row.expect) expect(pattern.test(r.output), `no ${pattern} in the run's output:\n${outputTail(r.output)}`).to.equal(true);
      // a failure on a release with MachineConfigNodes (4.19+; every row of today's profiles fails after the upgrade or
      // on 4.19+) keeps them with its artefacts; the 4.12 and 4.13 rows have none
      const withNodes = /^4\.(1[89]|2\d)-/.test(row.profile ?? '');
      const artefacts = readdirSync(join(r.reportsDir, 'artifacts'), { recursive: true }).map(String);
      expect(artefacts.some((f) => f.endsWith('/machineconfignodes.yaml')), `machineconfignodes.yaml among ${artefacts.join(', ')}`).to.equal(withNodes);
    });
  }

  const report = KILL_MATRIX.find((row) => row.profile === '4.12-nightly-2022-09-08' && !row.fault)!;
  it(`${report.spec} fails with --profile ${report.profile} on the fixed clock too`, async () => {
    const r = await ocpE2e(['run', '--clock', 'fixed', '--grep', report.grep, '--profile', report.profile!], { timeoutMs: 280_000 });
    expect(r.exitCode, r.output).to.equal(1);
    expect(lastLine(r.output)).to.match(/^0 passed, 1 failed, 0 skipped$/);
    for (const pattern of report.expect) expect(pattern.test(r.output), `no ${pattern} in the run's output:\n${outputTail(r.output)}`).to.equal(true);
  });
});
