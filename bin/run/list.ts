/**
 * `ocp-e2e run --list`: what a run with these options would run, without running it. The specs are loaded by
 * `mocha --dry-run` (bin/run/spec-listing.ts, cached), which runs no test and reads no target, so the listing needs
 * no kubeconfig, container engine, registry or `oc`. Each test is listed with what its spec declares
 * (helpers/declared-case.ts): title, case id, tags, phases, the changes it makes on the cluster, whether it upgrades,
 * and whether this run would skip it (the same reason the spec process would give).
 */
import { relative } from 'node:path';
import { skipReasonBeforeConnecting, type DeclaredCase } from '../../helpers/declared-case.js';
import { phaseTag } from '../../helpers/split-phases.js';
import type { RunPhase } from '../../helpers/target.js';
import type { ListFormat, RunOptions } from './options.js';
import { ROOT } from './paths.js';
import { filesOfShard, formatShard } from './schedule/shard.js';
import { listTests, type ListedTest } from './spec-listing.js';
import { selectSpecFiles } from './specs.js';

/** The phases a spec's test goes through (the Allure steps and the console's `▶ phase` lines), in order. */
export type SpecPhase = 'prepare' | 'upgrade' | 'check';

export interface ListedSpec {
  /** The spec file, relative to the suite's folder (specs/NAME.spec.ts). */
  file: string;
  /** The test's full title in this run's phase: what --grep matches and what JUnit and Allure name. */
  title: string;
  /** Undefined for a test that declares nothing (not written with helpers/conformance.ts). */
  caseId?: string;
  tags: string[];
  severity?: string;
  disruptive?: boolean;
  upgrades?: boolean;
  /** prepare → (upgrade →) check: an upgrade spec upgrades between the two. */
  phases: SpecPhase[];
  /** The --phase values that run the test: pre, upgrade and post for an upgrade spec (and all), else all only. */
  runPhases: RunPhase[];
  /** What the test changes on the cluster besides the upgrade, as the spec declares it. */
  changes: string[];
  /** Why this run would skip the test, decided from the options alone; undefined when it would run it. */
  skip?: string;
}

export interface SuiteListing {
  target: RunOptions['target'];
  phase: RunPhase;
  grep?: string;
  shard?: string;
  specs: ListedSpec[];
}

/** The tests the options select (--grep, --shard, --phase, the spec files), each with what its spec declares. */
export async function listSuite(options: RunOptions): Promise<SuiteListing> {
  const phase = options.phase ?? 'all';
  const selected = await selectSpecFiles(options.specs, options.grep, phase);
  const files = options.shard ? filesOfShard(selected, options.shard) : selected;
  // mocha's --grep selects tests, not files: a file may hold tests the pattern leaves out.
  const pattern = options.grep ? new RegExp(options.grep) : undefined;
  const tests = files.length ? (await listTests(files, phase)).filter((t) => !pattern || pattern.test(t.fullTitle)) : [];
  // The reference target always allows disruptive specs: each spec file gets a cluster of its own.
  const run = { allowDisruptive: options.target === 'reference' || Boolean(options.allowDisruptive), phase };
  const order = new Map(files.map((f, i) => [f, i]));
  return {
    target: options.target,
    phase,
    ...(options.grep ? { grep: options.grep } : {}),
    ...(options.shard ? { shard: formatShard(options.shard) } : {}),
    specs: tests.sort((a, b) => order.get(a.file)! - order.get(b.file)!).map((t) => listedSpec(t, run)),
  };
}

function listedSpec(test: ListedTest, run: { allowDisruptive: boolean; phase: RunPhase }): ListedSpec {
  const file = relative(ROOT, test.file);
  const d: DeclaredCase | undefined = test.declared;
  if (!d) return { file, title: test.fullTitle, tags: [], phases: [], runPhases: ['all'], changes: [] };
  const skip = skipReasonBeforeConnecting(d, run);
  // As the session labels it: an upgrade test run in halves also carries QE's PreChkUpgrade / PstChkUpgrade tag.
  const tag = d.upgrades ? phaseTag(run.phase) : undefined;
  return {
    file,
    title: test.fullTitle,
    caseId: d.caseId,
    tags: [...(d.tags ?? []), ...(tag ? [tag] : [])],
    ...(d.severity ? { severity: d.severity } : {}),
    disruptive: d.disruptive,
    upgrades: d.upgrades,
    phases: d.upgrades ? ['prepare', 'upgrade', 'check'] : ['prepare', 'check'],
    runPhases: d.upgrades ? ['all', 'pre', 'upgrade', 'post'] : ['all'],
    changes: [...d.changes],
    ...(skip ? { skip } : {}),
  };
}

/** The listing for people: one block per test, then a line of counts. */
export function formatListing(listing: SuiteListing): string {
  const running = listing.specs.filter((s) => !s.skip).length;
  const selection = [`--target ${listing.target}`, `--phase ${listing.phase}`, listing.grep ? `--grep ${listing.grep}` : '', listing.shard ? `--shard ${listing.shard}` : ''].filter(Boolean).join(' ');
  const blocks = listing.specs.map((s) => {
    const rows: Array<[string, string[]]> = s.caseId === undefined
      ? [['declares', ['nothing (the test is not written with helpers/conformance.ts session.test)']]]
      : [
          ['case', [s.caseId]],
          ['tags', [s.tags.join(', ') || '(none)']],
          ['phases', [`${s.phases.join(' → ')}  (runs with --phase ${s.runPhases.join(', ')})`]],
          ['upgrades', [s.upgrades ? 'yes: the cluster to --to-image, else its first availableUpdates entry' : 'no']],
          ['changes', s.changes.length ? s.changes : [s.upgrades ? 'nothing besides the upgrade' : 'nothing']],
          ['runs', [s.skip ? `no, skipped: ${s.skip}` : 'yes']],
        ];
    const lines = rows.flatMap(([name, values]) => values.map((v, i) => `    ${(i === 0 ? name : '').padEnd(9)} ${v}`));
    return [`${s.file}`, `  ${s.title}`, ...lines].join('\n');
  });
  const summary = `${listing.specs.length} test(s), ${running} would run, ${listing.specs.length - running} would be skipped (${selection}); nothing was started: the listing loads the spec files only`;
  return [...blocks, summary].join('\n\n');
}

/** `run --list`: prints the listing and returns the exit code (0). */
export async function printListing(options: RunOptions, format: ListFormat): Promise<number> {
  const listing = await listSuite(options);
  process.stdout.write(format === 'json' ? `${JSON.stringify(listing, null, 2)}\n` : `${formatListing(listing)}\n`);
  return 0;
}
