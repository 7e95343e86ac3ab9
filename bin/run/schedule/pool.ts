/**
 * Runs work on items with at most `jobs` at a time, starting them in order; results come back in item order.
 * After a failure (or once shouldStop says so) no further item starts; the running ones finish, then the first
 * error is thrown, so nothing is left running behind the caller's back.
 */
export async function runPool<T, R>(items: readonly T[], jobs: number, work: (item: T, index: number) => Promise<R>,
  shouldStop: () => boolean = () => false): Promise<R[]> {
  const results: R[] = [];
  const errors: unknown[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length && errors.length === 0 && !shouldStop()) {
      const index = next++;
      try {
        results[index] = await work(items[index]!, index);
      } catch (error) {
        errors.push(error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(jobs, items.length)) }, worker));
  if (errors.length) throw errors[0];
  return results.filter(() => true); // drops the holes of items never started
}
