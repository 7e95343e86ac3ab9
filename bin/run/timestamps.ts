/**
 * Wall-clock timestamps at the start of the run's console lines, as CI logs carry them: a Prow build log of a
 * four-hour upgrade is read by time ("what happened at 03:12?"), against the cluster's events and the operators'
 * logs, which are in UTC. Format: ISO 8601 in UTC to the second, `2026-12-02T03:12:45Z ` (ci-operator's and
 * oc's own), with the date since long runs cross midnight.
 *
 * Stamped: the spec processes' output (mocha's lines, phases, waits' progress, steps, skips), stamped when the run
 * receives it, so a file whose output is held back while others run (--jobs) keeps the times it happened at; and the
 * run's own console lines. Not stamped: the closing line `N passed, N failed, N skipped` and the one message of a run
 * stopped before any spec (CI reads both as they are), `--list`'s output (a listing, not a log), and empty lines.
 * OCP_E2E_NO_TIMESTAMPS=1 turns stamping off.
 */
import { format } from 'node:util';

export const NO_TIMESTAMPS_ENV = 'OCP_E2E_NO_TIMESTAMPS';

/** A stamp and the space after it, as a regular expression's source, for readers of the console (tests). */
export const TIMESTAMP = '\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z ';
/** A stamp as it starts a line. */
export const TIMESTAMP_PREFIX = new RegExp(`^${TIMESTAMP}`);

export function timestampsOn(env: NodeJS.ProcessEnv = process.env): boolean {
  return !env[NO_TIMESTAMPS_ENV] || env[NO_TIMESTAMPS_ENV] === '0';
}

/** `2026-12-02T03:12:45Z`: UTC, to the second. */
export function wallClock(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

/** The line without the stamp it starts with, if any. */
export function withoutTimestamp(line: string): string {
  return line.replace(TIMESTAMP_PREFIX, '');
}

/**
 * Stamps the lines of one stream that arrives in chunks: a line is stamped when its first character arrives, so a
 * line split over chunks gets one stamp. Empty lines stay empty.
 */
export class LineStamper {
  private atLineStart = true;

  constructor(private readonly now: () => Date = () => new Date(), private readonly on: boolean = timestampsOn()) {}

  stamp(text: string): string {
    if (!this.on || !text) return text;
    const stamp = `${wallClock(this.now())} `;
    let out = '';
    for (const piece of text.split(/(?<=\n)/)) {
      if (this.atLineStart && piece !== '\n') out += stamp;
      out += piece;
      this.atLineStart = piece.endsWith('\n');
    }
    return out;
  }
}

type ConsoleMethod = 'log' | 'info' | 'warn' | 'error';

/**
 * Stamps what this process prints with console.log/info/warn/error until the returned function is called: the
 * run's modules (targets, preflight, known issues) print their lines that way. Each call is a whole line or lines.
 */
export function stampConsole(now: () => Date = () => new Date()): () => void {
  if (!timestampsOn()) return () => undefined;
  const methods: ConsoleMethod[] = ['log', 'info', 'warn', 'error'];
  const originals = methods.map((m) => [m, console[m]] as const);
  for (const [name, original] of originals) {
    console[name] = (...args: unknown[]) => {
      const stamp = `${wallClock(now())} `;
      original.call(console, format(...args).split('\n').map((l) => (l ? `${stamp}${l}` : l)).join('\n'));
    };
  }
  return () => {
    for (const [name, original] of originals) console[name] = original;
  };
}

/** A line printed as it is, never stamped: the closing summary and the one message of a run stopped early. */
export function plainLine(stream: 'out' | 'err', line: string): void {
  (stream === 'out' ? process.stdout : process.stderr).write(`${line}\n`);
}
