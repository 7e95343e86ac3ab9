/**
 * Console reporter for every mocha run of this project: mocha's own `spec` output while the run goes on, then one
 * closing line `N passed, N failed, N skipped` that CI systems (and people skimming a log) can read without parsing
 * mocha's wording ("passing", "pending").
 *
 * A long run (more than SLOWEST tests, i.e. `npm test`, not a suite run) also lists, before that line, its slowest
 * tests and its slowest files: a file's time includes its hooks (the clusters its `before` starts), which a test's
 * own time does not, and it is the file that one would split or share to make the run faster. Every file's time
 * goes to reports/test-file-times.json. Where the run's root hooks measured each file's CPU (test/support/file-cpu.ts
 * writes reports/test-file-cpu.jsonl), the costliest files by CPU follow, with the run's total.
 *
 * CommonJS on purpose: allure-mocha loads its extra reporters with a synchronous require().
 */
import Mocha = require('mocha');
import fs = require('node:fs');
import path = require('node:path');

const { Spec } = Mocha.reporters;
const { EVENT_HOOK_END, EVENT_RUN_END, EVENT_TEST_END } = Mocha.Runner.constants;

const SLOWEST = 20;
/** Written by the project's root hooks (test/support/file-cpu.ts), one line per file; scripts/test.sh empties it. */
const FILE_CPU_LOG = path.join('reports', 'test-file-cpu.jsonl');

class SummaryReporter extends Spec {
  constructor(runner: Mocha.Runner, options?: Mocha.MochaOptions) {
    super(runner, options);
    // the project's own test run only: the suite's reporter (a subclass) runs in spec processes those tests start
    const ranksCpu = this.constructor === SummaryReporter && process.env.OCP_E2E_TEST_CPU_LOG === '1';
    const tests: { title: string; ms: number }[] = [];
    const fileMs = new Map<string, number>();
    // A file's time is the sum of its tests' and its hooks' own durations: mocha measures both where they run, so the
    // sum is right in a parallel run too, where this reporter gets each file's events replayed after the fact.
    const addToFile = (runnable: Mocha.Runnable) => {
      if (runnable.duration === undefined || !runnable.file) return;
      const file = path.relative(process.cwd(), runnable.file);
      fileMs.set(file, (fileMs.get(file) ?? 0) + runnable.duration);
    };
    runner.on(EVENT_TEST_END, (test: Mocha.Test) => {
      if (test.duration !== undefined) tests.push({ title: test.fullTitle(), ms: test.duration });
      addToFile(test);
    });
    runner.on(EVENT_HOOK_END, (hook: Mocha.Hook) => addToFile(hook));
    runner.once(EVENT_RUN_END, () => {
      const stats = runner.stats ?? { passes: 0, failures: 0, pending: 0 };
      // Spec prints its epilogue on the same event; print after it so this is the very last line.
      process.nextTick(() => {
        if (tests.length > SLOWEST) {
          console.log(`\nslowest ${SLOWEST} tests (s):`);
          for (const t of [...tests].sort((a, b) => b.ms - a.ms).slice(0, SLOWEST)) console.log(`  ${seconds(t.ms)}  ${t.title}`);
          console.log(`slowest ${SLOWEST} files (s, with their hooks):`);
          for (const [file, ms] of [...fileMs].sort((a, b) => b[1] - a[1]).slice(0, SLOWEST)) console.log(`  ${seconds(ms)}  ${file}`);
          if (ranksCpu) printFileCpu();
          console.log('');
          writeFileTimes(fileMs);
        }
        console.log(`${stats.passes} passed, ${stats.failures} failed, ${stats.pending} skipped`);
      });
    });
  }
}

/**
 * Every file's time, slowest first, to reports/test-file-times.json: scripts/test-order.mjs starts the slowest files
 * first from the committed copy, test/file-times.json (copy this file there to refresh it after tests change).
 */
function writeFileTimes(fileMs: Map<string, number>): void {
  const sorted = Object.fromEntries([...fileMs].sort((a, b) => b[1] - a[1]).map(([file, ms]) => [file, Math.round(ms / 100) / 10]));
  try {
    fs.mkdirSync('reports', { recursive: true });
    fs.writeFileSync(path.join('reports', 'test-file-times.json'), `${JSON.stringify(sorted, null, 2)}\n`);
  } catch (error) {
    console.log(`(the file times could not be written to reports/test-file-times.json: ${(error as Error).message})`);
  }
}

/** The costliest files by CPU, own and children's, from the root hooks' lines (one line per file: a parallel run). */
function printFileCpu(): void {
  let lines: { file: string; ownCpuS: number; childrenCpuS?: number }[];
  try {
    lines = fs.readFileSync(FILE_CPU_LOG, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  } catch {
    return;
  }
  if (lines.length < 2) return; // a serial run has one line for all its files: nothing to rank
  const total = (l: (typeof lines)[number]) => l.ownCpuS + (l.childrenCpuS ?? 0);
  const sum = lines.reduce((s, l) => s + total(l), 0);
  console.log(`costliest ${SLOWEST} files by CPU (s: in all = own + child processes'; ${lines.length} files, ${sum.toFixed(0)} CPU s in all):`);
  for (const l of [...lines].sort((a, b) => total(b) - total(a)).slice(0, SLOWEST)) {
    console.log(`  ${total(l).toFixed(1).padStart(6)} = ${l.ownCpuS.toFixed(1)} + ${(l.childrenCpuS ?? 0).toFixed(1)}  ${l.file}`);
  }
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(1).padStart(6);
}

export = SummaryReporter;
