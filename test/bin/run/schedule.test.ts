/** The pieces of `ocp-e2e run --jobs/--shard`: the shard split, the pool, the file-by-file output. */
import { expect } from 'chai';
import { Writable } from 'node:stream';
import { OrderedOutput } from '../../../bin/run/output.js';
import { runPool } from '../../../bin/run/schedule/pool.js';
import { LineStamper } from '../../../bin/run/timestamps.js';
import { filesOfShard, parseShard } from '../../../bin/run/schedule/shard.js';

const FILES = ['specs/03-c.spec.ts', 'specs/01-a.spec.ts', 'specs/06-f.spec.ts', 'specs/02-b.spec.ts', 'specs/05-e.spec.ts', 'specs/04-d.spec.ts'];

describe('run: --shard i/n', () => {
  it('splits the files so that the n shards together run each file exactly once, whatever order they are listed in', () => {
    for (const n of [1, 2, 3, 4, 6, 7]) {
      const shards = Array.from({ length: n }, (_, i) => filesOfShard(FILES, { index: i + 1, count: n }));
      expect(shards.flat().sort(), `n=${n}`).to.deep.equal([...FILES].sort());
      const again = Array.from({ length: n }, (_, i) => filesOfShard([...FILES].reverse(), { index: i + 1, count: n }));
      expect(again, `n=${n}: same split from another listing order`).to.deep.equal(shards);
      expect(Math.max(...shards.map((s) => s.length)) - Math.min(...shards.map((s) => s.length)), `n=${n}: balanced`).to.be.at.most(1);
    }
    expect(filesOfShard(FILES, { index: 2, count: 3 })).to.deep.equal(['specs/02-b.spec.ts', 'specs/05-e.spec.ts']);
  });

  it('refuses values that are not i/n with 1 <= i <= n', () => {
    expect(parseShard('2/3')).to.deep.equal({ index: 2, count: 3 });
    for (const bad of ['0/3', '4/3', '3', '1/0', 'a/b', '1/2/3', '-1/2']) {
      expect(() => parseShard(bad), bad).to.throw(/must be i\/n/);
    }
  });
});

describe('run: the pool of --jobs', () => {
  it('runs at most jobs at a time, starts in order, returns results in order', async () => {
    let running = 0, peak = 0;
    const started: number[] = [];
    const results = await runPool([30, 10, 20, 5, 15], 2, async (ms, i) => {
      started.push(i);
      peak = Math.max(peak, ++running);
      await new Promise((r) => setTimeout(r, ms));
      running--;
      return i * 10;
    });
    expect(results).to.deep.equal([0, 10, 20, 30, 40]);
    expect(started).to.deep.equal([0, 1, 2, 3, 4]);
    expect(peak).to.equal(2);
  });

  it('after a failure starts nothing more, lets the running item finish, then throws the failure', async () => {
    const finished: number[] = [];
    const run = runPool([0, 1, 2, 3], 2, async (i) => {
      if (i === 0) throw new Error('first fails');
      await new Promise((r) => setTimeout(r, 20));
      finished.push(i);
      return i;
    });
    const error = await run.then(() => undefined, (e: Error) => e);
    expect(error?.message).to.equal('first fails');
    expect(finished).to.deep.equal([1]);
  });
});

describe('run: output of files running at the same time', () => {
  it('streams the earliest running file, holds the others back and prints each whole, in file order', () => {
    let out = '';
    const sink = new Writable({ write(chunk, _enc, done) { out += String(chunk); done(); } });
    // The order alone, without the timestamps (their test is timestamps.test.ts).
    const output = new OrderedOutput(sink, sink, () => new LineStamper(undefined, false));
    const a = output.lane(0), b = output.lane(1), c = output.lane(2);
    a.out('a1 ');
    b.out('b1 ');
    c.out('c1 ');
    expect(out).to.equal('a1 ');
    c.err('c2 ');
    c.close();
    b.out('b2 ');
    expect(out).to.equal('a1 ');
    a.out('a2 ');
    a.close();
    expect(out).to.equal('a1 a2 b1 b2 ');
    b.out('b3 ');
    expect(out).to.equal('a1 a2 b1 b2 b3 ');
    b.close();
    expect(out).to.equal('a1 a2 b1 b2 b3 c1 c2 ');
  });
});
