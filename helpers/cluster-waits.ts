/**
 * The waits an upgrade conformance test needs, each with a budget in cluster time that scales with the target's clock
 * and the pool's size, and a description of the observed state for when the budget runs out.
 */
import type { ClusterSnapshot, ClusterWatcher } from './cluster-watcher.js';
import { poolRolloutClusterMinutes, wallBudgetMs, type TargetCapabilities } from './capabilities.js';
import { nodesOfPool, poolProgressLine, poolSettled, viewNode, viewPool } from './pools.js';
import { findCondition, RenderedAnnotations, type MachineConfigPool } from './types.js';
import { summarize } from './monitor.js';
import { waitFor, type ProgressSink } from './wait.js';

export interface WaitContext {
  watcher: ClusterWatcher;
  caps: Pick<TargetCapabilities, 'timeFactor'>;
  progress?: ProgressSink & { end?(): void };
  /** Floor of every budget in wall milliseconds (default 5 s: below that a compressed clock races the API itself). */
  minBudgetMs?: number;
  /**
   * Wall milliseconds added to every budget on a compressed clock (default 10 s). At 600x one second of CPU starvation
   * on a shared machine is ten cluster minutes: the target's own scheduling noise must not fail a spec.
   */
  compressedClockSlackMs?: number;
}

/** The wall-clock budget of a wait that may take `clusterMinutes` on this target. */
export function budgetMs(ctx: WaitContext, clusterMinutes: number): number {
  const slack = ctx.caps.timeFactor > 1 ? (ctx.compressedClockSlackMs ?? 10_000) : 0;
  return wallBudgetMs(clusterMinutes, ctx.caps, ctx.minBudgetMs) + slack;
}

function pool(snapshot: ClusterSnapshot, name: string): MachineConfigPool | undefined {
  return snapshot.pools.get(name);
}

function poolLine(snapshot: ClusterSnapshot, name: string): string {
  const p = pool(snapshot, name);
  if (!p) return `${name}: no such pool`;
  return poolProgressLine(p, nodesOfPool(p, [...snapshot.pools.values()], [...snapshot.nodes.values()]));
}

function mcoLine(snapshot: ClusterSnapshot): string {
  const mco = snapshot.operators.get('machine-config');
  return mco ? `clusteroperator/machine-config ${summarize('ClusterOperator', mco)}` : 'clusteroperator/machine-config not found';
}

function cvLine(snapshot: ClusterSnapshot): string {
  return snapshot.clusterVersion ? `clusterversion/version ${summarize('ClusterVersion', snapshot.clusterVersion)}` : 'clusterversion/version not found';
}

export interface PoolExpectation {
  pools: string[];
  /** Per pool: MachineConfigs that must be among the sources of its rendered config (just created). */
  sourcesInclude?: Record<string, string[]>;
  /** Per pool: MachineConfigs that must no longer be among the sources (just deleted). */
  sourcesExclude?: Record<string, string[]>;
  /** The rendered config must be made for this release (annotation release-image-version). */
  releaseVersion?: string;
  /**
   * How long (cluster minutes) a pool may stay NodeDegraded before the wait gives up on it. A daemon retries a failed
   * pull, and a node just pointed back at its config is still marked degraded until its daemon looks again. Default 15.
   */
  degradedGraceClusterMinutes?: number;
}

function renderedFor(snapshot: ClusterSnapshot, p: MachineConfigPool, expectation: PoolExpectation): string | undefined {
  const sources = new Set((p.spec?.configuration?.source ?? []).map((s) => s.name));
  const name = p.metadata.name ?? '';
  const missing = (expectation.sourcesInclude?.[name] ?? []).filter((n) => !sources.has(n));
  if (missing.length) return `not yet rendered with ${missing.join(', ')}`;
  const stale = (expectation.sourcesExclude?.[name] ?? []).filter((n) => sources.has(n));
  if (stale.length) return `still rendered with ${stale.join(', ')}`;
  if (expectation.releaseVersion) {
    const rendered = p.spec?.configuration?.name ? snapshot.machineConfigs.get(p.spec.configuration.name) : undefined;
    const version = rendered?.metadata.annotations?.[RenderedAnnotations.releaseImageVersion];
    if (version !== expectation.releaseVersion) return `rendered config ${p.spec?.configuration?.name ?? '-'} is for release ${version ?? 'unknown'}`;
  }
  return undefined;
}

/** Waits until every named pool is rendered as expected and fully rolled out (Updated, not Updating, not Degraded). */
export function waitForPools(ctx: WaitContext, expectation: PoolExpectation): Promise<ClusterSnapshot> {
  const snapshot = ctx.watcher.snapshot();
  const nodeCount = Math.max(1, ...expectation.pools.map((n) => pool(snapshot, n)?.status?.machineCount ?? 1));
  const total = expectation.pools.reduce((sum, n) => sum + (pool(snapshot, n)?.status?.machineCount ?? 1), 0);
  // Pools roll in parallel, nodes within a pool one at a time: the largest pool sets the pace.
  const minutes = poolRolloutClusterMinutes(Math.max(nodeCount, Math.ceil(total / expectation.pools.length)));
  const listed = (m?: Record<string, string[]>) => Object.values(m ?? {}).flat();
  const wants = [
    listed(expectation.sourcesInclude).length ? `rendered with ${listed(expectation.sourcesInclude).join(', ')}` : '',
    listed(expectation.sourcesExclude).length ? `rendered without ${listed(expectation.sourcesExclude).join(', ')}` : '',
    expectation.releaseVersion ? `rendered for release ${expectation.releaseVersion}` : '',
    'Updated=True, Updating=False, Degraded=False, every node on the rendered config',
  ].filter(Boolean);
  const graceMs = wallBudgetMs(expectation.degradedGraceClusterMinutes ?? 15, ctx.caps, 0);
  const degradedSince = new Map<string, number>();
  return waitFor(
    ctx.watcher,
    {
      what: `pools ${expectation.pools.join(', ')} to roll out`,
      expected: `pools ${expectation.pools.join(', ')}: ${wants.join('; ')}`,
      budgetMs: budgetMs(ctx, minutes),
      caps: ctx.caps,
      judge: (snap) => {
        const lines: string[] = [];
        let done = true;
        for (const name of expectation.pools) {
          const p = pool(snap, name);
          if (!p) {
            done = false;
            lines.push(`${name}: no such pool`);
            continue;
          }
          const notRendered = renderedFor(snap, p, expectation);
          if (notRendered || !poolSettled(p)) done = false;
          lines.push(notRendered ? `${name} ${notRendered}` : poolLine(snap, name));
          // A pool that stays NodeDegraded on the config we wait for will not get better by waiting out the budget.
          if (!notRendered && viewPool(p).nodeDegradedMessage !== undefined) {
            const since = degradedSince.get(name) ?? Date.now();
            degradedSince.set(name, since);
            if (Date.now() - since >= graceMs) return { done: false, progress: lines.join('; '), failure: degradedPoolDiagnosis(snap, p) };
          } else {
            degradedSince.delete(name);
          }
        }
        return { done, progress: lines.join('; ') };
      },
      describe: (snap) => [...expectation.pools.map((n) => poolLine(snap, n)), mcoLine(snap)].join('; '),
    },
    ctx.progress,
  );
}

/**
 * Which node, which image and why: for every degraded node of the pool, the config it was moving to, that config's
 * osImageURL, and the daemon's reason (the pool's NodeDegraded message when the node carries none).
 */
export function degradedPoolDiagnosis(snapshot: ClusterSnapshot, p: MachineConfigPool): string {
  const v = viewPool(p);
  const nodes = nodesOfPool(p, [...snapshot.pools.values()], [...snapshot.nodes.values()]).map(viewNode);
  const degraded = nodes.filter((n) => n.activity === 'degraded');
  const lines = degraded.map((n) => {
    const desired = n.desired ? snapshot.machineConfigs.get(n.desired) : undefined;
    const image = desired?.spec?.osImageURL ?? '(unknown: rendered config not found)';
    return `node ${n.name} failed to move to ${n.desired ?? '(no desired config)'} with osImageURL ${image}: ${n.reason ?? v.nodeDegradedMessage ?? 'no reason given'}`;
  });
  const head = `pool ${v.name} is degraded (NodeDegraded: "${v.nodeDegradedMessage ?? ''}")`;
  return lines.length ? `${head}\n  ${lines.join('\n  ')}` : head;
}

export interface UpgradeWait {
  image: string;
  version?: string;
}

/** origin's "Reached": desired is the target, history[0] Completed for it, Available, not Progressing or Failing. */
export function upgradeReached(snapshot: ClusterSnapshot, target: UpgradeWait): boolean {
  const cv = snapshot.clusterVersion;
  const head = cv?.status?.history?.[0];
  const matches = (r?: { image?: string; version?: string }) =>
    r !== undefined && (r.image === target.image || (target.version !== undefined && r.version === target.version));
  const c = cv?.status?.conditions;
  return (
    matches(cv?.status?.desired) &&
    head?.state === 'Completed' &&
    matches(head) &&
    findCondition(c, 'Available')?.status === 'True' &&
    findCondition(c, 'Progressing')?.status !== 'True' &&
    findCondition(c, 'Failing')?.status !== 'True'
  );
}

/**
 * Waits for ClusterVersion to report the upgrade Completed. Budget: origin's upgrade P99 scale (an hour plus the
 * master pool's rollout, capped at 150 cluster minutes). On timeout the message carries ClusterVersion's and the
 * machine-config operator's own words, which is where the reason lives.
 */
export function waitForUpgrade(ctx: WaitContext, target: UpgradeWait): Promise<ClusterSnapshot> {
  const masters = ctx.watcher.snapshot().pools.get('master')?.status?.machineCount ?? 3;
  const minutes = Math.min(150, 60 + poolRolloutClusterMinutes(masters));
  return waitFor(
    ctx.watcher,
    {
      what: `the upgrade to ${target.version ?? target.image}`,
      expected: `clusterversion/version desired=${target.version ?? target.image}, history[0] Completed, Available=True, Progressing=False, Failing=False`,
      budgetMs: budgetMs(ctx, minutes),
      caps: ctx.caps,
      judge: (snap) => {
        const head = snap.clusterVersion?.status?.history?.[0];
        const progressing = findCondition(snap.clusterVersion?.status?.conditions, 'Progressing');
        return {
          done: upgradeReached(snap, target),
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
 * The report's bug, recognised while it happens, so a real cluster does not burn the rest of a 150-minute budget on it:
 * the machine-config operator is Degraded on its osImageURL check although the master pool is fully updated (only the
 * check itself can be wrong then), and ClusterVersion has already given up its 40-minute wait on machine-config. No
 * amount of waiting changes that state; a slow but healthy upgrade never shows the osImageURL mismatch.
 */
export function osImageCheckDeadlock(snapshot: ClusterSnapshot): string | undefined {
  const cvProgressing = findCondition(snapshot.clusterVersion?.status?.conditions, 'Progressing');
  if (!/wait has exceeded 40 minutes for these operators: .*machine-config/.test(cvProgressing?.message ?? '')) return undefined;
  const degraded = findCondition(snapshot.operators.get('machine-config')?.status?.conditions, 'Degraded');
  if (degraded?.status !== 'True' || !(degraded.message ?? '').includes('osImageURL mismatch for master')) return undefined;
  const master = pool(snapshot, 'master');
  if (findCondition(master?.status?.conditions, 'Updated')?.status !== 'True') return undefined;
  return (
    'machine-config stays Degraded on its osImageURL check although pool master is fully updated, and ClusterVersion ' +
    `has given up waiting for it ("${cvProgressing!.message}"); waiting longer cannot help. machine-config says: ${degraded.message}`
  );
}

/**
 * origin's WaitForOperatorsToSettle, for the operator this suite is about, plus ClusterVersion done with it:
 * machine-config Available, not Degraded, not Progressing, at the version; ClusterVersion history[0] Completed at the
 * version and not Failing. Both report their recovery one sync after the fact (the operator drops Progressing after it
 * bumps its version; the CVO clears Failing on its next reconcile), so a check made the instant pools settle would race.
 */
export function waitForClusterSettled(ctx: WaitContext, version: string): Promise<ClusterSnapshot> {
  return waitFor(
    ctx.watcher,
    {
      what: `machine-config and ClusterVersion to settle at ${version}`,
      expected: `clusteroperator/machine-config version=${version} Available=True Progressing=False Degraded=False; clusterversion/version history[0] Completed ${version}, Failing not True`,
      budgetMs: budgetMs(ctx, 15),
      caps: ctx.caps,
      judge: (snap) => {
        const co = snap.operators.get('machine-config');
        const c = co?.status?.conditions;
        const operatorDone =
          co?.status?.versions?.find((v) => v.name === 'operator')?.version === version &&
          findCondition(c, 'Available')?.status === 'True' &&
          findCondition(c, 'Progressing')?.status === 'False' &&
          findCondition(c, 'Degraded')?.status === 'False';
        const cv = snap.clusterVersion;
        const head = cv?.status?.history?.[0];
        const versionDone = head?.state === 'Completed' && head.version === version && findCondition(cv?.status?.conditions, 'Failing')?.status !== 'True';
        return { done: operatorDone && versionDone, progress: `${mcoLine(snap)}; ${cvLine(snap)}` };
      },
    },
    ctx.progress,
  );
}
