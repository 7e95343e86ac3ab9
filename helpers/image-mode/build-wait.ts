/**
 * Waiting for the MachineOSBuild of a pool's rendered config (modern-mco.md §1.3, §1.7): the build whose
 * spec.machineConfig.name is the pool's spec.configuration.name and whose spec.machineOSConfig.name is the pool's
 * MachineOSConfig, as the node controller looks it up. Its budget is cluster time (one build, its Job's three
 * retries and their backoff); its progress line and timeout name the build, its conditions and its Job. A build that
 * Failed (or was Interrupted) will not come right by waiting: the wait stops at once and the failure carries the
 * build's log, its Job and the step it failed in.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { Cluster } from '../cluster.js';
import { budgetMs, IMAGE_BUILD_WALL_FLOOR_MS, type WaitContext } from '../cluster-waits.js';
import { ClusterWatcher, type ClusterSnapshot } from '../cluster-watcher.js';
import type { KubeObject } from '../../lib/kube/client.js';
import { findCondition, type Condition } from '../types.js';
import { waitFor, WaitFailedError, WaitTimeoutError } from '../wait.js';
import { failedStepOf, readBuildLogs, type BuildPodLog } from './build-log.js';
import { BUILD_CONDITIONS, jobOfBuild, MCO_NAMESPACE, type MachineOSBuild } from './types.js';

/** Cluster minutes a build may take: upstream's builds run 10-20 minutes, and a Job retries three times. */
export const BUILD_CLUSTER_MINUTES = 60;


export interface BuildWanted {
  pool: string;
  /** The pool's MachineOSConfig (named as the pool). */
  machineOSConfig: string;
  /** Builds that do not count: the one before an upgrade, when the wait is for the build of the new release. */
  excluding?: readonly string[];
  /** Builds that do not count by uid: the one a rebuild deletes and makes again under its name. */
  excludingUids?: readonly string[];
}

/** " other than A, the one of uid U" for the texts, or nothing. */
export function otherThan(wanted: BuildWanted): string {
  const others = [...(wanted.excluding ?? []), ...(wanted.excludingUids ?? []).map((uid) => `the one of uid ${uid}`)];
  return others.length ? ` other than ${others.join(', ')}` : '';
}

/** "Prepared=True Building=False Succeeded=False Failed=False Interrupted=False" (absent conditions said as such). */
export function buildConditionsLine(mosb: MachineOSBuild): string {
  return BUILD_CONDITIONS.map((t) => `${t}=${findCondition(mosb.status?.conditions, t)?.status ?? '-'}`).join(' ');
}

/** The build of the pool's rendered config, the newest when there are several; undefined when none exists yet. */
export function buildOfPool(snap: ClusterSnapshot, wanted: BuildWanted): MachineOSBuild | undefined {
  const rendered = snap.pools.get(wanted.pool)?.spec?.configuration?.name;
  if (!rendered) return undefined;
  const builds = [...(snap.machineOSBuilds?.values() ?? [])] as MachineOSBuild[];
  return builds
    .filter((b) => b.spec?.machineConfig?.name === rendered && b.spec?.machineOSConfig?.name === wanted.machineOSConfig)
    .filter((b) => !wanted.excluding?.includes(b.metadata.name ?? '') && !wanted.excludingUids?.includes(b.metadata.uid ?? ''))
    .sort((a, b) => String(b.metadata.creationTimestamp ?? '').localeCompare(String(a.metadata.creationTimestamp ?? '')))[0];
}

function describeBuild(snap: ClusterSnapshot, wanted: BuildWanted): string {
  const rendered = snap.pools.get(wanted.pool)?.spec?.configuration?.name;
  const mosb = buildOfPool(snap, wanted);
  if (!mosb) {
    const others = [...(snap.machineOSBuilds?.values() ?? [])].map((b) => b.metadata.name).join(', ');
    return `no MachineOSBuild of MachineOSConfig ${wanted.machineOSConfig} for ${rendered ?? `mcp/${wanted.pool}'s config (the pool targets none)`}${otherThan(wanted)} (builds: ${others || 'none'})`;
  }
  const failed = findCondition(mosb.status?.conditions, 'Failed');
  return `machineosbuild/${mosb.metadata.name} of ${rendered} (job ${jobOfBuild(mosb)} -n ${MCO_NAMESPACE}): ${buildConditionsLine(mosb)}${failed?.status === 'True' && failed.message ? ` "${failed.message}"` : ''}`;
}

/** A build that failed: names the build, its Job and the step, and carries the log of its last attempt. */
export class ImageBuildFailedError extends Error {
  readonly expected: string;
  readonly actual: string;
  readonly showDiff = false;
  constructor(
    readonly build: string,
    readonly job: string,
    readonly step: string | undefined,
    readonly logs: BuildPodLog[],
    conditions: string,
  ) {
    const last = logs.at(-1);
    const tail = last ? failedStepOf(last.log).lastLines : [];
    super(
      [
        `machineosbuild/${build} failed (${conditions}) in job ${job} -n ${MCO_NAMESPACE}${step ? ` at ${step}` : ''}`,
        last ? `  last attempt: pod/${last.pod} (${last.phase}), ${logs.length} attempt(s); its ${'image-build'} log ends:` : `  no pod of job ${job} is left to read a log from`,
        ...tail.map((l) => `    ${l}`),
      ].join('\n'),
    );
    this.name = 'ImageBuildFailedError';
    this.expected = `machineosbuild/${build} Succeeded`;
    this.actual = conditions;
  }
}

/**
 * Waits until the pool's build Succeeded and returns it. `watch` is the watcher of the image-mode kinds (made and
 * stopped here unless given: the session's watcher does not follow kinds that older releases do not serve).
 */
export async function waitForMachineOSBuild(cluster: Cluster, kubeConfig: KubeConfig, ctx: WaitContext, wanted: BuildWanted, watch?: ClusterWatcher): Promise<MachineOSBuild> {
  const watcher = watch ?? new ClusterWatcher(cluster, { kinds: ['MachineConfigPool', 'MachineOSConfig', 'MachineOSBuild'] });
  if (!watch) await watcher.start();
  let failedBuild: MachineOSBuild | undefined;
  let lastBuild: MachineOSBuild | undefined;
  try {
    const snap = await waitFor(
      watcher,
      {
        what: `the MachineOSBuild of pool ${wanted.pool} (MachineOSConfig ${wanted.machineOSConfig})`,
        expected: `a MachineOSBuild with spec.machineConfig.name = mcp/${wanted.pool}'s spec.configuration.name and spec.machineOSConfig.name = ${wanted.machineOSConfig}${otherThan(wanted) ? `,${otherThan(wanted)}` : ''}, Succeeded=True`,
        // a context that sets its own floor (a unit test's short wait) keeps it
        budgetMs: budgetMs({ ...ctx, minBudgetMs: ctx.minBudgetMs ?? IMAGE_BUILD_WALL_FLOOR_MS }, BUILD_CLUSTER_MINUTES),
        caps: ctx.caps,
        judge: (s) => {
          const mosb = buildOfPool(s, wanted);
          const progress = describeBuild(s, wanted);
          if (!mosb) return { done: false, progress };
          lastBuild = mosb;
          const over = (['Failed', 'Interrupted'] as const).find((t) => findCondition(mosb.status?.conditions, t)?.status === 'True');
          if (over) {
            failedBuild = mosb;
            return { done: false, progress, failure: `machineosbuild/${mosb.metadata.name} is ${over} (job ${jobOfBuild(mosb)})` };
          }
          return { done: findCondition(mosb.status?.conditions, 'Succeeded')?.status === 'True', progress };
        },
        describe: (s) => describeBuild(s, wanted),
      },
      ctx.progress,
    ).catch(async (error: unknown) => {
      // A build whose conditions never moved while its Job failed (a build controller that lost the Job's end): the
      // Job's own verdict and log are the diagnosis, not the timeout.
      if (error instanceof WaitTimeoutError && lastBuild) {
        const job = jobOfBuild(lastBuild);
        const failed = await cluster.client.get<KubeObject & { status?: { conditions?: Condition[] } }>('Job', job, MCO_NAMESPACE).then((j) => findCondition(j?.status?.conditions, 'Failed'), () => undefined);
        if (failed?.status === 'True') {
          const logs = await readBuildLogs(kubeConfig, job).catch((e: Error) => [{ pod: '?', phase: 'Unknown', log: `# could not read the build's log: ${e.message}` }]);
          const last = logs.at(-1);
          throw new ImageBuildFailedError(lastBuild.metadata.name ?? '?', job, last ? failedStepOf(last.log).step : undefined, logs, `${buildConditionsLine(lastBuild)}; its job is Failed (${failed.reason ?? ''}: ${failed.message ?? ''}) but the MachineOSBuild's conditions never said so`);
        }
      }
      if (!(error instanceof WaitFailedError) || !failedBuild) throw error;
      const job = jobOfBuild(failedBuild);
      const logs = await readBuildLogs(kubeConfig, job).catch((e: Error) => [{ pod: '?', phase: 'Unknown', log: `# could not read the build's log: ${e.message}` }]);
      const last = logs.at(-1);
      throw new ImageBuildFailedError(failedBuild.metadata.name ?? '?', job, last ? failedStepOf(last.log).step : undefined, logs, buildConditionsLine(failedBuild));
    });
    return buildOfPool(snap, wanted)!;
  } finally {
    if (!watch) watcher.stop();
  }
}
