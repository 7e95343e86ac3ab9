/**
 * The MCO's own end-to-end tests (`mco-e2e-3943ef1d0.test`, `go test -c` of test/e2e at the FIX commit) run against a
 * reference cluster, with the real `oc` 4.12 first on PATH as they expect. A missing binary fails with where it comes
 * from; nothing skips. The result of each upstream test is read from `go test -v`'s own `--- PASS/FAIL` lines.
 */
import { execa } from 'execa';
import { accessSync, constants } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { upstreamBinDir } from './oracle.js';

export const MCO_E2E_BINARY = 'mco-e2e-3943ef1d0.test';

/** The upstream tests that only read the cluster or render configs: each runs alone on a fresh cluster. */
export const ALONE = ['TestOSImageURL', 'TestClusterOperatorRelatedObjects', 'TestClusterOperatorStatusExtension', 'TestMCDeployed', 'TestPoolDegradedOnFailToRender', 'TestMCDToken', 'TestOperatorLabel'];
/** The tests that change nodes and run commands on them, in their file order (mcd_test.go): one process, one cluster. */
export const ON_NODES = ['TestKernelArguments', 'TestKernelType', 'TestExtensions', 'TestNoReboot', 'TestReconcileAfterBadMC', 'TestDontDeleteRPMFiles', 'TestIgn3Cfg'];

export interface UpstreamTestRun {
  exitCode: number;
  /** go test -v's output, stdout and stderr as they came. */
  output: string;
  /** Each test's verdict, by name, from its `--- PASS:` or `--- FAIL:` line. */
  verdicts: Map<string, 'PASS' | 'FAIL' | 'SKIP'>;
  wallMs: number;
}

function requireBinary(name: string): string {
  const file = path.join(upstreamBinDir(), name);
  try {
    accessSync(file, constants.X_OK);
  } catch {
    throw new Error(
      `${file} is missing or not executable: the MCO's own end-to-end tests (openshift/machine-config-operator test/e2e ` +
        'at 3943ef1d0, built with `go test -c`; see ../shared/upstream/README.md) and the real oc 4.12 beside them. ' +
        'Point OCP_E2E_UPSTREAM_BIN at the directory that holds them; this test runs them and does not skip.',
    );
  }
  return file;
}

/** Runs the named upstream tests in one process, in the binary's (file) order, against `kubeconfig`. */
export async function runUpstreamTests(kubeconfig: string, names: readonly string[], timeoutMinutes: number): Promise<UpstreamTestRun> {
  const binary = requireBinary(MCO_E2E_BINARY);
  requireBinary('oc');
  const started = Date.now();
  // a home and working folder of its own: oc's discovery cache (~/.kube/cache) is not left in the user's or the clone's
  const home = await mkdtemp(path.join(tmpdir(), 'ocp-e2e-mco-e2e-'));
  const result = await execa(binary, ['-test.run', `^(${names.join('|')})$`, '-test.v', '-test.timeout', `${timeoutMinutes}m`], {
    env: { KUBECONFIG: kubeconfig, PATH: `${upstreamBinDir()}${path.delimiter}${process.env.PATH ?? ''}`, HOME: home },
    cwd: home,
    extendEnv: false,
    reject: false,
    all: true,
    // go test's own timeout panics first and prints the stacks; this is the bound should the binary hang beyond it
    timeout: (timeoutMinutes + 1) * 60_000,
  });
  await rm(home, { recursive: true, force: true });
  const output = String(result.all ?? '');
  const verdicts = new Map<string, 'PASS' | 'FAIL' | 'SKIP'>();
  for (const m of output.matchAll(/^--- (PASS|FAIL|SKIP): (\S+) /gm)) verdicts.set(m[2]!, m[1] as 'PASS' | 'FAIL' | 'SKIP');
  return { exitCode: result.exitCode ?? -1, output, verdicts, wallMs: Date.now() - started };
}

/** One upstream test's part of the output (from its `=== RUN` to the next test's), for a failure message. */
export function outputOf(run: UpstreamTestRun, name: string): string {
  const start = run.output.indexOf(`=== RUN   ${name}\n`);
  if (start < 0) return run.output.slice(-4000) || '(no output)';
  const next = run.output.indexOf('\n=== RUN   ', start + 1);
  return run.output.slice(start, next < 0 ? undefined : next).slice(-6000);
}
