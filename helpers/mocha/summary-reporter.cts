/**
 * Console reporter for every mocha run of this project: mocha's own `spec` output while the run goes on, then one
 * closing line `N passed, N failed, N skipped` that CI systems (and people skimming a log) can read without parsing
 * mocha's wording ("passing", "pending").
 *
 * CommonJS on purpose: allure-mocha loads its extra reporters with a synchronous require().
 */
import Mocha = require('mocha');

const { Spec } = Mocha.reporters;
const { EVENT_RUN_END } = Mocha.Runner.constants;

class SummaryReporter extends Spec {
  constructor(runner: Mocha.Runner, options?: Mocha.MochaOptions) {
    super(runner, options);
    runner.once(EVENT_RUN_END, () => {
      const stats = runner.stats ?? { passes: 0, failures: 0, pending: 0 };
      // Spec prints its epilogue on the same event; print after it so this is the very last line.
      process.nextTick(() => {
        console.log(`${stats.passes} passed, ${stats.failures} failed, ${stats.pending} skipped`);
      });
    });
  }
}

export = SummaryReporter;
