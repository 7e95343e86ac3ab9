/**
 * The frame every spec runs in. One call inside a mocha `describe` gives the spec:
 *  - the target's connection and capabilities, and a live watch of the cluster;
 *  - real-cluster safety: disruptive specs are skipped (with the reason) unless --allow-disruptive, and a preflight
 *    skips when the cluster is mid-upgrade or a pool is degraded;
 *  - phases (prepare / upgrade / check) reported as Allure steps, whose failures name the phase;
 *  - failure artefacts gathered once per failed test, and attached;
 *  - LIFO cleanup (kept with --keep-on-failure) and a leak check of everything carrying the run label.
 */
import { basename, join } from 'node:path';
import type { Context, Func } from 'mocha';
import { Cleanup, leakedObjects } from './cleanup.js';
import { Cluster } from './cluster.js';
import { ClusterWatcher, type ClusterSnapshot } from './cluster-watcher.js';
import { discoverCapabilities, wallBudgetMs, type TargetCapabilities } from './capabilities.js';
import { currentVersion } from './upgrade.js';
import { gatherArtifacts } from './artifacts.js';
import { UpgradeMonitor } from './monitor.js';
import { consoleProgress, waitFor, WaitTimeoutError } from './wait.js';
import type { WaitContext } from './cluster-waits.js';
import { labelCase, step, type CaseLabels } from './report.js';
import { gatherRunFacts, writeRunFacts } from './report/run-facts.js';
import { attachTimelineChart } from './report/timeline-attachment.js';
import { ReferenceInfoConfigMap } from './capabilities.js';
import { maskSecrets } from './secrets.js';
import { pullSecret, target, type TargetConfig } from './target.js';
import { findCondition } from './types.js';
import { viewPool } from './pools.js';

export type PhaseName = 'prepare' | 'upgrade' | 'check';

export interface ConformanceOptions {
  /** Upgrades the cluster or changes pools: runs only with --allow-disruptive. */
  disruptive: boolean;
  /** Needs a release to upgrade to: skipped when the cluster offers none and --to-image is not given. */
  upgrades?: boolean;
}

/** How long a busy cluster may take to become idle before the spec is skipped. */
const PREFLIGHT_CLUSTER_MINUTES = 5;

/** Why the cluster is not a fair starting point (or undefined when it is). */
export function busyReason(snap: ClusterSnapshot): string | undefined {
  const cv = snap.clusterVersion;
  if (!cv) return 'clusterversion/version not found; is this an OpenShift cluster?';
  const progressing = findCondition(cv.status?.conditions, 'Progressing');
  if (progressing?.status === 'True') return `ClusterVersion is progressing ("${progressing.message ?? ''}"); wait for it to settle`;
  for (const pool of snap.pools.values()) {
    const v = viewPool(pool);
    if (v.degraded) return `pool ${v.name} is degraded ("${v.nodeDegradedMessage ?? v.renderDegradedMessage ?? ''}"); fix it first`;
  }
  return undefined;
}

/** An error that already names its phase (so nested phases do not stack prefixes). */
export class PhaseError extends Error {
  readonly phase: PhaseName;
  /** The failure inside the phase (not `cause`: mocha would print it a second time). */
  readonly original: unknown;
  /** Present when the cause is a verdict on the cluster (an assertion or a wait that ended without the state). */
  readonly expected?: unknown;
  readonly actual?: unknown;
  readonly showDiff = false;
  constructor(phase: PhaseName, title: string, cause: unknown) {
    const inner = cause instanceof Error ? cause.message : String(cause);
    super(maskSecrets(`[phase ${phase}] ${title} failed: ${inner}`));
    const verdict = cause instanceof Error && (cause.name === 'AssertionError' || 'expected' in cause);
    this.name = cause instanceof Error && cause.name === 'AssertionError' ? 'AssertionError' : 'PhaseError';
    if (verdict) {
      // Allure files an error with `expected` as failed (the product's fault), anything else as broken (the test's).
      this.expected = (cause as { expected?: unknown }).expected ?? 'the assertion to hold';
      this.actual = (cause as { actual?: unknown }).actual;
    }
    this.phase = phase;
    this.original = cause;
    // Keep the frames of the original failure: they point at the spec line, this constructor does not.
    const frames = cause instanceof Error && cause.stack ? cause.stack.split('\n').filter((l) => /^\s+at /.test(l)) : [];
    this.stack = `${this.name}: ${this.message}\n${frames.join('\n')}`;
  }
}

export class ConformanceSession {
  readonly cleanup = new Cleanup();
  private connected?: { cluster: Cluster; caps: TargetCapabilities; watcher: ClusterWatcher };
  private monitorInstance?: UpgradeMonitor;
  private gatheredFor = new Set<string>();
  private failed = false;
  readonly progress = consoleProgress();

  // Nothing is read from the target until the before-all hook: `mocha --dry-run` lists the specs without one.
  // `targetConfig` is for tests of the session itself; specs get the target of the run.
  constructor(
    private readonly options: ConformanceOptions,
    private readonly targetConfig?: TargetConfig,
  ) {}

  get target(): TargetConfig {
    return this.targetConfig ?? target();
  }

  get cluster(): Cluster {
    return this.need().cluster;
  }
  get caps(): TargetCapabilities {
    return this.need().caps;
  }
  get watcher(): ClusterWatcher {
    return this.need().watcher;
  }
  get kubeconfig(): string {
    return this.target.kubeconfigPath;
  }
  get waits(): WaitContext {
    return { watcher: this.watcher, caps: this.caps, progress: this.progress };
  }
  get monitor(): UpgradeMonitor | undefined {
    return this.monitorInstance;
  }

  private need() {
    if (!this.connected) throw new Error('the conformance session is not connected: the before-all hook did not run or failed');
    return this.connected;
  }

  /** Connects, discovers the target and returns a reason to skip, or undefined to go on. */
  async prepareSuite(specFile = 'spec'): Promise<string | undefined> {
    if (!this.targetConfig) pullSecret(); // registers the pull secret's credentials for masking before anything is printed
    if (this.options.disruptive && !this.target.allowDisruptive) {
      return 'disruptive spec (upgrades the cluster or changes its pools): pass --allow-disruptive to run it';
    }
    const cluster = Cluster.fromKubeconfig(this.target.kubeconfigPath);
    const caps = await discoverCapabilities(cluster);
    const watcher = new ClusterWatcher(cluster);
    await watcher.start();
    this.connected = { cluster, caps, watcher };
    await this.recordFacts(specFile);
    return this.preflight();
  }

  /** The facts that identify this run in its report (target, API URL, version, profile, faults, clock, seed). */
  private async recordFacts(specFile: string): Promise<void> {
    const { cluster, caps, watcher } = this.need();
    const info = caps.isReference ? await cluster.getConfigMap(ReferenceInfoConfigMap.namespace, ReferenceInfoConfigMap.name).catch(() => undefined) : undefined;
    const cv = watcher.snapshot().clusterVersion;
    const facts = await gatherRunFacts({
      spec: basename(specFile),
      target: this.target.kind,
      apiUrl: cluster.apiUrl,
      clusterVersion: cv ? currentVersion(cv) : undefined,
      timeFactor: caps.timeFactor,
      referenceInfo: info?.data,
    });
    await writeRunFacts(join(this.target.reportsDir, 'allure-results'), facts);
  }

  /**
   * Refuses to start on a cluster that is already busy or broken: results there would mean nothing. A cluster that is
   * just settling (a fresh install, the end of a previous test) gets a few cluster minutes to finish first.
   */
  private async preflight(): Promise<string | undefined> {
    let reason: string | undefined;
    try {
      await waitFor(
        this.watcher,
        {
          what: 'the cluster to be idle before the spec starts',
          expected: 'ClusterVersion not Progressing and no MachineConfigPool Degraded',
          budgetMs: wallBudgetMs(PREFLIGHT_CLUSTER_MINUTES, this.caps),
          caps: this.caps,
          judge: (snap) => {
            reason = busyReason(snap);
            return { done: reason === undefined, progress: `preflight: ${reason ?? 'idle'}` };
          },
        },
        this.progress,
      );
      return this.options.upgrades ? this.noUpdateReason() : undefined;
    } catch (error) {
      if (error instanceof WaitTimeoutError && reason) return `preflight: ${reason}`;
      throw error;
    }
  }

  private noUpdateReason(): string | undefined {
    if (this.target.toImage) return undefined;
    const cv = this.watcher.snapshot().clusterVersion;
    if (cv?.status?.availableUpdates?.length) return undefined;
    return `needs a release to upgrade to: ClusterVersion (at ${currentVersion(cv!) ?? 'unknown'}) lists no availableUpdates; pass --to-image <release image>`;
  }

  /** Runs one phase as an Allure step; a failure carries the phase name and gathers the artefacts. */
  async phase<T>(phase: PhaseName, title: string, body: () => Promise<T>): Promise<T> {
    try {
      return await step(`${phase}: ${title}`, body);
    } catch (error) {
      if (error instanceof PhaseError) throw error;
      throw new PhaseError(phase, title, error);
    }
  }

  /** Starts recording the upgrade timeline (stopped and judged by the spec, or at the end of the suite). */
  startMonitor(targetVersion: () => string | undefined): UpgradeMonitor {
    this.monitorInstance = new UpgradeMonitor(this.watcher, this.caps, targetVersion);
    return this.monitorInstance;
  }

  /** Wraps a test body: labels, then the body; on failure, artefacts once per test. */
  test(labels: CaseLabels, body: (session: ConformanceSession) => Promise<void>): Func {
    const session = this;
    return async function (this: Context) {
      await labelCase(labels);
      try {
        await body(session);
      } catch (error) {
        session.failed = true;
        await session.gather(this.test?.fullTitle() ?? labels.caseId);
        throw error;
      }
    };
  }

  private async gather(title: string): Promise<void> {
    if (this.gatheredFor.has(title) || !this.connected) return;
    this.gatheredFor.add(title);
    const extra: Record<string, unknown> = {};
    if (this.monitorInstance) {
      this.monitorInstance.stop();
      extra['upgrade-timeline'] = this.monitorInstance.timeline;
      extra['upgrade-invariants'] = this.monitorInstance.judge();
    }
    const root = join(this.target.reportsDir, 'artifacts');
    const result = await gatherArtifacts({ cluster: this.cluster, kubeconfig: this.kubeconfig, testTitle: title, extra, logs: !this.caps.isReference, root });
    if (this.monitorInstance) {
      await attachTimelineChart({ timeline: this.monitorInstance.timeline, invariants: this.monitorInstance.judge(), timeFactor: this.caps.timeFactor });
    }
    console.error(`    artefacts of the failure: ${result.dir}${result.errors.length ? ` (${result.errors.length} could not be gathered, see gather-errors.txt)` : ''}`);
  }

  /** After all: cleanup (unless kept), leak check, disconnect. Throws when something leaked. */
  async finish(): Promise<void> {
    if (!this.connected) return;
    try {
      const keep = this.failed && this.target.keepOnFailure;
      // The reference cluster of a run is thrown away after its spec file: deleting what the spec made (and the leak
      // check) still runs there, waiting for the pools to roll back does not. `--target cluster` always waits.
      const report = await this.cleanup.runAll({ keep, skipSettling: this.target.kind === 'reference' });
      if (keep && report.skipped.length) {
        console.error(`    --keep-on-failure: left in place for inspection; undo by hand:\n${report.skipped.map((s) => `      - ${s}`).join('\n')}`);
        return;
      }
      const problems: string[] = report.failed.map((f) => `cleanup "${f.description}" failed: ${f.error}`);
      const leaked = await leakedObjects(this.cluster, this.target.runId);
      if (leaked.length) problems.push(`left behind with label ocp-e2e.io/run-id=${this.target.runId}: ${leaked.join(', ')}`);
      if (problems.length) throw new Error(maskSecrets(problems.join('\n')));
    } finally {
      this.monitorInstance?.stop();
      this.progress.end();
      this.connected.watcher.stop();
    }
  }
}

/**
 * Call at the top of a `describe` body. Registers the before/after hooks and returns the session the tests use.
 * A skip reason is printed, since mocha's pending tests carry none.
 */
export function conformanceSession(options: ConformanceOptions): ConformanceSession {
  const session = new ConformanceSession(options);
  // An interrupted run (ocp-e2e passes SIGINT on; mocha's launcher follows with SIGTERM) still deletes what the
  // spec created, without waiting for the pools to settle, then exits as the signal would have.
  let interrupted = false;
  const onInterrupt = (signal: NodeJS.Signals): void => {
    if (interrupted) return;
    interrupted = true;
    console.error(`    ${signal}: deleting what this spec created before exiting`);
    void session.cleanup.runAll({ skipSettling: true }).finally(() => process.exit(signal === 'SIGTERM' ? 143 : 130));
  };
  process.on('SIGINT', onInterrupt);
  process.on('SIGTERM', onInterrupt);
  before(async function () {
    const reason = await session.prepareSuite(this.test?.parent?.file);
    if (reason) {
      console.log(`  SKIP ${this.test?.parent?.fullTitle() ?? ''}: ${reason}`);
      this.skip();
    }
  });
  after(async function () {
    process.off('SIGINT', onInterrupt);
    process.off('SIGTERM', onInterrupt);
    await session.finish();
  });
  return session;
}

