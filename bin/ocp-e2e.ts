/**
 * Entry point of the `ocp-e2e` command. Each subcommand lives in its own module under bin/commands/ and registers
 * itself on the program (bin/program.ts); this file only parses the command line and turns thrown errors into exit
 * codes.
 */
import { ocpE2eProgram } from './program.js';

const program = await ocpE2eProgram();

// `help <command> [<subcommand>]` is `<command> [<subcommand>] --help`: commander's own help command looks one level
// deep only, so `help cluster up` would show the help of `cluster`.
const [, , first, ...rest] = process.argv;
const argv = first === 'help' && rest.length ? [...process.argv.slice(0, 2), ...rest, '--help'] : process.argv;

try {
  await program.parseAsync(argv);
} catch (error) {
  const code = (error as { exitCode?: number }).exitCode;
  // commander already printed usage errors and help. Help and the version (`--help`, `help <command>`, `--version`)
  // end with commander's exit code 0; anything else it stops on is a usage problem: exit 2, as docs/command-line.md documents.
  if (typeof code === 'number' && (error as { code?: string }).code?.startsWith('commander.')) process.exit(code === 0 ? 0 : 2);
  console.error(`ocp-e2e: ${(error as Error).message ?? String(error)}`);
  process.exit(2);
}
