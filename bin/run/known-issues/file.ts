/**
 * The known-issues file of `--known-issues FILE`: a YAML list of entries
 *
 *   - case: "54183"                       # a test case id, or a regular expression on the test's full title
 *     message: "osImageURL mismatch"      # regular expression on the failure message
 *     bug: https://issues.redhat.com/browse/OCPBUGS-1234
 *     expires: 2027-01-31                 # the entry stops applying after this day (UTC)
 *
 * Checked whole before the run: a file that is not YAML, a missing or unknown field, a bad regular expression,
 * URL or date is a usage error naming the entry.
 */
import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import { UsageError } from '../usage-error.js';

export interface KnownIssue {
  /** 1-based position in the file, to name it in messages. */
  entry: number;
  case: string;
  caseRegExp: RegExp;
  message: RegExp;
  bug: string;
  /** Last day the entry applies, YYYY-MM-DD. */
  expires: string;
}

const FIELDS = ['case', 'message', 'bug', 'expires'] as const;

export async function loadKnownIssues(path: string): Promise<KnownIssue[]> {
  const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new UsageError(`--known-issues ${path}: cannot read it (${error.code ?? error.message})`);
  });
  return parseKnownIssues(text, path);
}

export function parseKnownIssues(text: string, path: string): KnownIssue[] {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (error) {
    throw new UsageError(`--known-issues ${path} is not YAML: ${(error as Error).message.split('\n')[0]}`);
  }
  if (doc === null || doc === undefined) return [];
  if (!Array.isArray(doc)) throw new UsageError(`--known-issues ${path}: expected a list of entries {case, message, bug, expires}`);
  return doc.map((raw, i) => checkEntry(raw, i + 1, path));
}

function checkEntry(raw: unknown, entry: number, path: string): KnownIssue {
  const where = `--known-issues ${path}: entry ${entry}`;
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new UsageError(`${where} is not a mapping {case, message, bug, expires}`);
  const fields = raw as Record<string, unknown>;
  const unknown = Object.keys(fields).filter((k) => !(FIELDS as readonly string[]).includes(k));
  if (unknown.length) throw new UsageError(`${where}: unknown field ${unknown.join(', ')} (fields: ${FIELDS.join(', ')})`);
  for (const f of FIELDS) {
    if (fields[f] === undefined || fields[f] === null || fields[f] === '') throw new UsageError(`${where}: ${f} is missing`);
  }
  const text = (f: (typeof FIELDS)[number]) => (fields[f] instanceof Date ? (fields[f] as Date).toISOString().slice(0, 10) : String(fields[f]));
  const regexp = (f: 'case' | 'message') => {
    try {
      return new RegExp(text(f));
    } catch (error) {
      throw new UsageError(`${where}: ${f} is not a regular expression: ${(error as Error).message}`);
    }
  };
  const bug = text('bug');
  if (!/^https?:\/\/\S+$/.test(bug) || !URL.canParse(bug)) throw new UsageError(`${where}: bug must be the bug's http(s) URL, got ${JSON.stringify(bug)}`);
  const expires = text('expires');
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(expires);
  const date = day ? new Date(`${expires}T00:00:00Z`) : undefined;
  if (!date || Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== expires) {
    throw new UsageError(`${where}: expires must be a date YYYY-MM-DD, got ${JSON.stringify(expires)}`);
  }
  return { entry, case: text('case'), caseRegExp: regexp('case'), message: regexp('message'), bug, expires };
}

/** Whether the entry still applies on `today` (it applies through its whole last day, UTC). */
export function isExpired(issue: KnownIssue, today: Date): boolean {
  return today.toISOString().slice(0, 10) > issue.expires;
}
