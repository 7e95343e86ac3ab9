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
import { ENVIRONMENT, EXIT_CODES } from './help.js';
import { REPORT_PROFILE } from '../reference/profiles/index.js';
import { suiteVersion } from './version.js';

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

// `help <command> [<subcommand>]` is `<command> [<subcommand>] --help`: commander's own help command looks one level
// deep only, so `help cluster up` would show the help of `cluster`.
const [, , first, ...rest] = process.argv;
const argv = first === 'help' && rest.length ? [...process.argv.slice(0, 2), ...rest, '--help'] : process.argv;

try {
  await program.parseAsync(argv);
} catch (error) {
  const code = (error as { exitCode?: number }).exitCode;
  // commander already printed usage errors and help. Help and the version (`--help`, `help <command>`, `--version`)
  // end with commander's exit code 0; anything else it stops on is a usage problem: exit 2, as documented in README.
  if (typeof code === 'number' && (error as { code?: string }).code?.startsWith('commander.')) process.exit(code === 0 ? 0 : 2);
  console.error(`ocp-e2e: ${(error as Error).message ?? String(error)}`);
  process.exit(2);
}
