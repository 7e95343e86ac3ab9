/**
 * What a run has started and must stop on SIGINT/SIGTERM: mocha children and reference clusters. The first signal
 * stops the children (their specs clean up through the cluster's API), then the clusters, then exits 130/143; a
 * second one exits at once. One instance per run; nothing is kept at module level.
 */
import type { ResultPromise } from 'execa';
import { descendantsOf } from './process-tree.js';

interface Stoppable {
  stop(): Promise<void>;
}

export class Supervisor {
  private interrupted: NodeJS.Signals | undefined;
  private readonly children = new Set<ResultPromise>();
  private readonly clusters = new Set<Stoppable>();
  private readonly listener = (signal: NodeJS.Signals) => this.onSignal(signal);

  /** The signal that interrupted the run, if one did. */
  get interruptedBy(): NodeJS.Signals | undefined {
    return this.interrupted;
  }

  /** The exit code an interrupted run ends with. */
  get interruptedExitCode(): number | undefined {
    return this.interrupted === undefined ? undefined : exitCodeFor(this.interrupted);
  }

  install(): void {
    // `on`, not `once`: a second signal must reach onSignal (and tsx ends the process itself when none listens).
    process.on('SIGINT', this.listener);
    process.on('SIGTERM', this.listener);
  }

  uninstall(): void {
    process.off('SIGINT', this.listener);
    process.off('SIGTERM', this.listener);
  }

  /** Awaits a child while it is tracked; it is stopped with the run if a signal arrives meanwhile. */
  async child<T extends ResultPromise>(child: T): Promise<Awaited<T>> {
    this.children.add(child);
    try {
      return await child;
    } finally {
      this.children.delete(child);
    }
  }

  /** Runs work with a cluster that a signal stops; the cluster is stopped afterwards in any case. */
  async withCluster<C extends Stoppable, R>(cluster: C, work: (cluster: C) => Promise<R>): Promise<R> {
    this.clusters.add(cluster);
    try {
      return await work(cluster);
    } finally {
      this.clusters.delete(cluster);
      await cluster.stop();
    }
  }

  /**
   * SIGKILL to every child and whatever it started, then a short wait so that they are reaped here rather than left
   * as zombies for init.
   */
  private async killChildren(): Promise<void> {
    const children = [...this.children];
    for (const child of children) {
      const tree = child.pid ? descendantsOf(child.pid) : [];
      for (const pid of tree.reverse()) {
        try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
      }
      child.kill('SIGKILL');
    }
    await Promise.race([Promise.allSettled(children), new Promise((resolve) => setTimeout(resolve, 300))]);
  }

  private onSignal(signal: NodeJS.Signals): void {
    const code = exitCodeFor(signal);
    if (this.interrupted) {
      console.error(`\nocp-e2e: second ${signal}: exiting now, without waiting for the cleanup`);
      void this.killChildren().then(() => process.exit(code));
      return;
    }
    this.interrupted = signal;
    console.error(`\nocp-e2e: ${signal}: stopping (cleanup first; send it again to exit at once)`);
    // SIGINT, whatever we got: the specs' session answers it by deleting what it created, then exits.
    const children = [...this.children];
    for (const c of children) c.kill('SIGINT');
    // mocha first (its specs clean up through the cluster's API), then the reference clusters. The run itself then
    // ends as an interrupted one (JUnit repaired, the summary line, this exit code); should it hang, exit anyway.
    void Promise.allSettled(children)
      .then(() => Promise.allSettled([...this.clusters].map((c) => c.stop())))
      .then(() => setTimeout(() => process.exit(code), RUN_WIND_DOWN_MS).unref());
  }
}

/** How long the run may take to write its results after its children and clusters stopped. */
const RUN_WIND_DOWN_MS = 10_000;

function exitCodeFor(signal: NodeJS.Signals): number {
  return signal === 'SIGTERM' ? 143 : 130;
}
