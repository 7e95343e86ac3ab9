/**
 * The CI examples in ci/ run as their CI systems would run them: the Prow step-registry refs' commands scripts with
 * the variables ci-operator sets (KUBECONFIG, ARTIFACT_DIR, SHARED_DIR) and the Tekton Task's step script with its
 * params and workspaces substituted, each around an upgrade made with the real `oc`, against `ocp-e2e cluster up`.
 * `ocp-e2e` is found on PATH, as in the suite's image. Before that, the files are checked the way the systems' own
 * linters would: names and fields of a step-registry ref, every variable a script reads declared, bash syntax.
 */
import { expect } from 'chai';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { execa } from 'execa';
import { parse } from 'yaml';
import { Cluster } from '../../helpers/cluster.js';
import { clusterUp, lastLine, ocAdmUpgradeToNext, ROOT, type ClusterUp } from '../support/cli.js';

const OC_DIR = join(ROOT, '..', 'shared', 'upstream', 'bin');
const PROW = join(ROOT, 'ci', 'prow', 'ocp-e2e');
const TEKTON_TASK = join(ROOT, 'ci', 'tekton', 'ocp-e2e-task.yaml');
/** What ci-operator gives every multi-stage test step (ci-operator's step environment). */
const CI_OPERATOR_ENV = new Set(['KUBECONFIG', 'ARTIFACT_DIR', 'SHARED_DIR', 'CLUSTER_PROFILE_DIR', 'NAMESPACE', 'JOB_NAME', 'JOB_NAME_SAFE', 'RELEASE_IMAGE_LATEST', 'RELEASE_IMAGE_INITIAL']);

interface RefEnv {
  name: string;
  default?: string;
  documentation?: string;
}
interface StepRef {
  ref: { as: string; from?: string; from_image?: unknown; commands: string; resources: { requests: Record<string, string> }; env?: RefEnv[]; documentation: string; timeout?: string; grace_period?: string };
}
interface TektonTask {
  apiVersion: string;
  kind: string;
  spec: {
    params: { name: string; default?: string }[];
    workspaces: { name: string; optional?: boolean }[];
    steps: { name: string; image: string; env: { name: string; value: string }[]; script: string }[];
  };
}

const refFiles = (): string[] => readdirSync(PROW).map((d) => join(PROW, d, `ocp-e2e-${d}-ref.yaml`));
const readRef = (file: string): StepRef => parse(readFileSync(file, 'utf8')) as StepRef;
const readTask = (): TektonTask => parse(readFileSync(TEKTON_TASK, 'utf8')) as TektonTask;

/** The variables a bash script reads as ${NAME}, ${NAME:-…} or $NAME, minus those it assigns itself. */
function variablesRead(script: string): string[] {
  const assigned = new Set([...script.matchAll(/^\s*(?:local\s+)?([A-Za-z_]\w*)=/gm), ...script.matchAll(/\bfor\s+([A-Za-z_]\w*)\s+in\b/g)].map((m) => m[1]!));
  const read = [...script.matchAll(/\$\{?([A-Za-z_]\w*)/g)].map((m) => m[1]!);
  return [...new Set(read)].filter((name) => !assigned.has(name));
}

async function bashSyntax(script: string): Promise<string> {
  const r = await execa('bash', ['-n'], { input: script, reject: false, all: true });
  return r.exitCode === 0 ? '' : String(r.all);
}

/** Tekton's $(params.X) and $(workspaces.X.path|bound) replaced as its controller would, for one TaskRun. */
function substituteTekton(text: string, params: Record<string, string>, workspaces: Record<string, string | undefined>): string {
  return text.replace(/\$\((params|workspaces)\.([\w-]+)(?:\.(path|bound))?\)/g, (whole, kind: string, name: string, field?: string) => {
    if (kind === 'params') {
      if (!(name in params)) throw new Error(`the Task refers to $(params.${name}), which the test did not give`);
      return params[name]!;
    }
    const path = workspaces[name];
    if (field === 'bound') return path === undefined ? 'false' : 'true';
    if (field === 'path') return path ?? '';
    throw new Error(`unknown Tekton variable ${whole}`);
  });
}

function paramValues(task: TektonTask, given: Record<string, string>): Record<string, string> {
  return Object.fromEntries(task.spec.params.map((p) => [p.name, given[p.name] ?? p.default ?? '']));
}

/** A shell on the CI machine: ocp-e2e and the real oc on PATH, the cluster's CA and credentials from its env file. */
function stepEnv(up: ClusterUp, extra: Record<string, string>): Record<string, string> {
  return { ...up.env, PATH: `${join(ROOT, 'bin')}:${OC_DIR}:${process.env.PATH ?? ''}`, ...extra };
}

async function runScript(script: string, env: Record<string, string>): Promise<ScriptRun> {
  const r = await execa('bash', ['-c', script], { env, reject: false, all: true, timeout: 300_000, cwd: tmpdir() });
  return { exitCode: r.exitCode ?? -1, output: String(r.all ?? '') };
}

async function ocAdmUpgrade(up: ClusterUp): Promise<void> {
  await ocAdmUpgradeToNext(join(OC_DIR, 'oc'), up.kubeconfig, stepEnv(up, {}));
}

interface ScriptRun {
  exitCode: number;
  output: string;
}
interface ProwOutcome {
  pre: ScriptRun;
  post: ScriptRun;
  artifacts: string;
  handedOn: string[];
  overridesLeft: string[];
}
interface TektonOutcome {
  pre: ScriptRun;
  post: ScriptRun;
  artifacts: string;
}

/** The Prow job: ocp-e2e-pre, the workflow's upgrade (here the real oc), ocp-e2e-post, with ci-operator's variables. */
async function prowPipeline(up: ClusterUp): Promise<ProwOutcome> {
  const work = mkdtempSync(join(tmpdir(), 'ocp-e2e-prow-'));
  const artifacts = join(work, 'artifacts');
  const shared = join(work, 'shared');
  mkdirSync(artifacts);
  mkdirSync(shared);
  const env = stepEnv(up, { KUBECONFIG: up.kubeconfig, ARTIFACT_DIR: artifacts, SHARED_DIR: shared, OCP_E2E_GREP: '54183' });
  const script = (phase: string): string => readFileSync(join(PROW, phase, `ocp-e2e-${phase}-commands.sh`), 'utf8');
  const pre = await runScript(script('pre'), env);
  const handedOn = readdirSync(shared);
  if (pre.exitCode === 0) await ocAdmUpgrade(up);
  // The post step runs where no container engine is, as a CI pod would.
  const post = await runScript(script('post'), { ...env, DOCKER_HOST: 'unix:///nonexistent/ocp-e2e-no-engine.sock' });
  const overridesLeft = (await Cluster.fromKubeconfig(up.kubeconfig).listMachineConfigs()).map((mc) => mc.metadata.name ?? '').filter((n) => n.startsWith('tc-54183-'));
  return { pre, post, artifacts, handedOn, overridesLeft };
}

/** Two TaskRuns of the Task (phase pre, then phase post) around the upgrade. */
async function tektonPipeline(up: ClusterUp): Promise<TektonOutcome> {
  const task = readTask();
  const [step] = task.spec.steps;
  const artifacts = join(mkdtempSync(join(tmpdir(), 'ocp-e2e-tekton-')), 'artifacts');
  mkdirSync(artifacts);
  // The kubeconfig workspace holds the file "kubeconfig", as the Secret mounted there would.
  const workspaces = { kubeconfig: dirname(up.kubeconfig), artifacts, 'registry-auth': undefined };
  const taskRun = (phase: string): Promise<ScriptRun> => {
    const params = paramValues(task, { phase, grep: '54183' });
    const env = Object.fromEntries(step!.env.map((e) => [e.name, substituteTekton(e.value, params, workspaces)]));
    return runScript(step!.script, stepEnv(up, env));
  };
  const pre = await taskRun('pre');
  if (pre.exitCode === 0) await ocAdmUpgrade(up);
  const post = await taskRun('post');
  return { pre, post, artifacts };
}

const junitText = (reportsDir: string): string =>
  readdirSync(join(reportsDir, 'junit'))
    .map((f) => readFileSync(join(reportsDir, 'junit', f), 'utf8'))
    .join('\n');

describe('ci/: the Prow step-registry refs and the Tekton Task', () => {
  describe('as their linters read them', () => {
    for (const file of refFiles()) {
      it(`${basename(file)} is a step-registry ref whose commands file sits beside it`, async () => {
        const { ref } = readRef(file);
        expect(basename(file), 'a ref file is named <as>-ref.yaml').to.equal(`${ref.as}-ref.yaml`);
        expect(ref.commands, 'and its script <as>-commands.sh').to.equal(`${ref.as}-commands.sh`);
        expect(Boolean(ref.from) !== Boolean(ref.from_image), 'exactly one of from and from_image').to.equal(true);
        expect(ref.resources.requests).to.have.keys('cpu', 'memory');
        expect(ref.documentation).to.be.a('string').and.not.empty;
        const script = readFileSync(join(dirname(file), ref.commands), 'utf8');
        expect(await bashSyntax(script)).to.equal('');
        const declared = new Set((ref.env ?? []).map((e) => e.name));
        for (const e of ref.env ?? []) expect(e.documentation, `env ${e.name} is documented`).to.be.a('string').and.not.empty;
        const undeclared = variablesRead(script).filter((v) => !declared.has(v) && !CI_OPERATOR_ENV.has(v));
        expect(undeclared, 'every variable the script reads comes from ci-operator or the ref\'s env').to.deep.equal([]);
        const unused = [...declared].filter((v) => !variablesRead(script).includes(v));
        expect(unused, 'every variable the ref declares is read').to.deep.equal([]);
      });
    }

    it('the Tekton Task declares every param and workspace its step uses, and its script is bash', async () => {
      const task = readTask();
      expect(task).to.include({ apiVersion: 'tekton.dev/v1', kind: 'Task' });
      const text = readFileSync(TEKTON_TASK, 'utf8');
      const params = new Set(task.spec.params.map((p) => p.name));
      const workspaces = new Set(task.spec.workspaces.map((w) => w.name));
      for (const m of text.matchAll(/\$\(params\.([\w-]+)\)/g)) expect(params.has(m[1]!), `param ${m[1]} is declared`).to.equal(true);
      for (const m of text.matchAll(/\$\(workspaces\.([\w-]+)\.\w+\)/g)) expect(workspaces.has(m[1]!), `workspace ${m[1]} is declared`).to.equal(true);
      const [step] = task.spec.steps;
      expect(step!.script, 'params reach the script only through env, never as text').to.not.match(/\$\((params|workspaces)\./);
      expect(await bashSyntax(step!.script)).to.equal('');
      const fromEnv = new Set(step!.env.map((e) => e.name));
      const undeclared = variablesRead(step!.script).filter((v) => !fromEnv.has(v));
      expect(undeclared, 'every variable the script reads is in the step\'s env').to.deep.equal([]);
    });
  });

  describe('run against a reference cluster, around an upgrade by the real oc', function () {
    this.timeout(600_000);
    const clusters: ClusterUp[] = [];
    // Both pipelines run at once (the clusters mostly wait on their clocks) and are judged in their tests.
    let prow: Promise<ProwOutcome>;
    let tekton: Promise<TektonOutcome>;

    before(async function () {
      if (!existsSync(join(OC_DIR, 'oc'))) throw new Error(`the upstream oc is missing at ${OC_DIR}/oc (../shared/upstream/bin): the examples upgrade with it`);
      // Started one after another: the clusters share the reference's registry, which the first start fills.
      for (let i = 0; i < 2; i++) clusters.push(await clusterUp());
      prow = prowPipeline(clusters[0]!);
      tekton = tektonPipeline(clusters[1]!);
      for (const background of [prow, tekton]) background.catch(() => undefined);
    });
    after(async () => {
      await Promise.allSettled([prow, tekton]);
      await Promise.allSettled(clusters.map((c) => c.stop()));
    });

    it('the Prow steps ocp-e2e-pre and ocp-e2e-post pass with their reports in ARTIFACT_DIR and the checkpoint in SHARED_DIR', async () => {
      const { pre, post, artifacts, handedOn, overridesLeft } = await prow;
      expect(pre.exitCode, pre.output.slice(-3000)).to.equal(0);
      expect(lastLine(pre.output)).to.equal('1 passed, 0 failed, 0 skipped');
      expect(handedOn, 'the checkpoint handed on').to.deep.equal(['ocp-e2e-checkpoint-01-upgrade-custom-os-image-both-pools.json']);
      expect(junitText(join(artifacts, 'ocp-e2e-pre'))).to.include('PreChkUpgrade');
      expect(post.exitCode, post.output.slice(-3000)).to.equal(0);
      expect(post.output).to.include('checkpoint from the pre step: ocp-e2e-checkpoint-01-upgrade-custom-os-image-both-pools.json');
      expect(lastLine(post.output)).to.equal('1 passed, 0 failed, 0 skipped');
      expect(junitText(join(artifacts, 'ocp-e2e-post'))).to.include('PstChkUpgrade');
      expect(overridesLeft, 'post removed the overrides').to.deep.equal([]);
    });

    it('the Tekton Task runs phase pre, then phase post after the upgrade, with reports per phase in the artifacts workspace', async () => {
      const { pre, post, artifacts } = await tekton;
      expect(pre.exitCode, pre.output.slice(-3000)).to.equal(0);
      expect(junitText(join(artifacts, 'pre'))).to.include('PreChkUpgrade');
      expect(post.exitCode, post.output.slice(-3000)).to.equal(0);
      expect(lastLine(post.output)).to.equal('1 passed, 0 failed, 0 skipped');
      expect(junitText(join(artifacts, 'post'))).to.include('PstChkUpgrade');
    });
  });
});
