/**
 * What a spec declares about its test when the file loads, before any target exists: the case labels, what the test
 * changes on the cluster, and the session's disruptive/upgrades options. `mocha --dry-run` loads the specs without
 * running anything, so `ocp-e2e run --list` reads these declarations from the loaded tests (helpers/mocha/
 * listing-reporter.cts) and tells what a run would do without touching a cluster. Kept free of the cluster stack so
 * the command can import it cheaply.
 */
import type { CaseLabels } from './report.js';
import type { PoolNeeds } from './plan/pool-plan.js';
import type { RunPhase } from './target.js';

/** What `session.test(...)` is given: the Allure labels, plus what the test changes on the cluster. */
export interface CaseDeclaration extends CaseLabels {
  /**
   * Each change the test makes to the cluster, in words a cluster admin acts on (the object, the field, the pool),
   * e.g. `MachineConfig tc-54183-…-worker (osImageURL: the layered image) on pool worker`. An upgrade is not listed
   * here: the session's `upgrades` option says it. Empty when the test changes nothing but by upgrading.
   */
  changes: readonly string[];
}

/** The declaration as the listing sees it: the test's own plus its session's options. */
export interface DeclaredCase extends CaseDeclaration {
  disruptive: boolean;
  upgrades: boolean;
  /** The session's pool needs (helpers/plan/pool-plan.ts): what a run sharing one upgrade plans with. */
  pools?: PoolNeeds;
  /** The roles whose pools must have nodes (ConformanceOptions.nodesIn). */
  nodesIn?: readonly string[];
  /** The node architectures the spec runs on (ConformanceOptions.architectures): a run needs no build for a spec its nodes skip. */
  architectures?: { only: readonly string[]; why: string };
  /**
   * Per release the suite knows ('4.12', ...), why the spec does not apply to it (ConformanceOptions.notOn, evaluated
   * when the file loads, so a run that knows the cluster's release leaves the spec out of the shared upgrade's plan).
   */
  notOnReleases?: Readonly<Record<string, string>>;
}

/**
 * The property of a test's function that holds its DeclaredCase. A registered symbol, so the listing reporter (a
 * CommonJS module loaded apart from the specs' ES modules) finds the same key: it spells the name itself.
 */
export const DECLARED_CASE_KEY = 'ocp-e2e.declared-case';

/** Marks the test function with what its spec declared, for the listing. */
export function declareCase<F extends object>(fn: F, declared: DeclaredCase): F {
  Object.defineProperty(fn, Symbol.for(DECLARED_CASE_KEY), { value: declared, enumerable: false });
  return fn;
}

/** What a run decides about a session from the run's settings alone, before it connects to anything. */
export interface RunSettings {
  allowDisruptive: boolean;
  phase: RunPhase;
}

/**
 * Why a session with these options is skipped by a run with these settings, or undefined when it runs: the same
 * words whether the spec process skips it or `run --list` says it would.
 */
export function skipReasonBeforeConnecting(options: { disruptive: boolean; upgrades?: boolean }, run: RunSettings): string | undefined {
  if (options.disruptive && !run.allowDisruptive) {
    return 'disruptive spec (upgrades the cluster or changes its pools): pass --allow-disruptive to run it';
  }
  if (run.phase !== 'all' && !options.upgrades) {
    return `does not upgrade, so it has no pre and post halves: it runs whole with --phase all (this run is --phase ${run.phase})`;
  }
  return undefined;
}
