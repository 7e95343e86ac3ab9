/**
 * The wall-clock time that starts each console line of a run (bin/run/timestamps.ts): stamped once per line when the
 * line arrives, held-back output keeping its own times, the run's own lines stamped, and the closing summary line
 * plain, as CI reads it.
 */
import { expect } from 'chai';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { OrderedOutput } from '../../../bin/run/output.js';
import { writeManifest } from '../../../bin/run/results/manifest.js';
import { LineStamper, plainLine, stampConsole, TIMESTAMP_PREFIX, wallClock, withoutTimestamp } from '../../../bin/run/timestamps.js';
import { lastLine, ocpE2e } from '../../support/cli.js';

/** A clock that reads `t` seconds after 2026-12-02T03:12:45Z. */
function clock(): { now: () => Date; t: number } {
  const c = { t: 0, now: () => new Date(Date.UTC(2026, 11, 2, 3, 12, 45 + c.t)) };
  return c;
}

describe('run: wall-clock timestamps on console lines', () => {
  it('are ISO 8601 in UTC to the second', () => {
    expect(wallClock(new Date(Date.UTC(2026, 11, 2, 3, 12, 45, 678)))).to.equal('2026-12-02T03:12:45Z');
    expect(withoutTimestamp('2026-12-02T03:12:45Z   SKIP x')).to.equal('  SKIP x');
    expect(withoutTimestamp('  SKIP x'), 'a line without a stamp stays as it is').to.equal('  SKIP x');
  });

  it('stamp a line once when its first character arrives, however it is split into chunks; empty lines stay empty', () => {
    const c = clock();
    const s = new LineStamper(c.now, true);
    let out = s.stamp('  ▶ phase prepare: x\n    … wait');
    c.t = 5;
    out += s.stamp('ing\n\n');
    out += s.stamp('  ■ phase prepare passed\n');
    expect(out).to.equal('2026-12-02T03:12:45Z   ▶ phase prepare: x\n2026-12-02T03:12:45Z     … waiting\n\n2026-12-02T03:12:50Z   ■ phase prepare passed\n');
    expect(new LineStamper(c.now, false).stamp('a\nb\n'), 'turned off').to.equal('a\nb\n');
  });

  it('give output held back while another file runs the time it arrived at, not the time it is printed', () => {
    const c = clock();
    let out = '';
    const sink = new Writable({ write(chunk, _enc, done) { out += String(chunk); done(); } });
    const output = new OrderedOutput(sink, sink, () => new LineStamper(c.now, true));
    const first = output.lane(0), second = output.lane(1);
    second.out('b: ready\n');
    c.t = 60;
    first.out('a: ready\n');
    first.close();
    expect(out).to.equal('2026-12-02T03:13:45Z a: ready\n2026-12-02T03:12:45Z b: ready\n');
  });

  it('stamp every line of the run\'s own console calls until restored; plain lines are never stamped', () => {
    const c = clock();
    const printed: string[] = [];
    const saved = console.log;
    console.log = (text: string) => printed.push(text);
    try {
      const restore = stampConsole(c.now);
      console.log('shard 1/2: %d of %d spec files\n  01-a.spec.ts', 1, 2);
      restore();
      console.log('after');
    } finally {
      console.log = saved;
    }
    expect(printed).to.deep.equal(['2026-12-02T03:12:45Z shard 1/2: 1 of 2 spec files\n2026-12-02T03:12:45Z   01-a.spec.ts', 'after']);
    const written: string[] = [];
    const write = process.stdout.write;
    process.stdout.write = ((chunk: string) => { written.push(chunk); return true; }) as typeof process.stdout.write;
    const restore = stampConsole(c.now);
    try {
      plainLine('out', '1 passed, 0 failed, 0 skipped');
    } finally {
      restore();
      process.stdout.write = write;
    }
    expect(written).to.deep.equal(['1 passed, 0 failed, 0 skipped\n']);
  });

  describe('in the command', function () {
    this.timeout(60_000);
    let previous = '';
    before(async () => {
      // A reports folder of a run in which nothing failed: --rerun-failed prints one line of its own, then the summary.
      previous = join(mkdtempSync(join(tmpdir(), 'ocp-e2e-stamps-')), 'reports');
      mkdirSync(join(previous, 'allure-results'), { recursive: true });
      await writeManifest(previous, { suiteVersion: '0', target: 'reference', files: [], counts: { passed: 1, failed: 0, skipped: 0 }, runId: 'r1', startedAt: '', finishedAt: '' });
    });

    it('stamps the run\'s lines and leaves the closing summary line plain; OCP_E2E_NO_TIMESTAMPS=1 turns stamps off', async () => {
      const r = await ocpE2e(['run', '--rerun-failed', previous]);
      expect(r.exitCode, r.output).to.equal(0);
      const lines = r.output.trimEnd().split('\n');
      expect(lines[0]).to.match(TIMESTAMP_PREFIX);
      expect(withoutTimestamp(lines[0]!)).to.equal(`--rerun-failed: nothing failed in ${previous}; nothing to re-run`);
      expect(lastLine(r.output)).to.equal('0 passed, 0 failed, 0 skipped');
      const off = await ocpE2e(['run', '--rerun-failed', previous], { env: { OCP_E2E_NO_TIMESTAMPS: '1' } });
      expect(off.output.trimEnd().split('\n')[0]).to.equal(`--rerun-failed: nothing failed in ${previous}; nothing to re-run`);
    });

    it('leaves the one message of a run stopped before any spec plain (exit 2)', async () => {
      const r = await ocpE2e(['run', '--grep', '(unclosed']);
      expect(r.exitCode, r.output).to.equal(2);
      expect(lastLine(r.output)).to.match(/^ocp-e2e run: --grep is not a regular expression/);
    });
  });
});
