/**
 * Spec 1 (the report's case 54183) end to end with and without the real `oc` 4.12 on PATH: with it, the suite takes
 * the paths a QE machine takes (release info through `oc`, nodes through `oc debug node/…`); without it, the API paths
 * (the same debug pod created through the API). Both pass on 4.12-ga and fail on the report's nightly with the
 * deadlock diagnosis. How each node was asked is attached to the results, which is what is checked here.
 * A missing `oc` fails these tests with a message; they do not skip.
 */
import { expect } from 'chai';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path, { delimiter, join } from 'node:path';
import { lastLine, ocpE2e, ROOT, type CliRun } from '../support/cli.js';

const UPSTREAM_BIN = path.resolve(ROOT, '..', 'shared', 'upstream', 'bin');

/**
 * A folder whose `oc` writes its arguments to `calls.log`, then runs the real oc with them: the test then sees which
 * steps went through oc, not only that the run passed.
 */
function recordingOc(): { dir: string; calls(): string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'ocp-e2e-oc-calls-'));
  const log = join(dir, 'calls.log');
  writeFileSync(join(dir, 'oc'), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec '${join(UPSTREAM_BIN, 'oc')}' "$@"\n`);
  chmodSync(join(dir, 'oc'), 0o755);
  return { dir, calls: () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : []) };
}

/** PATH without any directory holding an `oc`, then (with `ocDir`) that folder first. */
function pathFor(ocDir: string | undefined): string {
  const rest = (process.env.PATH ?? '').split(delimiter).filter((d) => d && !existsSync(join(d, 'oc')));
  return (ocDir ? [ocDir, ...rest] : rest).join(delimiter);
}

const upgradeCall = (c: string): boolean => /(^| )adm upgrade --to-image=/.test(c);

/** What the run did through oc: release info, the upgrade, node reads. */
function expectOcPaths(calls: string[], expected: { withOc: boolean; ocDebug: boolean }): void {
  const used = {
    'release info': calls.some((c) => /(^| )adm release info /.test(c)),
    'oc adm upgrade': calls.some(upgradeCall),
    'oc debug node': calls.some((c) => /(^| )debug node\//.test(c)),
  };
  expect(used, calls.join('\n')).to.deep.equal({ 'release info': expected.withOc, 'oc adm upgrade': expected.withOc, 'oc debug node': expected.ocDebug });
}

/** The names of every step of every Allure result. */
function stepNames(run: CliRun): string[] {
  const dir = join(run.reportsDir, 'allure-results');
  const names: string[] = [];
  const walk = (steps: Array<{ name?: string; steps?: unknown[] }> = []): void => {
    for (const s of steps) {
      if (s.name) names.push(s.name);
      walk(s.steps as typeof steps);
    }
  };
  for (const f of readdirSync(dir).filter((f) => f.endsWith('-result.json'))) walk(JSON.parse(readFileSync(join(dir, f), 'utf8')).steps);
  return names;
}

/** The attachment names of every Allure result: `node <name> asked: <how>` says how a node was read. */
function askedNodes(run: CliRun): string[] {
  const dir = join(run.reportsDir, 'allure-results');
  const names: string[] = [];
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object') {
      const o = value as { name?: unknown; source?: unknown };
      if (typeof o.name === 'string' && typeof o.source === 'string' && o.name.startsWith('node ')) names.push(o.name);
      Object.values(value).forEach(walk);
    }
  };
  for (const f of readdirSync(dir).filter((f) => f.endsWith('-result.json') && statSync(join(dir, f)).isFile())) walk(JSON.parse(readFileSync(join(dir, f), 'utf8')));
  return names;
}

describe('spec 1 with and without the real oc on PATH', function () {
  this.timeout(300_000);

  before(() => {
    if (!existsSync(join(UPSTREAM_BIN, 'oc'))) throw new Error(`the real oc 4.12 is missing: expected ${join(UPSTREAM_BIN, 'oc')} (../shared/upstream/bin/oc); this test runs it and does not skip`);
  });

  // With oc on PATH every step goes through it: release info (over TLS to the reference's registry, trusting the
  // cluster's CA), the upgrade (`oc adm upgrade`) and, with --node-reads debug, the nodes (`oc debug node`); without
  // it, the API paths. The default (auto) reads the nodes through their machine-config daemons, oc or not.
  for (const withOc of [true, false]) {
    const how = withOc ? /^node \S+ asked: oc debug node\/\S+ -- chroot \/host sh -c / : /^node \S+ asked: debug pod openshift-debug-[a-z0-9]+\/\S+-debug on node \S+: chroot \/host sh -c /;
    const label = withOc ? 'with oc (--node-reads debug: nodes through oc debug)' : 'without oc (--node-reads debug: nodes through a debug pod made through the API)';

    it(`${label}: passes on 4.12-ga`, async () => {
      const oc = recordingOc();
      const r = await ocpE2e(['run', '--grep', '54183', '--node-reads', 'debug'], { timeoutMs: 280_000, env: { PATH: pathFor(withOc ? oc.dir : undefined) } });
      expect(r.exitCode, r.output).to.equal(0);
      expect(lastLine(r.output)).to.equal('1 passed, 0 failed, 0 skipped');
      const asked = askedNodes(r);
      expect(asked, 'one debug pod per node and check: 3 masters + 2 workers').to.have.length(5);
      for (const name of asked) expect(name).to.match(how);
      expect(r.output).to.include(`requested with ${withOc ? 'oc adm upgrade' : 'merge patch of clusterversion/version'}`);
      expectOcPaths(oc.calls(), { withOc, ocDebug: withOc });
      // Allure shows wall durations only: the long waits say in their titles how long they took on the cluster's clock
      expect(stepNames(r).join('\n')).to.match(/^wait for ClusterVersion to complete the upgrade · took [1-9]\d*m\d\ds cluster time \(\d+\.\ds wall\)$/m);
    });

    it(`${label}: fails on 4.12-nightly-2022-09-08 with the deadlock diagnosis`, async () => {
      const oc = recordingOc();
      const r = await ocpE2e(['run', '--profile', '4.12-nightly-2022-09-08', '--grep', '54183'], { timeoutMs: 280_000, env: { PATH: pathFor(withOc ? oc.dir : undefined) } });
      expect(r.exitCode, r.output).to.equal(1);
      expect(lastLine(r.output)).to.equal('0 passed, 1 failed, 0 skipped');
      expect(r.output).to.match(/\[phase upgrade\] .*cannot happen: machine-config stays Degraded on its osImageURL check/);
      expect(r.output).to.include('osImageURL mismatch for master in rendered-master-');
      const calls = oc.calls();
      expect(calls.some(upgradeCall), calls.join('\n')).to.equal(withOc);
    });
  }

  it('with oc and the default --node-reads auto: the nodes are read through their machine-config daemons, no oc debug', async () => {
    const oc = recordingOc();
    const r = await ocpE2e(['run', '--grep', '54183'], { timeoutMs: 280_000, env: { PATH: pathFor(oc.dir) } });
    expect(r.exitCode, r.output).to.equal(0);
    expect(lastLine(r.output)).to.equal('1 passed, 0 failed, 0 skipped');
    const asked = askedNodes(r);
    expect(asked, 'one read per node and check: 3 masters + 2 workers').to.have.length(5);
    for (const name of asked) {
      expect(name).to.match(/^node (\S+) asked: exec in openshift-machine-config-operator\/machine-config-daemon-[a-z0-9]{5} \(container machine-config-daemon\) on node (\S+): chroot \/rootfs sh -c /);
      const [, asked1, on] = /^node (\S+) asked: .* on node (\S+):/.exec(name)!;
      expect(on, 'the daemon of the node itself').to.equal(asked1);
    }
    expectOcPaths(oc.calls(), { withOc: true, ocDebug: false });
  });
});
