/**
 * Many upgrade specs on one cluster, which can be upgraded once: the run plans that one upgrade. The specs that do not
 * upgrade run first, whole, one after another (each changes a pool and puts it back); then every upgrade spec
 * prepares (`--phase pre`), the cluster is upgraded once (`--phase upgrade`: the first spec upgrades, the others
 * record that same upgrade) and every upgrade spec judges it (`--phase post`). Each spec's roles use the pools the
 * plan gives them (helpers/plan/pool-plan.ts): a custom pool of one worker where two specs would override one pool
 * differently. A plan that cannot be made is refused before any cluster time, naming the specs and pools.
 *
 * A pipeline's phases run by hand (`--phase pre`, then `upgrade` and `post`, perhaps by other jobs) follow the same
 * plan: pre makes the pools and leaves the plan on the cluster, the later phases read it, post's run removes both.
 * An interrupt of `--phase all` after the prepares leaves the run as such a pipeline would be left (the overrides,
 * checkpoints, pools and plan) and prints the phases that go on from there (shared-upgrade-resume.ts).
 */
import { basename } from 'node:path';
import type { Cluster } from '../../../helpers/cluster.js';
import { ClusterWatcher } from '../../../helpers/cluster-watcher.js';
import type { TargetClock } from '../../../helpers/target-clock.js';
import type { WaitContext } from '../../../helpers/cluster-waits.js';
import { listCheckpoints } from '../../../helpers/checkpoint/store.js';
import { CHECKPOINT_NAMESPACE } from '../../../helpers/checkpoint/format.js';
import { removeNamespaceWithoutCheckpoints } from '../../../helpers/ledger-changes.js';
import { nodesOfPool, pausedPoolReason } from '../../../helpers/facts/pool.js';
import { createCustomPools, listCustomPools, removeCustomPools } from '../../../helpers/plan/custom-pools.js';
import { planPools, POOL_ROLES, PoolPlanConflict, type CustomPool, specKey, workersNeeded, type PoolNeeds, type PoolPlan, type UnusablePools } from '../../../helpers/plan/pool-plan.js';
import { imageModePoolReason } from '../../../helpers/image-mode/pool-refusal.js';
import type { MachineOSConfig } from '../../../helpers/types.js';
import { deletePoolPlan, readPoolPlan, writePoolPlan } from '../../../helpers/plan/plan-store.js';
import type { RunPhase, TargetConfig } from '../../../helpers/target.js';
import { runMocha, type MochaRun } from '../mocha.js';
import { consoleLane } from '../output.js';
import { addCounts, NO_TESTS, type Counts } from '../results/counts.js';
import { listTests } from '../spec-listing.js';
import type { Supervisor } from '../supervisor.js';
import { UsageError } from '../usage-error.js';
import { describeStop } from './shared-upgrade-resume.js';

/** A spec that declares no pools is taken to be about the real pools with no override: it shares with nobody who overrides them. */
const UNDECLARED: PoolNeeds = { master: { image: 'release', own: true }, worker: { image: 'release', own: true } };

export interface SharedUpgradeRun {
  cluster: Cluster;
  target: TargetConfig;
  timeFactor: number;
  /** The target's clock (discovered with the factor): the shared waits budget in its time. */
  clock?: TargetClock;
  /** mocha settings shared by every child (grep, timeout, env). */
  mocha: Pick<MochaRun, 'grep' | 'timeoutMs' | 'env'>;
  junitName: string;
}

export interface SpecSplit {
  upgradeFiles: string[];
  otherFiles: string[];
  /** Upgrade specs the cluster's release rules out (they skip, saying why): run with the others, given no pool. */
  ruledOut: Array<{ file: string; why: string }>;
  needs: Array<{ spec: string; needs: PoolNeeds }>;
}

/**
 * Which selected files upgrade, and what each declares of its pools (from `mocha --dry-run`: no cluster needed).
 * With `release` (the cluster's, e.g. '4.12'), an upgrade spec that does not apply to it is left out of the plan: it
 * would only take a worker for a pool it never uses (spec 15 on a release without image mode).
 */
export async function splitBySharing(files: string[], release?: string): Promise<SpecSplit> {
  const listed = await listTests(files, 'all');
  const declared = new Map(listed.map((t) => [t.file, t.declared]));
  const ruledOut = files.flatMap((f) => {
    const why = release ? declared.get(f)?.notOnReleases?.[release] : undefined;
    return declared.get(f)?.upgrades && why ? [{ file: f, why }] : [];
  });
  const upgradeFiles = files.filter((f) => declared.get(f)?.upgrades && !ruledOut.some((r) => r.file === f));
  return {
    upgradeFiles,
    otherFiles: files.filter((f) => !declared.get(f)?.upgrades),
    ruledOut,
    needs: upgradeFiles.map((f) => ({ spec: specKey(f), needs: declared.get(f)?.pools ?? UNDECLARED })),
  };
}

/** How many workers the plan of these specs needs (a custom pool each, one left in pool worker while it is used). */
export function workersForPlan(split: SpecSplit): number {
  if (split.upgradeFiles.length < 2) return 0;
  try {
    return workersNeeded(split.needs);
  } catch (error) {
    if (error instanceof PoolPlanConflict) return 0; // no number of workers helps: planFor says why, on the cluster
    throw error;
  }
}

/**
 * The worker nodes a custom pool may take, by name: the nodes of pool worker that are not masters too. A node of
 * another custom pool (a user's infra or image-mode pool) is not one: the MCO refuses a node in two custom pools, and
 * the user's pool would lose it to the suite's.
 */
async function workerNodes(cluster: Cluster): Promise<string[]> {
  const [nodes, pools] = await Promise.all([cluster.listNodes(), cluster.listMachineConfigPools()]);
  const workerPool = pools.find((p) => p.metadata.name === 'worker');
  const labels = (n: (typeof nodes)[number]) => n.metadata?.labels ?? {};
  return (workerPool ? nodesOfPool(workerPool, pools, nodes) : [])
    .filter((n) => !('node-role.kubernetes.io/master' in labels(n)) && !('node-role.kubernetes.io/control-plane' in labels(n)))
    .map((n) => n.metadata?.name ?? '')
    .sort();
}

/**
 * The real pools a spec may not change on this cluster (the specs check the same again, helpers/conformance.ts
 * poolsReason): the plan gives the specs that would only share them custom pools, so they still run.
 */
async function unusablePools(cluster: Cluster): Promise<UnusablePools> {
  const [pools, imageMode] = await Promise.all([cluster.listMachineConfigPools(), cluster.listIfServed<MachineOSConfig>('MachineOSConfig')]);
  const unusable: UnusablePools = {};
  for (const role of POOL_ROLES) {
    const why = pausedPoolReason(pools.find((p) => p.metadata.name === role)) ?? imageModePoolReason([role], pools, imageMode, { inheritors: true });
    if (why) unusable[role] = why;
  }
  return unusable;
}

/** The plan of these specs on this cluster, or the refusal (exit 2) that says why it cannot be. */
export async function planFor(cluster: Cluster, split: SpecSplit): Promise<PoolPlan> {
  try {
    return planPools(split.needs, await workerNodes(cluster), await unusablePools(cluster));
  } catch (error) {
    if (!(error instanceof PoolPlanConflict)) throw error;
    throw new UsageError(`these specs cannot share one upgrade of this cluster: ${error.message}\nrun them on separate clusters (--grep with a case id, e.g. --grep 54183), or on a cluster with more worker nodes`);
  }
}

export function describePlan(plan: PoolPlan): string[] {
  const lines = Object.entries(plan.assignments).map(([spec, roles]) => `  ${spec}: ${Object.entries(roles).map(([role, pool]) => (role === pool ? role : `${role} → ${pool}`)).join(', ')}`);
  const pools = plan.customPools.map((p) => `  custom pool ${p.name}: node ${p.node}`);
  const leftOver = (plan.leftOver ?? []).map((l) => `  ${l.spec}: left over, needs another cluster: ${l.why}`);
  return [...lines, ...pools, ...leftOver];
}

/** The upgrade specs the plan holds: without the ones it left over (they run with the others and skip). */
function plannedFiles(plan: PoolPlan, files: string[]): string[] {
  const left = new Set((plan.leftOver ?? []).map((l) => l.spec));
  return files.filter((f) => !left.has(specKey(f)));
}

function waitsOf(watcher: ClusterWatcher, run: Pick<SharedUpgradeRun, 'target' | 'timeFactor' | 'clock'>): WaitContext {
  return { watcher, caps: { timeFactor: run.timeFactor, clock: run.clock }, scale: run.target.timeoutScale, progress: (line) => console.log(`    ${line}`) };
}

async function withWatcher<T>(cluster: Cluster, body: (watcher: ClusterWatcher) => Promise<T>): Promise<T> {
  const watcher = new ClusterWatcher(cluster);
  await watcher.start();
  try {
    return await body(watcher);
  } finally {
    watcher.stop();
  }
}

/**
 * What the spec processes of a shared upgrade are told: the plan's pools, and in post the spec whose end runs every
 * cleanup (no spec's cleanup may change the cluster while another still judges the upgrade).
 */
export function sharedTarget(plan: PoolPlan, phase: RunPhase, files: string[]): Pick<TargetConfig, 'poolPlan' | 'cleanupAfter'> {
  const planned = plannedFiles(plan, files);
  const last = planned[planned.length - 1];
  return {
    poolPlan: { assignments: plan.assignments as Record<string, Record<string, string>>, ...(plan.leftOver?.length ? { leftOver: plan.leftOver } : {}) },
    ...(phase === 'post' && planned.length > 1 && last ? { cleanupAfter: specKey(last) } : {}),
  };
}

/** The upgrade specs' files that pre handed over (their checkpoint is on the cluster): the ones the later phases go on with. */
async function handedOver(cluster: Cluster, files: string[]): Promise<string[]> {
  const checkpoints = await listCheckpoints(cluster);
  return files.filter((f) => checkpoints.has(basename(f)));
}

/**
 * `--phase all`: the other specs, then pre, upgrade and post over the upgrade specs with the plan's pools, then the
 * pools removed. Each child writes its own JUnit file (<name>-<phase>.xml).
 */
export async function runSharedUpgrade(split: SpecSplit, run: SharedUpgradeRun, supervisor: Supervisor): Promise<Counts> {
  const plan = await planFor(run.cluster, split);
  const upgradeFiles = plannedFiles(plan, split.upgradeFiles);
  const leftOverFiles = split.upgradeFiles.filter((f) => !upgradeFiles.includes(f));
  console.log(`plan: ${upgradeFiles.length} upgrade specs share one upgrade${split.otherFiles.length ? `, after ${split.otherFiles.length} spec(s) that do not upgrade` : ''}${leftOverFiles.length ? `; ${leftOverFiles.length} left over for another cluster` : ''}:`);
  for (const r of split.ruledOut) console.log(`  ${specKey(r.file)}: not in the plan, it does not apply to this cluster's release (${r.why})`);
  for (const line of describePlan(plan)) console.log(line);
  let counts = NO_TESTS;
  const child = (files: string[], phase: RunPhase, name: string) =>
    runMocha({ ...run.mocha, files, target: { ...run.target, phase, ...sharedTarget(plan, phase, files) }, junitName: name }, supervisor, consoleLane);
  const stopped = () => supervisor.interruptedBy !== undefined;

  // a ruled-out or left-over spec runs with the others, alone, and skips before any cluster time with its reason
  const first = [...split.otherFiles, ...split.ruledOut.map((r) => r.file), ...leftOverFiles];
  if (first.length) counts = addCounts(counts, await child(first, 'all', run.junitName));
  if (stopped()) return counts;
  const pools = await withWatcher(run.cluster, (w) => createCustomPools(run.cluster, waitsOf(w, run), plan.customPools, run.target.runId, (l) => console.log(`  ${l}`)));
  let keepPools = false;
  try {
    counts = addCounts(counts, await child(upgradeFiles, 'pre', `${run.junitName}-pre`));
    const prepared = await handedOver(run.cluster, upgradeFiles);
    if (stopped() || prepared.length === 0) {
      // an interrupt during pre left no checkpoint (a prepare undoes itself) or some: those are post's to finish
      keepPools = prepared.length > 0;
      return counts;
    }
    // the first spec upgrades; the others record its upgrade, and only if there is one: an upgrade that never
    // completed (the report's bug) is judged by every spec's post, which follows it and says why
    const [first, ...rest] = prepared;
    counts = addCounts(counts, await child([first!], 'upgrade', `${run.junitName}-upgrade`));
    const upgraded = (await listCheckpoints(run.cluster)).get(basename(first!))?.upgrade;
    if (upgraded && rest.length && !stopped()) counts = addCounts(counts, await child(rest, 'upgrade', `${run.junitName}-upgrade-shared`));
    if (stopped()) {
      keepPools = true;
      return counts;
    }
    counts = addCounts(counts, await child(prepared, 'post', `${run.junitName}-post`));
    keepPools = (await handedOver(run.cluster, prepared)).length > 0;
    return counts;
  } finally {
    if (keepPools) {
      await writePoolPlan(run.cluster, plan, run.target.runId);
      if (stopped()) await tellStop(run, split);
      else console.log(`  the custom pools ${plan.customPools.map((p) => p.name).join(', ') || '(none)'} stay with the checkpoints left on the cluster: \`--phase post\` goes on with them and removes them`);
    } else {
      await removePlanPools(run, pools.pools);
    }
  }
}

/** An interrupt after the prepares: what stays on the cluster, and the pipeline commands that go on from it. */
async function tellStop(run: SharedUpgradeRun, split: SpecSplit): Promise<void> {
  const checkpoints = await listCheckpoints(run.cluster);
  const prepared = split.upgradeFiles.flatMap((f) => checkpoints.get(basename(f)) ?? []);
  const lines = await describeStop(run.cluster, {
    kubeconfigPath: run.target.kubeconfigPath,
    grep: run.mocha.grep,
    upgradeFiles: split.upgradeFiles,
    checkpoints: prepared,
    customPools: (await listCustomPools(run.cluster)).map((p) => p.name),
  });
  for (const line of lines) console.log(`  ${line}`);
}

/** Removes the plan's pools; then none of the suite's may be left: a leak is a failure of the run. */
async function removePlanPools(run: Pick<SharedUpgradeRun, 'cluster' | 'target' | 'timeFactor' | 'clock'>, pools: CustomPool[]): Promise<void> {
  await withWatcher(run.cluster, (w) => removeCustomPools(run.cluster, waitsOf(w, run), pools, (l) => console.log(`  ${l}`)));
  const left = await listCustomPools(run.cluster);
  if (left.length) throw new Error(`custom pools left on the cluster: ${left.map((p) => p.name).join(', ')}`);
}

/**
 * A pipeline step run by hand over many upgrade specs. pre: plan, make the pools, keep the plan on the cluster for the
 * later phases. upgrade and post: the plan pre left. After post: the pools and the plan removed once no checkpoint is
 * left. Returns the plan's assignments for the step's specs, or undefined when no plan applies (one spec).
 */
export async function pipelinePlan(phase: Exclude<RunPhase, 'all'>, split: SpecSplit, run: Omit<SharedUpgradeRun, 'mocha' | 'junitName'>): Promise<PoolPlan | undefined> {
  if (phase !== 'pre') return readPoolPlan(run.cluster);
  if (split.upgradeFiles.length < 2) return undefined;
  const plan = await planFor(run.cluster, split);
  console.log('plan: the upgrade specs\' pools, kept on the cluster for --phase upgrade and post:');
  for (const line of describePlan(plan)) console.log(line);
  await withWatcher(run.cluster, (w) => createCustomPools(run.cluster, waitsOf(w, run), plan.customPools, run.target.runId, (l) => console.log(`  ${l}`)));
  await writePoolPlan(run.cluster, plan, run.target.runId);
  return plan;
}

/** After `--phase post`: the plan's pools and the plan go when no checkpoint is left (every spec cleaned up). */
export async function finishPipelinePlan(plan: PoolPlan, split: SpecSplit, run: Omit<SharedUpgradeRun, 'mocha' | 'junitName'>): Promise<void> {
  if ((await handedOver(run.cluster, split.upgradeFiles)).length > 0) {
    console.log('  the custom pools stay: checkpoints are left on the cluster (a post that failed to clean up); run --phase post again');
    return;
  }
  await removePlanPools(run, plan.customPools);
  await deletePoolPlan(run.cluster);
  await removeNamespaceWithoutCheckpoints(run.cluster, CHECKPOINT_NAMESPACE);
}
