/**
 * `ote run-test -n NAME...`: every name gets exactly one result, as openshift-tests expects (a name without a line
 * counts there as "external binary did not produce a result"): an unknown name, a listing that fails or an
 * interruption is a failed line saying so, never a hang and never silence. Tests run one after another (they change
 * the whole cluster). Exit 1 when a blocking test failed, as OTE's run-test does; 130/143 when interrupted.
 */
import { fstatSync, readFileSync } from 'node:fs';
import { formatList, goJson, say, writeStdout } from './output.js';
import { notRun, reportsRootOf, runTest } from './run-test.js';
import { listOteTests, type OteTest } from './tests.js';
import type { ExtensionTestResult } from './types.js';

export interface RunTestRequest {
  names: string[];
  output: 'json' | 'jsonl';
  timeoutMs?: number;
  sourceId: string;
}

export async function runTestCommand(request: RunTestRequest): Promise<number> {
  // Piped names are read only when none are given: a parent that leaves our stdin open (and origin passes -n) must
  // not make run-test wait for an end of input that never comes.
  const names = request.names.length ? request.names : namesFromStdin();
  if (names.length === 0) {
    say('ocp-e2e ote run-test: must specify at least one test (-n NAME, a NAME, or names on stdin)');
    return 1;
  }
  const results: ExtensionTestResult[] = [];
  const emit = async (r: ExtensionTestResult) => {
    results.push(r);
    if (request.output === 'jsonl') await writeStdout(`${goJson(r)}\n`);
  };

  const interrupt = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    if (interrupt.signal.aborted) {
      say(`ocp-e2e ote run-test: second ${signal}: exiting now`);
      process.exit(signal === 'SIGTERM' ? 143 : 130);
    }
    say(`ocp-e2e ote run-test: ${signal}: stopping the running test (it undoes what it changed first)`);
    interrupt.abort(signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    let tests: OteTest[];
    try {
      tests = await listOteTests(request.sourceId);
    } catch (error) {
      for (const name of names) await emit(notRun(name, `cannot list the tests: ${(error as Error).message}`));
      return finish(request, results, undefined);
    }
    let reportsRoot: string | undefined; // made when a test runs: unknown names leave nothing behind
    for (const name of names) {
      const test = tests.find((t) => t.spec.name === name);
      if (interrupt.signal.aborted) await emit(notRun(name, `not run: interrupted by ${String(interrupt.signal.reason)}`, test?.spec.lifecycle));
      else if (!test) await emit(notRun(name, `no such test: ${name} (ocp-e2e ote list names the tests)`));
      else {
        if (!reportsRoot) {
          reportsRoot = await reportsRootOf(process.env);
          say(`ocp-e2e ote run-test: reports in ${reportsRoot}`);
        }
        await emit(await runTest(test, { reportsRoot, env: process.env, timeoutMs: request.timeoutMs, signal: interrupt.signal, forwardSigint: !process.stderr.isTTY }));
      }
    }
    return finish(request, results, interrupt.signal.aborted ? (interrupt.signal.reason as NodeJS.Signals) : undefined);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

async function finish(request: RunTestRequest, results: ExtensionTestResult[], interruptedBy: NodeJS.Signals | undefined): Promise<number> {
  if (request.output === 'json') await writeStdout(`${formatList(results, 'json')}\n`);
  const failed = results.filter((r) => r.result === 'failed');
  const blocking = failed.filter((r) => r.lifecycle !== 'informing');
  if (failed.length > blocking.length) say(`ocp-e2e ote run-test: ${failed.length - blocking.length} informing tests failed (not terminal)`);
  if (interruptedBy) return interruptedBy === 'SIGTERM' ? 143 : 130;
  if (blocking.length) {
    say(`ocp-e2e ote run-test: ${failed.length} tests failed`);
    return 1;
  }
  return 0;
}

/** Names piped on stdin, one a line, as OTE reads them; nothing when stdin is a terminal or /dev/null. */
function namesFromStdin(): string[] {
  let stat;
  try {
    stat = fstatSync(0);
  } catch {
    return [];
  }
  if (!stat.isFIFO() && !stat.isFile()) return [];
  return readFileSync(0, 'utf8').split('\n').map((l) => l.trim()).filter(Boolean);
}
