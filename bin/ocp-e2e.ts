/**
 * Entry point of the `ocp-e2e` command. Each subcommand lives in its own module under bin/commands/ and registers
 * itself on the program; this file only wires them together and turns thrown errors into exit codes.
 */
import { Command } from 'commander';
import { register as registerRun } from './commands/run.js';
import { register as registerCluster } from './commands/cluster.js';
import { register as registerApiServer } from './commands/apiserver.js';
import { register as registerReport } from './commands/report.js';
import { register as registerMergeReports } from './commands/merge-reports.js';

const program = new Command('ocp-e2e')
  .description('End-to-end conformance suite for OpenShift upgrades with a custom layered OS image')
  .showHelpAfterError()
  .exitOverride();

registerRun(program);
registerCluster(program);
registerApiServer(program);
registerReport(program);
registerMergeReports(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  const code = (error as { exitCode?: number }).exitCode;
  // commander already printed usage errors and help; exit 2 marks a usage problem, as documented in README.
  if ((error as { code?: string }).code === 'commander.helpDisplayed' || (error as { code?: string }).code === 'commander.version') process.exit(0);
  if (typeof code === 'number' && (error as { code?: string }).code?.startsWith('commander.')) process.exit(2);
  console.error(`ocp-e2e: ${(error as Error).message ?? String(error)}`);
  process.exit(2);
}
