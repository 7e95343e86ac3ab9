/**
 * A build that must fail, judged as a person reads it: the suite's build wait stops on the MachineOSBuild's own
 * Failed condition at once (no timeout), and its diagnosis names the MachineOSBuild, its Job `build-<mosb>` and the
 * step of the build's log it failed in (build-wait.ts ImageBuildFailedError). Then, once a new build of the
 * MachineOSConfig starts, the failed one is deleted (every release's `startBuild` → `deleteOtherBuildsForMachineOSConfig`).
 */
import { expect } from 'chai';
import type { FlowSession } from '../flows.js';
import { ClusterWatcher } from '../cluster-watcher.js';
import { budgetMs } from '../cluster-waits.js';
import { attachText, step } from '../report.js';
import { waitFor } from '../wait.js';
import { buildConditionsLine, ImageBuildFailedError, waitForMachineOSBuild } from './build-wait.js';
import type { ImageModePool } from './flow.js';
import { buildJobName, type MachineOSBuild } from './types.js';

export interface FailedBuild {
  build: string;
  job: string;
  /** The step heading of the build's log (`Step 14/20 : RUN …`). */
  step: string;
  diagnosis: string;
}

/** Cluster minutes for a build that already failed (or is about to) to be deleted once a new build starts. */
const DELETION_CLUSTER_MINUTES = 10;

/**
 * Waits for the build of the pool's rendered config (not one of `excluding`) and expects it to fail in the step whose
 * heading includes `stepText`.
 */
export async function expectBuildFails(session: FlowSession, mode: ImageModePool, excluding: readonly string[], stepText: string): Promise<FailedBuild> {
  return step(`the MachineOSBuild of pool ${mode.pool} other than ${excluding.join(', ')} fails at its step ${stepText}, and the wait says so at once`, async () => {
    const outcome = await waitForMachineOSBuild(session.cluster, session.cluster.kubeConfig, session.waits, { pool: mode.pool, machineOSConfig: mode.machineOSConfig, excluding }).then(
      (built: MachineOSBuild) => built,
      (error: unknown) => error,
    );
    if (!(outcome instanceof ImageBuildFailedError)) {
      if (outcome instanceof Error) throw outcome; // a timeout says what it last saw
      const built = outcome as MachineOSBuild;
      expect.fail(`expected machineosbuild/${built.metadata.name} to fail at ${stepText}; it Succeeded (${buildConditionsLine(built)}, image ${built.status?.digestedImagePushSpec ?? '(none)'})`);
    }
    await attachText(`machineosbuild/${outcome.build} failed`, outcome.message);
    // the wait stops on the build's own verdict; its fallback (a Job that failed while the build's conditions never
    // moved) comes only at the end of the budget, and says so
    expect(String(outcome.actual), `the wait for machineosbuild/${outcome.build} must stop on its Failed condition, not at the end of its budget`).to.include('Failed=True').and.not.include('never said so');
    expect(outcome.job, `the Job of machineosbuild/${outcome.build}`).to.equal(buildJobName(outcome.build));
    expect(outcome.step ?? '(no step: the build log names none)', `the step machineosbuild/${outcome.build} failed in, from the log of job ${outcome.job}`).to.include(stepText);
    expect(outcome.message, 'the diagnosis names the MachineOSBuild and its Job').to.include(`machineosbuild/${outcome.build}`).and.include(`job ${outcome.job}`);
    return { build: outcome.build, job: outcome.job, step: outcome.step!, diagnosis: outcome.message };
  }, session.waits.caps);
}

/** Waits until machineosbuild/`name` is gone. */
export async function waitForBuildDeleted(session: FlowSession, name: string): Promise<void> {
  await step(`machineosbuild/${name} is deleted once the new build starts`, async () => {
    const watcher = new ClusterWatcher(session.cluster, { kinds: ['MachineOSBuild'] });
    await watcher.start();
    try {
      await waitFor(
        watcher,
        {
          what: `machineosbuild/${name} to be deleted`,
          expected: `no machineosbuild/${name}: the build controller deletes every other build of the MachineOSConfig that did not succeed when a new one starts`,
          budgetMs: budgetMs(session.waits, DELETION_CLUSTER_MINUTES),
          caps: session.waits.caps,
          judge: (snap) => {
            const left = snap.machineOSBuilds?.get(name) as MachineOSBuild | undefined;
            return { done: !left, progress: left ? `machineosbuild/${name} is still there (${buildConditionsLine(left)})` : `machineosbuild/${name} is gone` };
          },
        },
        session.waits.progress,
      );
    } finally {
      watcher.stop();
    }
  }, session.waits.caps);
}
