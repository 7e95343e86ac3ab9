import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lastLine, ocpE2e } from '../support/cli.js';
import { SPEC_COUNT } from './support/spec-files.js';
import { useSettledMockCluster } from '../helpers/fixture.js';
import { TIMESTAMP } from '../../bin/run/timestamps.js';

describe('ocp-e2e run: usage and environment errors exit 2 with one clear message', function () {
  this.timeout(60_000);

  const cases: [string, string[], RegExp, Record<string, string>?][] = [
    ['reference-only flags with --target cluster', ['run', '--target', 'cluster', '--profile', '4.12-ga'], /--profile applies to --target reference only/],
    ['a --grep that is not a regular expression', ['run', '--grep', '(unclosed'], /--grep is not a regular expression/],
    ['a --grep that selects nothing', ['run', '--grep', 'no-such-case-999'], /no spec title matches --grep no-such-case-999/],
    ['an unreadable pull secret', ['run', '--pull-secret', '/nonexistent/pull-secret.json'], /cannot read the pull secret \/nonexistent\/pull-secret.json/],
    ['no container engine', ['run', '--grep', '54183'], /engine|docker/i, { DOCKER_HOST: 'unix:///nonexistent/docker.sock' }],
  ];

  for (const [what, args, message, env] of cases) {
    it(what, async () => {
      const r = await ocpE2e(args, { env });
      expect(r.exitCode, r.output).to.equal(2);
      expect(r.output).to.match(message);
      expect(r.output).to.not.match(/\n\s+at /, 'a usage error prints no stack trace');
    });
  }

  describe('against a cluster that is not a reference cluster (the mock API server with OpenShift objects)', () => {
    const cluster = useSettledMockCluster();

    it('--allow-disruptive without --image-repo is refused before anything runs', async () => {
      const r = await ocpE2e(['run', '--target', 'cluster', '--kubeconfig', cluster().kubeconfigPath, '--allow-disruptive']);
      expect(r.exitCode, r.output).to.equal(2);
      expect(r.output).to.match(new RegExp(`^${TIMESTAMP}target: cluster https://127\\.0\\.0\\.1:\\d+\\n${TIMESTAMP}current version: 4\\.12\\.0-0\\.nightly-2022-09-08-002336 \\(5 nodes\\)`));
      expect(r.output).to.include('--image-repo is required on a real cluster');
    });

    it('without --allow-disruptive every spec is skipped with the reason and the cluster is untouched', async () => {
      const r = await ocpE2e(['run', '--target', 'cluster', '--kubeconfig', cluster().kubeconfigPath]);
      expect(r.exitCode, r.output).to.equal(0);
      expect(lastLine(r.output)).to.equal(`0 passed, 0 failed, ${SPEC_COUNT} skipped`);
      expect((await cluster().cluster.getClusterVersion()).spec?.desiredUpdate ?? null).to.equal(null);
    });
  });

  it('an unknown fault is refused naming the valid ones', async () => {
    const r = await ocpE2e(['run', '--grep', '54183', '--fault', 'no-such-fault']);
    expect(r.exitCode, r.output).to.equal(2);
    expect(r.output).to.match(/unknown fault "no-such-fault".*valid faults/s);
  });

  it('a pull secret that is not JSON is refused without echoing it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ocp-e2e-usage-'));
    writeFileSync(join(dir, 'ps.json'), 'not-json-SECRET-MARKER-77');
    const r = await ocpE2e(['run', '--pull-secret', join(dir, 'ps.json')]);
    expect(r.exitCode).to.equal(2);
    expect(r.output).to.include('is not JSON').and.not.include('SECRET-MARKER-77');
    expect(lastLine(r.output)).to.match(/^ocp-e2e run: /);
  });
});
