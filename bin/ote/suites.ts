/**
 * The suites `info` advertises. Each selects the tests whose name carries a suite marker (names.ts), the way origin's
 * suites select `[Suite:openshift/conformance/serial]`. The qualifiers are printed as CEL, scoped to our own tests as
 * OTE's Extension.AddSuite scopes them (`(source == "<id>") && (...)`); `list --suite` evaluates the same condition
 * here (a name test and a source test), so there is one definition of membership, not a CEL interpreter.
 */
import { SUITE_MARKERS } from './names.js';
import type { ClusterStability, ExtensionTestSpec, Suite } from './types.js';

interface SuiteDefinition {
  name: string;
  description: string;
  /** A test is in the suite when its name contains this. */
  nameContains: string;
  clusterStability: ClusterStability;
  /** 1: the specs change the whole cluster, so they run one at a time. */
  parallelism?: number;
  testTimeoutMs?: number;
}

/**
 * A spec's budget on a real cluster (4 h of cluster time, bin/run/targets/common.ts specTimeoutMs at time factor 1),
 * plus an hour for its preparation and clean-up. Written out rather than imported: that module loads the engine client.
 */
const DISRUPTIVE_TEST_TIMEOUT_MS = 5 * 3600_000;

const DEFINITIONS: SuiteDefinition[] = [
  {
    name: 'openshift/ocp-e2e',
    description: 'Every ocp-e2e conformance spec: MCO osImageURL overrides with a custom layered OS image across an upgrade. The disruptive ones upgrade the cluster and change its pools.',
    nameContains: '[Suite:openshift/ocp-e2e/',
    clusterStability: 'Disruptive',
    parallelism: 1,
    testTimeoutMs: DISRUPTIVE_TEST_TIMEOUT_MS,
  },
  {
    name: SUITE_MARKERS.disruptive,
    description: 'The ocp-e2e specs that upgrade the cluster or change its MachineConfigPools ([Disruptive]), one at a time.',
    nameContains: `[Suite:${SUITE_MARKERS.disruptive}]`,
    clusterStability: 'Disruptive',
    parallelism: 1,
    testTimeoutMs: DISRUPTIVE_TEST_TIMEOUT_MS,
  },
  {
    name: SUITE_MARKERS.serial,
    description: 'The ocp-e2e specs that change nothing but must run alone ([Serial]).',
    nameContains: `[Suite:${SUITE_MARKERS.serial}]`,
    clusterStability: 'Stable',
    parallelism: 1,
  },
  {
    name: SUITE_MARKERS.parallel,
    description: 'The ocp-e2e specs that change nothing and may run next to others.',
    nameContains: `[Suite:${SUITE_MARKERS.parallel}]`,
    clusterStability: 'Stable',
  },
];

/** A CEL string literal (our values hold no quote or backslash, but escape them anyway). */
const celString = (s: string): string => `"${s.replace(/[\\"]/g, '\\$&')}"`;

export function suites(sourceId: string): Suite[] {
  return DEFINITIONS.map((d) => ({
    name: d.name,
    description: d.description,
    qualifiers: [`(source == ${celString(sourceId)}) && (name.contains(${celString(d.nameContains)}))`],
    ...(d.parallelism ? { parallelism: d.parallelism } : {}),
    clusterStability: d.clusterStability,
    // Go's time.Duration encodes as integer nanoseconds.
    ...(d.testTimeoutMs ? { testTimeout: d.testTimeoutMs * 1_000_000 } : {}),
  }));
}

/** The tests of a suite, as its qualifiers select them; undefined for a suite we do not advertise. */
export function testsOfSuite<T extends Pick<ExtensionTestSpec, 'name' | 'source'>>(suiteName: string, tests: T[], sourceId: string): T[] | undefined {
  const definition = DEFINITIONS.find((d) => d.name === suiteName);
  if (!definition) return undefined;
  return tests.filter((t) => t.source === sourceId && t.name.includes(definition.nameContains));
}
