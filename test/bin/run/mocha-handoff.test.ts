import { expect } from 'chai';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startMocha } from '../../../bin/run/mocha.js';
import { OrderedOutput } from '../../../bin/run/output.js';
import { prepareReportsDir } from '../../../bin/run/results/reports-dir.js';
import { Supervisor } from '../../../bin/run/supervisor.js';
import type { TargetConfig } from '../../../helpers/target.js';
import { processAlive } from '../../../lib/process/alive.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/handoff.fixture.ts', import.meta.url));

async function until(what: string, done: () => boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!done()) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('bin/run/mocha: a spec process started before its target, which it is handed later', function () {
  this.timeout(60_000);
  let dir = '';
  const saved = { loaded: process.env.HANDOFF_LOADED, seen: process.env.HANDOFF_SEEN };
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ocp-e2e-handoff-'));
    await prepareReportsDir(join(dir, 'reports'));
    // the child inherits these: where the fixture says it loaded, and what its test saw
    process.env.HANDOFF_LOADED = join(dir, 'loaded');
    process.env.HANDOFF_SEEN = join(dir, 'seen.json');
  });
  afterEach(() => {
    for (const [key, value] of [['HANDOFF_LOADED', saved.loaded], ['HANDOFF_SEEN', saved.seen]] as const) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  const start = (supervisor: Supervisor) =>
    startMocha({ files: [FIXTURE], reportsDir: join(dir, 'reports'), phase: 'all', junitName: 'handoff', timeoutMs: 30_000 }, supervisor, new OrderedOutput().lane(0));

  it('loads its files first, runs no test until the target comes, then runs with exactly that target', async () => {
    const pending = start(new Supervisor());
    await until('the fixture is loaded', () => existsSync(join(dir, 'loaded')));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(existsSync(join(dir, 'seen.json')), 'no test ran before the hand-off').to.equal(false);
    const target: TargetConfig = { kind: 'reference', kubeconfigPath: join(dir, 'kubeconfig'), allowDisruptive: true, keepOnFailure: false, runId: 'r-handoff', reportsDir: join(dir, 'reports'), phase: 'all', nodeReads: 'auto' };
    const counts = await pending.run(target, { EXTRA_FROM_RUN: 'from the run' });
    expect(counts).to.deep.include({ passed: 1, failed: 0 });
    expect(JSON.parse(readFileSync(join(dir, 'seen.json'), 'utf8'))).to.deep.equal({ kubeconfig: join(dir, 'kubeconfig'), target: 'reference', extra: 'from the run', handoff: null });
  });

  it('cancel (the cluster did not start) ends the process, and no test runs', async () => {
    const pending = start(new Supervisor());
    await until('the fixture is loaded', () => existsSync(join(dir, 'loaded')));
    const pid = Number(readFileSync(join(dir, 'loaded'), 'utf8'));
    expect(processAlive(pid)).to.equal(true);
    await pending.cancel();
    await until(`process ${pid} is gone`, () => !processAlive(pid), 5_000);
    expect(existsSync(join(dir, 'seen.json'))).to.equal(false);
  });
});
