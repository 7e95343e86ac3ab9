import { expect } from 'chai';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ocpE2e, tempReportsDir } from './cli.js';

describe('ocp-e2e report: the HTML report, offline', function () {
  this.timeout(180_000);

  it('turns the Allure results of a run into an HTML report with the spec and its steps', async () => {
    const run = await ocpE2e(['run', '--grep', 'E2E-004'], { timeoutMs: 150_000 });
    expect(run.exitCode, run.output).to.equal(0);
    const results = join(run.reportsDir, 'allure-results');
    expect(readdirSync(results).some((f) => f.endsWith('-attachment.yaml') || f.includes('-attachment')), 'YAML attachments were written').to.equal(true);
    const output = join(run.reportsDir, 'html');
    const r = await ocpE2e(['report', '--results', results, '--output', output]);
    expect(r.exitCode, r.output).to.equal(0);
    expect(r.output).to.include(`HTML report: ${join(output, 'index.html')}`);
    expect(existsSync(join(output, 'index.html'))).to.equal(true);
  });

  it('says there is nothing to report when a folder holds no results (exit 2)', async () => {
    const empty = tempReportsDir();
    mkdirSync(empty, { recursive: true });
    const r = await ocpE2e(['report', '--results', empty]);
    expect(r.exitCode).to.equal(2);
    expect(r.output).to.match(/no Allure results in .*: run `ocp-e2e run` first/);
  });
});
