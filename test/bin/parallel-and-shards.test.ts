/**
 * `ocp-e2e run --jobs N` (spec files at the same time on separate reference clusters, output file by file) and
 * `--shard i/n` with `ocp-e2e merge-reports` (a CI fan-out that runs the suite exactly once, merged into one report).
 */
import { expect } from 'chai';
import { TIMESTAMP } from '../../bin/run/timestamps.js';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { useSettledMockCluster } from '../helpers/fixture.js';
import { lastLine, ocpE2e, tempReportsDir } from '../support/cli.js';
import { SPEC_COUNT, specFiles } from './support/spec-files.js';
import { withoutTimestamp } from '../../bin/run/timestamps.js';

/** The lines of the output between a file's "ready" line and its own result line, read past their timestamps. */
function blockOf(output: string, file: string): string[] {
  const lines = output.split('\n').map(withoutTimestamp);
  const start = lines.findIndex((l) => l.startsWith(`${file}: reference cluster`));
  const end = lines.findIndex((l, i) => i > start && l.startsWith(`${file}: `) && /passed, \d+ failed/.test(l));
  expect(start, `${file} has a ready line`).to.be.at.least(0);
  expect(end, `${file} has a result line`).to.be.above(start);
  return lines.slice(start, end + 1);
}

describe('ocp-e2e run --jobs and --shard', function () {
  this.timeout(300_000);

  it('--jobs 2 runs two spec files at the same time on two reference clusters, printing each file\'s output whole', async () => {
    const r = await ocpE2e(['run', '--jobs', '2', '--grep', 'E2E-00[34]'], { timeoutMs: 280_000 });
    expect(r.exitCode, r.output).to.equal(0);
    expect(lastLine(r.output)).to.equal('2 passed, 0 failed, 0 skipped');
    expect(r.output).to.include('(2 at a time)');
    const three = blockOf(r.output, '03-upgrade-without-override.spec.ts');
    const four = blockOf(r.output, '04-early-named-override-has-no-effect.spec.ts');
    expect(three.join('\n'), 'spec 3 output interleaved with spec 4').to.not.match(/E2E-004|04-early/);
    expect(four.join('\n'), 'spec 4 output interleaved with spec 3').to.not.match(/E2E-003|03-upgrade/);
    const apiUrl = (block: string[]) => /ready in/.test(block[0]!) && /https:\/\/\S+/.exec(block[0]!)?.[0];
    expect(apiUrl(three), 'each file has its own cluster').to.not.equal(apiUrl(four));
    expect(readdirSync(join(r.reportsDir, 'junit')).sort()).to.deep.equal(['03-upgrade-without-override.xml', '04-early-named-override-has-no-effect.xml']);
  });

  it('refuses --jobs above 1 on a cluster target and a --shard that is not i/n, before anything runs (exit 2)', async () => {
    const jobs = await ocpE2e(['run', '--target', 'cluster', '--kubeconfig', '/nonexistent', '--jobs', '2']);
    expect(jobs.exitCode, jobs.output).to.equal(2);
    expect(jobs.output).to.match(/--jobs applies to --target reference only/);
    const shard = await ocpE2e(['run', '--shard', '3/2']);
    expect(shard.exitCode, shard.output).to.equal(2);
    expect(shard.output).to.match(/--shard.*must be i\/n/);
  });

  describe('a fan-out of shards against one cluster, merged', () => {
    const cluster = useSettledMockCluster();

    it('each shard runs its part, together the whole suite once; merge-reports makes one report of them', async () => {
      const shards = [tempReportsDir(), tempReportsDir(), tempReportsDir()];
      // The files of each shard as shard.ts deals them (in name order, file k to shard k mod n + 1): together every spec once.
      const dealt = shards.map((_, k) => specFiles().filter((_, i) => i % shards.length === k));
      const runs = [];
      for (const [k, dir] of shards.entries()) {
        runs.push(await ocpE2e(['run', '--target', 'cluster', '--kubeconfig', cluster().kubeconfigPath, '--shard', `${k + 1}/3`], { reportsDir: dir }));
      }
      for (const [k, r] of runs.entries()) {
        expect(r.exitCode, r.output).to.equal(0);
        expect(lastLine(r.output)).to.equal(`0 passed, 0 failed, ${dealt[k]!.length} skipped`);
        // the run's own lines start with the wall-clock time (bin/run/timestamps.ts)
        const ran = new RegExp(`^(?:${TIMESTAMP})?shard ${k + 1}/3: ${dealt[k]!.length} of ${SPEC_COUNT} spec files(?:: (.*))?$`, 'm').exec(r.output);
        expect(ran, r.output).to.not.equal(null);
        expect(ran![1]?.split(', ') ?? []).to.deep.equal(dealt[k]);
      }

      const out = tempReportsDir();
      const merge = await ocpE2e(['merge-reports', '--out', out, ...shards]);
      expect(merge.exitCode, merge.output).to.equal(0);
      expect(lastLine(merge.output)).to.equal(`0 passed, 0 failed, ${SPEC_COUNT} skipped`);
      expect(readdirSync(join(out, 'junit')).sort()).to.deep.equal(['cluster-shard-1-of-3.xml', 'cluster-shard-2-of-3.xml', 'cluster-shard-3-of-3.xml']);
      expect(readdirSync(join(out, 'allure-results')).filter((f) => f.endsWith('-result.json'))).to.have.length(SPEC_COUNT);
      expect(JSON.parse(readFileSync(join(out, 'run.json'), 'utf8')).files).to.have.length(SPEC_COUNT);

      const incomplete = await ocpE2e(['merge-reports', '--out', tempReportsDir(), shards[0]!, shards[2]!]);
      expect(incomplete.exitCode, incomplete.output).to.equal(2);
      expect(incomplete.output).to.match(/shard 2\/3 missing/);
    });
  });
});
