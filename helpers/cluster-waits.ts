/**
 * The waits an upgrade conformance test needs, each with a budget in cluster time that scales with the target's clock
 * and the pool's size, and a description of the observed state for when the budget runs out. What each wait waits
 * for is a fact of helpers/facts: the same meaning the assertions and the monitor use.
 */
import type { ClusterSnapshot, ClusterWatcher } from './cluster-watcher.js';
import { clockOf, poolRolloutClusterMinutes, wallBudgetMs, type TargetCapabilities } from './capabilities.js';
import { operatorLine, operatorSettledAt } from './facts/cluster-operator.js';
import { clusterVersionLine, upgradeCompleted, type ReleaseTarget } from './facts/cluster-version.js';
import { degradedNodes, describeDegradedPool, osImageCheckDeadlock, type DegradedNode } from './facts/diagnoses.js';
import { allOf } from './facts/fact.js';
import { nodesOfPool, poolProgressLine, poolRenderedAs, poolRolledOut, viewPool, type RenderExpectation } from './facts/pool.js';
import { viewNode } from './facts/node.js';
import { findCondition, type MachineOSConfig } from './types.js';
import { ImageAnnotations } from './image-mode/types.js';
import { waitFor, WaitFailedError, type ProgressSink, type WaitSpec } from './wait.js';

export interface WaitContext {
  watcher: ClusterWatcher;
  caps: Pick<TargetCapabilities, 'timeFactor' | 'clock'>;
  progress?: ProgressSink;
  /** Floor of every budget in wall milliseconds (default 5 s: below that a compressed clock races the API itself). */
  minBudgetMs?: number;
  /**
   * Wall milliseconds added to every budget on a compressed clock (default 10 s). At 600x one second of CPU starvation
   * on a shared machine is ten cluster minutes: the target's own scheduling noise must not fail a spec.
   */
  compressedClockSlackMs?: number;
  /** Every budget times this (`--timeout-scale`: a slow cluster's waits get more, a quick check less). Default 1. */
  scale?: number;
}

/**
 * The least wall time a wait that includes an on-cluster image build gets on any target (a build wait, a roll-out of an
 * image-mode pool, which builds first): a build runs a container engine in wall time however fast the target's clock
 * goes (the reference's at 600x gives 60 cluster minutes 6 s), and one build of the stand-in OS took 10-15 s on a
 * machine shared with other runs (load 15 on 2 cores).
 */
export const IMAGE_BUILD_WALL_FLOOR_MS = 60_000;

/** The wall-clock budget of a wait that may take `clusterMinutes` on this target. */
export function budgetMs(ctx: WaitContext, clusterMinutes: number): number {
  const slack = ctx.caps.timeFactor > 1 ? (ctx.compressedClockSlackMs ?? 10_000) : 0;
  return Math.ceil((wallBudgetMs(clusterMinutes, ctx.caps, ctx.minBudgetMs) + slack) * (ctx.scale ?? 1));
}

function poolLine(snapshot: ClusterSnapshot, name: string): string {
  const p = snapshot.pools.get(name);
  if (!p) return `${name}: no such pool`;
  return poolProgressLine(p, nodesOfPool(p, snapshot.pools.values(), snapshot.nodes.values()));
}

function mcoLine(snapshot: ClusterSnapshot): string {
  const mco = snapshot.operators.get('machine-config');
  return mco ? `clusteroperator/machine-config ${operatorLine(mco)}` : 'clusteroperator/machine-config not found';
}

function cvLine(snapshot: ClusterSnapshot): string {
  return snapshot.clusterVersion ? `clusterversion/version ${clusterVersionLine(snapshot.clusterVersion)}` : 'clusterversion/version not found';
}

export interface PoolExpectation {
  pools: string[];
  /** Per pool: what its target config must (not) be rendered from, and for which release. */
  rendered?: Record<string, RenderExpectation>;
  /** Every pool's target config must be rendered for this release. */
  releaseVersion?: string;
  /**
   * How long (cluster minutes) a pool may stay NodeDegraded before the wait gives up on it. A daemon retries a failed
   * pull, and a node just pointed back at its config is still marked degraded until its daemon looks again. Default 15.
   */
  degradedGraceClusterMinutes?: number;
}

/** When the wait first saw a node of a pool degraded, on the target's clock, and what it saw of the pool just before. */
export interface FirstDegraded {
  /**
   * Target time (epoch ms, clockOf(caps)) when the wait first saw a node of the pool degraded on the awaited config (the
   * node's daemon reports it before the pool's NodeDegraded follows), asked of the target then (TargetClock.readNow: a
   * skipping reference clock may have jumped minutes since the last read).
   */
  targetMs: number;
  /** The wall moment of that reading (epoch ms). */
  wallMs: number;
  /** The pool's progress line at the judgement before it (poolProgressLine), or 'nothing observed yet'. */
  lastSeenBefore: string;
}

/** The wait stopped on a pool whose nodes cannot reach their config; `nodes` says which, moving where, and why. */
export class PoolDegradedError extends WaitFailedError {
  constructor(
    spec: WaitSpec,
    failure: string,
    observed: string,
    readonly pool: string,
    readonly nodes: DegradedNode[],
    /** When the wait first saw this pool report a degraded node (the grace ran from then or later). */
    readonly firstDegraded: FirstDegraded,
  ) {
    super(spec, failure, observed);
    this.name = 'PoolDegradedError';
  }
}

function renderExpectation(expectation: PoolExpectation, pool: string): RenderExpectation {
  return { ...expectation.rendered?.[pool], release: expectation.releaseVersion ?? expectation.rendered?.[pool]?.release };
}

function wanted(expectation: PoolExpectation): string[] {
  const all = Object.values(expectation.rendered ?? {});
  const include = all.flatMap((r) => r.with ?? []);
  const exclude = all.flatMap((r) => r.without ?? []);
  return [
    include.length ? `rendered with ${include.join(', ')}` : '',
    exclude.length ? `rendered without ${exclude.join(', ')}` : '',
    expectation.releaseVersion ? `rendered for release ${expectation.releaseVersion}` : '',
    'Updated=True, Updating=False, Degraded=False, every node on the rendered config',
  ].filter(Boolean);
}

/** Some of `pools` has a MachineOSConfig (where the watcher follows them) or a node told an image (desiredImage). */
function anyInImageMode(snapshot: ClusterSnapshot, pools: readonly string[]): boolean {
  const moscPools = [...(snapshot.machineOSConfigs?.values() ?? [])].map((m) => (m as MachineOSConfig).spec?.machineConfigPool?.name);
  return pools.some((name) => {
    if (moscPools.includes(name)) return true;
    const pool = snapshot.pools.get(name);
    return pool !== undefined && nodesOfPool(pool, snapshot.pools.values(), snapshot.nodes.values()).some((n) => n.metadata?.annotations?.[ImageAnnotations.desiredImage] !== undefined);
  });
}

/** Waits until every named pool is rendered as expected and has rolled it out (facts/pool.ts: poolRolledOut). */
export function waitForPools(ctx: WaitContext, expectation: PoolExpectation): Promise<ClusterSnapshot> {
  const snapshot = ctx.watcher.snapshot();
  // Pools roll in parallel, nodes within a pool one at a time: the largest pool sets the pace.
  const largest = Math.max(1, ...expectation.pools.map((n) => snapshot.pools.get(n)?.status?.machineCount ?? 1));
  // The grace is cluster time, read on the target's clock: a skipping clock may spend it in no wall time at all.
  const graceMs = (expectation.degradedGraceClusterMinutes ?? 15) * 60_000;
  const clock = clockOf(ctx.caps);
  const degradedSince = new Map<string, number>();
  const firstDegraded = new Map<string, { at: Promise<{ targetMs: number; wallMs: number }>; lastSeenBefore: string }>();
  const lastSeen = new Map<string, string>();
  let degraded: { pool: string; nodes: DegradedNode[] } | undefined;
  const spec: WaitSpec = {
    what: `pools ${expectation.pools.join(', ')} to roll out`,
    expected: `pools ${expectation.pools.join(', ')}: ${wanted(expectation).join('; ')}`,
    // a pool in image mode builds its image before it rolls anything out (an upgrade's new base, for one)
    budgetMs: budgetMs(anyInImageMode(snapshot, expectation.pools) ? { ...ctx, minBudgetMs: ctx.minBudgetMs ?? IMAGE_BUILD_WALL_FLOOR_MS } : ctx, poolRolloutClusterMinutes(largest)),
    caps: ctx.caps,
    judge: (snap) => {
      const lines: string[] = [];
      let done = true;
      for (const name of expectation.pools) {
        const p = snap.pools.get(name);
        if (!p) {
          done = false;
          lines.push(`${name}: no such pool`);
          continue;
        }
        const rendered = poolRenderedAs(p, renderExpectation(expectation, name), snap.machineConfigs);
        if (!allOf(rendered, poolRolledOut(p)).ok) done = false;
        lines.push(rendered.ok ? poolLine(snap, name) : rendered.why);
        // The first sight of a node degraded on the config we wait for: its daemon's report, or the pool's.
        if (!firstDegraded.has(name)) {
          const target = p.spec?.configuration?.name;
          const nodeDegraded = rendered.ok && nodesOfPool(p, snap.pools.values(), snap.nodes.values()).some((n) => {
            const v = viewNode(n);
            return v.activity === 'degraded' && v.desired === target;
          });
          if (nodeDegraded || (rendered.ok && viewPool(p).nodeDegradedMessage !== undefined)) {
            firstDegraded.set(name, { at: clock.readNow(), lastSeenBefore: lastSeen.get(name) ?? 'nothing observed yet' });
          } else {
            lastSeen.set(name, rendered.ok ? poolLine(snap, name) : rendered.why);
          }
        }
        // A pool that stays NodeDegraded on the config we wait for will not get better by waiting out the budget.
        if (rendered.ok && viewPool(p).nodeDegradedMessage !== undefined) {
          const since = degradedSince.get(name) ?? clock.nowMs();
          degradedSince.set(name, since);
          if (clock.nowMs() - since >= graceMs) {
            degraded = { pool: name, nodes: degradedNodes(snap, p) };
            return { done: false, progress: lines.join('; '), failure: describeDegradedPool(p, degraded.nodes) };
          }
        } else {
          degradedSince.delete(name);
        }
      }
      return { done, progress: lines.join('; ') };
    },
    describe: (snap) => [...expectation.pools.map((n) => poolLine(snap, n)), mcoLine(snap)].join('; '),
  };
  return waitFor(ctx.watcher, spec, ctx.progress).catch(async (error: unknown) => {
    if (error instanceof WaitFailedError && degraded) {
      const first = firstDegraded.get(degraded.pool)!;
      throw new PoolDegradedError(spec, error.failure, error.actual, degraded.pool, degraded.nodes, { ...(await first.at), lastSeenBefore: first.lastSeenBefore });
    }
    throw error;
  });
}

/** The upgrade's budget in cluster minutes: an hour plus the master pool's roll-out, capped at 150 (see below). */
export function upgradeClusterMinutes(masters: number): number {
  return Math.min(150, 60 + poolRolloutClusterMinutes(masters));
}

/**
 * Waits for ClusterVersion to report the upgrade completed (facts/cluster-version.ts: upgradeCompleted). Budget:
 * origin's upgrade P99 scale (an hour plus the master pool's rollout, capped at 150 cluster minutes). On timeout the
 * message carries ClusterVersion's and the machine-config operator's own words, which is where the reason lives; on
 * the report's deadlock it stops at once.
 */
export function waitForUpgrade(ctx: WaitContext, target: ReleaseTarget): Promise<ClusterSnapshot> {
  const masters = ctx.watcher.snapshot().pools.get('master')?.status?.machineCount ?? 3;
  const minutes = upgradeClusterMinutes(masters);
  const name = target.version ?? target.image;
  return waitFor(
    ctx.watcher,
    {
      what: `the upgrade to ${name}`,
      expected: `clusterversion/version desired=${name}, history[0] Completed, Available=True, Progressing=False, Failing=False`,
      budgetMs: budgetMs(ctx, minutes),
      caps: ctx.caps,
      judge: (snap) => {
        const head = snap.clusterVersion?.status?.history?.[0];
        const progressing = findCondition(snap.clusterVersion?.status?.conditions, 'Progressing');
        return {
          done: upgradeCompleted(snap.clusterVersion, target).ok,
          progress: `${head ? `${head.state} ${head.version ?? head.image}` : 'no history'}: ${progressing?.message ?? ''}; ${poolLine(snap, 'master')}`,
          failure: osImageCheckDeadlock(snap),
        };
      },
      describe: (snap) => [cvLine(snap), mcoLine(snap), poolLine(snap, 'master'), poolLine(snap, 'worker')].join('; '),
    },
    ctx.progress,
  );
}

/**
 * origin's WaitForOperatorsToSettle, for the operator this suite is about, plus ClusterVersion done with it. Both
 * report their recovery one sync after the fact (the operator drops Progressing after it bumps its version; the CVO
 * clears Failing on its next reconcile), so a check made the instant pools settle would race.
 */
export function waitForClusterSettled(ctx: WaitContext, version: string): Promise<ClusterSnapshot> {
  return waitFor(
    ctx.watcher,
    {
      what: `machine-config and ClusterVersion to settle at ${version}`,
      expected: `clusteroperator/machine-config version=${version} Available=True Progressing=False Degraded=False; clusterversion/version history[0] Completed ${version}, Available=True, Progressing=False, Failing not True`,
      budgetMs: budgetMs(ctx, 15),
      caps: ctx.caps,
      judge: (snap) => {
        const co = snap.operators.get('machine-config');
        const operator = co ? operatorSettledAt(co, version) : { ok: false, why: 'clusteroperator/machine-config not found' };
        return { done: allOf(operator, upgradeCompleted(snap.clusterVersion, { version })).ok, progress: `${mcoLine(snap)}; ${cvLine(snap)}` };
      },
    },
    ctx.progress,
  );
}
