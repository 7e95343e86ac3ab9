/** Pass/fail/skip counts: read from the summary line the suite reporter prints last, added up over spec files. */
export interface Counts {
  passed: number;
  failed: number;
  skipped: number;
}

export const NO_TESTS: Counts = { passed: 0, failed: 0, skipped: 0 };
/** What a spec file that produced no results counts as: one failure, so the run cannot pass. */
export const ONE_FAILURE: Counts = { passed: 0, failed: 1, skipped: 0 };

const SUMMARY_LINE = /^(\d+) passed, (\d+) failed, (\d+) skipped\s*$/gm;

/** The summary line the suite reporter prints last, or undefined when the child died before printing it. */
export function parseSummary(output: string): Counts | undefined {
  const last = [...output.matchAll(SUMMARY_LINE)].at(-1);
  return last ? { passed: Number(last[1]), failed: Number(last[2]), skipped: Number(last[3]) } : undefined;
}

export function addCounts(a: Counts, b: Counts): Counts {
  return { passed: a.passed + b.passed, failed: a.failed + b.failed, skipped: a.skipped + b.skipped };
}

export function formatCounts(c: Counts): string {
  return `${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped`;
}
