/**
 * The `ocp-e2e` command's program: every subcommand registered on it (each lives in bin/commands/), with the help
 * that ties them together. Built here, apart from the entry point that parses process.argv (bin/ocp-e2e.ts), so a
 * test can parse command lines with the very parser users get (test/docs/readme-commands.test.ts).
 */
import { Command } from 'commander';
import { register as registerRun } from './commands/run.js';
import { register as registerCluster } from './commands/cluster.js';
import { register as registerApiServer } from './commands/apiserver.js';
import { register as registerReport } from './commands/report.js';
import { register as registerMergeReports } from './commands/merge-reports.js';
import { ENVIRONMENT, EXIT_CODES } from './help.js';
import { REPORT_PROFILE } from '../reference/profiles/index.js';
import { suiteVersion } from './version.js';

export async function ocpE2eProgram(): Promise<Command> {
  const program = new Command('ocp-e2e')
    .description('End-to-end conformance suite for OpenShift upgrades with a custom layered OS image')
    .version(await suiteVersion(), '--version', 'print the suite\'s version (and Node\'s)')
    .showHelpAfterError()
    .exitOverride()
    .addHelpText(
      'after',
      `
Examples:
  ocp-e2e run                                     # the suite on the embedded reference cluster (fixed 4.12 code)
  ocp-e2e run --profile ${REPORT_PROFILE.padEnd(25)} # the bug report's nightly: spec 54183 fails, quoting the operator
  ocp-e2e report                                  # the HTML report of the last run, offline
  ocp-e2e help run                                # every option of run, its defaults, the faults, examples

Exit codes:
${EXIT_CODES.map((l) => `  ${l}`).join('\n')}

Environment variables read:
${Object.entries(ENVIRONMENT).map(([k, v]) => `  ${k.padEnd(26)} ${v}`).join('\n')}
`,
    );

  registerRun(program);
  registerCluster(program);
  registerApiServer(program);
  registerReport(program);
  registerMergeReports(program);
  (await import('./commands/ote.js')).register(program); // openshift-tests extension interface (bin/ote/)
  return program;
}
