/**
 * The frame every spec runs in. One call inside a mocha `describe` gives the spec:
 *  - the target's connection and capabilities, and a live watch of the cluster;
 *  - real-cluster safety: disruptive specs are skipped (with the reason) unless --allow-disruptive, and a preflight
 *    skips when the cluster is mid-upgrade or a pool is degraded;
 *  - phases (prepare / upgrade / check) reported as Allure steps, whose failures name the phase;
 *  - failure artefacts gathered once per failed test, and attached;
 *  - one ledger of what the spec changed, undone LIFO at the end (kept with --keep-on-failure), and a leak check of
 *    everything carrying the run label.
 */
import { basename, join } from 'node:path';
import type { Context, Func } from 'mocha';
import { connectEngine, type Engine } from '../lib/oci/engine.js';
import { CHECKPOINT_NAMESPACE } from './checkpoint/format.js';
import { formatLeftActions, leakedObjects } from './cleanup.js';
import { objectsHandedOverByOtherSpecs } from './checkpoint/held-objects.js';
import { deferCleanup, deferredCleanups, runDeferredCleanups } from './deferred-cleanup.js';
import { Cluster } from './cluster.js';
import { ClusterWatcher, sessionKinds, type ClusterSnapshot } from './cluster-watcher.js';
import { asSuiteWork, discoverCapabilities, ReferenceInfoConfigMap, stopwatch, wallBudgetMs, type TargetCapabilities } from './capabilities.js';
import { registryAccess, type RegistryAccess } from './credentials.js';
import { clusterVersionIdle, currentVersion } from './facts/cluster-version.js';
import { describeClusterShape } from './facts/cluster-shape.js';
import { nodesOfPool, poolNotDegraded, pausedPoolReason } from './facts/pool.js';
import { archNodeOf, architecturesOf, buildRoles } from './build-architectures.js';
import type { MachineOSConfig, Node as KubeNode } from './types.js';
import { imageModePoolReason } from './image-mode/pool-refusal.js';
import { gatherArtifacts } from './artifacts.js';
import { consoleProgress, waitFor, WaitTimeoutError } from './wait.js';
import type { WaitContext } from './cluster-waits.js';
import { cleanupTimeoutMs, testTimeoutMs, type PoolSizes } from './spec-budget.js';
import { labelCase, step } from './report.js';
import { declareCase, skipReasonBeforeConnecting, type CaseDeclaration } from './declared-case.js';
import { gatherRunFacts, writeRunFacts } from './report/run-facts.js';
import { handleInterrupts } from './interrupt.js';
import { Ledger } from './ledger.js';
import { PushedImages } from './image-mode/pushed-images.js';
import { maskSecrets } from './secrets.js';
import { DEFAULT_INTERRUPT_GRACE_SECONDS, readRunPhase, readTargetConfig, type RunPhase, type TargetConfig } from './target.js';
import { PhaseHandOver, phaseTag, phaseTitle } from './split-phases.js';
import { SplitRun, type PhaseRunner } from './split-run.js';
import type { CompletedUpgrade } from './flows.js';
import { poolOf, specKey, type PoolNeeds } from './plan/pool-plan.js';
import { releaseRules, UnknownReleaseError, type KnownRelease } from './releases/select.js';
import { RELEASES } from './releases/table.js';
import type { ReleaseRules } from './releases/rules.js';

/** Releases this process has warned about already (the warning is the run's, not each spec's). */
const warnedReleases = new Set<string>();

export type PhaseName = 'prepare' | 'upgrade' | 'check';

export interface ConformanceOptions {
  /** Upgrades the cluster or changes pools: runs only with --allow-disruptive. */
  disruptive: boolean;
  /** Needs a release to upgrade to: skipped when the cluster offers none and --to-image is not given. */
  upgrades?: boolean;
  /**
   * An upgrade spec's pools: per role, the OS image it keeps on that pool through the upgrade, so a run that shares
   * one upgrade among many specs can give each the pools it needs (helpers/plan/pool-plan.ts).
   */
  pools?: PoolNeeds;
  /**
   * Why the spec cannot apply to the release the cluster runs (undefined where it can): asked before any cluster time,
   * and the spec is skipped with that reason.
   */
  notOn?: (release: ReleaseRules) => string | undefined;
  /**
   * The roles whose pools must have nodes for the spec to judge anything (default: every role of `pools`): on a
   * compact or single-node cluster the worker pool has none, and a spec that needs it is skipped, with the reason,
   * before any cluster time.
   */
  nodesIn?: readonly string[];
  /**
   * The node architectures (`kubernetes.io/arch`) the spec can run on, and why: a pool of the spec with a node of
   * another architecture (an arm64 or multi-arch cluster) skips it, with the reason, before any cluster time.
   */
  architectures?: { only: readonly string[]; why: string };
  /**
   * The spec moves one worker node into a custom pool of its own (helpers/plan/spec-pool.ts) and changes that pool
   * only: a pool that takes the worker pool's configs is none of its business.
   */
  ownCustomPool?: boolean;
  /**
   * Why the spec cannot run on this cluster as it is (an API the release does not serve, a shape the feature does not
   * support), undefined where it can: asked once connected, before any cluster time, and the spec is skipped with it.
   */
  notOnCluster?: (session: ConformanceSession) => Promise<string | undefined>;
}

/** How long a busy cluster may take to become idle before the spec is skipped. */
const PREFLIGHT_CLUSTER_MINUTES = 5;

/** Why the cluster is not a fair starting point (or undefined when it is). */
export function busyReason(snap: ClusterSnapshot): string | undefined {
  const idle = clusterVersionIdle(snap.clusterVersion);
  if (!idle.ok) return snap.clusterVersion ? `${idle.why}; wait for it to settle` : idle.why;
  for (const pool of snap.pools.values()) {
    const healthy = poolNotDegraded(pool);
    if (!healthy.ok) return `${healthy.why}; fix it first`;
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
  /** Every change the spec makes, with its undo (helpers/ledger.ts); read only when an undo runs. */
  readonly ledger: Ledger = new Ledger(this);
  /** What the undo deleted of the images the MCO pushed for the spec's MachineOSConfigs; the leak check asks again. */
  readonly pushedImages = new PushedImages();
  private connected?: { cluster: Cluster; caps: TargetCapabilities; watcher: ClusterWatcher };
  private registry?: RegistryAccess;
  private enginePromise?: Promise<Engine>;
  /** Run when a test fails: each attaches what it holds and returns documents for the failure artefacts. */
  private readonly failureHooks: (() => Promise<Record<string, unknown>>)[] = [];
  private gatheredFor = new Set<string>();
  private failed = false;
  readonly progress = consoleProgress();
  /** This process's part of a test split over processes (--phase); a pass-through in --phase all. */
  readonly split = new SplitRun(this);

  // Nothing is read from the target until the before-all hook: `mocha --dry-run` lists the specs without one.
  // `targetConfig` is for tests of the session itself; specs get the target of the run from the environment.
  constructor(
    private readonly options: ConformanceOptions,
    private targetConfig?: TargetConfig,
  ) {}

  get target(): TargetConfig {
    this.targetConfig ??= readTargetConfig();
    return this.targetConfig;
  }

  /** Registry credentials of the run (--pull-secret), read in the before-all hook. */
  get access(): RegistryAccess {
    this.registry ??= registryAccess(this.target.pullSecretPath);
    return this.registry;
  }

  /** The container engine, connected on first use: a session that builds nothing never needs one. */
  engine(): Promise<Engine> {
    this.enginePromise ??= connectEngine();
    return this.enginePromise;
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
  /** The part of the upgrade spec this process runs (--phase). */
  get runPhase(): RunPhase {
    return this.target.phase;
  }

  /**
   * The test's title in this run's phase: an upgrade test run in halves carries QE's PreChkUpgrade / PstChkUpgrade
   * marker. Called when the spec file loads, before any target exists, so it reads only the phase.
   */
  title(title: string): string {
    return this.options.upgrades ? phaseTitle(title, readRunPhase()) : title;
  }

  get kubeconfig(): string {
    return this.target.kubeconfigPath;
  }

  /**
   * The pool this spec's `role` uses in this run: where many specs share one upgrade, the run's pool plan may give
   * the role a custom pool of its own; otherwise the pool of the role's name.
   */
  poolFor(role: string): string {
    return poolOf(this.target.poolPlan, specKey(this.split.specFile), role);
  }
  get waits(): WaitContext {
    return { watcher: this.watcher, caps: this.caps, progress: this.progress, scale: this.target.timeoutScale };
  }

  /** The pools' and nodes' sizes as the watcher sees them now, for the tests' timeouts. */
  private poolSizes(): PoolSizes {
    const snap = this.watcher.snapshot();
    const pools = [...snap.pools.values()];
    return {
      machineCounts: pools.map((p) => p.status?.machineCount ?? 0),
      masters: snap.pools.get('master')?.status?.machineCount ?? 3,
      nodes: pools.reduce((sum, p) => sum + (p.status?.machineCount ?? 0), 0),
    };
  }

  /** The mocha timeout of a test (or, with `cleanup`, of the after-all hook) on this cluster: see spec-budget.ts. */
  timeoutMs(part: 'test' | 'cleanup'): number {
    const ctx = { ...this.waits, isReference: this.caps.isReference };
    return part === 'test' ? testTimeoutMs(ctx, this.poolSizes()) : cleanupTimeoutMs(ctx, this.poolSizes());
  }

  /**
   * Registers what a test's failure must show of something a flow holds (the upgrade's recording): the hook attaches
   * what it wants to the Allure result and returns named documents for the failure artefacts.
   */
  onFailure(hook: () => Promise<Record<string, unknown>>): void {
    this.failureHooks.push(hook);
  }

  get isConnected(): boolean {
    return this.connected !== undefined;
  }

  private need() {
    if (!this.connected) throw new Error('the conformance session is not connected: the before-all hook did not run or failed');
    return this.connected;
  }

  /** Connects, discovers the target and returns a reason to skip, or undefined to go on. */
  async prepareSuite(specFile = 'spec'): Promise<string | undefined> {
    void this.access; // reads the pull secret, registering its credentials for masking before anything is printed
    this.split.specFile = basename(specFile);
    const reason = skipReasonBeforeConnecting(this.options, { allowDisruptive: this.target.allowDisruptive, phase: this.runPhase });
    if (reason) return reason;
    // the run's plan found no room for this spec's pools on the cluster beside the specs before it
    const leftOver = this.target.poolPlan?.leftOver?.find((l) => l.spec === specKey(this.split.specFile));
    if (leftOver) return `needs another cluster: ${leftOver.why}`;
    const cluster = Cluster.fromKubeconfig(this.target.kubeconfigPath);
    const caps = await discoverCapabilities(cluster);
    const watcher = new ClusterWatcher(cluster, { kinds: await sessionKinds(cluster) });
    await watcher.start();
    this.connected = { cluster, caps, watcher };
    await this.recordFacts(specFile);
    const releaseReason = this.releaseReason();
    if (releaseReason) return releaseReason;
    const clusterReason = await this.options.notOnCluster?.(this);
    if (clusterReason) return clusterReason;
    if (this.runPhase === 'all' || this.runPhase === 'pre') return this.shapeReason() ?? this.architectureReason() ?? (await this.poolsReason()) ?? this.preflight();
    await this.split.load();
    // The cluster is mid-upgrade or past it here, by design: the idle preflight belongs to the pre phase.
    return this.runPhase === 'upgrade' && !this.split.sharesUpgrade ? this.noUpdateReason() : undefined;
  }

  /**
   * The suite's knowledge of the release the cluster runs now (before an upgrade its starting release, after it the new
   * one), read from ClusterVersion as the watcher last saw it.
   */
  release(): KnownRelease {
    const version = currentVersion(this.watcher.snapshot().clusterVersion);
    if (!version) throw new Error('clusterversion/version reports no current version: the suite cannot tell which release\'s rules apply');
    return releaseRules(version);
  }

  /** Whether the pool this spec's `role` uses has nodes now: a compact or single-node cluster's worker pool has none. */
  poolHasNodes(role: string): boolean {
    const snap = this.watcher.snapshot();
    const pool = snap.pools.get(this.poolFor(role));
    return pool !== undefined && nodesOfPool(pool, snap.pools.values(), snap.nodes.values()).length > 0;
  }

  /** The run whose objects this process answers for: pre's, when a pipeline's post took them over. */
  objectsRunId(): string {
    return this.split.objectsRunId;
  }

  /**
   * The architectures of the nodes that boot this spec's layered image (helpers/build-architectures.ts): those of the
   * pools its layered roles use, with the nodes of the role (an infra pool's take worker's configs) where the role
   * keeps its own pool; every node's where the spec names no pool that has any.
   */
  buildArchitectures(): string[] {
    const snap = this.watcher.snapshot();
    const nodes = new Set<KubeNode>();
    for (const role of buildRoles(this.options)) {
      const name = this.poolFor(role);
      const pool = snap.pools.get(name);
      if (pool) nodesOfPool(pool, snap.pools.values(), snap.nodes.values()).forEach((n) => nodes.add(n));
      if (name === role) [...snap.nodes.values()].filter((n) => archNodeOf(n).roles.includes(role)).forEach((n) => nodes.add(n));
    }
    return [...architecturesOf([...(nodes.size ? nodes : snap.nodes.values())].map(archNodeOf)).keys()];
  }

  /** A pool the spec needs that has no node (the cluster's shape): the reason to skip before cluster time. */
  private shapeReason(): string | undefined {
    const needed = this.options.nodesIn ?? Object.keys(this.options.pools ?? {});
    const empty = needed.filter((role) => !this.poolHasNodes(role));
    if (empty.length === 0) return undefined;
    return `the cluster has no node in pool ${empty.map((r) => this.poolFor(r)).join(', ')} (${describeClusterShape(this.watcher.snapshot())}): this spec judges what the nodes of that pool boot`;
  }

  /** A pool of the spec whose nodes run an architecture the spec cannot (options.architectures): the reason to skip. */
  private architectureReason(): string | undefined {
    const wanted = this.options.architectures;
    if (!wanted) return undefined;
    const snap = this.watcher.snapshot();
    for (const role of new Set([...Object.keys(this.options.pools ?? {}), ...(this.options.nodesIn ?? [])])) {
      const pool = snap.pools.get(this.poolFor(role));
      if (!pool) continue;
      const other = nodesOfPool(pool, snap.pools.values(), snap.nodes.values()).filter((n) => !wanted.only.includes(n.metadata?.labels?.['kubernetes.io/arch'] ?? 'amd64'));
      if (other.length === 0) continue;
      const found = [...new Set(other.map((n) => n.metadata?.labels?.['kubernetes.io/arch'] ?? '?'))].join(', ');
      return `pool ${this.poolFor(role)} has ${other.length} node(s) of architecture ${found} (${other.map((n) => n.metadata?.name).join(', ')}): ${wanted.why}`;
    }
    return undefined;
  }

  /**
   * A pool the spec would change that is paused (its nodes would take nothing, and a wait would spend its whole budget)
   * or in on-cluster image mode (its nodes boot the image the MCO builds, whatever an osImageURL override says): the
   * reason to skip before cluster time.
   */
  private async poolsReason(): Promise<string | undefined> {
    const roles = [...new Set([...Object.keys(this.options.pools ?? {}), ...(this.options.nodesIn ?? [])])];
    if (roles.length === 0) return undefined;
    const snap = this.watcher.snapshot();
    for (const role of roles) {
      const paused = pausedPoolReason(snap.pools.get(this.poolFor(role)));
      if (paused) return paused;
    }
    const imageMode = await this.cluster.listIfServed<MachineOSConfig>('MachineOSConfig');
    return imageModePoolReason(roles.map((role) => this.poolFor(role)), [...snap.pools.values()], imageMode, { inheritors: !this.options.ownCustomPool });
  }

  /** A release the suite cannot judge, or one this spec does not apply to: the reason to skip before cluster time. */
  private releaseReason(): string | undefined {
    // no version at all is the preflight's to report ("is this an OpenShift cluster?")
    if (!currentVersion(this.watcher.snapshot().clusterVersion)) return undefined;
    let known: KnownRelease;
    try {
      known = this.release();
    } catch (error) {
      if (error instanceof UnknownReleaseError) return error.message;
      throw error;
    }
    if (known.warning && !warnedReleases.has(known.version)) {
      warnedReleases.add(known.version);
      console.warn(`    warning: ${known.warning}`);
    }
    const notOn = this.options.notOn?.(known.rules);
    return notOn ? `does not apply to OpenShift ${known.rules.release} (${known.version}): ${notOn}` : undefined;
  }

  /**
   * The facts that identify this run in its report (target, API URL, version, profile, faults, clock, seed) and the
   * cluster as the spec found it (its shape, each pool's nodes, paused or image mode).
   */
  private async recordFacts(specFile: string): Promise<void> {
    const { cluster, caps, watcher } = this.need();
    const info = caps.isReference ? await cluster.getConfigMap(ReferenceInfoConfigMap.namespace, ReferenceInfoConfigMap.name).catch(() => undefined) : undefined;
    // the session watches no MachineOSConfigs; a role without list on them (a run without --allow-disruptive may have
    // none) leaves the facts without image mode, not the spec without a start
    const imageMode = await cluster.listIfServed<MachineOSConfig>('MachineOSConfig').catch(() => []);
    const snapshot = { ...watcher.snapshot(), machineOSConfigs: new Map(imageMode.map((m) => [m.metadata.name ?? '', m])) };
    const cv = snapshot.clusterVersion;
    const facts = await gatherRunFacts({
      spec: basename(specFile),
      target: this.target.kind,
      apiUrl: cluster.apiUrl,
      clusterVersion: cv ? currentVersion(cv) : undefined,
      timeFactor: caps.timeFactor,
      referenceInfo: info?.data,
      snapshot,
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
    if (this.target.toImages?.length) return undefined;
    const cv = this.watcher.snapshot().clusterVersion;
    if (cv?.status?.availableUpdates?.length) return undefined;
    return `needs a release to upgrade to: ClusterVersion (at ${currentVersion(cv!) ?? 'unknown'}) lists no availableUpdates; pass --to-image <release image>`;
  }

  /**
   * Runs one phase as an Allure step; a failure carries the phase name and gathers the artefacts. In a split run
   * (--phase pre|upgrade|post) the prepare phase runs in `pre`, which then leaves its value in the checkpoint and
   * ends the test there; `upgrade` and `post` take the value from the checkpoint instead of preparing again.
   */
  async phase<T>(phase: PhaseName, title: string, body: () => Promise<T>): Promise<T> {
    if (phase === 'prepare') return this.split.prepare(title, body, this.runner);
    return this.runPhaseStep(phase, title, body);
  }

  /**
   * The upgrade phase: this run upgrades the cluster (--phase all and upgrade; upgrade then records it in the
   * checkpoint and ends the test), or follows the upgrade the pipeline's own step started (--phase post).
   */
  upgradePhase(from: string): Promise<CompletedUpgrade> {
    return this.split.upgrade(from, this.runner);
  }

  private readonly runner: PhaseRunner = (phase, title, body) => this.runPhaseStep(phase, title, body);

  private async runPhaseStep<T>(phase: PhaseName, title: string, body: () => Promise<T>): Promise<T> {
    // One line when a phase starts and one when it ends, with its elapsed time (cluster time beside wall time on a
    // compressed clock), so a log says where the run is and how long each part took.
    const took = stopwatch(this.connected?.caps ?? { timeFactor: 1 });
    const elapsed = () => took.format();
    console.log(`  ▶ phase ${phase}: ${title}`);
    try {
      const value = await step(`${phase}: ${title}`, body, this.connected?.caps);
      console.log(`  ■ phase ${phase} passed in ${elapsed()}`);
      return value;
    } catch (error) {
      console.log(`  ■ phase ${phase} failed after ${elapsed()}`);
      if (error instanceof PhaseError) throw error;
      throw new PhaseError(phase, title, error);
    }
  }

  /**
   * Wraps a test body: labels, then the body; on failure, artefacts once per test. The declaration is also kept on
   * the returned function for `run --list` (helpers/declared-case.ts).
   */
  test(labels: CaseDeclaration, body: (session: ConformanceSession) => Promise<void>): Func {
    const session = this;
    return declareCase(async function (this: Context) {
      // The waits' budgets follow the cluster; so does the test's timeout, so that a wait's diagnosis comes first.
      if (session.isConnected) this.timeout(session.timeoutMs('test'));
      session.split.testTitle = this.test?.fullTitle() ?? labels.caseId;
      session.split.caseId = labels.caseId;
      const tag = session.options.upgrades ? phaseTag(session.runPhase) : undefined;
      await labelCase(tag ? { ...labels, tags: [...(labels.tags ?? []), tag] } : labels);
      try {
        // The test's body is the suite's own work, except where it waits (waitFor): a reference cluster's skipping
        // clock must not run hours ahead while the suite builds an image or reads nodes (issue 46).
        const caps = session.connected?.caps;
        await (caps ? asSuiteWork(caps, () => body(session)) : body(session));
      } catch (error) {
        if (error instanceof PhaseHandOver) {
          console.log(`  ■ ${error.message}`);
          return;
        }
        session.failed = true;
        await session.gather(this.test?.fullTitle() ?? labels.caseId);
        throw error;
      }
    }, { ...labels, disruptive: this.options.disruptive, upgrades: Boolean(this.options.upgrades), ...(this.options.pools ? { pools: this.options.pools } : {}), ...(this.options.nodesIn ? { nodesIn: this.options.nodesIn } : {}), ...(this.options.architectures ? { architectures: this.options.architectures } : {}), ...(this.options.notOn ? { notOnReleases: notOnReleases(this.options.notOn) } : {}) });
  }

  private async gather(title: string): Promise<void> {
    if (this.gatheredFor.has(title) || !this.connected) return;
    this.gatheredFor.add(title);
    const extra: Record<string, unknown> = {};
    for (const hook of this.failureHooks) Object.assign(extra, await hook());
    const root = join(this.target.reportsDir, 'artifacts');
    const result = await gatherArtifacts({ cluster: this.cluster, kubeconfig: this.kubeconfig, testTitle: title, extra, root });
    console.error(`    artefacts of the failure: ${result.dir}${result.errors.length ? ` (${result.errors.length} could not be gathered, see gather-errors.txt)` : ''}`);
  }

  /** After all: cleanup (unless kept), leak check, disconnect. Throws when something leaked. */
  async finish(): Promise<void> {
    if (!this.connected) return;
    try {
      const keep = this.failed && this.target.keepOnFailure;
      // The reference cluster of a run is thrown away after its spec file: deleting what the spec made (and the leak
      // check) still runs there, waiting for the pools to roll back does not. `--target cluster` always waits.
      const report = await this.ledger.runAll({ keep, skipSettling: this.target.kind === 'reference' });
      if (keep && report.skipped.length) {
        console.error(`    --keep-on-failure: left in place for inspection; undo by hand:\n${formatLeftActions(report.skipped)}`);
        return;
      }
      const problems: string[] = report.failed.map((f) => `cleanup "${f.description}" failed: ${f.error}`);
      // What was handed over to a later phase is on the cluster by design (its checkpoint names it); post checks for
      // leaks of the pre run whose objects it took over.
      if (this.split.leavesObjects) {
        if (problems.length) throw new Error(maskSecrets(problems.join('\n')));
        return;
      }
      const runId = this.split.objectsRunId;
      // Other specs of the same run may have handed their objects over to a later phase (a pipeline step over many
      // specs): what their checkpoints name is theirs, on the cluster by design.
      const others = await objectsHandedOverByOtherSpecs(this.cluster, this.split.specFile);
      const leaked = (await leakedObjects(this.cluster, runId, CHECKPOINT_NAMESPACE)).filter((o) => !others.has(o));
      // the images its MachineOSConfigs' builds pushed: kept where the registry allows no deletes (said, not a leak)
      const images = await this.pushedImages.leftBehind(this.cluster, this.access);
      for (const note of images.notes) console.log(`    pushed image kept: ${note}`);
      leaked.push(...images.leaks);
      if (leaked.length) problems.push(`left behind with label ocp-e2e.io/run-id=${runId}: ${leaked.join(', ')}`);
      if (problems.length) throw new Error(maskSecrets(problems.join('\n')));
    } finally {
      this.progress.end();
      this.connected.watcher.stop();
      this.connected.caps.clock?.stop();
    }
  }
}

/**
 * Call at the top of a `describe` body. Registers the before/after hooks and returns the session the tests use.
 * A skip reason is printed, since mocha's pending tests carry none.
 */
export function conformanceSession(options: ConformanceOptions): ConformanceSession {
  const session = new ConformanceSession(options);
  // An interrupted run still undoes what the spec changed; on a cluster that is kept, until its pools settle back.
  // The target is read lazily: `mocha --dry-run` lists the specs without one.
  const target = (): TargetConfig | undefined => {
    try {
      return session.target;
    } catch {
      return undefined; // no target in the environment: nothing was started on any cluster either
    }
  };
  const stopHandling = handleInterrupts({
    cleanup: session.ledger,
    handOver: () => session.split.handOverInterrupted(),
    settle: () => target()?.kind === 'cluster',
    // Given, or what the undo's roll-out may take on this cluster's pools (as the after-all hook's timeout).
    graceMs: () => {
      const given = target()?.interruptGraceSeconds;
      if (given !== undefined) return given * 1000;
      return session.isConnected ? session.timeoutMs('cleanup') : DEFAULT_INTERRUPT_GRACE_SECONDS * 1000;
    },
  });
  let skipped = false;
  before(async function () {
    const reason = await session.prepareSuite(this.test?.parent?.file);
    if (reason) {
      console.log(`  SKIP ${this.test?.parent?.fullTitle() ?? ''}: ${reason}`);
      skipped = true;
      this.skip();
    }
  });
  after(async function () {
    const last = target()?.cleanupAfter;
    const spec = specKey(session.split.specFile);
    // a skipped spec changed nothing, so nothing of it need wait; held, it would keep its watcher (and the process)
    // alive when it runs after the last spec, as one the release rules out does (not in the plan, spec 15 on 4.12)
    if (last && spec !== last && !skipped) {
      // its interrupt handling stays until the held cleanup ran: an interrupt before then still undoes this spec
      deferCleanup(spec, async () => {
        stopHandling();
        await session.finish();
      });
      console.log(`  cleanup held back until ${last} has judged the same upgrade`);
      return;
    }
    if (session.isConnected) this.timeout(session.timeoutMs('cleanup') * (1 + deferredCleanups()));
    stopHandling();
    const errors: Error[] = [];
    await session.finish().catch((error: unknown) => errors.push(error as Error));
    // only the spec the others wait for releases their held cleanups: a skipped one before it (spec 04, which does not
    // upgrade, in a post) released them while later specs still judged, and the report's deadlock went with them
    if (!last || spec === last) errors.push(...(await runDeferredCleanups()));
    if (errors.length === 1) throw errors[0];
    if (errors.length) throw new Error(errors.map((e) => e.message).join('\n'));
  });
  return session;
}

/** `notOn` over every release the suite knows: the ones it rules out, with its reason (DeclaredCase.notOnReleases). */
function notOnReleases(notOn: (release: ReleaseRules) => string | undefined): Record<string, string> {
  return Object.fromEntries(RELEASES.flatMap((rules) => {
    const reason = notOn(rules);
    return reason ? [[rules.release, reason]] : [];
  }));
}
