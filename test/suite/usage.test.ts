import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lastLine, ocpE2e } from './cli.js';

describe('ocp-e2e run: usage and environment errors exit 2 with one clear message', function () {
  this.timeout(60_000);

  const cases: [string, string[], RegExp, Record<string, string>?][] = [
    ['reference-only flags with --target cluster', ['run', '--target', 'cluster', '--profile', '4.12-ga'], /--profile applies to --target reference only/],
    ['a --grep that is not a regular expression', ['run', '--grep', '(unclosed'], /--grep is not a regular expression/],
    ['a --grep that selects nothing', ['run', '--grep', 'no-such-case-999'], /no spec title matches --grep no-such-case-999/],
    ['an unreadable pull secret', ['run', '--pull-secret', '/nonexistent/pull-secret.json'], /cannot read the pull secret \/nonexistent\/pull-secret.json/],
    ['a missing kubeconfig', ['run', '--target', 'cluster', '--kubeconfig', '/nonexistent/kubeconfig'], /no kubeconfig at \/nonexistent\/kubeconfig/],
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
