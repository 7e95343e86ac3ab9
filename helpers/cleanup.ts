/**
 * Undo actions, run last-in-first-out, each at most once: the runner under the session's ledger (helpers/ledger.ts),
 * which registers here the undo of every change a test makes, the moment it exists, with the commands that do the
 * same by hand. After a failure with --keep-on-failure nothing is
 * run: the broken state is left for someone to look at, and what was left is listed with those commands; the same
 * list is what an interrupted spec prints when its cleanup cannot finish in time. The leak check then lists anything
 * still carrying the run label.
 */
import type { Cluster } from './cluster.js';
import { RunIdLabel } from './types.js';
import type { KubeObject } from '../lib/kube/client.js';
import { isForbidden, isNotFound } from '../lib/kube/errors.js';
import { MCO_NAMESPACE as IMAGE_MODE_NAMESPACE } from './image-mode/types.js';

export interface UndoAction {
  /** What the undo does, said as a step: "delete MachineConfigs a, b". */
  description: string;
  undo: () => Promise<void>;
  /** Commands that undo the same by hand, printed when the action is kept or did not finish. */
  byHand?: string[];
  /**
   * After the undo: bring the cluster back to a settled state (wait for pools to roll back, re-point a degraded node).
   * Skipped on a throwaway target; the undo itself never is.
   */
  settle?: { description: string; run: () => Promise<void>; byHand?: string[] };
}

/** Something left on the cluster, and the commands that deal with it by hand. */
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

/** Runs one part of an undo (the undo, then the settle) under its description: an Allure step, or just the body. */
export type UndoStepRunner = (description: string, body: () => Promise<void>) => Promise<void>;

/** A registered undo, for the code that made the change and may undo it before the end (spec 05), or hand it on. */
export interface Registered {
  /** Nothing is left for this cleanup to do: the change was handed to another process (a later phase). */
  dismiss(): void;
  /**
   * Runs the undo and then its settle now, each through `run`. Afterwards nothing is left for the cleanup; when either
   * fails the error is thrown and the whole undo stays pending, so the cleanup tries it again (undos are idempotent).
   */
  runNow(run?: UndoStepRunner): Promise<void>;
  /** Not yet undone, under way, or handed on. */
  readonly pending: boolean;
}

/** Where an action stands: not started, undoing, undone and settling, finished, or failed (and so left as it was). */
type Stage = 'pending' | 'undoing' | 'settling' | 'done' | 'failed';

interface Entry {
  action: UndoAction;
  stage: Stage;
}

function describe(action: UndoAction, withSettle: boolean): string {
  return withSettle && action.settle ? `${action.description}, then ${action.settle.description}` : action.description;
}

/** What an entry leaves behind at its stage: all of it before the undo is done, only the settle after. */
function leftOf(entry: Entry): LeftAction {
  const { action } = entry;
  if (entry.stage === 'settling' && action.settle) return { description: action.settle.description, byHand: action.settle.byHand ?? [] };
  return { description: describe(action, true), byHand: [...(action.byHand ?? []), ...(action.settle?.byHand ?? [])] };
}

export class Cleanup {
  private readonly entries: Entry[] = [];

  add(action: UndoAction): Registered {
    const entry: Entry = { action, stage: 'pending' };
    this.entries.push(entry);
    return {
      dismiss: () => {
        entry.stage = 'done';
      },
      runNow: (run = (_description, body) => body()) => runNow(entry, run),
      get pending() {
        return entry.stage === 'pending';
      },
    };
  }

  /** What is not undone (not run yet, under way, or failed), newest first, with the commands that undo it by hand. */
  get left(): LeftAction[] {
    return this.entries
      .filter((e) => e.stage !== 'done')
      .reverse()
      .map(leftOf);
  }

  /**
   * Runs every pending action, newest first. A failing action does not stop the others; all failures are reported.
   * With `keep` the actions are left pending and listed as skipped; with `skipSettling` only the settles are skipped.
   */
  async runAll(options: { keep?: boolean; skipSettling?: boolean } = {}): Promise<CleanupReport> {
    const report: CleanupReport = { ran: [], failed: [], skipped: [] };
    if (options.keep) {
      report.skipped = this.left;
      return report;
    }
    for (const entry of [...this.entries].reverse()) {
      if (entry.stage !== 'pending') continue; // once, even if it failed: a retry belongs in the action itself
      const { action } = entry;
      const settle = options.skipSettling ? undefined : action.settle;
      try {
        entry.stage = 'undoing';
        await action.undo();
        entry.stage = 'settling';
        await settle?.run();
        entry.stage = 'done';
        report.ran.push(describe(action, settle !== undefined));
      } catch (error) {
        if (entry.stage === 'undoing') entry.stage = 'failed'; // a failed settle leaves only the settle to do

        report.failed.push({ description: describe(action, settle !== undefined), error: (error as Error).message });
      }
      if (options.skipSettling && action.settle) report.skipped.push({ description: action.settle.description, byHand: action.settle.byHand ?? [] });
    }
    return report;
  }
}

async function runNow(entry: Entry, run: UndoStepRunner): Promise<void> {
  if (entry.stage !== 'pending') return;
  const { action } = entry;
  try {
    entry.stage = 'undoing';
    await run(action.description, action.undo);
    entry.stage = 'settling';
    if (action.settle) await run(action.settle.description, action.settle.run);
    entry.stage = 'done';
  } catch (error) {
    entry.stage = 'pending';
    throw error;
  }
}

/** What was left on the cluster and how to undo it, one action per item (indented for the spec output). */
export function formatLeftActions(left: LeftAction[]): string {
  return left.map((a) => `      - ${a.description}${a.byHand.length ? `\n${a.byHand.map((c) => `          ${c}`).join('\n')}` : ''}`).join('\n');
}

/**
 * What is still on the cluster with this run's label, as `Kind/name`: the kinds the suite creates there. Override
 * MachineConfigs; checkpoint ConfigMaps (a run that handed over to a later phase does not ask); and the temporary
 * namespaces of debug pods the suite makes itself (`oc debug` removes its own), minus those being deleted.
 */
export async function leakedObjects(cluster: Cluster, runId: string, checkpointNamespace: string): Promise<string[]> {
  const selector = `${RunIdLabel}=${runId}`;
  const [mcs, checkpoints, namespaces, moscs, pushSecrets] = await Promise.all([
    cluster.listMachineConfigs(selector),
    cluster.listConfigMaps(checkpointNamespace, selector),
    cluster.listLiveNamespaces(selector),
    // image mode: the MachineOSConfigs and their push secrets (none where the release serves no such API)
    cluster.listIfServed('MachineOSConfig').then((l) => l.filter((o) => o.metadata.labels?.[RunIdLabel] === runId)),
    // a run that may not list Secrets there (a read-only run's account) made none there either
    cluster.client.list<KubeObject>('Secret', { namespace: IMAGE_MODE_NAMESPACE, labelSelector: selector }).then((l) => l.items, (e: unknown) => (isForbidden(e) || isNotFound(e) ? [] : Promise.reject(e))),
  ]);
  return [
    ...mcs.map((mc) => `MachineConfig/${mc.metadata.name}`),
    ...moscs.map((m) => `MachineOSConfig/${m.metadata.name}`),
    ...pushSecrets.map((sec) => `Secret/${sec.metadata.name} -n ${IMAGE_MODE_NAMESPACE}`),
    ...checkpoints.map((cm) => `ConfigMap/${cm.metadata?.name} -n ${checkpointNamespace}`),
    ...namespaces.map((ns) => `Namespace/${ns.metadata.name}`),
  ];
}
