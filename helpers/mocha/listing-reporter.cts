/**
 * The reporter of `mocha --dry-run` when the run lists the specs (bin/run/spec-listing.ts): once the files are
 * loaded, one JSON document on stdout, `{"tests": [{file, fullTitle, declared}]}`, where `declared` is what the
 * spec's `session.test(...)` declared (helpers/declared-case.ts) or absent for a test that declares nothing. It reads
 * the tests from the loaded suite tree when the run begins (mocha drops the tests' functions, and with them the
 * declarations, as each suite ends), so nothing has to run.
 *
 * CommonJS like the project's other reporters, so mocha loads it the same way in the sources and in a compiled tree.
 */
import Mocha = require('mocha');

const { EVENT_RUN_BEGIN, EVENT_RUN_END } = Mocha.Runner.constants;
/** helpers/declared-case.ts DECLARED_CASE_KEY: that module is ESM, which this CommonJS reporter cannot require. */
const DECLARED = Symbol.for('ocp-e2e.declared-case');

interface Listed {
  file?: string;
  fullTitle: string;
  declared?: unknown;
}

function testsOf(suite: Mocha.Suite): Listed[] {
  const own = suite.tests.map((t) => ({ file: t.file, fullTitle: t.fullTitle(), declared: (t.fn as unknown as Record<symbol, unknown> | undefined)?.[DECLARED] }));
  return [...own, ...suite.suites.flatMap(testsOf)];
}

class ListingReporter extends Mocha.reporters.Base {
  constructor(runner: Mocha.Runner, options?: Mocha.MochaOptions) {
    super(runner, options);
    let tests: Listed[] = [];
    runner.once(EVENT_RUN_BEGIN, () => {
      tests = testsOf(runner.suite);
    });
    runner.once(EVENT_RUN_END, () => {
      process.stdout.write(`${JSON.stringify({ tests })}\n`);
    });
  }
}

export = ListingReporter;
