/**
 * Origin-style test names and labels from a spec's mocha full title.
 *
 * Our titles are QE's: `[sig-mco] <describe> Author:<who>-NonPreRelease-Longduration-High-54183-[Serial][Disruptive]
 * <what>`. openshift-tests selects by markers in the name (`[sig-*]`, `[Serial]`, `[Disruptive]`, and
 * `[Suite:<suite>]`, which origin appends at the end), so the name is the title with the sig marker ensured and the
 * suite marker appended. The name is what run-test is given back; the title stays what `run --grep` matches.
 */

export const SIG = '[sig-mco]';

/** The suite a test's markers put it in (suites.ts advertises each; the umbrella suite takes all three). */
export const SUITE_MARKERS = {
  disruptive: 'openshift/ocp-e2e/disruptive',
  serial: 'openshift/ocp-e2e/serial',
  parallel: 'openshift/ocp-e2e/parallel',
} as const;

/** QE's title tags (between `Author:<who>-` and the case id) that mean something to a scheduler. */
const QE_TAGS = ['NonPreRelease', 'PreChkUpgrade', 'PstChkUpgrade', 'Longduration', 'ConnectedOnly', 'DisconnectedOnly', 'NonHyperShiftHOST'];
const IMPORTANCE = ['Critical', 'High', 'Medium', 'Low'];

export interface TitleFacts {
  serial: boolean;
  disruptive: boolean;
  /** QE tags and importance found in the title, and Serial / Disruptive. */
  labels: string[];
  /** QE's case id: the part after the importance (54183, E2E-002). */
  caseId?: string;
  /** `[Lifecycle:informing]` in the title makes a test informing; blocking otherwise (OTE's default). */
  informing: boolean;
}

export function titleFacts(title: string): TitleFacts {
  const serial = title.includes('[Serial]');
  const disruptive = title.includes('[Disruptive]');
  const author = /Author:(\S+)/.exec(title)?.[1] ?? '';
  const parts = author.split('-');
  const labels = new Set<string>(parts.filter((p) => QE_TAGS.includes(p) || IMPORTANCE.includes(p)));
  if (serial) labels.add('Serial');
  if (disruptive) labels.add('Disruptive');
  const caseId = new RegExp(`-(?:${IMPORTANCE.join('|')})-(.+?)-\\[`).exec(author)?.[1];
  return { serial, disruptive, labels: [...labels].sort(), caseId, informing: /\[Lifecycle:informing\]/i.test(title) };
}

export function suiteMarker(facts: Pick<TitleFacts, 'serial' | 'disruptive'>): string {
  if (facts.disruptive) return SUITE_MARKERS.disruptive;
  return facts.serial ? SUITE_MARKERS.serial : SUITE_MARKERS.parallel;
}

/** The origin-style name of a test: its title, `[sig-mco]` first when it names no sig, and its suite marker last. */
export function originName(title: string): string {
  const withSig = /\[sig-[^\]]+\]/.test(title) ? title : `${SIG} ${title}`;
  return `${withSig} [Suite:${suiteMarker(titleFacts(title))}]`;
}
