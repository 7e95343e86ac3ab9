import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { clusterUp, lastLine, type ClusterUp } from '../support/cli.js';
import { artifactDir, imageRevision, ROOT, runImage, runnableImage, stageClusterFiles, suiteImage, type ClusterFiles, type Engine } from './support/suite-image.js';

const SPEC1 = ['run', '--target', 'cluster', '--grep', '54183', '--allow-disruptive'];

/** The image's own facts, read inside it: what a Prow step or an OTE payload relies on. */
async function describeImage(engine: Engine, tag: string): Promise<Record<string, string>> {
  const script = [
    'echo "node=$(node --version)"',
    'echo "uid=$(id -u)"',
    'echo "ocp-e2e=$(command -v ocp-e2e)"',
    'echo "tests-ext=$(command -v ocp-e2e-tests-ext)"',
    'echo "oc=$(command -v oc)"',
    'echo "typescript=$(test -e /opt/ocp-e2e/node_modules/typescript && echo present || echo absent)"',
    'echo "sources=$(ls /opt/ocp-e2e/bin/*.ts 2>/dev/null | wc -l)"',
    'echo "writable=$(touch /opt/ocp-e2e/x 2>/dev/null && echo yes || echo no)"',
  ].join('; ');
  const r = await runImage(engine, tag, ['-c', script], { entrypoint: 'bash' });
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

describe('the suite\'s image against `ocp-e2e cluster up` (docker run: host network, read-only root, secrets mounted read-only; Docker engine, ../shared/upstream/bin/oc)', function () {
  this.timeout(600_000);
  let tag = '';

  before(async () => {
    tag = await suiteImage('docker');
  });

  for (const profile of ['4.12-ga', '4.12-nightly-2022-09-08'] as const) {
    describe(`on ${profile}`, () => {
      let up: ClusterUp | undefined;
      let files: ClusterFiles | undefined;
      let artifacts = '';

      before(async () => {
        up = await clusterUp(['--profile', profile]);
        files = stageClusterFiles(up.kubeconfig, up.env);
        artifacts = artifactDir();
      });
      after(async () => {
        files?.remove();
        await up?.stop();
        if (artifacts) rmSync(artifacts, { recursive: true, force: true });
      });

      const passes = profile === '4.12-ga';
      it(`${passes ? 'passes' : 'fails'} spec 1 (54183)${passes ? '' : ' quoting the operator\'s osImageURL mismatch'}, JUnit and the HTML report under $ARTIFACT_DIR`, async () => {
        const r = await runImage('docker', tag, [...SPEC1, '--kubeconfig', files!.kubeconfig], { cluster: files, artifacts, engineSocket: true });
        console.log(`      image start to first spec: ${((r.toFirstSpecMs ?? NaN) / 1000).toFixed(1)} s (${profile})`);
        expect(r.exitCode, r.output).to.equal(passes ? 0 : 1);
        expect(lastLine(r.output)).to.equal(passes ? '1 passed, 0 failed, 0 skipped' : '0 passed, 1 failed, 0 skipped');
        if (!passes) expect(r.output).to.match(/osImageURL mismatch for master in rendered-master-\S+ expected: \S+ got: \S+/);
        expect(r.output).to.include('JUnit: /artifacts/junit');

        const junit = readFileSync(join(artifacts, 'junit', 'cluster.xml'), 'utf8');
        expect(junit).to.include('file="specs/01-upgrade-custom-os-image-both-pools.spec.ts"');
        expect(junit).to.match(passes ? /failures="0"/ : /<failure[\s\S]*osImageURL mismatch/);
        expect(readdirSync(join(artifacts, 'allure-results')).some((f) => f.endsWith('-result.json'))).to.equal(true);

        const report = await runImage('docker', tag, ['report', '--reports-dir', '/artifacts'], { artifacts });
        expect(report.exitCode, report.output).to.equal(0);
        expect(existsSync(join(artifacts, 'html', 'index.html'))).to.equal(true);
      });
    });
  }
});
