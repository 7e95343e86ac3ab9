/**
 * Cleanups held back to the end of a spec process. Where many specs judge one shared upgrade (`--phase post` under a
 * pool plan), one spec's cleanup must not change the cluster under the specs judging after it: deleting the report's
 * master override, for one, lets a deadlocked upgrade finish, and the next spec would judge an upgrade that was not the
 * one under test. So every spec but the last leaves its cleanup here, and the last spec's after-all hook runs them
 * all, newest first, after its own (the spec files of one mocha process share this module).
 */
const waiting: Array<{ spec: string; finish: () => Promise<void> }> = [];

export function deferCleanup(spec: string, finish: () => Promise<void>): void {
  waiting.push({ spec, finish });
}

export function deferredCleanups(): number {
  return waiting.length;
}

/** Runs every held cleanup, newest first; one failing does not stop the others. Returns their errors. */
export async function runDeferredCleanups(): Promise<Error[]> {
  const errors: Error[] = [];
  while (waiting.length) {
    const { spec, finish } = waiting.pop()!;
    console.log(`  cleanup of ${spec}, held back until every spec had judged the upgrade`);
    await finish().catch((error: unknown) => errors.push(new Error(`cleanup of ${spec}: ${(error as Error).message}`)));
  }
  return errors;
}
