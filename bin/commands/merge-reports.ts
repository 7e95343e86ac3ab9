/** `ocp-e2e merge-reports`: one report (Allure results, JUnit, artefacts, run.json) from the shards of a CI fan-out. */
import type { Command } from 'commander';
import { formatCounts } from '../run/results/counts.js';
import { mergeShardReports } from '../run/results/merge.js';
import { addHelpExtras } from '../help.js';

export function register(program: Command): void {
  const command = program
    .command('merge-reports')
    .description('merge the reports folders of the shards of one run (ocp-e2e run --shard i/n) into one; exit 0 all passed, 1 failures, 2 bad input')
    .argument('<shard-dirs...>', 'the --reports-dir of every shard')
    .requiredOption('--out <dir>', 'where the merged report goes (emptied first); then `ocp-e2e report --reports-dir DIR`')
    .action(async (shardDirs: string[], options: { out: string }) => {
      try {
        const counts = await mergeShardReports(options.out, shardDirs);
        console.log(`merged ${shardDirs.length} shard report(s) into ${options.out}`);
        console.log(formatCounts(counts));
        process.exit(counts.failed > 0 ? 1 : 0);
      } catch (error) {
        console.error(`ocp-e2e merge-reports: ${(error as Error).message}`);
        process.exit(2);
      }
    });
  addHelpExtras(command, {
    examples: [
      'ocp-e2e merge-reports --out reports reports-1 reports-2 reports-3   # the three shards of `run --shard i/3`',
      'ocp-e2e report --reports-dir reports                                 # then one HTML report of them all',
    ],
    exitCodes: ['0  merged, and every merged test passed', '1  merged, and at least one test failed', '2  bad input (a folder that is not a run\'s reports), said in one message'],
  });
}
