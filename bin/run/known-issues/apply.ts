/**
 * After a run with --known-issues: each failure that an unexpired entry matches (its case, and its message) becomes a
 * known issue in the reports (Allure: skipped, flagged known, with the bug as a link, so `ocp-e2e report` files it
 * under the "Known issues" category (helpers/report/allure-config.ts);
 * JUnit: skipped with the bug in the message). Entries are checked against the run too, so the list stays true: an
 * entry whose case ran and passed, and an expired entry, are reported. Without the file nothing here runs.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isFailure, lastAttempts, mochaFullTitle, readAllureResults, writeAllureResult, type AllureResult } from '../results/allure-results.js';
import { markKnownIssues } from '../results/junit-known.js';
import { isExpired, type KnownIssue } from './file.js';

export interface KnownIssuesOutcome {
  /** Failures reported as known issues. */
  known: Array<{ title: string; bug: string; entry: number; expires: string }>;
  /** Entries whose case ran and did not fail: the bug may be fixed, the entry may go. */
  notFailing: Array<{ entry: number; bug: string; case: string; titles: string[] }>;
  /** Entries past their date; they masked nothing. */
  expired: Array<{ entry: number; bug: string; expires: string; failures: string[] }>;
}

const caseMatches = (issue: KnownIssue, r: AllureResult): boolean => r.testCaseId === issue.case || issue.caseRegExp.test(mochaFullTitle(r));

export async function applyKnownIssues(reportsDir: string, issues: KnownIssue[], today: Date): Promise<KnownIssuesOutcome> {
  const resultsDir = join(reportsDir, 'allure-results');
  const results = lastAttempts(await readAllureResults(resultsDir));
  const active = issues.filter((i) => !isExpired(i, today));
  const outcome: KnownIssuesOutcome = { known: [], notFailing: [], expired: [] };
  const junitMessages = new Map<string, string>();

  for (const file of results) {
    const r = file.result;
    if (!isFailure(r)) continue;
    const message = r.statusDetails?.message ?? '';
    const issue = active.find((i) => caseMatches(i, r) && i.message.test(message));
    if (!issue) continue;
    const note = `Known issue ${issue.bug} (known-issues entry ${issue.entry}, until ${issue.expires})`;
    r.status = 'skipped';
    r.statusDetails = { ...r.statusDetails, known: true, message: `${note}: ${message}` };
    r.links = [...(r.links ?? []), { type: 'issue', name: issue.bug, url: issue.bug }];
    r.labels = [...(r.labels ?? []), { name: 'tag', value: 'known-issue' }];
    await writeAllureResult(file);
    outcome.known.push({ title: mochaFullTitle(r), bug: issue.bug, entry: issue.entry, expires: issue.expires });
    junitMessages.set(mochaFullTitle(r), `${note}: ${message}`);
  }

  for (const issue of active) {
    const ran = results.filter((f) => caseMatches(issue, f.result));
    if (ran.length && ran.every((f) => f.result.status === 'passed')) {
      outcome.notFailing.push({ entry: issue.entry, bug: issue.bug, case: issue.case, titles: ran.map((f) => mochaFullTitle(f.result)) });
    }
  }
  for (const issue of issues.filter((i) => isExpired(i, today))) {
    const failures = results.filter((f) => isFailure(f.result) && caseMatches(issue, f.result) && issue.message.test(f.result.statusDetails?.message ?? ''));
    outcome.expired.push({ entry: issue.entry, bug: issue.bug, expires: issue.expires, failures: failures.map((f) => mochaFullTitle(f.result)) });
  }

  await markJunit(join(reportsDir, 'junit'), junitMessages);
  await writeFile(join(reportsDir, 'known-issues.json'), `${JSON.stringify(outcome, null, 2)}\n`);
  return outcome;
}

async function markJunit(junitDir: string, messages: Map<string, string>): Promise<void> {
  if (messages.size === 0) return;
  for (const name of (await readdir(junitDir).catch(() => [] as string[])).filter((n) => n.endsWith('.xml'))) {
    const path = join(junitDir, name);
    const { xml, marked } = markKnownIssues(await readFile(path, 'utf8'), messages);
    if (marked) await writeFile(path, xml);
  }
}

/** The lines the run prints about the known issues, before its summary line. */
export function describeOutcome(outcome: KnownIssuesOutcome): string[] {
  return [
    ...outcome.known.map((k) => `known issue (not counted as a failure): ${k.title}: ${k.bug} (entry ${k.entry}, until ${k.expires})`),
    ...outcome.notFailing.map((n) => `known-issues entry ${n.entry} (${n.bug}): case ${n.case} ran and did not fail; if the bug is fixed, remove the entry`),
    ...outcome.expired.map((e) => `known-issues entry ${e.entry} (${e.bug}) expired on ${e.expires}: it masks nothing${e.failures.length ? `; ${e.failures.length} failure(s) it matched count as failures` : ''}; renew or remove it`),
  ];
}
