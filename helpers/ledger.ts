/**
 * The session's one ledger of what a test changed. Every change is recorded the moment it exists, as data (a `Change`
 * of ledger-changes.ts), and its undo is built from that data in one place; the undos run last-in-first-out at the end
 * of the spec file, on an interrupt, or when the owner of a change asks (`undoNow`). A split run's checkpoint is the
 * pending part of the ledger that lives on the cluster, written out (`handOver`); the next phase reads it back
 * (`adopt`) and so undoes what the earlier one made, with the same undo.
 */
import { Cleanup, type CleanupReport, type LeftAction, type Registered, type UndoStepRunner } from './cleanup.js';
import { livesOn, undoOf, type Change, type LedgerRecord, type UndoContext } from './ledger-changes.js';

/** One entry: the changes one step made (all of one kind), with its registered undo. */
export interface LedgerEntry {
  readonly id: number;
  readonly changes: readonly Change[];
  /** The same step made one more change of the entry's kind (the next MachineConfig): undone with the others. */
  add(change: Change): void;
  /** Runs the registered undo and its settle now, each through `run`; afterwards the cleanup has nothing left to do. */
  undoNow(run?: UndoStepRunner): Promise<void>;
  /** Neither undone nor handed on yet. */
  readonly pending: boolean;
}

export class Ledger {
  private readonly cleanup = new Cleanup();
  private readonly entries: { entry: LedgerEntry; changes: Change[]; registered: Registered }[] = [];
  private nextId = 0;

  constructor(private readonly ctx: UndoContext) {}

  /** Records a change the moment it exists and registers its undo; returns its entry. */
  record(change: Change): LedgerEntry {
    return this.register([change]);
  }

  /**
   * Takes over the changes an earlier process left (a checkpoint's pending records, oldest first): each becomes an
   * entry of this ledger with its undo rebuilt from the data. Returns the new entry of each record id.
   */
  adopt(records: LedgerRecord[]): Map<number, LedgerEntry> {
    return new Map(records.map((r) => [r.id, this.register([...r.changes])]));
  }

  /**
   * Hands the pending changes that live on the cluster to a later process: `write` gets them as data (the checkpoint)
   * and, once it has stored them, this process's cleanup leaves them. Changes of this process (its engine's images)
   * stay its own.
   */
  async handOver<T>(write: (pending: LedgerRecord[]) => Promise<T>): Promise<T> {
    const handed = this.entries.filter((e) => e.registered.pending && e.changes.every((c) => livesOn(c) === 'cluster'));
    const written = await write(handed.map((e) => ({ id: e.entry.id, changes: e.changes.map((c) => ({ ...c })) })));
    for (const e of handed) e.registered.dismiss();
    return written;
  }

  /** What is not undone, newest first, with the commands that undo it by hand. */
  get left(): LeftAction[] {
    return this.cleanup.left;
  }

  /** Runs every pending undo, newest first (see Cleanup.runAll). */
  runAll(options: { keep?: boolean; skipSettling?: boolean } = {}): Promise<CleanupReport> {
    return this.cleanup.runAll(options);
  }

  private register(changes: Change[]): LedgerEntry {
    const registered = this.cleanup.add(undoOf(changes, this.ctx));
    const entry: LedgerEntry = {
      id: this.nextId++,
      changes,
      add: (change) => {
        if (!registered.pending) throw new Error(`ledger entry ${entry.id} is already undone or handed on: record ${change.kind} ${JSON.stringify(change)} as a new change`);
        if (change.kind !== changes[0]!.kind) throw new Error(`ledger entry ${entry.id} holds ${changes[0]!.kind} changes, not ${change.kind}`);
        changes.push(change);
      },
      undoNow: (run) => registered.runNow(run),
      get pending() {
        return registered.pending;
      },
    };
    this.entries.push({ entry, changes, registered });
    return entry;
  }
}
