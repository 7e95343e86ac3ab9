/**
 * The report's flow (spec 54183, `ocp-e2e run --target cluster`, the real-cluster code path) on the reference
 * cluster while its API server misbehaves: with 5% of requests failing (2% 500, 2% 429 with Retry-After, 1% reset)
 * and every watch cut after 3 seconds it still passes; when every request fails (100% 500) partway through, the run
 * fails within its budget with a message that names the API error. Needs the Docker engine, like the suite.
 */
import { expect } from 'chai';
import { TIMESTAMP } from '../../bin/run/timestamps.js';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { startReferenceCluster, type ReferenceCluster } from '../../reference/index.js';
import { outputTail, referenceClientEnv, startCli } from '../support/cli-child.js';

const hasOc = (path: string): boolean => path.split(delimiter).some((dir) => dir && existsSync(join(dir, 'oc')));
/** PATH without the folders that hold an `oc`. */
const pathWithoutOc = (): string => (process.env.PATH ?? '').split(delimiter).filter((dir) => !existsSync(join(dir, 'oc'))).join(delimiter);

const FIVE_PERCENT = { rate500: 0.02, rate429: 0.02, retryAfterSeconds: 1, resetRate: 0.01, watchCutSeconds: 3 };
/** The spec's own budget on the reference (bin/run/targets/common.ts: max(60 s, 4 h of cluster time)). */
const SPEC_BUDGET_MS = 60_000;

describe('reliability: the report\'s flow on the reference cluster under API faults', function () {
  this.timeout(240_000);
  let reference: ReferenceCluster | undefined;
  let dir: string;

  beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'ocp-e2e-faults-')); });
  afterEach(async () => {
    await reference?.stop();
    reference = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  const runArgs = (ref: ReferenceCluster) => ['run', '--target', 'cluster', '--kubeconfig', ref.kubeconfigPath, '--allow-disruptive', '--grep', '54183', '--reports-dir', join(dir, 'reports')];

  // Nodes are read through their machine-config daemons (the default, auto: a debug pod where an exec fails), or
  // with --node-reads debug through `oc debug` when oc is installed and the suite's own debug pod otherwise: every
  // path must ride out the same faults (in CI oc is on PATH, so the last case takes it away).
  const cases = [
    { label: 'reading nodes through their daemons (auto: a debug pod where an exec fails)', withOc: true, args: [], ways: ['exec in', 'oc debug'], first: 'exec in' },
    { label: 'reading nodes with oc debug (--node-reads debug)', withOc: true, args: ['--node-reads', 'debug'], ways: ['oc debug'], first: 'oc debug' },
    { label: 'without oc (--node-reads debug: the API debug pod)', withOc: false, args: ['--node-reads', 'debug'], ways: ['debug pod'], first: 'debug pod' },
  ];
  for (const { label, withOc, args, ways, first } of cases) {
    it(`passes with 5% of API requests failing and watches cut every 3 s, ${label}`, async () => {
      const path = withOc ? process.env.PATH ?? '' : pathWithoutOc();
      if (withOc && !hasOc(path)) throw new Error('oc is not on PATH: this case uses oc (CI has ../shared/upstream/bin on PATH)');
      reference = await startReferenceCluster({ profile: '4.12-ga' });
      reference.setApiFaults(FIVE_PERCENT);
      const started = Date.now();
      const run = startCli([...runArgs(reference), ...args], { ...referenceClientEnv(reference), PATH: path });
      const { code } = await run.exited;
      const output = run.output();
      console.log(`reference flow under 5% API errors + watch cuts every 3 s (${label}): exit ${code} in ${((Date.now() - started) / 1000).toFixed(1)} s; ` +
        `${(output.match(/retrying|retry/gi) ?? []).length} retry mentions in the output`);
      expect(code, outputTail(output)).to.equal(0);
      // each node read is attached to the report as "node N asked: <how>"
      const asked = readdirSync(join(dir, 'reports', 'allure-results')).filter((f) => f.endsWith('-result.json'))
        .flatMap((f) => [...readFileSync(join(dir, 'reports', 'allure-results', f), 'utf8').matchAll(/asked: (exec in|oc debug|debug pod)/g)].map((m) => m[1]!));
      expect(asked, 'the nodes were read the way this case says').to.not.be.empty;
      expect([...new Set(asked)].filter((w) => !ways.includes(w)), `ways of reading beyond ${ways.join(', ')}`).to.deep.equal([]);
      expect(asked, `the case's own way (${first}) reads nodes`).to.include(first);
      expect(output.trimEnd().split('\n').at(-1)).to.equal('1 passed, 0 failed, 0 skipped');
    });
  }

  it('fails within its budget, naming the API error, when every request fails partway through', async () => {
    reference = await startReferenceCluster({ profile: '4.12-ga' });
    const run = startCli(runArgs(reference), referenceClientEnv(reference));
    // Once the pools are rolling out the spec's MachineConfigs, break the API server completely: every request
    // answers 500 and open watches end within 3 s (as they would when a real API server goes away).
    await run.waitFor(/not yet rendered|updated, node/, 120_000);
    reference.setApiFaults({ rate500: 1, watchCutSeconds: 3 });
    reference.dropApiWatches();
    const brokenAt = Date.now();
    const { code, at } = await run.exited;
    const output = run.output();
    if (process.env.RELIABILITY_DEBUG) console.log(output);
    // lines of the spec process start with the wall-clock time (bin/run/timestamps.ts)
    const failedAt = run.firstSeen(new RegExp(`^(?:${TIMESTAMP})?\\s+1\\) `, 'm'));
    const timeToFail = (failedAt ?? at) - brokenAt;
    console.log(`reference flow with 100% API errors from mid-run: the spec failed ${(timeToFail / 1000).toFixed(1)} s after the fault ` +
      `(budget ${SPEC_BUDGET_MS / 1000} s); the process exited ${((at - brokenAt) / 1000).toFixed(1)} s after it (artefacts and cleanup retried first)`);
    expect(code, outputTail(output)).to.equal(1);
    // The spec's own failure (not only a later hook) must say the API is failing.
    const listed = output.indexOf('  1) ', output.indexOf('failing'));
    const next = output.indexOf('  2) ', listed);
    const failure = output.slice(listed, next > 0 ? next : undefined);
    expect(failure, 'the spec failure names the API error').to.match(/HTTP 500 InternalError|Internal error occurred: injected fault/);
    expect(failedAt, 'the spec failure line').to.not.equal(undefined);
    expect(timeToFail, 'time from total failure to the spec failing').to.be.below(SPEC_BUDGET_MS);
  });
});
