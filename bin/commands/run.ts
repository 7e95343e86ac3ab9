/** `ocp-e2e run`: the command's registration; the run itself lives in bin/run/. */
import type { Command } from 'commander';
import { defineRunOptions, type RunOptions } from '../run/options.js';
import { runSuite } from '../run/index.js';

export function register(program: Command): void {
  defineRunOptions(
    program
      .command('run')
      .description('run the conformance suite against the embedded reference cluster (default) or a real cluster'),
  ).action(async (options: RunOptions) => {
    process.exit(await runSuite(options));
  });
}
