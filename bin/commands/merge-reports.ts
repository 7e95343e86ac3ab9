/** `ocp-e2e merge-reports`: one report (Allure results, JUnit, artefacts, run.json) from the shards of a CI fan-out. */
import type { Command } from 'commander';
import { formatCounts } from '../run/results/counts.js';
import { mergeShardReports } from '../run/results/merge.js';

export function register(program: Command): void {
  program
    .command('merge-reports')
    .description('merge the reports folders of the shards of one run (ocp-e2e run --shard i/n) into one; exit 0 all passed, 1 failures, 2 bad input')
    .argument('<shard-dirs...>', 'the --reports-dir of every shard')
    .requiredOption('--out <dir>', 'where the merged report goes (emptied first); then `ocp-e2e report --results DIR/allure-results`')
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
}
