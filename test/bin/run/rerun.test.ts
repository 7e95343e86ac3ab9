/** `--rerun-failed`: which spec files and tests an earlier run's reports say failed, as a spec list and an exact grep. */
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { failuresOf } from '../../../bin/run/rerun.js';
import { ROOT } from '../../../bin/run/paths.js';

const TITLE_1 = 'Author:ocp-e2e-NonPreRelease-Longduration-High-54183-[Serial][Disruptive] upgrade with custom osImage (both pools)';
const SUITE_1 = '[sig-mco] MCO layering: upgrade with a custom osImage';

function result(dir: string, file: string, suite: string, name: string, status: string, stop: number): void {
  const uuid = `${name.length}-${stop}-${status}`;
  writeFileSync(join(dir, 'allure-results', `${uuid}-result.json`), JSON.stringify({
    uuid, name, status, stop, fullName: `ocp-e2e:specs/${file}: ${suite} > ${name}`, titlePath: ['ocp-e2e', 'specs', file, suite],
  }));
}

function reports(files: string[], target = 'reference'): string {
  const dir = mkdtempSync(join(tmpdir(), 'ocp-e2e-rerun-'));
  mkdirSync(join(dir, 'allure-results'));
  writeFileSync(join(dir, 'run.json'), JSON.stringify({ suiteVersion: '0.1.0', target, files, counts: { passed: 0, failed: 0, skipped: 0 }, runId: 'r1', startedAt: '', finishedAt: '' }));
  return dir;
}

describe('run: --rerun-failed', () => {
  it('selects the failed and broken tests (last attempt of each), with a grep that matches their full titles exactly', async () => {
    const dir = reports(['specs/01-a.spec.ts', 'specs/02-b.spec.ts', 'specs/03-c.spec.ts']);
    result(dir, '01-a.spec.ts', SUITE_1, TITLE_1, 'failed', 1);
    result(dir, '02-b.spec.ts', 'suite b', 'passes', 'passed', 1);
    result(dir, '03-c.spec.ts', 'suite c', 'flaky: failed, then passed on retry', 'failed', 1);
    result(dir, '03-c.spec.ts', 'suite c', 'flaky: failed, then passed on retry', 'passed', 2);
    result(dir, '03-c.spec.ts', 'suite c', 'broken in a hook', 'broken', 1);
    const rerun = await failuresOf(dir, 'reference');
    expect(rerun.files).to.deep.equal([join(ROOT, 'specs/01-a.spec.ts'), join(ROOT, 'specs/03-c.spec.ts')]);
    expect(rerun.titles).to.deep.equal([`${SUITE_1} ${TITLE_1}`, 'suite c broken in a hook']);
    const grep = new RegExp(rerun.grep);
    expect(grep.test(`${SUITE_1} ${TITLE_1}`)).to.equal(true);
    expect(grep.test('suite c broken in a hook')).to.equal(true);
    expect(grep.test(`${SUITE_1} ${TITLE_1} and more`), 'a longer title').to.equal(false);
    expect(grep.test('suite c flaky: failed, then passed on retry')).to.equal(false);
  });

  it('finds nothing to re-run in a run without failures', async () => {
    const dir = reports(['specs/02-b.spec.ts']);
    result(dir, '02-b.spec.ts', 'suite b', 'passes', 'passed', 1);
    expect((await failuresOf(dir, 'reference')).titles).to.deep.equal([]);
  });

  it('refuses a folder that is not a run\'s reports, and a run on the other target, saying which', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'ocp-e2e-rerun-'));
    expect(await failuresOf(empty, 'reference').then(() => '', (e: Error) => e.message)).to.match(/has no run\.json/);
    const cluster = reports(['specs/01-a.spec.ts'], 'cluster');
    expect(await failuresOf(cluster, 'reference').then(() => '', (e: Error) => e.message)).to.match(/was on --target cluster; re-run its failures with --target cluster/);
  });
});
