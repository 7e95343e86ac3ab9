/**
 * What a spec process does when its run is interrupted. ocp-e2e passes any signal on as SIGINT and mocha's launcher
 * follows it with SIGTERM, so this process cannot know which signal the user sent: ocp-e2e names it, this process
 * says only that it was interrupted. It then undoes what the spec changed (on a cluster that is kept, also waiting
 * until the pools settle back) within a grace period, and exits. When the grace runs out, or a second signal comes,
 * it prints exactly what is left on the cluster and the commands that undo it, and exits without waiting. The same
 * when the run stops waiting for it (a second interrupt of ocp-e2e kills mocha's launcher, this process's parent).
 */
import { formatLeftActions, type Cleanup } from './cleanup.js';
import { maskSecrets } from './secrets.js';

/** Signals this soon after the first are the launcher's own follow-up, not a second interrupt. */
const FOLLOW_UP_MS = 1000;
/** How often the process checks that the run that started it is still there. */
const ORPHAN_CHECK_MS = 200;

export interface InterruptPlan {
  /** What to undo: the session's ledger (or a bare Cleanup). */
  cleanup: Pick<Cleanup, 'left' | 'runAll'>;
  /**
   * Asked first: hands the changes on the cluster to a later process instead of undoing them (an upgrade under way),
   * returning what to tell the user, or undefined when the ordinary undo is right. What it hands over leaves `cleanup`.
   */
  handOver?: () => Promise<string | undefined>;
  /** Wait for the cluster to settle after each undo: a cluster that is kept, not a throwaway reference. */
  settle: () => boolean;
  /** How long the undo may take before the process gives up and says what is left (0: undo nothing, only say it). */
  graceMs: () => number;
  log?: (text: string) => void;
  exit?: (code: number) => void;
}

/** Installs the SIGINT/SIGTERM handlers of a spec process; returns the uninstall. */
export function handleInterrupts(plan: InterruptPlan): () => void {
  const log = plan.log ?? ((text: string) => console.error(maskSecrets(text)));
  const exit = plan.exit ?? ((code: number) => process.exit(code));
  let code: number | undefined;
  let firstAt = 0;
  let finished = false;
  const giveUp = (why: string) => {
    if (finished) return;
    finished = true;
    const left = plan.cleanup.left;
    if (left.length) log(`    ${why}: left on the cluster; undo it by hand:\n${formatLeftActions(left)}`);
    exit(code!);
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    if (code !== undefined) {
      // mocha's launcher sends SIGTERM right after the SIGINT it passes on: only a later signal is someone insisting.
      if (Date.now() - firstAt > FOLLOW_UP_MS) giveUp('interrupted again');
      return;
    }
    code = signal === 'SIGTERM' ? 143 : 130;
    firstAt = Date.now();
    const graceMs = plan.graceMs();
    const settle = plan.settle();
    if (graceMs <= 0) return giveUp('interrupted, with no time given to undo');
    const seconds = +(graceMs / 1000).toFixed(1);
    const timer = setTimeout(() => giveUp(`interrupted: the undo did not finish within ${seconds} s`), graceMs);
    const handedOver = (plan.handOver?.() ?? Promise.resolve(undefined)).catch((error: unknown) => {
      log(`    interrupted: could not leave a checkpoint (${error instanceof Error ? error.message : String(error)}); undoing instead`);
      return undefined;
    });
    void handedOver.then(async (told) => {
      if (told) log(`    interrupted: ${told}`);
      else log(`    interrupted: undoing what this spec changed${settle ? ' and waiting until the cluster settles' : ''} (at most ${seconds} s; interrupt again to stop at once)`);
      return plan.cleanup.runAll({ skipSettling: !settle });
    }).then((report) => {
      clearTimeout(timer);
      for (const f of report.failed) log(`    cleanup "${f.description}" failed: ${f.error}`);
      if (report.failed.length) return giveUp('interrupted: the undo failed');
      log(`    interrupted: undone${report.ran.length ? `: ${report.ran.join('; ')}` : ' (nothing to undo)'}`);
      finished = true;
      exit(code!);
    });
  };
  // The run stopped waiting for this process (ocp-e2e interrupted twice kills mocha's launcher, our parent, maybe
  // before it passed the signal on): nobody is left to wait for an undo, so say what is left and go.
  const parent = process.ppid;
  const orphanWatch = setInterval(() => {
    if (process.ppid === parent) return;
    code ??= 130;
    giveUp('interrupted: the run that started this spec is gone');
  }, ORPHAN_CHECK_MS);
  orphanWatch.unref();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return () => {
    clearInterval(orphanWatch);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
}
