/**
 * What the target offers, discovered rather than assumed. The embedded reference cluster publishes a ConfigMap with
 * its clock factor and registry; a real cluster has none, runs at wall-clock speed, and needs --image-repo.
 */
import type { Cluster } from './cluster.js';
import { ServerTargetClock, type TargetClock } from './target-clock.js';

export const ReferenceInfoConfigMap = { namespace: 'kube-system', name: 'ocp-e2e-reference-cluster' } as const;

export interface TargetCapabilities {
  /** Cluster seconds per wall second: 1 on a real cluster. */
  timeFactor: number;
  isReference: boolean;
  profile?: string;
  registry?: string;
  imageRepo?: string;
  /**
   * The target's time (target-clock.ts): the wall clock on a real cluster, the server's cluster time on the reference.
   * Absent where a caller made its own capabilities: then the time is the wall clock at the factor (clockOf).
   */
  clock?: TargetClock;
}

type ClockCaps = Pick<TargetCapabilities, 'timeFactor' | 'clock'>;

export async function discoverCapabilities(cluster: Cluster): Promise<TargetCapabilities> {
  const cm = await cluster.getConfigMap(ReferenceInfoConfigMap.namespace, ReferenceInfoConfigMap.name);
  if (!cm?.data) return { timeFactor: 1, isReference: false };
  const factor = Number(cm.data.timeFactor);
  const timeFactor = Number.isFinite(factor) && factor > 0 ? factor : 1;
  return {
    timeFactor,
    // The reference's cluster time is its server's (a `skip` clock jumps where the factor cannot tell).
    clock: await ServerTargetClock.start(cluster.kubeConfig, timeFactor, { clientWorkPath: cm.data.clientWorkPath }),
    isReference: true,
    profile: cm.data.profile,
    registry: cm.data.registry,
    imageRepo: cm.data.imageRepo,
  };
}

/**
 * Wall-clock budget for something that takes `clusterMinutes` on a real cluster, scaled by the target's clock.
 * `floorMs` keeps a compressed clock from producing budgets shorter than the API round trips themselves.
 */
export function wallBudgetMs(clusterMinutes: number, caps: Pick<TargetCapabilities, 'timeFactor'>, floorMs = 5_000): number {
  return Math.max(floorMs, Math.ceil((clusterMinutes * 60_000) / caps.timeFactor));
}

/**
 * Cluster minutes a pool rollout may take: MCO rolls one node at a time (maxUnavailable 1) and a node update with its
 * drain and reboot takes 10-20 minutes on real hardware, up to 30 with a slow image pull, so the budget grows with the
 * pool. (QE's fixed 10-minute pool wait failed about half its runs: the budget must follow the pool size.)
 */
export function poolRolloutClusterMinutes(nodeCount: number, perNodeMinutes = 30, slackMinutes = 30): number {
  return Math.max(1, nodeCount) * perNodeMinutes + slackMinutes;
}

/** The target's clock: its own, or the wall clock at its factor (every call gives the same time). */
export function clockOf(caps: ClockCaps): TargetClock {
  if (caps.clock) return caps.clock;
  const atWallMs = (wallMs: number) => wallMs * caps.timeFactor;
  return {
    nowMs: () => atWallMs(Date.now()),
    atWallMs,
    readNow: async () => {
      const wallMs = Date.now();
      return { targetMs: atWallMs(wallMs), wallMs };
    },
    factor: caps.timeFactor,
    stop: () => {},
  };
}

/**
 * Runs `body` as a wait on the target: a skipping reference clock may jump over idle time only while the suite waits
 * (inside `asSuiteWork`, which a test body is); elsewhere it is just `body`.
 */
export function whileWaiting<T>(caps: ClockCaps, body: () => Promise<T>): Promise<T> {
  const clock = caps.clock;
  return clock?.waitingDuring ? clock.waitingDuring(body) : body();
}

/** Runs `body` as the suite's own work: the target's clock does not skip meanwhile (see TargetClock.workingDuring). */
export function asSuiteWork<T>(caps: ClockCaps, body: () => Promise<T>): Promise<T> {
  const clock = caps.clock;
  return clock?.workingDuring ? clock.workingDuring(body) : body();
}

/** Time gone by on both clocks since it was made. */
export interface Stopwatch {
  /** Target ms. */
  targetMs(): number;
  wallMs(): number;
  /** "12m30s", or on a compressed clock "12m30s cluster time (1.3s wall)". */
  format(): string;
}

/**
 * A stopwatch started now, or at `start` (a reading of the target's clock, TargetClock.readNow): a span that a jump of
 * the cluster's clock just before it must not be charged with starts from a reading, not from the estimate.
 */
export function stopwatch(caps: ClockCaps, start?: { targetMs: number; wallMs: number }): Stopwatch {
  const clock = clockOf(caps);
  const target0 = start?.targetMs ?? clock.nowMs();
  const wall0 = start?.wallMs ?? Date.now();
  const watch: Stopwatch = {
    targetMs: () => clock.nowMs() - target0,
    wallMs: () => Date.now() - wall0,
    format: () => formatTargetDuration(watch.targetMs(), watch.wallMs(), caps.timeFactor),
  };
  return watch;
}

/** Formats a span measured on both clocks: "12m30s" at factor 1, else "12m30s cluster time (6.0s wall)". */
export function formatTargetDuration(targetMs: number, wallMs: number, timeFactor: number): string {
  const seconds = Math.round(targetMs / 1000);
  const m = Math.floor(seconds / 60);
  const s = seconds % 60;
  const text = m > 0 ? `${m}m${String(s).padStart(2, '0')}s` : `${s}s`;
  return timeFactor === 1 ? text : `${text} cluster time (${(wallMs / 1000).toFixed(1)}s wall)`;
}

/** A wait's budget, given in wall ms at the factor, said in target time: a skipping clock spends it in less wall time. */
export function formatBudget(wallMs: number, caps: Pick<TargetCapabilities, 'timeFactor'>): string {
  const text = formatTargetDuration(wallMs * caps.timeFactor, wallMs, 1);
  return caps.timeFactor === 1 ? text : `${text} cluster time (at most ${(wallMs / 1000).toFixed(1)}s wall)`;
}
