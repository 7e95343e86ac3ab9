/**
 * Undo actions, run last-in-first-out, each at most once. After a failure with --keep-on-failure they are not run (the
 * broken state is left for someone to look at) and the skipped actions are listed so the user can undo them by hand.
 * The leak check then lists anything still carrying the run label.
 */
import type { Cluster } from './cluster.js';
import { RunIdLabel } from './types.js';

interface CleanupAction {
  description: string;
  run: () => Promise<void>;
  done: boolean;
  /** Only brings the cluster back to a settled state (waits, node recovery); pointless on a throwaway cluster. */
  settles: boolean;
}

export interface CleanupOptions {
  /**
   * The action only returns the cluster to a settled state (a wait for pools to roll back, re-pointing a degraded
   * node). Skipped on a throwaway target; deleting what the test created is never skipped.
   */
  settles?: boolean;
}

export interface CleanupReport {
  ran: string[];
  failed: { description: string; error: string }[];
  skipped: string[];
}

export class Cleanup {
  private readonly actions: CleanupAction[] = [];

  add(description: string, run: () => Promise<void>, options: CleanupOptions = {}): void {
    this.actions.push({ description, run, done: false, settles: options.settles ?? false });
  }

  get pending(): string[] {
    return this.actions.filter((a) => !a.done).map((a) => a.description).reverse();
  }

  /**
   * Runs every pending action, newest first. A failing action does not stop the others; all failures are reported.
   * With `keep` the actions are left pending and listed as skipped; with `skipSettling` the settling ones are skipped.
   */
  async runAll(options: { keep?: boolean; skipSettling?: boolean } = {}): Promise<CleanupReport> {
    const report: CleanupReport = { ran: [], failed: [], skipped: [] };
    if (options.keep) {
      report.skipped = this.pending;
      return report;
    }
    for (const action of [...this.actions].reverse()) {
      if (action.done) continue;
      if (action.settles && options.skipSettling) {
        action.done = true;
        report.skipped.push(action.description);
        continue;
      }
      action.done = true; // once, even if it throws: a retry belongs in the action itself
      try {
        await action.run();
        report.ran.push(action.description);
      } catch (error) {
        report.failed.push({ description: action.description, error: (error as Error).message });
      }
    }
    return report;
  }
}

/** Names of MachineConfigs still labelled with this run id (the only kind the suite creates on the cluster). */
export async function leakedObjects(cluster: Cluster, runId: string): Promise<string[]> {
  const mcs = await cluster.listMachineConfigs(`${RunIdLabel}=${runId}`);
  return mcs.map((mc) => `MachineConfig/${mc.metadata.name}`);
}
