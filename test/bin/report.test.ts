import { expect } from 'chai';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ocpE2e, tempReportsDir } from '../support/cli.js';

describe('ocp-e2e report: the HTML report, offline', function () {
  this.timeout(180_000);

  it('turns the Allure results of a run into an HTML report with the spec and its steps', async () => {
    const run = await ocpE2e(['run', '--grep', 'E2E-004'], { timeoutMs: 150_000 });
    expect(run.exitCode, run.output).to.equal(0);
    const results = join(run.reportsDir, 'allure-results');
    expect(readdirSync(results).some((f) => f.endsWith('-attachment.yaml') || f.includes('-attachment')), 'YAML attachments were written').to.equal(true);
    const r = await ocpE2e(['report', '--reports-dir', run.reportsDir]);
    expect(r.exitCode, r.output).to.equal(0);
    const index = join(run.reportsDir, 'html', 'index.html');
    expect(r.output).to.include(`HTML report: ${index}`);
    // One file: nothing beside it for the page to fetch (a browser refuses fetches over file://).
    expect(readdirSync(join(run.reportsDir, 'html')).filter((f) => !/^(index\.html|summary\.json|test-results\.json)$/.test(f))).to.deep.equal([]);
    expect(readFileSync(index, 'utf8')).not.to.include('googletagmanager');
    // History lives beside the folders a run empties, and grows with every report.
    const history = join(run.reportsDir, 'history', 'allure-history.jsonl');
    expect(existsSync(history)).to.equal(true);
    const again = await ocpE2e(['report', '--reports-dir', run.reportsDir]);
    expect(again.exitCode, again.output).to.equal(0);
    expect(readFileSync(history, 'utf8').trim().split('\n')).to.have.length(2);
  });

  it('says there is nothing to report when a folder holds no results (exit 2)', async () => {
    const empty = tempReportsDir();
    mkdirSync(empty, { recursive: true });
    const r = await ocpE2e(['report', '--reports-dir', empty]);
    expect(r.exitCode).to.equal(2);
    expect(r.output).to.match(/no Allure results in .*allure-results: run `ocp-e2e run --reports-dir \S+` first/);
  });
});
