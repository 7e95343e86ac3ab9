/** `ocp-e2e run`: the command's registration; the run itself lives in bin/run/. */
import type { Command } from 'commander';
import { defineRunOptions, type RunOptions } from '../run/options.js';
import { runSuite } from '../run/index.js';

const CI_HELP = `
In CI:
  ocp-e2e run --jobs 2                                  spec files in parallel, each on its own reference cluster
  ocp-e2e run --shard 2/3 --reports-dir reports-2       one of 3 CI jobs; together they run every spec file once
  ocp-e2e merge-reports --out reports reports-1 reports-2 reports-3    one report of the shards
  ocp-e2e run --rerun-failed reports --reports-dir rerun               only the tests that failed in reports/
  ocp-e2e run --known-issues known-issues.yaml          matching failures reported as known issues with their bug

Exit codes: 0 all passed (skips and known issues included), 1 failures, 2 usage or environment problem.
More in README.md ("In CI") and specs/README.md.`;

export function register(program: Command): void {
  defineRunOptions(
    program
      .command('run')
      .description('run the conformance suite against the embedded reference cluster (default) or a real cluster'),
  )
    .addHelpText('after', CI_HELP)
    .action(async (options: RunOptions) => {
      process.exit(await runSuite(options));
    });
}
