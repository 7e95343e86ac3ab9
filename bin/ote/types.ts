/**
 * The shapes of the openshift-tests-extension (OTE) interface, as openshift-tests decodes them: our TypeScript
 * rendering of OTE's Go types (pkg/extension/types.go, pkg/extension/extensiontests/types.go at
 * openshift-eng/openshift-tests-extension 2fd5b2fa4221). Field names are the Go `json` tags; a field Go marks
 * `omitempty` is optional here and left out when empty, as Go's encoder does.
 */

/** OTE's interface version this command speaks (extension.CurrentExtensionAPIVersion). */
export const OTE_API_VERSION = 'v1.1';

/** `info`: what the extension is, where its source is, which suites it advertises. */
export interface Extension {
  apiVersion: string;
  source: Source;
  component: Component;
  suites: Suite[];
  images: Image[];
}

export interface Source {
  commit: string;
  /** ISO 8601 time the suite was built; empty when it runs from a checkout (nothing was built). */
  build_date: string;
  /** `clean` or `dirty`; empty when unknown. */
  git_tree_state: string;
  source_url?: string;
}

export interface Component {
  product: string;
  /** `payload` when shipped in a release payload, else (for us, by default) `external`. */
  type: string;
  name: string;
}

export type ClusterStability = 'Stable' | 'Disruptive';

export interface Suite {
  name: string;
  description: string;
  parents?: string[];
  /** CEL expressions over a test (name, labels, source, ...), OR'd: a test matching one is in the suite. */
  qualifiers?: string[];
  count?: number;
  parallelism?: number;
  clusterStability?: ClusterStability;
  /** Go's time.Duration: nanoseconds. */
  testTimeout?: number;
}

export interface Image {
  index: number;
  registry: string;
  name: string;
  version: string;
  mapped?: Image;
}

export type Lifecycle = 'blocking' | 'informing';

/** Go's sets.Set[string] is a map to empty structs: it encodes as {"label":{}}. */
export type LabelSet = Record<string, Record<string, never>>;

/** One line of `list -o jsonl`. */
export interface ExtensionTestSpec {
  name: string;
  originalName?: string;
  labels: LabelSet;
  tags?: Record<string, string>;
  resources: Resources;
  source: string;
  codeLocations?: string[];
  lifecycle: Lifecycle;
  environmentSelector: EnvironmentSelector;
}

export interface Resources {
  isolation: Isolation;
  memory?: string;
  duration?: string;
  timeout?: string;
}

export interface Isolation {
  mode?: string;
  conflict?: string[];
  taint?: string[];
  toleration?: string[];
}

/** CEL expressions over the environment flags of `list` (platform, topology, ...). */
export interface EnvironmentSelector {
  include?: string;
  exclude?: string;
}

export type Result = 'passed' | 'failed' | 'skipped';

/** One line of `run-test -o jsonl`. */
export interface ExtensionTestResult {
  name: string;
  lifecycle: Lifecycle;
  /** Milliseconds. */
  duration: number;
  /** OTE's dbtime: `2006-01-02 15:04:05.000000 UTC`. */
  startTime: string;
  endTime: string;
  result: Result;
  output: string;
  error?: string;
  details?: Details[];
}

export interface Details {
  name: string;
  value: unknown;
}

/** A time as OTE's dbtime.DBTime encodes it: UTC, microseconds, ` UTC` suffix (what its decoder parses back). */
export function dbTime(at: Date): string {
  const iso = at.toISOString(); // 2006-01-02T15:04:05.000Z
  return `${iso.slice(0, 10)} ${iso.slice(11, 23)}000 UTC`;
}
