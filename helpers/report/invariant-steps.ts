/**
 * The upgrade's invariants as steps of their own in the report, each with its verdict and its evidence (the judged
 * text, with wall timestamps rewritten on the cluster clock), whether the check phase ran or an earlier phase failed.
 * A broken invariant is a red step; reporting it does not throw, the caller decides what fails the test.
 */
import * as allure from 'allure-js-commons';
import { maskSecrets } from '../secrets.js';
import { inClusterTime } from './timeline-chart.js';
import { buildTimelineModel, type RecordedChange, type RecordedInvariant } from './timeline-model.js';

export class InvariantBroken extends Error {
  readonly expected = 'the invariant to hold';
  readonly actual: string;
  constructor(invariant: RecordedInvariant, evidence: string) {
    super(`invariant broken: ${invariant.name}: ${evidence}`);
    this.name = 'AssertionError';
    this.actual = evidence;
  }
}

/** The evidence of each invariant, its times on the recording's cluster clock. */
export function invariantEvidence(invariants: RecordedInvariant[], timeline: RecordedChange[], timeFactor: number): string[] {
  const model = buildTimelineModel({ title: '', timeFactor, changes: timeline, invariants: [] });
  return invariants.map((i) => maskSecrets(inClusterTime(model, i.detail)));
}

/** Recordings whose invariants are already in the report (the check phase showed them; the failure hook must not again). */
const reported = new WeakSet<RecordedChange[]>();

/** One Allure step per invariant, once per recording; returns the broken ones with their evidence. */
export async function reportInvariants(invariants: RecordedInvariant[], timeline: RecordedChange[], timeFactor: number): Promise<InvariantBroken[]> {
  if (reported.has(timeline)) return [];
  reported.add(timeline);
  const evidence = invariantEvidence(invariants, timeline, timeFactor);
  const broken: InvariantBroken[] = [];
  for (const [index, invariant] of invariants.entries()) {
    const text = evidence[index]!;
    await Promise.resolve(allure
      .step(`invariant: ${invariant.name}: ${invariant.passed ? 'holds' : 'BROKEN'}`, async () => {
        await allure.attachment('evidence', text, { contentType: 'text/plain', fileExtension: 'txt' });
        if (!invariant.passed) {
          const error = new InvariantBroken(invariant, text);
          broken.push(error);
          throw error;
        }
      }))
      .catch((error: unknown) => {
        if (!(error instanceof InvariantBroken)) throw error;
      });
  }
  return broken;
}
