/**
 * One spec file's part of an upgrade test split over processes (--phase pre|upgrade|post; split-phases.ts has the
 * titles and the JSON crossing). The session asks it at each phase what this process does:
 *  - pre: prepare, then write the checkpoint and hand the overrides' undo over to it; the test ends there;
 *  - upgrade: the prepared value from the checkpoint, then the upgrade, recorded in the checkpoint; the test ends;
 *  - post: the prepared value from the checkpoint with the overrides bound again (their undo taken over), then the
 *    upgrade someone else started followed to the end; the checkpoint goes with the cleanup.
 * In --phase all every method is a pass-through.
 */
import { CHECKPOINT_FORMAT, CHECKPOINT_NAMESPACE, checkpointName, type Checkpoint } from './checkpoint/format.js';
import { deleteCheckpoint, keepLocalCopy, readCheckpoint, writeCheckpoint } from './checkpoint/store.js';
import { phaseStartProblem } from './checkpoint/validate.js';
import type { UndoAction } from './cleanup.js';
import type { ConformanceSession } from './conformance.js';
import { currentVersion } from './facts/cluster-version.js';
import { adoptOverrides, followUpgradeStartedElsewhere, upgradeCluster, type CompletedUpgrade, type PoolOverride } from './flows.js';
import type { OsImageOverride } from './machineconfigs.js';
import { attachYaml, step } from './report.js';
import { decodePrepared, encodePrepared, PhaseHandOver } from './split-phases.js';
import { suiteVersion } from './suite-version.js';
import type { RunPhase } from './target.js';

/** Runs one phase as the session reports it (a step with its start and end lines). */
export type PhaseRunner = <T>(phase: 'prepare' | 'upgrade', title: string, body: () => Promise<T>) => Promise<T>;

interface HeldOverrides {
  overrides: OsImageOverride[];
  dismiss: () => void;
  released: boolean;
}

export class SplitRun {
  /** --phase upgrade and post: the checkpoint this process goes on from. */
  private checkpoint?: Checkpoint;
  /** Override MachineConfigs on the cluster now, each group with the dismissal of its undo (the hand-over). */
  private readonly held: HeldOverrides[] = [];
  /** Layered images this process pushed (named in the checkpoint). */
  readonly pushedImages: string[] = [];
  /** The running test's full title and its spec file's base name (the checkpoint names them). */
  testTitle = '';
  specFile = 'spec';
  /** Set when this process's part is done and its cluster changes belong to a later phase. */
  private handedOver = false;

  constructor(private readonly session: ConformanceSession) {}

  get phase(): RunPhase {
    return this.session.target.phase;
  }

  /** Whether this process leaves what it made on the cluster for a later phase (so no leak check here). */
  get leavesObjects(): boolean {
    return this.handedOver || this.phase === 'upgrade';
  }

  /** The run whose objects this process answers for in the leak check: pre's, when post took them over. */
  get objectsRunId(): string {
    return this.checkpoint?.runId ?? this.session.target.runId;
  }

  /** Called by the override flows: these MachineConfigs are on the cluster until `release`. */
  holdOverrides(overrides: OsImageOverride[], dismissUndo: () => void): { index: number; release: () => void } {
    const entry: HeldOverrides = { overrides, dismiss: dismissUndo, released: false };
    this.held.push(entry);
    return { index: this.held.length - 1, release: () => (entry.released = true) };
  }

  /** --phase upgrade and post: reads this spec file's checkpoint and checks it again (the run command checked first). */
  async load(): Promise<void> {
    const { cluster } = this.session;
    const checkpoint = await readCheckpoint(cluster, this.specFile);
    const problem = phaseStartProblem({
      phase: this.phase as Exclude<RunPhase, 'all'>,
      specFile: this.specFile,
      checkpoint,
      suiteVersion: await suiteVersion(),
      clusterVersion: await cluster.getClusterVersion(),
    });
    if (problem || !checkpoint) throw new Error(problem ?? `${this.specFile}: no checkpoint`);
    this.checkpoint = checkpoint;
    await keepLocalCopy(this.session.target.reportsDir, checkpoint);
    console.log(`  checkpoint of --phase pre: written ${checkpoint.createdAt} by run ${checkpoint.runId} at ${checkpoint.from.version}${checkpoint.upgrade ? `, upgraded to ${checkpoint.upgrade.version} by --phase upgrade` : ''}`);
  }

  /** The prepare phase of this process: run it (all), run it and hand over (pre), or take it from the checkpoint. */
  async prepare<T>(title: string, body: () => Promise<T>, run: PhaseRunner): Promise<T> {
    const checkpoint = this.checkpoint;
    if (checkpoint) return run('prepare', `${title} (done by --phase pre at ${checkpoint.createdAt}, run ${checkpoint.runId})`, () => this.fromCheckpoint<T>(checkpoint));
    const value = await run('prepare', title, body);
    if (this.phase === 'pre') await this.handOver(value);
    return value;
  }

  /** The upgrade phase: upgrade here (all, upgrade; upgrade then records it and hands over), or follow it (post). */
  async upgrade(from: string, run: PhaseRunner): Promise<CompletedUpgrade> {
    const checkpoint = this.checkpoint;
    if (this.phase === 'post' && checkpoint?.upgrade) {
      const done = checkpoint.upgrade;
      return run('upgrade', `the upgrade --phase upgrade ran (${done.from} to ${done.version}, finished ${done.finishedAt})`, async () => ({ ...done }));
    }
    if (this.phase === 'post' && checkpoint) {
      return run('upgrade', 'follow the upgrade started outside this run until the cluster settles', () => followUpgradeStartedElsewhere(this.session, checkpoint.from));
    }
    const upgraded = await run('upgrade', 'upgrade the cluster to the next release', () => upgradeCluster(this.session, from));
    if (this.phase === 'upgrade' && checkpoint) {
      const stored: Checkpoint = { ...checkpoint, upgrade: { ...upgraded, finishedAt: new Date().toISOString() } };
      const where = await step('record the upgrade in the checkpoint for --phase post', () => writeCheckpoint(this.session.cluster, stored, this.session.target.reportsDir));
      throw new PhaseHandOver('upgrade', where);
    }
    return upgraded;
  }

  /** --phase pre: the checkpoint (what was prepared, created, pushed) on the cluster and in reports/, then the hand-over. */
  private async handOver(value: unknown): Promise<never> {
    const { cluster, target } = this.session;
    const cv = await cluster.getClusterVersion();
    const checkpoint: Checkpoint = {
      format: CHECKPOINT_FORMAT,
      suiteVersion: await suiteVersion(),
      clusterId: cv.spec?.clusterID ?? '',
      apiUrl: cluster.apiUrl,
      specFile: this.specFile,
      title: this.testTitle,
      runId: target.runId,
      createdAt: new Date().toISOString(),
      from: { version: currentVersion(cv) ?? '', image: cv.status?.desired?.image ?? '' },
      prepared: encodePrepared(value),
      overrides: this.held.map((h) => (h.released ? [] : h.overrides)),
      images: [...this.pushedImages],
    };
    const where = await step('write the checkpoint for --phase upgrade and post', () => writeCheckpoint(cluster, checkpoint, target.reportsDir));
    // From here the overrides are the later phases' to judge and delete: this process's cleanup leaves them.
    for (const h of this.held) if (!h.released) h.dismiss();
    this.handedOver = true;
    throw new PhaseHandOver('pre', where);
  }

  /** The prepare phase's value from the checkpoint, its override handles bound again (taken over in post). */
  private async fromCheckpoint<T>(checkpoint: Checkpoint): Promise<T> {
    const takeOver = this.phase === 'post';
    // Registered before the overrides, so it runs after their undo (LIFO), at the end or on an interrupt alike.
    if (takeOver) this.session.cleanup.add(this.checkpointRemoval(checkpoint));
    const handles: PoolOverride[] = checkpoint.overrides.map((group) => adoptOverrides(this.session, group, { takeOver }));
    await attachYaml('checkpoint', checkpoint);
    return decodePrepared(checkpoint.prepared, (ref) => {
      const handle = handles[ref.$poolOverride];
      if (!handle?.overrides.length) throw new Error(`the checkpoint refers to override group ${ref.$poolOverride}, which it does not hold`);
      return handle;
    }) as T;
  }

  /**
   * --phase post: the checkpoint goes once what it names is gone from the cluster. While one of its MachineConfigs is
   * still there (its delete failed, or was kept), the checkpoint stays, so that nobody loses track of them.
   */
  private checkpointRemoval(checkpoint: Checkpoint): UndoAction {
    const where = `configmap/${checkpointName(checkpoint.specFile)} -n ${CHECKPOINT_NAMESPACE}`;
    return {
      description: `remove the checkpoint ${where}`,
      undo: async () => {
        const names = new Set(checkpoint.overrides.flat().map((o) => o.name));
        const left = (await this.session.cluster.listMachineConfigs()).map((mc) => mc.metadata.name).filter((n) => n && names.has(n));
        if (left.length) throw new Error(`kept the checkpoint ${where}: its MachineConfigs ${left.join(', ')} are still on the cluster`);
        await deleteCheckpoint(this.session.cluster, checkpoint.specFile);
        console.log(`    checkpoint ${where} removed (what post went on from stays in ${this.session.target.reportsDir}/checkpoints/)`);
      },
      byHand: [`oc delete ${where}`],
    };
  }
}
