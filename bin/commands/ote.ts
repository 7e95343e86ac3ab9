/**
 * `ocp-e2e ote info | list | run-test | images`: the openshift-tests extension (OTE) interface, so openshift-tests
 * can list and run our specs like any extension binary (bin/ocp-e2e-tests-ext is the binary name it expects).
 * Commands, flags and JSON follow OTE's pkg/cmd and types (openshift-eng/openshift-tests-extension 2fd5b2fa4221);
 * the modules doing the work are in bin/ote/.
 */
import { Argument, Command, Option } from 'commander';
import { addHelpExtras } from '../help.js';
import { collect } from '../args.js';
import { component, identifier, sourceInfo } from '../ote/component.js';
import { parseGoDuration } from '../ote/duration.js';
import { ENVIRONMENT_OPTIONS, selectedByEnvironment, type EnvironmentFlags } from '../ote/environment.js';
import { formatList, goJson, OUTPUT_FORMATS, say, writeStdout, type OutputFormat } from '../ote/output.js';
import { runTestCommand } from '../ote/run-tests.js';
import { suites, testsOfSuite } from '../ote/suites.js';
import { listOteTests } from '../ote/tests.js';
import { OTE_API_VERSION, type Extension } from '../ote/types.js';

const OTE_EXIT_CODES = [
  '0  done (run-test: no blocking test failed)',
  '1  run-test: a blocking test failed (its result line says why: an unknown name, no reachable cluster, the failure); any command: an unknown component or suite, bad input',
  '2  usage error (unknown option)',
  '130/143  run-test interrupted by SIGINT/SIGTERM (the running spec undoes what it changed first)',
];

const ENVIRONMENT_HELP = `
Environment variables read:
  KUBECONFIG                 run-test: the cluster (first path of the list); without it the run tries ~/.kube/config
  EXTENSION_ARTIFACT_DIR     run-test: each test's reports go to <dir>/reports/<spec>/ (openshift-tests sets it; default: a new temporary folder)
  OCP_E2E_TO_IMAGE           run-test: the run's --to-image (release to upgrade to; default: the cluster's first availableUpdates entry)
  OCP_E2E_IMAGE_REPO         run-test: the run's --image-repo (where layered OS images are pushed; required on real clusters)
  OCP_E2E_PULL_SECRET        run-test: the run's --pull-secret (registry credentials file)
  OCP_E2E_OTE_COMPONENT_TYPE payload when the suite ships in a release payload (component openshift:payload:ocp-e2e); default external
`;

interface ComponentOption {
  component: string;
}

export function register(program: Command): void {
  const ote = program
    .command('ote')
    .description('the openshift-tests extension interface: info, list, run-test, images (JSON on stdout, messages on stderr)');
  addHelpExtras(ote, {
    examples: [
      'ocp-e2e ote info                                   # the component, its suites and source commit',
      'ocp-e2e ote list -o jsonl                          # one JSON line per test, as openshift-tests reads them',
      'ocp-e2e ote run-test -n "$(ocp-e2e ote list -o names | head -1)" -o jsonl   # run one against $KUBECONFIG',
    ],
    exitCodes: OTE_EXIT_CODES,
  });
  ote.addHelpText('after', ENVIRONMENT_HELP);

  withComponent(ote.command('info').description('the extension\'s metadata: API version, source, component, suites, images'))
    .action(async (options: ComponentOption) => {
      await checkComponent(options, 'info');
      await writeStdout(`${goJson(await extension(), '    ')}\n`);
    });

  // `list [tests|suites|components]` as one command with an argument, not subcommands: the program parses options
  // anywhere (no positional options), so a subcommand's -o would be taken by `list` before it.
  withListOptions(ote.command('list').description('the tests (default), the suites or the components, as OTE\'s list [tests|suites|components]'))
    .addArgument(new Argument('[what]', 'tests, suites or components').choices(['tests', 'suites', 'components']).default('tests'))
    .action(async (what: 'tests' | 'suites' | 'components', options: ListOptions) => {
      if (what === 'components') return writeStdout(`${formatList([{ ...component() }], options.output)}\n`);
      await checkComponent(options, `list ${what}`);
      if (what === 'suites') return writeStdout(`${formatList(suites(sourceId()), options.output)}\n`);
      return listTestsAction(options);
    });

  withComponent(ote.command('run-test').description('run tests by name against $KUBECONFIG (through ocp-e2e run --target cluster --allow-disruptive): one result per test'))
    .argument('[name]', 'a test name (more with -n, or one per line on stdin)')
    .option('-n, --names <name>', 'a test name, as list prints it (repeatable)', (v: string, prev: string[] = []) => [...prev, v])
    .addOption(new Option('-o, --output <format>', 'json: one array at the end; jsonl: one line per test as it ends').choices(['json', 'jsonl']).default('json'))
    .option('--timeout <duration>', 'stop a test running longer than this (Go duration: 90m, 1h30m) and fail it (default: none)', parseGoDuration)
    .option('-c, --max-concurrency <n>', 'accepted for OTE compatibility; the specs change the whole cluster, so they run one at a time', '10')
    .action(async (name: string | undefined, options: ComponentOption & { names?: string[]; output: 'json' | 'jsonl'; timeout?: number }) => {
      await checkComponent(options, 'run-test');
      process.exit(await runTestCommand({ names: [...(options.names ?? []), ...(name ? [name] : [])], output: options.output, timeoutMs: options.timeout || undefined, sourceId: sourceId() }));
    });

  withComponent(ote.command('images').description('the images the tests use, for mirroring (none: the suite builds its own)'))
    .action(async (options: ComponentOption) => {
      await checkComponent(options, 'images');
      // OTE prints its registered images; we register none. `[]`, which openshift-tests decodes as it does `null`.
      await writeStdout(`${goJson([])}\n`);
    });
}

const sourceId = (): string => identifier(component());

async function extension(): Promise<Extension> {
  return { apiVersion: OTE_API_VERSION, source: await sourceInfo(), component: component(), suites: suites(sourceId()), images: [] };
}

function withComponent(command: Command): Command {
  return command.option('--component <name>', 'the component: default, or openshift:<type>:ocp-e2e', 'default');
}

function withOutput(command: Command): Command {
  return command.addOption(new Option('-o, --output <format>', 'json (indented array), jsonl (one object a line) or names').choices([...OUTPUT_FORMATS]).default('json'));
}

function withListOptions(command: Command): Command {
  withOutput(withComponent(command)).option('--suite <name>', 'only the tests of this suite (list suites names them)');
  for (const o of ENVIRONMENT_OPTIONS) {
    if ('repeatable' in o) command.option(o.flag, `${o.what} (filters by each test's environmentSelector)`, o.key === 'fact' ? (v: string, prev: string[] = []) => [...prev, v] : collect);
    else command.option(o.flag, `${o.what} (filters by each test's environmentSelector)`);
  }
  return command;
}

type ListOptions = ComponentOption & { output: OutputFormat; suite?: string } & Partial<Record<(typeof ENVIRONMENT_OPTIONS)[number]['key'], string | string[]>>;

async function listTestsAction(options: ListOptions): Promise<void> {
  await checkComponent(options, 'list');
  const id = sourceId();
  let tests = (await listOteTests(id).catch((error: Error) => fail('list', `cannot list the tests: ${error.message}`))).map((t) => t.spec);
  if (options.suite) tests = testsOfSuite(options.suite, tests, id) ?? fail('list', `no such suite: ${options.suite} (ocp-e2e ote list suites names them)`);
  if (!selectedByEnvironment(environmentFlags(options))) tests = [];
  await writeStdout(`${formatList(tests, options.output)}\n`);
}

function environmentFlags(options: ListOptions): EnvironmentFlags {
  const list = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
  const one = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v.at(-1) : v);
  const facts = Object.fromEntries(list(options.fact).flatMap((f) => f.split(',')).map((f) => [f.split('=')[0]!, f.split('=').slice(1).join('=')]));
  return {
    apiGroup: list(options.apiGroup),
    architecture: one(options.architecture),
    externalConnectivity: one(options.externalConnectivity),
    fact: facts,
    featureGate: list(options.featureGate),
    network: one(options.network),
    networkStack: one(options.networkStack),
    optionalCapability: list(options.optionalCapability),
    platform: one(options.platform),
    topology: one(options.topology),
    upgrade: one(options.upgrade),
    version: one(options.version),
  };
}

/** OTE's registry holds `default` (the first extension) and each extension by its identifier. */
async function checkComponent(options: ComponentOption, command: string): Promise<void> {
  if (options.component !== 'default' && options.component !== sourceId()) {
    fail(command, command === 'info' || command === 'images' ? `couldn't find the component "${options.component}"` : `component not found: ${options.component}`);
  }
}

/** As OTE's commands end on an error: the message on stderr, exit 1, nothing on stdout. */
function fail(command: string, message: string): never {
  say(`ocp-e2e ote ${command}: ${message}`);
  process.exit(1);
}
