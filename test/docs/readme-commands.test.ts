/**
 * Every command line README.md and the pages of docs/ show in their fenced blocks still works with the code, so that a
 * renamed or removed flag breaks the build, not the reader:
 *  - every `bin/ocp-e2e` command line (and the ocp-e2e part of one that runs the suite's image) is parsed by the
 *    command's real parser (bin/program.ts), with the actions left out: options, choices and their value checks;
 *  - every `bin/ocp-e2e run ...` line is then run for real with `--list` appended, through the launcher, with nothing
 *    to reach (no engine, a kubeconfig that does not exist): its options' checks run and it must exit 0;
 *  - the other lines are classified below, one by one, with the reason they are not run whole (they need a real
 *    cluster, start a server, or take minutes), or with how they are run instead. A command that no entry classifies
 *    fails the test, as does an entry that no longer matches any command of those pages: new commands must be
 *    thought about.
 * Placeholders (`<you>`, `<next>`, `<tag>`) and the variables and files the lines name ($KUBECONFIG, $RELEASE, $k,
 * ~/pull-secret.json) are given stand-ins; the lines run in a scratch folder that links to the checkout's bin/ and ci/.
 */
import { expect } from 'chai';
import { CommanderError, type Command } from 'commander';
import { execa } from 'execa';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ocpE2eProgram } from '../../bin/program.js';
import { ROOT } from '../../bin/run/paths.js';

/** Languages of fenced blocks that hold data, files or code, not commands. */
const DATA_LANGUAGES = new Set(['yaml', 'yml', 'json', 'dockerfile', 'containerfile', 'text', 'ini', 'toml', 'ts',
  'typescript']);

/** Untagged blocks that are not commands, by their first line. */
const NOT_COMMANDS: Array<{ firstLine: RegExp; why: string }> = [
  { firstLine: /^bin\/ +the command line:/, why: 'docs/architecture.md\'s project layout: a table of folders' },
];

/** The pages whose commands are checked: README.md and every page of docs/. */
const PAGES = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort()
  .map((f) => join('docs', f))];

type Handling =
  /** Neither run nor parsed: not an ocp-e2e command. */
  | { how: 'not-run' }
  /** Not run: parsed by the command's real parser (the whole line, or the ocp-e2e words after `after`). */
  | { how: 'parse-only'; after?: string }
  /** Run for real in the scratch folder: must exit with `exitCode` and print `output`. */
  | { how: 'run'; exitCode: number; output: RegExp };

interface Classified {
  command: RegExp;
  why: string;
  handling: Handling;
}

/** The pages' commands that are not `bin/ocp-e2e run` (those are all run with --list). */
const CLASSIFIED: Classified[] = [
  { command: /^npm test$/, why: 'the project\'s whole test suite: about 30 minutes on 2 cores', handling: { how: 'not-run' } },
  { command: /^source \S+$/, why: 'a shell builtin reading the env file `cluster up --env-out` wrote; test/bin/user-environment.test.ts sources one', handling: { how: 'not-run' } },
  { command: /^bin\/ocp-e2e cluster up /, why: 'starts a reference cluster that runs until stopped', handling: { how: 'parse-only' } },
  { command: /^bin\/ocp-e2e apiserver /, why: 'starts the mock API server, which runs until stopped', handling: { how: 'parse-only' } },
  { command: /^oc adm upgrade /, why: 'upgrades a real cluster with oc (its own flags); test/bin/phases.test.ts runs it against cluster up', handling: { how: 'not-run' } },
  { command: /^mkdir -p artifacts$/, why: 'the reports folder the image\'s run line mounts, made by the user so it is theirs (dockerd would make it root\'s); test/images/ocp-e2e-image.test.ts runs it with that line', handling: { how: 'not-run' } },
  {
    command: /^docker run .* localhost\/ocp-e2e\/ocp-e2e:<tag> run /,
    why: 'runs the suite\'s image against a real cluster; the ocp-e2e arguments after the image are parsed',
    handling: { how: 'parse-only', after: 'localhost/ocp-e2e/ocp-e2e:latest' },
  },
  {
    command: /^bin\/ocp-e2e merge-reports --out \S+ reports-1 reports-2 reports-3$/,
    why: 'run for real on shard folders that do not exist here: refused with its one message, its options accepted',
    handling: { how: 'run', exitCode: 2, output: /^ocp-e2e merge-reports: .*reports-1/m },
  },
  {
    command: /^bin\/ocp-e2e report --results \S+ --output \S+$/,
    why: 'run for real where no run left results: refused with its one message, its options accepted',
    handling: { how: 'run', exitCode: 2, output: /^ocp-e2e report: no Allure results in /m },
  },
];

/** The command lines of a page's fenced blocks: comments dropped, continuation lines joined, spaces collapsed. */
function fencedCommands(markdown: string): string[] {
  const commands: string[] = [];
  for (const block of markdown.matchAll(/^( *)```(\w*)\n([\s\S]*?)^\1```$/gm)) {
    const [, indent, language, body] = block as unknown as [string, string, string, string];
    if (DATA_LANGUAGES.has(language.toLowerCase())) continue;
    const lines = body.split('\n').map((l) => l.slice(indent.length));
    if (NOT_COMMANDS.some((n) => n.firstLine.test(lines[0] ?? ''))) continue;
    const joined = lines.join('\n').replace(/\\\n\s*/g, ' ');
    for (const line of joined.split('\n')) {
      const command = line.replace(/(^|\s)#.*$/, '').replace(/\s+/g, ' ').trim();
      if (command) commands.push(command);
    }
  }
  return commands;
}

/** The stand-ins of the placeholders a command line holds. */
function withStandIns(command: string): string {
  return command.replace(/<you>/g, 'me').replace(/<next>/g, '4.12.1').replace(/<tag>/g, 'latest');
}

/** A scratch folder with the checkout's bin/ and ci/, a HOME holding a pull secret, and the variables the lines use. */
function scratch(): { dir: string; env: Record<string, string> } {
  const dir = mkdtempSync(join(tmpdir(), 'ocp-e2e-readme-'));
  for (const d of ['bin', 'ci']) symlinkSync(join(ROOT, d), join(dir, d));
  const home = join(dir, 'home');
  mkdirSync(join(home, '.kube'), { recursive: true });
  writeFileSync(join(home, 'pull-secret.json'), JSON.stringify({ auths: { 'quay.io': { auth: Buffer.from('me:not-a-secret').toString('base64') } } }));
  return {
    dir,
    env: {
      HOME: home,
      KUBECONFIG: join(home, '.kube', 'config'),
      RELEASE: 'registry.ci.openshift.org/ocp/release:4.12.1',
      k: '1',
      // Nothing a listing may reach: an engine on a closed loopback port. The lines run the compiled tree, as a user's
      // do (npm test built it; tsx would cost each line seconds of CPU).
      DOCKER_HOST: 'tcp://127.0.0.1:9',
    },
  };
}

/** The words of a command line after the shell's expansions, as the program would get them. */
async function words(command: string, env: Record<string, string>, cwd: string): Promise<string[]> {
  const r = await execa('bash', ['-c', `printf '%s\\0' ${command}`], { env, cwd });
  return r.stdout.split('\0').slice(0, -1);
}

/** Parses ocp-e2e arguments with the command's real parser, running no action; returns commander's error, if any. */
async function parseOnly(args: string[]): Promise<string | undefined> {
  const program = await ocpE2eProgram();
  let printed = '';
  const quiet = (c: Command): void => {
    c.exitOverride().configureOutput({ writeOut: () => undefined, writeErr: (s) => { printed += s; } });
    c.action(() => undefined);
    for (const sub of c.commands) quiet(sub);
  };
  quiet(program);
  try {
    await program.parseAsync(args, { from: 'user' });
    return undefined;
  } catch (error) {
    if (error instanceof CommanderError) return `${error.code}: ${printed.split('\n')[0] ?? error.message}`;
    throw error;
  }
}

function ocpE2eArgs(command: string[], after?: string): string[] | undefined {
  if (after) return command.slice(command.indexOf(after) + 1);
  return command[0] === 'bin/ocp-e2e' ? command.slice(1) : undefined;
}

describe('README.md and docs/: every command line of their fenced blocks works with the code', function () {
  this.timeout(180_000);
  // A command shown on two pages is checked once.
  const commands = [...new Set(PAGES.flatMap((page) => fencedCommands(readFileSync(join(ROOT, page), 'utf8'))))];
  const place = scratch();
  after(() => rmSync(place.dir, { recursive: true, force: true }));

  it('finds the pages\' commands (the run, cluster up, pipeline and sharding examples among them)', () => {
    expect(PAGES).to.include('README.md').and.to.include(join('docs', 'ci.md'));
    expect(commands).to.include('bin/ocp-e2e run');
    expect(commands).to.include('npm test');
    expect(commands.some((c) => c.startsWith('bin/ocp-e2e run --target cluster --kubeconfig $KUBECONFIG --allow-disruptive --phase pre --image-repo')), 'a continued line is joined').to.equal(true);
    expect(commands.filter((c) => c.startsWith('- case')), 'yaml is data').to.deep.equal([]);
  });

  it('classifies every command that is not a `bin/ocp-e2e run`, and every entry still matches a command', () => {
    const unclassified = commands.filter((c) => !c.startsWith('bin/ocp-e2e run') && !CLASSIFIED.some((k) => k.command.test(c)));
    expect(unclassified, 'commands to classify in test/docs/readme-commands.test.ts (CLASSIFIED), with the reason').to.deep.equal([]);
    const stale = CLASSIFIED.filter((k) => !commands.some((c) => k.command.test(c))).map((k) => String(k.command));
    expect(stale, 'entries that match no command of README.md or docs/ any more').to.deep.equal([]);
  });

  for (const command of commands) {
    const classified = CLASSIFIED.find((k) => k.command.test(command));
    const isRun = command.startsWith('bin/ocp-e2e run');
    const handling = classified?.handling;
    // Unclassified commands fail the classification test above; those that are not ocp-e2e's are only listed there.
    if (!isRun && (!handling || handling.how === 'not-run')) continue;
    const after = handling?.how === 'parse-only' ? handling.after : undefined;
    it(`${command}${classified ? `  (${classified.why})` : '  (run with --list)'}`, async () => {
      const argv = await words(withStandIns(command), place.env, place.dir);
      const args = ocpE2eArgs(argv, after ? withStandIns(after) : undefined);
      if (args) expect(await parseOnly(args), `the parser refuses: ${argv.join(' ')}`).to.equal(undefined);
      if (isRun) {
        const r = await execa('bash', ['-c', `${withStandIns(command)} --list --output json`], { cwd: place.dir, env: place.env, reject: false, all: true });
        expect(r.exitCode, r.all).to.equal(0);
        expect((JSON.parse(r.stdout) as { specs: unknown[] }).specs, r.all).to.not.be.empty;
      } else if (handling?.how === 'run') {
        const r = await execa('bash', ['-c', withStandIns(command)], { cwd: place.dir, env: place.env, reject: false, all: true });
        expect(r.exitCode, r.all).to.equal(handling.exitCode);
        expect(r.all, r.all).to.match(handling.output);
      }
    });
  }
});
