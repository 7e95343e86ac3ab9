/**
 * `ocp-e2e ote` as openshift-tests sees an extension binary (bin/ocp-e2e-tests-ext): `info`, `list`, `images` print
 * JSON that OTE's Go types decode with unknown fields disallowed (support/ote-schema.ts), on stdout alone; `run-test`
 * answers every name with exactly one result line: passed on a 4.12-ga reference cluster, failed with the operator's
 * message on the report's nightly, failed saying why for an unknown name or a cluster that does not answer.
 */
import { expect } from 'chai';
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { parseGoDuration } from '../../bin/ote/duration.js';
import { originName, titleFacts } from '../../bin/ote/names.js';
import { goJson } from '../../bin/ote/output.js';
import { dbTime } from '../../bin/ote/types.js';
import { clusterUp, ROOT } from '../support/cli.js';
import { schemaErrors, validators } from './support/ote-schema.js';
import { SPEC_COUNT, specFiles } from './support/spec-files.js';

const SHIM = join(ROOT, 'bin', 'ocp-e2e-tests-ext');

interface OteRun {
  exitCode: number;
  stdout: string;
  stderr: string;
  wallMs: number;
}

/** The shim as openshift-tests runs it: stdin from /dev/null, stdout and stderr apart, only the given environment added. */
async function ote(args: string[], options: { env?: Record<string, string>; timeoutMs?: number } = {}): Promise<OteRun> {
  const started = Date.now();
  const r = await execa(SHIM, args, { cwd: tmpdir(), reject: false, stdin: 'ignore', timeout: options.timeoutMs ?? 120_000, env: { KUBECONFIG: '', EXTENSION_ARTIFACT_DIR: '', ...options.env } });
  return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr), wallMs: Date.now() - started };
}

/** Lines of jsonl output: every non-empty line must be a JSON object (origin skips lines not starting with `{`; we print none). */
function jsonLines(stdout: string): Record<string, unknown>[] {
  const lines = stdout.split('\n').filter((l) => l.trim());
  for (const l of lines) expect(l, 'a non-JSON line on stdout').to.match(/^\{/);
  return lines.map((l) => JSON.parse(l) as Record<string, unknown>);
}

function expectValid(validate: (typeof validators)[keyof typeof validators], value: unknown): void {
  expect(schemaErrors(validate, value), JSON.stringify(value).slice(0, 2000)).to.equal('');
}

function deadKubeconfig(dir: string): string {
  const path = join(dir, 'kubeconfig');
  // Port 9 (discard) on loopback: nothing listens, the connection is refused at once.
  writeFileSync(path, 'apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:9\ncontexts:\n- name: c\n  context: {cluster: c, user: u}\ncurrent-context: c\nusers:\n- name: u\n  user: {token: t}\n');
  return path;
}

describe('ocp-e2e ote: the openshift-tests extension interface', function () {
  this.timeout(180_000);

  describe('names, durations and encodings (no process)', () => {
    it('an origin-style name keeps the QE title, ensures a sig and ends with the suite marker of its [Serial]/[Disruptive] markers', () => {
      const title = '[sig-mco] MCO layering: x Author:me-NonPreRelease-Longduration-High-54183-[Serial][Disruptive] does y';
      expect(originName(title)).to.equal(`${title} [Suite:openshift/ocp-e2e/disruptive]`);
      expect(originName('A Author:me-High-E2E-9-[Serial] z')).to.equal('[sig-mco] A Author:me-High-E2E-9-[Serial] z [Suite:openshift/ocp-e2e/serial]');
      expect(originName('plain')).to.equal('[sig-mco] plain [Suite:openshift/ocp-e2e/parallel]');
      const facts = titleFacts(title);
      expect(facts.labels).to.deep.equal(['Disruptive', 'High', 'Longduration', 'NonPreRelease', 'Serial']);
      expect(facts.caseId).to.equal('54183');
      expect(titleFacts('Author:me-Medium-E2E-004-[Serial] x').caseId).to.equal('E2E-004');
      expect(titleFacts(`${title} [Lifecycle:informing]`).informing).to.equal(true);
      expect(facts.informing).to.equal(false);
    });

    it('--timeout takes Go durations; times and JSON are encoded as Go encodes them', () => {
      expect(parseGoDuration('90m')).to.equal(5_400_000);
      expect(parseGoDuration('1h30m45s')).to.equal(5_445_000);
      expect(parseGoDuration('1.5h')).to.equal(5_400_000);
      expect(parseGoDuration('250ms')).to.equal(250);
      expect(parseGoDuration('0')).to.equal(0);
      for (const bad of ['', '90', 'm', '5 m', '1d']) expect(() => parseGoDuration(bad), bad).to.throw(/not a duration/);
      expect(dbTime(new Date('2022-09-08T00:23:36.123Z'))).to.equal('2022-09-08 00:23:36.123000 UTC');
      expect(goJson({ q: 'a && b <c>' })).to.equal('{"q":"a \\u0026\\u0026 b \\u003cc\\u003e"}');
    });
  });

  describe('info, list, images (no cluster)', () => {
    let listed: Record<string, unknown>[] = [];

    before(async () => {
      const r = await ote(['list', '-o', 'jsonl']);
      expect(r.exitCode, r.stderr).to.equal(0);
      listed = jsonLines(r.stdout);
    });

    it('info: one JSON document the Extension type decodes: component openshift:external:ocp-e2e, the checkout\'s commit, suites with qualifiers and stability', async () => {
      const r = await ote(['info']);
      expect(r.exitCode, r.stderr).to.equal(0);
      const info = JSON.parse(r.stdout) as { apiVersion: string; component: object; source: { commit: string; git_tree_state: string }; suites: Array<{ name: string; qualifiers: string[]; clusterStability: string; parallelism?: number }>; images: unknown[] };
      expectValid(validators.extension, info);
      expect(info.apiVersion).to.equal('v1.1');
      expect(info.component).to.deep.equal({ product: 'openshift', type: 'external', name: 'ocp-e2e' });
      const head = await execa('git', ['rev-parse', 'HEAD'], { cwd: ROOT });
      expect(info.source.commit).to.equal(String(head.stdout).trim());
      expect(info.source.git_tree_state).to.match(/^(clean|dirty)$/);
      const umbrella = info.suites.find((s) => s.name === 'openshift/ocp-e2e');
      expect(umbrella, JSON.stringify(info.suites)).to.include({ clusterStability: 'Disruptive', parallelism: 1 });
      for (const s of info.suites) expect(s.qualifiers.every((q) => q.startsWith('(source == "openshift:external:ocp-e2e") && ')), s.name).to.equal(true);
      expect(info.images).to.deep.equal([]);
    });

    it('info in a payload: OCP_E2E_OTE_COMPONENT_TYPE=payload makes the component and every qualifier openshift:payload:ocp-e2e', async () => {
      const r = await ote(['info'], { env: { OCP_E2E_OTE_COMPONENT_TYPE: 'payload' } });
      const info = JSON.parse(r.stdout) as { component: { type: string }; suites: Array<{ qualifiers: string[] }> };
      expect(info.component.type).to.equal('payload');
      expect(info.suites.flatMap((s) => s.qualifiers).every((q) => q.includes('"openshift:payload:ocp-e2e"'))).to.equal(true);
    });

    it('list -o jsonl: one line per test that ExtensionTestSpec decodes, origin-style names with sig, Serial, Disruptive and Suite markers', () => {
      expect(listed.length).to.be.at.least(SPEC_COUNT);
      for (const spec of listed) expectValid(validators.testSpec, spec);
      const names = listed.map((s) => s.name as string);
      expect(new Set(names).size, 'names are unique').to.equal(names.length);
      for (const name of names) expect(name).to.match(/^\[sig-mco\] .*\[Serial\]\[Disruptive\] .* \[Suite:openshift\/ocp-e2e\/disruptive\]$/);
      // Every spec file has its tests listed, by its path.
      const locations = new Set(listed.flatMap((s) => s.codeLocations as string[]));
      expect([...locations].sort()).to.deep.equal(specFiles().map((f) => `specs/${f}`));
      const first = listed.find((s) => (s.codeLocations as string[])[0] === `specs/${specFiles()[0]}`)!;
      expect(first).to.deep.include({ source: 'openshift:external:ocp-e2e', lifecycle: 'blocking', tags: { case: '54183' } });
      expect(Object.keys(first.labels as object)).to.include.members(['Serial', 'Disruptive', 'High']);
      expect(first.environmentSelector).to.deep.equal({ exclude: 'topology=="External" || topology=="microshift"' });
    });

    it('the schemas refuse what Go\'s strict decoding refuses: an unknown field, labels as a list, a time in another layout', () => {
      const spec = listed[0]!;
      expect(schemaErrors(validators.testSpec, { ...spec, priority: 1 })).to.include('additional properties');
      expect(schemaErrors(validators.testSpec, { ...spec, labels: ['Serial'] })).to.not.equal('');
      expect(schemaErrors(validators.testSpec, { ...spec, resources: { isolation: { exclusive: true } } })).to.include('additional properties');
      const result = { name: 'n', lifecycle: 'blocking', duration: 1, startTime: '2022-09-08 00:23:36.123000 UTC', endTime: '2022-09-08 00:23:37.123000 UTC', result: 'passed', output: '' };
      expect(schemaErrors(validators.testResult, result)).to.equal('');
      expect(schemaErrors(validators.testResult, { ...result, startTime: '2022-09-08T00:23:36.123Z' })).to.include('pattern');
      expect(schemaErrors(validators.testResult, { ...result, result: 'pass' })).to.not.equal('');
    });

    it('list (json, the default) and list -o names give the same tests; list tests is list', async () => {
      const names = listed.map((s) => s.name);
      const [json, asNames, tests] = await Promise.all([ote(['list']), ote(['list', '-o', 'names']), ote(['list', 'tests', '-o', 'jsonl'])]);
      expect((JSON.parse(json.stdout) as Array<{ name: string }>).map((s) => s.name)).to.deep.equal(names);
      expect(asNames.stdout.trim().split('\n')).to.deep.equal(names);
      expect(jsonLines(tests.stdout).map((s) => s.name)).to.deep.equal(names);
    });

    it('list --suite selects by the suite\'s marker; an unknown suite fails as OTE does (stderr, exit 1, nothing on stdout)', async () => {
      const [disruptive, parallel, unknown] = await Promise.all([
        ote(['list', '--suite', 'openshift/ocp-e2e/disruptive', '-o', 'jsonl']),
        ote(['list', '--suite', 'openshift/ocp-e2e/parallel', '-o', 'jsonl']),
        ote(['list', '--suite', 'openshift/no-such-suite', '-o', 'jsonl']),
      ]);
      expect(jsonLines(disruptive.stdout).length).to.equal(listed.length);
      expect(jsonLines(parallel.stdout)).to.deep.equal([]);
      expect(unknown.exitCode).to.equal(1);
      expect(unknown.stdout).to.equal('');
      expect(unknown.stderr).to.include('no such suite: openshift/no-such-suite');
    });

    it('list takes origin\'s environment flags (--name=value): a hosted control plane selects no test, an HA AWS cluster all of them', async () => {
      const [hosted, ha] = await Promise.all([
        ote(['list', '-o', 'jsonl', '--topology=External', '--platform=aws']),
        ote(['list', '-o', 'jsonl', '--topology=HighlyAvailable', '--platform=aws', '--network=ovn', '--network-stack=ipv4', '--architecture=amd64', '--version=4.12', '--upgrade=minor', '--fact=a=b', '--feature-gate=X', '--feature-gate=Y', '--api-group=config.openshift.io', '--optional-capability=Build', '--external-connectivity=Direct']),
      ]);
      expect(hosted.exitCode, hosted.stderr).to.equal(0);
      expect(jsonLines(hosted.stdout)).to.deep.equal([]);
      expect(ha.exitCode, ha.stderr).to.equal(0);
      expect(jsonLines(ha.stdout).length).to.equal(listed.length);
    });

    it('images: [] (the suite builds its own images), which []Image decodes; list suites and components decode too', async () => {
      const [images, suites, components] = await Promise.all([ote(['images']), ote(['list', 'suites', '-o', 'json']), ote(['list', 'components', '-o', 'jsonl'])]);
      expect(images.stdout.trim()).to.equal('[]');
      expectValid(validators.images, JSON.parse(images.stdout));
      const info = JSON.parse((await ote(['info'])).stdout) as { suites: unknown[] };
      expect(JSON.parse(suites.stdout)).to.deep.equal(info.suites);
      expect(jsonLines(components.stdout)).to.deep.equal([{ product: 'openshift', type: 'external', name: 'ocp-e2e' }]);
    });

    it('an unknown component fails as OTE does', async () => {
      const r = await ote(['list', '--component', 'openshift:payload:nope']);
      expect(r.exitCode).to.equal(1);
      expect(r.stdout).to.equal('');
      expect(r.stderr).to.include('component not found: openshift:payload:nope');
    });

    it('run-test of an unknown name: one failed line naming it, at once, and nothing written', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'ocp-e2e-ote-'));
      const r = await ote(['run-test', '-n', 'no such test', '-o', 'jsonl'], { env: { EXTENSION_ARTIFACT_DIR: dir } });
      expect(r.exitCode).to.equal(1);
      const lines = jsonLines(r.stdout);
      expect(lines).to.have.length(1);
      expectValid(validators.testResult, lines[0]);
      expect(lines[0]).to.deep.include({ name: 'no such test', result: 'failed', lifecycle: 'blocking' });
      expect(lines[0]!.error).to.include('no such test: no such test');
      expect(existsSync(join(dir, 'reports')), 'nothing ran, so nothing is written').to.equal(false);
    });

    it('run-test without a reachable cluster: one failed line saying the server does not answer, quickly, with the run\'s log in the artefacts', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'ocp-e2e-ote-'));
      const name = listed[0]!.name as string;
      const r = await ote(['run-test', '-n', name, '-n', 'unknown one', '-o', 'jsonl'], { env: { KUBECONFIG: deadKubeconfig(dir), EXTENSION_ARTIFACT_DIR: dir }, timeoutMs: 90_000 });
      expect(r.exitCode, r.stderr).to.equal(1);
      expect(r.wallMs, 'a refused connection is not waited on').to.be.below(60_000);
      const lines = jsonLines(r.stdout);
      expect(lines.map((l) => [l.name, l.result])).to.deep.equal([[name, 'failed'], ['unknown one', 'failed']]);
      for (const l of lines) expectValid(validators.testResult, l);
      expect(lines[0]!.error).to.match(/^ocp-e2e run exited 4 before the test ran: ocp-e2e run: cannot reach the server https:\/\/127\.0\.0\.1:9/);
      expect(r.stderr, 'the run\'s own output goes to stderr').to.include('cannot reach the server');
      const folders = readdirSync(join(dir, 'reports'));
      expect(folders).to.have.length(1);
      expect(readdirSync(join(dir, 'reports', folders[0]!))).to.include('ocp-e2e-run.log');
    });
  });

  // One reference cluster at a time: a cluster upgrades once, so each profile gets its own.
  for (const { profile, args, expected } of [
    { profile: '4.12-ga', args: [], expected: 'passed' },
    { profile: '4.12-nightly-2022-09-08', args: ['--profile', '4.12-nightly-2022-09-08'], expected: 'failed' },
  ] as const) {
    describe(`run-test of spec 1 against \`cluster up\` (${profile})`, function () {
      this.timeout(400_000);
      let up: Awaited<ReturnType<typeof clusterUp>> | undefined;
      before(async () => {
        up = await clusterUp([...args]);
      });
      after(async () => {
        await up?.stop();
      });

      it(`prints one ${expected} line${expected === 'failed' ? ' with the operator\'s osImageURL mismatch in error' : ''}, and the run's reports under $EXTENSION_ARTIFACT_DIR/reports`, async () => {
        const listed = jsonLines((await ote(['list', '-o', 'jsonl'])).stdout);
        const spec1 = listed.find((s) => (s.codeLocations as string[])[0] === `specs/${specFiles()[0]}`)!.name as string;
        const dir = mkdtempSync(join(tmpdir(), 'ocp-e2e-ote-'));
        const r = await ote(['run-test', '-n', spec1, '-o', 'jsonl'], { env: { ...up!.env, KUBECONFIG: up!.kubeconfig, EXTENSION_ARTIFACT_DIR: dir }, timeoutMs: 360_000 });
        const lines = jsonLines(r.stdout);
        expect(lines, r.stderr.slice(-3000)).to.have.length(1);
        const line = lines[0]!;
        expectValid(validators.testResult, line);
        expect(line.name).to.equal(spec1);
        expect(line.result, String(line.error ?? r.stderr.slice(-3000))).to.equal(expected);
        expect(r.exitCode).to.equal(expected === 'passed' ? 0 : 1);
        expect(line.duration as number).to.be.above(0);
        expect(line.output).to.include('target: cluster https://127.0.0.1:');
        if (expected === 'failed') {
          expect(line.error).to.include('osImageURL mismatch for master');
          expect(line.error).to.match(/^\[phase upgrade\] /);
        } else {
          expect(line).not.to.have.property('error');
        }
        const reports = join(dir, 'reports', specFiles()[0]!.replace(/\.spec\.ts$/, ''));
        expect(readdirSync(join(reports, 'junit')).filter((f) => f.endsWith('.xml'))).to.have.length(1);
        expect(readdirSync(join(reports, 'allure-results')).some((f) => f.endsWith('-result.json'))).to.equal(true);
        expect(existsSync(join(reports, 'ocp-e2e-run.log'))).to.equal(true);
      });
    });
  }
});
