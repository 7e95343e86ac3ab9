/**
 * One spec file's part of an upgrade test split over processes (--phase pre|upgrade|post; split-phases.ts has the
 * titles and the JSON crossing). The session asks it at each phase what this process does:
 *  - pre: prepare, then write the checkpoint (the pending part of the session's ledger that lives on the cluster) and
 *    hand those changes over to it; the test ends there;
 *  - upgrade: the prepared value from the checkpoint, then the upgrade, recorded in the checkpoint; the test ends;
 *  - post: the prepared value from the checkpoint, the changes pre left adopted into this process's ledger (their
 *    undo rebuilt from the data) and the override handles bound to them, then the upgrade someone else started
 *    followed to the end; the checkpoint goes with the cleanup.
 * In --phase all every method is a pass-through.
 */
import { CHECKPOINT_FORMAT, CHECKPOINT_NAMESPACE, checkpointName, type Checkpoint } from './checkpoint/format.js';
import { keepLocalCopy, listCheckpoints, readCheckpoint, writeCheckpoint } from './checkpoint/store.js';
import { phaseStartProblem } from './checkpoint/validate.js';
import { phaseCommand } from './checkpoint/phase-command.js';
import { currentVersion } from './facts/cluster-version.js';
import { requestedUpgrade } from './upgrade.js';
import { adoptOverrides, followUpgradeStartedElsewhere, upgradeCluster, type CompletedUpgrade, type FlowSession } from './flows.js';
import type { LedgerEntry } from './ledger.js';
import { attachYaml, step } from './report.js';
import { decodePrepared, encodePrepared, PhaseHandOver } from './split-phases.js';
import { suiteVersion } from './suite-version.js';
import type { RunPhase } from './target.js';

/** Runs one phase as the session reports it (a step with its start and end lines). */
export type PhaseRunner = <T>(phase: 'prepare' | 'upgrade', title: string, body: () => Promise<T>) => Promise<T>;

export class SplitRun {
  /** --phase upgrade and post: the checkpoint this process goes on from. */
  private checkpoint?: Checkpoint;
  /** The running test's full title and its spec file's base name (the checkpoint names them). */
  testTitle = '';
  specFile = 'spec';
  /** The running test's case id, which `--grep` of the later phase takes. */
  caseId = '';
  /** Set when this process's part is done and its cluster changes belong to a later phase. */
  private handedOver = false;
  /**
   * --phase all, from the start of the upgrade phase: what was prepared and the release the cluster ran before, which
   * an interrupt during the upgrade needs to leave a checkpoint instead of undoing (see `handOverInterrupted`).
   */
  private inUpgrade?: { prepared: unknown; from: Checkpoint['from'] };
  private preparedValue?: { value: unknown };
  /** --phase upgrade: the upgrade another spec's process already ran from this spec's starting release. */
  private sharedUpgrade?: Checkpoint['upgrade'];

  constructor(private readonly session: FlowSession) {}

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

  /** --phase upgrade and post: reads this spec file's checkpoint and checks it again (the run command checked first). */
  async load(): Promise<void> {
    const { cluster } = this.session;
    const checkpoint = await readCheckpoint(cluster, this.specFile);
    if (this.phase === 'upgrade' && checkpoint && !checkpoint.upgrade) this.sharedUpgrade = await this.upgradeOfAnotherSpec(checkpoint);
    const problem = phaseStartProblem({
      upgradedByAnotherSpec: this.sharedUpgrade !== undefined,
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

  /**
   * --phase upgrade over several specs prepared on one cluster: the first upgrades it, and the others find that
   * upgrade in its checkpoint (from the release they were prepared at) and record the same one. A cluster is upgraded
   * once per run, and every spec judges the same upgrade and its recording.
   */
  get sharesUpgrade(): boolean {
    return this.sharedUpgrade !== undefined;
  }

  private async upgradeOfAnotherSpec(own: Checkpoint): Promise<Checkpoint['upgrade']> {
    const all = await listCheckpoints(this.session.cluster);
    const other = [...all.values()].find((c) => c.specFile !== own.specFile && c.clusterId === own.clusterId && c.upgrade && c.upgrade.from === own.from.version);
    return other?.upgrade;
  }

  /** The prepare phase of this process: run it (all), run it and hand over (pre), or take it from the checkpoint. */
  async prepare<T>(title: string, body: () => Promise<T>, run: PhaseRunner): Promise<T> {
    const checkpoint = this.checkpoint;
    if (checkpoint) return run('prepare', `${title} (done by --phase pre at ${checkpoint.createdAt}, run ${checkpoint.runId})`, () => this.fromCheckpoint<T>(checkpoint));
    const value = await run('prepare', title, body);
    if (this.phase === 'pre') await this.handOver(value);
    this.preparedValue = { value };
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
    if (this.phase === 'upgrade' && checkpoint && this.sharedUpgrade) {
      const done = this.sharedUpgrade;
      await run('upgrade', `the upgrade another spec of this --phase upgrade ran (${done.from} to ${done.version}, finished ${done.finishedAt})`, async () => undefined);
      const where = await step('record that upgrade in the checkpoint for --phase post', () => writeCheckpoint(this.session.cluster, { ...checkpoint, upgrade: { ...done } }, this.session.target.reportsDir));
      throw new PhaseHandOver('upgrade', where);
    }
    if (this.phase === 'all' && this.preparedValue) {
      const cv = await this.session.cluster.getClusterVersion();
      this.inUpgrade = { prepared: this.preparedValue.value, from: { version: currentVersion(cv) ?? from, image: cv.status?.desired?.image ?? '' } };
    }
    const upgraded = await run('upgrade', 'upgrade the cluster to the next release', () => upgradeCluster(this.session, from)).finally(() => {
      this.inUpgrade = undefined;
    });
    if (this.phase === 'upgrade' && checkpoint) {
      const stored: Checkpoint = { ...checkpoint, upgrade: { ...upgraded, finishedAt: new Date().toISOString() } };
      const where = await step('record the upgrade in the checkpoint for --phase post', () => writeCheckpoint(this.session.cluster, stored, this.session.target.reportsDir));
      throw new PhaseHandOver('upgrade', where);
    }
    return upgraded;
  }

  /**
   * --phase pre: the checkpoint (what was prepared, and what the ledger holds of changes on the cluster) on the cluster
   * and in reports/; from then on those changes are the later phases' to judge and undo, and this process's cleanup
   * leaves them.
   */
  private async handOver(value: unknown): Promise<never> {
    const cv = await this.session.cluster.getClusterVersion();
    const where = await step('write the checkpoint for --phase upgrade and post', () => this.writeHandOver(value, { version: currentVersion(cv) ?? '', image: cv.status?.desired?.image ?? '' }));
    this.handedOver = true;
    throw new PhaseHandOver('pre', where);
  }

  /**
   * An interrupt of --phase all on a kept cluster once the upgrade was requested: undoing the overrides now would
   * start a second roll-out in the middle of the upgrade's, and no grace period covers a real pool's roll-out. So the
   * overrides stay, and this process leaves what --phase pre would have left (the checkpoint of what it prepared and
   * what the ledger holds on the cluster), for `--phase post` to follow the upgrade, judge and clean up. Returns what
   * to tell the user, or undefined when nothing is to be handed over (not upgrading, or the upgrade was not yet
   * requested: then the ordinary undo is right).
   */
  async handOverInterrupted(): Promise<string | undefined> {
    const upgrading = this.inUpgrade;
    if (!upgrading || this.session.target.kind !== 'cluster') return undefined;
    const cv = await this.session.cluster.getClusterVersion();
    if (!requestedUpgrade(cv, upgrading.from)) return undefined;
    const where = await this.writeHandOver(upgrading.prepared, upgrading.from);
    this.handedOver = true;
    const post = phaseCommand('post', { kubeconfigPath: this.session.target.kubeconfigPath, grep: this.caseId });
    return [
      `the upgrade to ${requestedUpgrade(cv, upgrading.from)!.image} is under way: the overrides stay (deleting them now would start a second roll-out in the middle of the upgrade's)`,
      `checkpoint ${where} written; to follow the upgrade to its end, judge it and clean up, run:`,
      `      ${post}`,
    ].join('\n    ');
  }

  /** The checkpoint of `value` prepared on a cluster that ran `from`, written with the ledger's pending cluster changes. */
  private async writeHandOver(value: unknown, from: Checkpoint['from']): Promise<string> {
    const { cluster, target, ledger } = this.session;
    const cv = await cluster.getClusterVersion();
    const checkpointOf = async (pending: Checkpoint['pending']): Promise<Checkpoint> => ({
      format: CHECKPOINT_FORMAT,
      suiteVersion: await suiteVersion(),
      clusterId: cv.spec?.clusterID ?? '',
      apiUrl: cluster.apiUrl,
      specFile: this.specFile,
      title: this.testTitle,
      runId: target.runId,
      createdAt: new Date().toISOString(),
      from,
      prepared: encodePrepared(value),
      pending,
    });
    return ledger.handOver(async (pending) => writeCheckpoint(cluster, await checkpointOf(pending), target.reportsDir));
  }

  /**
   * The prepare phase's value from the checkpoint, its override handles bound again. Post takes over what pre left:
   * first the checkpoint itself (so that it is removed after the undo of what it names, LIFO, at the end or on an
   * interrupt alike), then each pending record, its undo rebuilt from the data.
   */
  private async fromCheckpoint<T>(checkpoint: Checkpoint): Promise<T> {
    const { ledger } = this.session;
    let adopted = new Map<number, LedgerEntry>();
    if (this.phase === 'post') {
      const machineConfigs = checkpoint.pending.flatMap((r) => r.changes).flatMap((c) => (c.kind === 'MachineConfig' ? [c.name] : []));
      ledger.record({ kind: 'checkpoint', namespace: CHECKPOINT_NAMESPACE, name: checkpointName(checkpoint.specFile), machineConfigs });
      adopted = ledger.adopt(checkpoint.pending);
    }
    await attachYaml('checkpoint', checkpoint);
    const held = new Set(checkpoint.pending.map((r) => r.id));
    return decodePrepared(checkpoint.prepared, (ref) => {
      if (!held.has(ref.$poolOverride)) throw new Error(`the checkpoint refers to override group ${ref.$poolOverride}, which it does not hold`);
      return adoptOverrides(this.session, ref.overrides, adopted.get(ref.$poolOverride));
    }) as T;
  }
}
