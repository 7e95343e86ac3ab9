/**
 * Readable output of spec files that run at the same time: each file writes to its own lane; the earliest file
 * still running streams live, the others are held back and printed whole, in file order, once every file before
 * them has finished. With one job this is plain streaming. Every lane stamps its lines with the wall-clock time they
 * arrived at (timestamps.ts), so held-back output keeps its own times.
 */
import { LineStamper } from './timestamps.js';

export interface Lane {
  out(text: string): void;
  err(text: string): void;
  /** The file is done: its held-back output may now be printed. */
  close(): void;
}

interface Held {
  chunks: Array<{ text: string }>;
  closed: boolean;
}

export class OrderedOutput {
  private readonly lanes: Held[] = [];
  private live = 0;

  constructor(
    private readonly stdout: NodeJS.WritableStream = process.stdout,
    private readonly stderr: NodeJS.WritableStream = process.stderr,
    private readonly newStamper: () => LineStamper = () => new LineStamper(),
  ) {}

  /** The lane of the index-th file (lanes are printed in index order). */
  lane(index: number): Lane {
    const held = (this.lanes[index] ??= { chunks: [], closed: false });
    const stampers = { out: this.newStamper(), err: this.newStamper() };
    const write = (stream: 'out' | 'err', given: string) => {
      const text = stampers[stream].stamp(given);
      if (index === this.live) this.print(stream, text);
      else held.chunks.push({ text });
    };
    return {
      out: (text) => write('out', text),
      err: (text) => write('err', text),
      close: () => {
        held.closed = true;
        this.advance();
      },
    };
  }

  private advance(): void {
    while (this.lanes[this.live]?.closed) {
      this.live++;
      const next = this.lanes[this.live];
      if (!next) return;
      // Held output goes out on one stream, so its order survives (a reader of two pipes may reorder them) and
      // nothing of it can come after the run's summary line.
      for (const c of next.chunks.splice(0)) this.stdout.write(c.text);
    }
  }

  private print(stream: 'out' | 'err', text: string): void {
    (stream === 'out' ? this.stdout : this.stderr).write(text);
  }
}

/** A lane that writes straight to the console (a single mocha child, as on --target cluster). */
export const consoleLane: Lane = (() => {
  const stampers = { out: new LineStamper(), err: new LineStamper() };
  return {
    out: (text: string) => process.stdout.write(stampers.out.stamp(text)),
    err: (text: string) => process.stderr.write(stampers.err.stamp(text)),
    close: () => undefined,
  };
})();
