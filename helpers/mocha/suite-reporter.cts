/**
 * The console and CI reporter of a conformance run, loaded by allure-mocha as its extra reporter: the project's summary
 * reporter (spec output, then `N passed, N failed, N skipped`) plus mocha's xunit reporter writing JUnit XML for CI to
 * the file named by OCP_E2E_JUNIT_FILE. allure-mocha takes one extra reporter from the command line, hence this pair.
 *
 * CommonJS on purpose: allure-mocha loads its extra reporters with a synchronous require().
 */
import Mocha = require('mocha');
import fs = require('node:fs');
import path = require('node:path');
import SummaryReporter = require('./summary-reporter.cjs');

const JUNIT_ENV = 'OCP_E2E_JUNIT_FILE';

class SuiteReporter extends SummaryReporter {
  private readonly junit?: Mocha.reporters.XUnit;

  constructor(runner: Mocha.Runner, options?: Mocha.MochaOptions) {
    super(runner, options);
    const output = process.env[JUNIT_ENV];
    if (output) {
      fs.mkdirSync(path.dirname(output), { recursive: true });
      this.junit = new Mocha.reporters.XUnit(runner, { reporterOptions: { output, suiteName: 'ocp-e2e conformance' } } as Mocha.MochaOptions);
    }
  }

  /** mocha waits for this before exiting, so the JUnit file is complete when the process ends. */
  override done(failures: number, fn?: (failures: number) => void): void {
    const junit = this.junit as unknown as { done?: (failures: number, fn: (failures: number) => void) => void } | undefined;
    if (junit?.done) junit.done(failures, () => fn?.(failures));
    else fn?.(failures);
  }
}

export = SuiteReporter;
