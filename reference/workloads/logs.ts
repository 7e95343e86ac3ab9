/**
 * Where a container's output goes: one bounded sink per running container, kept by the node's kubelet stand-in and
 * read through `pods/log` as a container runtime's log file is. The reference's components write klog-style lines
 * into the sink of the pod that currently runs them, so `oc logs` shows what that component did.
 */

export interface LogLine {
  /** Cluster time the line was written, ms. */
  atMs: number;
  text: string;
}

export interface ReadOptions {
  /** Only the last N lines (`--tail`). */
  tailLines?: number;
  /** Only lines written at or after this cluster time, ms (`--since`, `--since-time`). */
  sinceMs?: number;
}

const MAX_LINES = 5000;

export class LogSink {
  private readonly lines: LogLine[] = [];
  private readonly followers = new Set<(line: LogLine) => void>();
  private closers = new Set<() => void>();
  private closed = false;

  constructor(private readonly now: () => number) {}

  /** Appends one line (a trailing newline is implied; embedded ones split the text into lines). */
  write(text: string): void {
    if (this.closed) return;
    for (const part of text.replace(/\n$/, '').split('\n')) {
      const line = { atMs: this.now(), text: part };
      this.lines.push(line);
      for (const f of this.followers) f(line);
    }
    if (this.lines.length > MAX_LINES) this.lines.splice(0, this.lines.length - MAX_LINES);
  }

  read(options: ReadOptions = {}): LogLine[] {
    let out = options.sinceMs === undefined ? this.lines : this.lines.filter((l) => l.atMs >= options.sinceMs!);
    if (options.tailLines !== undefined) out = options.tailLines === 0 ? [] : out.slice(-options.tailLines);
    return [...out];
  }

  /** Calls `onLine` for every line written from now on; `onEnd` when the container ends. Returns the unsubscribe. */
  follow(onLine: (line: LogLine) => void, onEnd: () => void): () => void {
    if (this.closed) {
      onEnd();
      return () => undefined;
    }
    this.followers.add(onLine);
    this.closers.add(onEnd);
    return () => {
      this.followers.delete(onLine);
      this.closers.delete(onEnd);
    };
  }

  /** The container ended: followers get the end of the stream; what was written stays readable. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const end of this.closers) end();
    this.followers.clear();
    this.closers.clear();
  }

  get isClosed(): boolean {
    return this.closed;
  }
}

/** klog's header, `I0912 15:30:12.345678       1 file.go] `: what OpenShift's Go components print. */
export function klogLine(atMs: number, severity: 'I' | 'W' | 'E', source: string, message: string): string {
  const d = new Date(atMs);
  const two = (n: number): string => String(n).padStart(2, '0');
  const micros = String(d.getUTCMilliseconds() * 1000).padStart(6, '0');
  return `${severity}${two(d.getUTCMonth() + 1)}${two(d.getUTCDate())} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}.${micros}       1 ${source}] ${message}`;
}
