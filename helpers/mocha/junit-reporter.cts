/**
 * Collects a mocha run into JUnit (helpers/report/junit.cts) and writes it once, when the run ends: one testsuite per
 * spec file, each test's console lines in its system-out, failures with their message, kind and trimmed stack, hook
 * failures as errors, and the artefacts folder as a property. A run killed before its end leaves no file; `ocp-e2e
 * run` writes one recording the interruption then.
 *
 * CommonJS on purpose: allure-mocha loads its extra reporters with a synchronous require().
 */
import Mocha = require('mocha');
import fs = require('node:fs');
import os = require('node:os');
import path = require('node:path');
import junit = require('../report/junit.cjs');
import kinds = require('../report/failure-kinds.cjs');
import stacks = require('../report/stack.cjs');

const { EVENT_RUN_END, EVENT_SUITE_BEGIN, EVENT_HOOK_BEGIN, EVENT_HOOK_END, EVENT_TEST_BEGIN, EVENT_TEST_PASS, EVENT_TEST_FAIL, EVENT_TEST_PENDING } =
  Mocha.Runner.constants;
const ROOT = path.resolve(__dirname, '..', '..');

/** Copies what the process writes to stdout and stderr while on, without changing what is written. */
class ConsoleCapture {
  private buffer = '';
  private on = false;
  private readonly originals = { out: process.stdout.write.bind(process.stdout), err: process.stderr.write.bind(process.stderr) };

  constructor() {
    const tee = (original: typeof process.stdout.write) =>
      ((chunk: unknown, ...rest: unknown[]) => {
        if (this.on) this.buffer += typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8');
        return (original as (...a: unknown[]) => boolean)(chunk, ...rest);
      }) as typeof process.stdout.write;
    process.stdout.write = tee(this.originals.out);
    process.stderr.write = tee(this.originals.err);
  }

  start(): void {
    this.buffer = '';
    this.on = true;
  }

  /** Stops and returns what was written since start (nothing when not started). */
  take(): string {
    this.on = false;
    const text = this.buffer;
    this.buffer = '';
    return text;
  }

  restore(): void {
    process.stdout.write = this.originals.out;
    process.stderr.write = this.originals.err;
  }
}

function relative(file: string | undefined): string | undefined {
  if (!file) return undefined;
  const rel = path.relative(ROOT, file);
  return rel.startsWith('..') ? file : rel.split(path.sep).join('/');
}

function describeFailure(err: Error & { name?: string }): junit.JUnitFailure {
  const message = err.message ?? String(err);
  return { message, type: kinds.failureKind(message)?.id ?? err.name ?? 'Error', stack: stacks.trimStack(err.stack) };
}

export class JUnitCollector {
  private readonly suites = new Map<string, junit.JUnitSuite & { started: number }>();
  private readonly capture = new ConsoleCapture();
  private outside = '';

  constructor(
    runner: Mocha.Runner,
    private readonly output: string,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {
    runner.on(EVENT_SUITE_BEGIN, (suite: Mocha.Suite) => {
      if (suite.file && suite.parent?.root) this.suiteOf(suite.file);
    });
    // What is written between tests and hooks is the console reporter's (titles, ✔/✗, the summary): dropped. What a
    // test writes goes to its testcase; what a hook writes, to the testsuite.
    runner.on(EVENT_TEST_BEGIN, () => this.capture.start());
    runner.on(EVENT_HOOK_BEGIN, () => this.capture.start());
    runner.on(EVENT_HOOK_END, () => {
      this.outside += this.capture.take();
    });
    // Before the console reporter's own listeners: its ✔/✗ line is not the spec's output.
    runner.prependListener(EVENT_TEST_PASS, (test: Mocha.Test) => this.record(test, {}));
    runner.prependListener(EVENT_TEST_FAIL, (test: Mocha.Runnable, err: Error) => {
      if ((test as { type?: string }).type === 'hook') this.record(test, { error: describeFailure(err) });
      else this.record(test, { failure: describeFailure(err) });
    });
    runner.prependListener(EVENT_TEST_PENDING, (test: Mocha.Test) => this.record(test, { skipped: this.skipReason(test) }));
    runner.once(EVENT_RUN_END, () => {
      this.capture.take();
      this.capture.restore();
    });
  }

  private suiteOf(file: string | undefined): junit.JUnitSuite & { started: number } {
    const key = file ?? '(no file)';
    let suite = this.suites.get(key);
    if (!suite) {
      const rel = relative(file);
      const reportsDir = this.env.OCP_E2E_REPORTS_DIR ? path.resolve(this.env.OCP_E2E_REPORTS_DIR) : undefined;
      const fromJUnit = (dir: string) => path.relative(path.dirname(path.resolve(this.output)), dir).split(path.sep).join('/') || '.';
      const properties: Record<string, string> = {};
      if (reportsDir) {
        properties['artifacts'] = fromJUnit(path.join(reportsDir, 'artifacts'));
        properties['allure-results'] = fromJUnit(path.join(reportsDir, 'allure-results'));
      }
      if (this.env.OCP_E2E_TARGET) properties['target'] = this.env.OCP_E2E_TARGET;
      if (this.env.OCP_E2E_RUN_ID) properties['run-id'] = this.env.OCP_E2E_RUN_ID;
      suite = { name: rel ? path.basename(rel).replace(/\.spec\.ts$/, '') : 'ocp-e2e', file: rel, timestamp: new Date().toISOString().replace(/\.\d+Z$/, ''), time: 0, hostname: os.hostname(), properties, cases: [], started: Date.now() };
      this.suites.set(key, suite);
    }
    return suite;
  }

  /** The reason the session printed for a skipped spec (`SKIP <title>: <reason>`), if any. */
  private skipReason(test: Mocha.Runnable): string {
    const parent = test.parent?.fullTitle() ?? '';
    const line = this.outside.split('\n').reverse().find((l) => l.includes('SKIP') && (!parent || l.includes(parent)));
    return line ? line.replace(/^.*?SKIP .*?: /, '').trim() : '';
  }

  private record(test: Mocha.Runnable, verdict: Pick<junit.JUnitCase, 'failure' | 'error' | 'skipped'>): void {
    const out = verdict.skipped === undefined ? this.capture.take() : '';
    this.capture.take();
    const suite = this.suiteOf(test.file ?? test.parent?.file);
    suite.cases.push({
      name: test.title,
      classname: test.parent?.fullTitle() || suite.name,
      time: (test.duration ?? 0) / 1000,
      ...verdict,
      systemOut: out.trim() ? out : undefined,
    });
  }

  /** Writes the JUnit file (synchronously: mocha may exit right after). */
  write(): void {
    const now = Date.now();
    for (const suite of this.suites.values()) suite.time = (now - suite.started) / 1000;
    const suites = [...this.suites.values()].map(({ started: _started, ...s }) => s);
    if (suites.length && this.outside.trim()) suites[0]!.systemOut = this.outside;
    fs.mkdirSync(path.dirname(this.output), { recursive: true });
    fs.writeFileSync(this.output, junit.renderJUnit(suites));
  }
}
