/**
 * An upgrade spec split over processes, as QE's upgrade pipelines run it (see target.ts, RunPhase): the titles of the
 * halves, the signal that ends a half early, and how the prepare phase's value crosses to the next process.
 */
import type { MachineConfigOverride } from './machineconfigs.js';
import type { RunPhase } from './target.js';

/**
 * Thrown by the session when this process's part of the test is done (pre wrote its checkpoint, upgrade recorded its
 * upgrade): the test passes here and goes on in the next phase's process.
 */
export class PhaseHandOver extends Error {
  constructor(
    readonly phase: RunPhase,
    readonly checkpoint: string,
  ) {
    super(`--phase ${phase} done: ${checkpoint} holds what --phase ${phase === 'pre' ? 'upgrade or post' : 'post'} goes on from`);
    this.name = 'PhaseHandOver';
  }
}

/** QE's markers: the dashboards line up `…-PreChkUpgrade-…-54183-…` with `…-PstChkUpgrade-…-54183-…`. */
const MARKERS: Partial<Record<RunPhase, string>> = { pre: 'PreChkUpgrade', post: 'PstChkUpgrade', upgrade: 'Upgrade' };

/**
 * The title of an upgrade test in a phase: the marker goes after `NonPreRelease-` (QE's place for it), or first.
 * `--phase all` keeps the title as written.
 */
export function phaseTitle(title: string, phase: RunPhase): string {
  const marker = MARKERS[phase];
  if (!marker) return title;
  const at = title.indexOf('NonPreRelease-');
  if (at < 0) return `${marker}-${title}`;
  const end = at + 'NonPreRelease-'.length;
  return `${title.slice(0, end)}${marker}-${title.slice(end)}`;
}

/** The Allure tag of a phase's half (QE filters on it), undefined for a whole test. */
export function phaseTag(phase: RunPhase): string | undefined {
  return MARKERS[phase];
}

/**
 * Something the prepare phase hands on that is a handle on the cluster, not data: stored as a reference (a
 * PoolOverride's toJSON): its overrides, and the id of the checkpoint's pending ledger record of their MachineConfigs.
 */
export interface CheckpointRef {
  $poolOverride: number;
  overrides: MachineConfigOverride[];
}

/** The prepare value as JSON: handles turn into their references (their toJSON), the rest must be plain data. */
export function encodePrepared(value: unknown): unknown {
  const text = JSON.stringify(value ?? null);
  return JSON.parse(text) as unknown;
}

/** The prepare value back from JSON, each reference replaced by the handle `resolve` gives for it. */
export function decodePrepared(value: unknown, resolve: (ref: CheckpointRef) => unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => decodePrepared(v, resolve));
  if (value && typeof value === 'object') {
    if (typeof (value as CheckpointRef).$poolOverride === 'number') return resolve(value as CheckpointRef);
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, decodePrepared(v, resolve)]));
  }
  return value;
}
