/** `run-test --timeout`: a Go duration (`90m`, `1h30m`, `45s`, `1.5h`), as OTE's cobra flag takes it, in milliseconds. */
import { InvalidArgumentError } from 'commander';

const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3600_000 };
const PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/y;

export function parseGoDuration(text: string): number {
  if (text === '0') return 0;
  let total = 0;
  PART.lastIndex = 0;
  while (PART.lastIndex < text.length) {
    const at = PART.lastIndex;
    const m = PART.exec(text);
    if (!m || m.index !== at) throw new InvalidArgumentError(`not a duration (like 90m, 1h30m, 45s): ${text}`);
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
  }
  if (!text) throw new InvalidArgumentError('not a duration (like 90m, 1h30m, 45s): empty');
  return total;
}
