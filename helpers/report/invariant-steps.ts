/**
 * The upgrade's invariants in the report: judged once over the recording (monitor/judge.ts), the recording attached as
 * data and as a chart, then one step per invariant with its verdict and its evidence (the judge's text and the
 * intervals that decided, wall timestamps rewritten on the cluster clock). A broken invariant is a red step; reporting
 * it does not throw, the caller decides what fails the test.
 *
 * Each upgrade is reported by exactly one caller: the check phase (checks.ts) for an upgrade that completed, the
 * upgrade flow's failure report (flows.ts) for one that did not, since no check phase follows it.
 */
import * as allure from 'allure-js-commons';
import { judgeRecording, type JudgedInvariant } from '../monitor/judge.js';
import { describeInterval, type UpgradeRecording } from '../monitor/recording.js';
import { attachYaml } from '../report.js';
import { maskSecrets } from '../secrets.js';
import { inClusterTime } from './timeline-chart.js';
import { clocksOf } from './timeline-model.js';
import { attachRecording, attachTimelineChart } from './timeline-attachment.js';

export class InvariantBroken extends Error {
  readonly expected = 'the invariant to hold';
  readonly actual: string;
  readonly id: string;
  constructor(invariant: Pick<JudgedInvariant, 'id' | 'title'>, why: string) {
    super(`invariant broken: ${invariant.title}: ${why}`);
    this.name = 'AssertionError';
    this.id = invariant.id;
    this.actual = why;
  }
}

/** A text's wall timestamps on the recording's cluster clock. */
function onClusterClock(recording: UpgradeRecording, text: string): string {
  return maskSecrets(inClusterTime(clocksOf(recording), text));
}

/** What a judge said, on the cluster clock. */
export function invariantWhy(recording: UpgradeRecording, invariant: JudgedInvariant): string {
  return onClusterClock(recording, invariant.why);
}

/** The evidence of an invariant as a person reads it: why, then each interval that decided, on the cluster clock. */
export function invariantEvidence(recording: UpgradeRecording, invariant: JudgedInvariant): string {
  const decided = invariant.evidence.map((i) => `- ${describeInterval(i)}`);
  return onClusterClock(recording, decided.length ? `${invariant.why}\n\ndecided by:\n${decided.join('\n')}` : invariant.why);
}

/** The verdicts as a small document (without the evidence's intervals, which the recording holds). */
export function verdictSummary(invariants: JudgedInvariant[]): Array<Pick<JudgedInvariant, 'id' | 'title' | 'ok' | 'why'>> {
  return invariants.map(({ id, title, ok, why }) => ({ id, title, ok, why }));
}

/**
 * Judges the recording, attaches it (JSON and chart) and the verdicts, and shows one step per invariant; returns the
 * verdicts and the broken ones as errors.
 */
export async function reportUpgradeInvariants(recording: UpgradeRecording): Promise<{ invariants: JudgedInvariant[]; broken: InvariantBroken[] }> {
  const invariants = judgeRecording(recording);
  await attachRecording(recording);
  await attachTimelineChart(recording, invariants);
  await attachYaml('upgrade-invariants.yaml', verdictSummary(invariants));
  const broken: InvariantBroken[] = [];
  for (const invariant of invariants) {
    await Promise.resolve(
      allure.step(`invariant: ${invariant.title}: ${invariant.ok ? 'holds' : 'BROKEN'}`, async () => {
        await allure.attachment('evidence', invariantEvidence(recording, invariant), { contentType: 'text/plain', fileExtension: 'txt' });
        if (!invariant.ok) {
          const error = new InvariantBroken(invariant, invariantWhy(recording, invariant));
          broken.push(error);
          throw error;
        }
      }),
    ).catch((error: unknown) => {
      if (!(error instanceof InvariantBroken)) throw error;
    });
  }
  return { invariants, broken };
}
