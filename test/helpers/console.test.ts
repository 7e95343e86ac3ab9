/**
 * The console of a run: a line when a phase starts and one when it ends (name, elapsed), and a wait that says what it
 * waits for and its budget, then keeps saying where it is while nothing changes (elapsed / budget in cluster time), so
 * a stuck wait never looks like a hung process. The heartbeat interval is shortened here; the default is 10 s. Waits
 * run on a clock the test moves (timers and Date.now), so the times between lines are exact, not a guess.
 */
import { expect } from 'chai';
import { EventEmitter } from 'node:events';
import type { ClusterSnapshot, ClusterWatcher } from '../../helpers/cluster-watcher.js';
import { ConformanceSession } from '../../helpers/conformance.js';
import { consoleProgress, waitFor, WaitTimeoutError, type ProgressSink } from '../../helpers/wait.js';
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

/**
 * Runs `body` on a clock the test moves by hand: setTimeout, setInterval and Date.now (what waitFor reads) are
 * replaced until the body ends. `advance` fires every timer due on the way at its own time, in time order.
 * (Mocha keeps its own timers, taken when it loaded.)
 */
async function onFakeClock<T>(body: (advance: (ms: number) => void) => Promise<T>): Promise<T> {
  const real = { setTimeout, clearTimeout, setInterval, clearInterval, now: Date.now };
  const timers = new Map<number, { at: number; every?: number; fire: () => void }>();
  let now = real.now();
  let lastId = 0;
  const schedule = (fire: () => void, ms: number | undefined, repeat: boolean) => {
    const id = ++lastId;
    const delay = Math.max(1, ms ?? 0);
    timers.set(id, { at: now + delay, every: repeat ? delay : undefined, fire });
    return { id, unref() { return this; }, ref() { return this; } };
  };
  const cancel = (handle: unknown) => void timers.delete((handle as { id?: number } | undefined)?.id ?? -1);
  Object.assign(globalThis, {
    setTimeout: (fire: () => void, ms?: number) => schedule(fire, ms, false),
    setInterval: (fire: () => void, ms?: number) => schedule(fire, ms, true),
    clearTimeout: cancel,
    clearInterval: cancel,
  });
  Date.now = () => now;
  const advance = (ms: number) => {
    const end = now + ms;
    for (;;) {
      const [id, due] = [...timers].filter(([, t]) => t.at <= end).sort(([a, x], [b, y]) => x.at - y.at || a - b)[0] ?? [];
      if (!due) break;
      now = due.at;
      if (due.every) due.at += due.every;
      else timers.delete(id!);
      due.fire();
    }
    now = end;
  };
  try {
    return await body(advance);
  } finally {
    Object.assign(globalThis, { setTimeout: real.setTimeout, clearTimeout: real.clearTimeout, setInterval: real.setInterval, clearInterval: real.clearInterval });
    Date.now = real.now;
  }
}

/** A progress sink that keeps the notes (what the wait says, with the clock's time) apart from the progress lines. */
function noteTaker(): { sink: ProgressSink; notes: Array<{ at: number; line: string }> } {
  const notes: Array<{ at: number; line: string }> = [];
  const sink = Object.assign(() => undefined, { note: (line: string) => void notes.push({ at: Date.now(), line }) });
  return { sink, notes };
}

const stuckWait = { what: 'pool master updated', expected: 'Updated=True', caps: { timeFactor: 600 }, judge: () => ({ done: false, progress: 'master 1/3 updated' }) };

describe('console: phases and waits say where the run is', function () {
  this.timeout(20_000);

  it('a stuck wait says what it waits for and its budget, then beats with elapsed / budget in cluster time, never further apart than the heartbeat', async () => {
    await onFakeClock(async (advance) => {
      const { sink, notes } = noteTaker();
      const started = Date.now();
      const waiting = waitFor(stuckWatcher(), { ...stuckWait, budgetMs: 1600, heartbeatMs: 300 }, sink).catch((e: unknown) => e);
      advance(1600);
      expect(await waiting).to.be.instanceOf(WaitTimeoutError);
      const said = notes.map((n) => n.line).join('\n');
      expect(notes[0]?.line).to.equal('waiting for pool master updated (budget 16m00s cluster time (at most 1.6s wall))');
      const beats = notes.slice(1);
      expect(beats.length, said).to.be.at.least(3);
      for (const beat of beats) expect(beat.line).to.match(/^still waiting for pool master updated: master 1\/3 updated \(\d+m\d{2}s cluster time \(\d+\.\ds wall\) of 16m00s cluster time \(at most 1\.6s wall\)\)$/);
      // The heartbeat's promise: from the start to the timeout, no gap between two notes longer than the heartbeat
      // plus the ticker's period (half the heartbeat), which is when a due beat is noticed at the latest.
      const times = [started, ...notes.map((n) => n.at), started + 1600];
      const gaps = times.slice(1).map((t, i) => t - times[i]!);
      expect(Math.max(...gaps), `gaps ${gaps.join(', ')} ms between:\n${said}`).to.be.at.most(300 + 150);
    });
  });

  it('without a heartbeat of its own a stuck wait beats every 10 s', async () => {
    await onFakeClock(async (advance) => {
      const { sink, notes } = noteTaker();
      const started = Date.now();
      const waiting = waitFor(stuckWatcher(), { ...stuckWait, budgetMs: 25_000 }, sink).catch((e: unknown) => e);
      advance(25_000);
      expect(await waiting).to.be.instanceOf(WaitTimeoutError);
      const beats = notes.filter((n) => n.line.startsWith('still waiting for pool master updated'));
      expect(beats.map((b) => b.at - started), notes.map((n) => n.line).join('\n')).to.deep.equal([10_000, 20_000]);
    });
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
    expect(failed.lines, 'a start line and an end line, nothing else').to.have.length(2);
    expect(failed.lines[0]).to.equal('  ▶ phase upgrade: upgrade the cluster');
    expect(failed.lines[1]).to.match(/^ {2}■ phase upgrade failed after \d+s$/);
  });
});
