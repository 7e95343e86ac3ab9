/**
 * The console and CI reporter of a conformance run, loaded by allure-mocha as its extra reporter: the project's summary
 * reporter (spec output, then `N passed, N failed, N skipped`) plus the JUnit collector writing JUnit XML for CI to the
 * file named by OCP_E2E_JUNIT_FILE. allure-mocha takes one extra reporter from the command line, hence this pair.
 *
 * CommonJS on purpose: allure-mocha loads its extra reporters with a synchronous require().
 */
import Mocha = require('mocha');
import SummaryReporter = require('./summary-reporter.cjs');
import collector = require('./junit-reporter.cjs');

const JUNIT_ENV = 'OCP_E2E_JUNIT_FILE';

class SuiteReporter extends SummaryReporter {
  private readonly junit?: collector.JUnitCollector;

  constructor(runner: Mocha.Runner, options?: Mocha.MochaOptions) {
    super(runner, options);
    const output = process.env[JUNIT_ENV];
    if (output) this.junit = new collector.JUnitCollector(runner, output);
  }

  /** mocha waits for this before exiting, so the JUnit file is complete when the process ends. */
  override done(failures: number, fn?: (failures: number) => void): void {
    this.junit?.write();
    fn?.(failures);
  }
}

export = SuiteReporter;
