import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import { clusterUp, lastLine, type ClusterUp } from '../support/cli.js';
import { aPerson, IMAGE_README, readmeCommands, runLinesIn, TOP_README, type Person } from './support/readme-run.js';
import { imageRevision, ROOT, runImage, runnableImage, suiteImage, type Engine } from './support/suite-image.js';

/** The image's own facts, read inside it: what a Prow step or an OTE payload relies on. */
async function describeImage(engine: Engine, tag: string, user?: string): Promise<Record<string, string>> {
  const script = [
    'echo "node=$(node --version)"',
    'echo "uid=$(id -u)"',
    'echo "ocp-e2e=$(command -v ocp-e2e)"',
    'echo "tests-ext=$(command -v ocp-e2e-tests-ext)"',
    'echo "oc=$(command -v oc)"',
    'echo "typescript=$(test -e /opt/ocp-e2e/node_modules/typescript && echo present || echo absent)"',
    'echo "sources=$(ls /opt/ocp-e2e/bin/*.ts 2>/dev/null | wc -l)"',
    'echo "writable=$(touch /opt/ocp-e2e/x 2>/dev/null && echo yes || echo no)"',
    'echo "home=$HOME"',
    'echo "home-writable=$(touch "$HOME/x" 2>/dev/null && echo yes || echo no)"',
    'echo "passwd-entry=$(grep -q "^[^:]*:[^:]*:$(id -u):" /etc/passwd && echo yes || echo no)"',
    'echo "oc-runs=$(oc version --client >/dev/null 2>&1 && echo yes || echo no)"',
    'echo "listed=$(ocp-e2e-tests-ext list -o names 2>/dev/null | grep -c 54183)"',
  ].join('; ');
  const r = await runImage(engine, tag, ['-c', script], { entrypoint: 'bash', user });
  expect(r.exitCode, r.output).to.equal(0);
  return Object.fromEntries(r.output.trim().split('\n').map((l) => l.split('=', 2) as [string, string]));
}

for (const builder of ['docker', 'podman'] as const) {
  describe(`the suite's image built with ${builder} (images/ocp-e2e; ${builder}, ../shared/upstream/bin/oc)`, function () {
    this.timeout(600_000);
    let engine: Engine = builder;
    let tag = '';

    before(async () => {
      ({ engine, tag } = await runnableImage(builder));
    });

    it('holds Node 20, the compiled suite without TypeScript or dev dependencies, oc and the OTE shim on PATH, as a non-root user on a read-only root', async () => {
      const facts = await describeImage(engine, tag);
      expect(facts.node).to.match(/^v20\./);
      expect(facts.uid).to.not.equal('0');
      expect(facts['ocp-e2e']).to.equal('/opt/ocp-e2e/bin/ocp-e2e');
      expect(facts['tests-ext']).to.equal('/opt/ocp-e2e/bin/ocp-e2e-tests-ext');
      expect(facts.oc).to.equal('/usr/local/bin/oc');
      expect(facts.typescript, 'typescript is a dev dependency').to.equal('absent');
      expect(facts.sources, 'the image runs JavaScript').to.equal('0');
      expect(facts.writable).to.equal('no');
    });

    it('runs under an arbitrary uid and gid with no /etc/passwd entry, as OpenShift and the README\'s `--user "$(id -u):$(id -g)"` run it: HOME writable, oc and the suite work', async () => {
      const facts = await describeImage(engine, tag, '4242:4242');
      expect(facts.uid).to.equal('4242');
      expect(facts['passwd-entry'], 'the uid is unknown to the image').to.equal('no');
      expect(facts.home).to.equal('/tmp');
      expect(facts['home-writable']).to.equal('yes');
      expect(facts['oc-runs']).to.equal('yes');
      expect(facts.listed, 'every file of the install is readable by any uid').to.equal('1');
      expect(facts.writable).to.equal('no');
    });

    it('`ocp-e2e-tests-ext info` reports the commit it was built from (build-info.json: there is no git in the image)', async () => {
      const r = await runImage(engine, tag, ['info'], { entrypoint: 'ocp-e2e-tests-ext' });
      expect(r.exitCode, r.output).to.equal(0);
      const info = JSON.parse(r.output) as { source: { commit: string; build_date: string } };
      // Others commit to this checkout meanwhile: the image's commit is the one its label names, a commit of ours.
      expect(info.source.commit).to.equal(await imageRevision(engine, tag));
      expect((await execa('git', ['merge-base', '--is-ancestor', info.source.commit, 'HEAD'], { cwd: ROOT, reject: false })).exitCode).to.equal(0);
      expect(Date.parse(info.source.build_date)).to.be.greaterThan(Date.parse('2024-01-01'));
    });

    it('lists its tests where the listing cache cannot be written (a folder of the read-only install: EROFS)', async () => {
      const r = await runImage(engine, tag, ['list', '-o', 'names'], { entrypoint: 'ocp-e2e-tests-ext', env: { OCP_E2E_CACHE_DIR: '/opt/ocp-e2e/bin/no-cache-here' } });
      expect(r.exitCode, r.output).to.equal(0);
      expect(r.output).to.match(/54183/);
    });
  });
}

/** The README's docker block (images/ocp-e2e/README.md): `mkdir -p artifacts`, the run line, the report line. */
const README_BLOCK = readmeCommands(IMAGE_README, 'Run against a cluster');
const RUN_LINE = README_BLOCK.find((c) => / run --target cluster /.test(c))!;
const USER_FLAG = '--user "$(id -u):$(id -g)"';

/**
 * A README command with its placeholders given (the image, the person's pull secret, the cluster's registry); against
 * `cluster up` the run line also mounts the cluster's CA bundle (as the README says) and selects spec 1. Nothing else
 * of the line is changed.
 */
function asWritten(command: string, tag: string, registry: string): string {
  let line = command
    .replaceAll('localhost/ocp-e2e/ocp-e2e:<tag>', tag)
    .replaceAll('/path/to/pull-secret.json', '"$HOME/pull-secret.json"')
    .replaceAll('quay.io/<you>/ocp-e2e-layered', `${registry}/ocp-e2e-layered`);
  expect(line, 'a placeholder of the README this test does not fill').to.not.match(/<[a-z-]+>/);
  if (command === RUN_LINE) {
    line = line.replace(/^docker run /, 'docker run -v "$HOME/ca-bundle.crt:/var/run/ocp-e2e/ca-bundle.crt:ro" -e SSL_CERT_FILE=/var/run/ocp-e2e/ca-bundle.crt ');
    line += ' --grep 54183';
  }
  return line;
}

/** The registry of a `cluster up`, from the first comment of its env file (which names it; the file holds no secret). */
function registryOf(up: ClusterUp): string {
  const m = /registry (\S+?)\. /.exec(readFileSync(join(dirname(up.kubeconfig), 'env'), 'utf8'));
  if (!m) throw new Error('the env file of cluster up names no registry');
  return m[1]!;
}

describe('the suite\'s image against `ocp-e2e cluster up`, run by the lines of images/ocp-e2e/README.md as written, by a user who is not root with their own kubeconfig and pull secret of mode 0600 (Docker engine, ../shared/upstream/bin/oc)', function () {
  this.timeout(600_000);
  let tag = '';

  before(async () => {
    tag = await suiteImage('docker');
  });

  it('README.md shows the same docker run line; the docker lines pass --user, podman\'s keeps the user\'s id (--userns=keep-id) with the same mounts', () => {
    expect(RUN_LINE, 'images/ocp-e2e/README.md has a run line').to.be.a('string');
    expect(README_BLOCK[0]).to.equal('mkdir -p artifacts');
    expect(runLinesIn(TOP_README, 'docker')).to.deep.equal([RUN_LINE]);
    for (const line of runLinesIn(IMAGE_README, 'docker')) expect(line).to.include(` ${USER_FLAG} `);
    const podman = runLinesIn(IMAGE_README, 'podman');
    expect(podman).to.have.length(1);
    expect(podman[0]).to.include(' --userns=keep-id ').and.not.include('--user ');
    const mountsOf = (line: string) => line.match(/-v \S+:\/var\/run\/ocp-e2e\/\S+/g);
    expect(mountsOf(podman[0]!)).to.deep.equal(mountsOf(RUN_LINE));
  });

  for (const profile of ['4.12-ga', '4.12-nightly-2022-09-08'] as const) {
    describe(`on ${profile}`, () => {
      let up: ClusterUp | undefined;
      let person: Person | undefined;
      let registry = '';

      before(async () => {
        up = await clusterUp(['--profile', profile]);
        registry = registryOf(up);
        person = aPerson();
        // Where oc login and a downloaded pull secret leave them: ~/.kube/config and ~/pull-secret.json, 0600, theirs.
        person.keep(up.kubeconfig, '.kube/config', 0o600);
        person.keep(up.env.REGISTRY_AUTH_FILE!, 'pull-secret.json', 0o600);
        person.keep(up.env.SSL_CERT_FILE!, 'ca-bundle.crt', 0o644);
      });
      after(async () => {
        person?.remove();
        await up?.stop();
      });

      const passes = profile === '4.12-ga';
      it(`${passes ? 'passes' : 'fails'} spec 1 (54183)${passes ? '' : ' quoting the operator\'s osImageURL mismatch'}, JUnit and the HTML report under $ARTIFACT_DIR, the person's own`, async () => {
        for (const command of README_BLOCK) {
          const r = await person!.run(asWritten(command, tag, registry));
          if (command !== RUN_LINE) {
            expect(r.exitCode, `${command}\n${r.output}`).to.equal(0);
            continue;
          }
          console.log(`      image start to first spec: ${((r.toFirstSpecMs ?? NaN) / 1000).toFixed(1)} s (${profile})`);
          expect(r.exitCode, r.output).to.equal(passes ? 0 : 1);
          expect(lastLine(r.output)).to.equal(passes ? '1 passed, 0 failed, 0 skipped' : '0 passed, 1 failed, 0 skipped');
          if (!passes) expect(r.output).to.match(/osImageURL mismatch for master in rendered-master-\S+ expected: \S+ got: \S+/);
          expect(r.output).to.include('JUnit: /artifacts/junit');
        }
        const artifacts = join(person!.home, 'artifacts');
        const junit = readFileSync(join(artifacts, 'junit', 'cluster.xml'), 'utf8');
        expect(junit).to.include('file="specs/01-upgrade-custom-os-image-both-pools.spec.ts"');
        expect(junit).to.match(passes ? /failures="0"/ : /<failure[\s\S]*osImageURL mismatch/);
        expect(readdirSync(join(artifacts, 'allure-results')).some((f) => f.endsWith('-result.json'))).to.equal(true);
        expect(existsSync(join(artifacts, 'html', 'index.html'))).to.equal(true);
        const { stdout } = await execa('find', [artifacts, '!', '-uid', String(person!.uid)]);
        expect(stdout, 'files the container left that are not the person\'s').to.equal('');
      });

      if (passes) {
        it('the run line without --user (the image\'s own uid 1001) stops before any cluster time: it cannot read the 0600 pull secret and kubeconfig, and says to run as its owner with --user', async () => {
          const line = asWritten(RUN_LINE, tag, registry);
          expect(line).to.include(` ${USER_FLAG} `);
          const r = await person!.run(line.replace(` ${USER_FLAG} `, ' '));
          // The preflight reads the pull secret (exit 2) before the kubeconfig (exit 3): either is the person's, 0600.
          expect(r.exitCode, r.output).to.be.oneOf([2, 3]);
          expect(r.output).to.match(/cannot read the (pull secret \/var\/run\/ocp-e2e\/pull-secret\.json|kubeconfig \/var\/run\/ocp-e2e\/kubeconfig): EACCES: permission denied/);
          expect(r.output).to.match(new RegExp(`the file is mode 0600, owned by uid ${person!.uid} gid ${person!.gid}; this process runs as uid 1001 gid 0`));
          expect(r.output).to.include(`docker run ${USER_FLAG}`);
          expect(r.toFirstSpecMs, 'no spec ran').to.equal(undefined);

          // Without the pull secret too, the kubeconfig is the file it stops on: exit 3, the same way out. (Without the
          // artifacts folder also: the first run's reports there are the person's, and uid 1001 may not clear them.)
          const noSecret = line
            .replace(` ${USER_FLAG} `, ' ')
            .replace(/ -v "\$HOME\/pull-secret\.json"\S*/, '')
            .replace(/ --pull-secret \S+/, '')
            .replace(/ -v "\$PWD\/artifacts:\/artifacts" -e ARTIFACT_DIR=\/artifacts/, '');
          expect(noSecret).to.not.match(/pull-secret|artifacts/);
          const k = await person!.run(noSecret);
          expect(k.exitCode, k.output).to.equal(3);
          expect(k.output).to.match(/cannot read the kubeconfig \/var\/run\/ocp-e2e\/kubeconfig: EACCES: permission denied.* \(the file is mode 0600, owned by uid \d+ gid \d+; this process runs as uid 1001 gid 0\)/);
          expect(k.output).to.include(`docker run ${USER_FLAG}`);
        });
      }
    });
  }
});
