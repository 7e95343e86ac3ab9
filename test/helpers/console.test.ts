/**
 * The console of a run: a line when a phase starts and one when it ends (name, elapsed), and a wait that says what it
 * waits for and its budget, then keeps saying where it is while nothing changes (elapsed / budget in cluster time), so
 * a stuck wait never looks like a hung process. The heartbeat interval is shortened here; the default is 10 s.
 */
import { expect } from 'chai';
import { EventEmitter } from 'node:events';
import type { ClusterSnapshot, ClusterWatcher } from '../../helpers/cluster-watcher.js';
import { ConformanceSession } from '../../helpers/conformance.js';
import { consoleProgress, DEFAULT_HEARTBEAT_MS, waitFor, WaitTimeoutError } from '../../helpers/wait.js';
import type { TargetConfig } from '../../helpers/target.js';

/** A watcher whose cluster never changes. */
function stuckWatcher(): ClusterWatcher {
  const events = new EventEmitter();
  const snapshot = { pools: new Map(), nodes: new Map(), operators: new Map(), machineConfigs: new Map() } as unknown as ClusterSnapshot;
  return {
    snapshot: () => snapshot,
    onChange: (l: () => void) => events.on('change', l),
    offChange: (l: () => void) => events.off('change', l),
    lastError: undefined,
  } as unknown as ClusterWatcher;
}

/** Captures what a function prints with console.log. */
async function printed<T>(body: () => Promise<T>): Promise<{ lines: string[]; result?: T; error?: unknown }> {
  const lines: string[] = [];
  const original = console.log;
  console.log = (...args: unknown[]) => void lines.push(args.join(' '));
  try {
    return { lines, result: await body() };
  } catch (error) {
    return { lines, error };
  } finally {
    console.log = original;
  }
}

describe('console: phases and waits say where the run is', function () {
  this.timeout(20_000);

  it('a stuck wait says what it waits for and its budget, then beats with elapsed / budget in cluster time', async () => {
    const lines: string[] = [];
    const sink = Object.assign((line: string) => void lines.push(`progress: ${line}`), { note: (line: string) => void lines.push(`note: ${line}`) });
    const started = Date.now();
    const error = await waitFor(
      stuckWatcher(),
      { what: 'pool master updated', expected: 'Updated=True', budgetMs: 1600, heartbeatMs: 300, caps: { timeFactor: 600 }, judge: () => ({ done: false, progress: 'master 1/3 updated' }) },
      sink,
    ).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(WaitTimeoutError);
    expect(lines[0]).to.equal('note: waiting for pool master updated (budget 16m00s cluster time (1.6s wall))');
    const beats = lines.filter((l) => l.startsWith('note: still waiting for pool master updated: master 1/3 updated ('));
    expect(beats.length, lines.join('\n')).to.be.at.least(3);
    for (const beat of beats) expect(beat).to.match(/\(\d+m\d{2}s cluster time \(\d+\.\ds wall\) of 16m00s cluster time \(1\.6s wall\)\)$/);
    // No gap between lines longer than the heartbeat (plus the ticker's granularity) while the wait ran.
    expect(Date.now() - started).to.be.lessThan(4000);
    expect(DEFAULT_HEARTBEAT_MS).to.equal(10_000);
  });

  it('a wait that moves prints its progress only when it changes, and nothing stale after it ended', async () => {
    const written: string[] = [];
    const stream = { isTTY: false, write: (s: string) => void written.push(s) } as unknown as NodeJS.WriteStream;
    const sink = consoleProgress(stream);
    sink('a');
    sink('a');
    sink('b'); // within a second: held back, shown by end()
    sink.end();
    sink.end(); // a second end (the session's, after the test's verdict) prints nothing
    expect(written).to.deep.equal(['    … a\n', '    … b\n']);
  });

  it('each phase prints a line when it starts and one when it ends, passed or failed, with its elapsed time', async () => {
    const target = { kind: 'cluster', kubeconfigPath: '/nonexistent', allowDisruptive: false, keepOnFailure: false, runId: 'r1', reportsDir: '/tmp/ocp-e2e-console-test', phase: 'all' } as TargetConfig;
    const session = new ConformanceSession({ disruptive: false }, target);
    const ok = await printed(() => session.phase('prepare', 'override both pools', async () => 42));
    expect(ok.result).to.equal(42);
    expect(ok.lines[0]).to.equal('  ▶ phase prepare: override both pools');
    expect(ok.lines[1]).to.match(/^ {2}■ phase prepare passed in \d+s$/);
    const failed = await printed(() => session.phase('upgrade', 'upgrade the cluster', async () => Promise.reject(new Error('boom'))));
    expect(String(failed.error)).to.include('[phase upgrade] upgrade the cluster failed: boom');
    expect(failed.lines).to.deep.equal(['  ▶ phase upgrade: upgrade the cluster', failed.lines[1]]);
    expect(failed.lines[1]).to.match(/^ {2}■ phase upgrade failed after \d+s$/);
  });
});
