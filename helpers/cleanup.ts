/**
 * Undo actions, run last-in-first-out, each at most once. Whatever changes the cluster registers its undo here the
 * moment it exists (or just before), with the commands that do the same by hand. After a failure with
 * --keep-on-failure nothing is run: the broken state is left for someone to look at, and what was left is listed with
 * those commands. The leak check then lists anything still carrying the run label.
 */
import type { Cluster } from './cluster.js';
import { RunIdLabel } from './types.js';

export interface UndoAction {
  /** What the undo does, said as a step: "delete MachineConfigs a, b". */
  description: string;
  undo: () => Promise<void>;
  /**
   * After the undo: bring the cluster back to a settled state (wait for pools to roll back, re-point a degraded node).
   * Skipped on a throwaway target; the undo itself never is.
   */
  settle?: { description: string; run: () => Promise<void> };
  /** Commands that undo the same by hand, printed when the action is kept or did not finish. */
  byHand?: string[];
}

export interface LeftAction {
  description: string;
  byHand: string[];
}

export interface CleanupReport {
  ran: string[];
  failed: { description: string; error: string }[];
  /** Not run (kept, or a settle skipped on a throwaway target), newest first. */
  skipped: LeftAction[];
}

/** A registered undo, for the code that made the change and may undo it itself before the end (spec 05). */
export interface Registered {
  /** The owner has undone the change itself (and settled the cluster): nothing is left for the cleanup to do. */
  dismiss(): void;
}

interface Entry {
  action: UndoAction;
  done: boolean;
}

function describe(action: UndoAction, withSettle: boolean): string {
  return withSettle && action.settle ? `${action.description}, then ${action.settle.description}` : action.description;
}

export class Cleanup {
  private readonly entries: Entry[] = [];

  add(action: UndoAction): Registered {
    const entry: Entry = { action, done: false };
    this.entries.push(entry);
    return {
      dismiss: () => {
        entry.done = true;
      },
    };
  }

  /** What has not been undone yet, newest first, with the commands that undo it by hand. */
  get pending(): LeftAction[] {
    return this.entries
      .filter((e) => !e.done)
      .reverse()
      .map((e) => ({ description: describe(e.action, true), byHand: e.action.byHand ?? [] }));
  }

  /**
   * Runs every pending action, newest first. A failing action does not stop the others; all failures are reported.
   * With `keep` the actions are left pending and listed as skipped; with `skipSettling` only the settles are skipped.
   */
  async runAll(options: { keep?: boolean; skipSettling?: boolean } = {}): Promise<CleanupReport> {
    const report: CleanupReport = { ran: [], failed: [], skipped: [] };
    if (options.keep) {
      report.skipped = this.pending;
      return report;
    }
    for (const entry of [...this.entries].reverse()) {
      if (entry.done) continue;
      entry.done = true; // once, even if it throws: a retry belongs in the action itself
      const { action } = entry;
      const settle = options.skipSettling ? undefined : action.settle;
      try {
        await action.undo();
        await settle?.run();
        report.ran.push(describe(action, settle !== undefined));
      } catch (error) {
        report.failed.push({ description: describe(action, settle !== undefined), error: (error as Error).message });
      }
      if (options.skipSettling && action.settle) report.skipped.push({ description: action.settle.description, byHand: [] });
    }
    return report;
  }
}

/** Prints what was left on the cluster and how to undo it, one action per item. */
export function formatLeftActions(left: LeftAction[]): string {
  return left.map((a) => `      - ${a.description}${a.byHand.length ? `\n${a.byHand.map((c) => `          ${c}`).join('\n')}` : ''}`).join('\n');
}

/** Names of MachineConfigs still labelled with this run id (the only kind the suite creates on the cluster). */
export async function leakedObjects(cluster: Cluster, runId: string): Promise<string[]> {
  const mcs = await cluster.listMachineConfigs(`${RunIdLabel}=${runId}`);
  return mcs.map((mc) => `MachineConfig/${mc.metadata.name}`);
}
