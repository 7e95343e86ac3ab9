/**
 * Root hooks of the project's own test run: the CPU each test file costs, its own and that of the child processes it
 * waited for (the `ocp-e2e run` processes, their clusters and spec processes, oc, the engines), one JSON line per file
 * in reports/test-file-cpu.jsonl. The summary reporter lists the costliest files from it. Why: on 2 cores npm test is
 * bound by CPU, and a file's wall time does not say how much it slowed the file running beside it.
 *
 * Only where scripts/test.sh asked for it (OCP_E2E_TEST_CPU_LOG=1; it empties the file first), and only for files
 * named *.test.ts: a mocha a test starts on a fixture reads the same .mocharc.json, and its lines would not be files
 * of this run.
 *
 * In a parallel run (npm test) the root hooks run once per file, in the file's worker; a serial run (named files)
 * runs them once for all files, and its one line names them all.
 */
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Context } from 'mocha';

export const FILE_CPU_LOG = join('reports', 'test-file-cpu.jsonl');

/** Linux reports a process's children in clock ticks of USER_HZ, which is 100 on every architecture Node runs on. */
const TICKS_PER_SECOND = 100;

/** CPU seconds of the children this process has waited for (fields cutime and cstime of /proc/self/stat). */
function childrenCpuSeconds(): number | undefined {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    // the command name (field 2) may hold spaces: count fields from the last ')'
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[13]) + Number(fields[14])) / TICKS_PER_SECOND;
  } catch {
    return undefined; // not Linux: the line then has the process's own CPU only
  }
}

function ownCpuSeconds(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}

let startOwn = 0;
let startChildren: number | undefined;

export const mochaHooks = {
  beforeAll(): void {
    startOwn = ownCpuSeconds();
    startChildren = childrenCpuSeconds();
  },
  afterAll(this: Context): void {
    if (process.env.OCP_E2E_TEST_CPU_LOG !== '1') return;
    const files = [...new Set((this.test?.parent?.suites ?? []).map((s) => s.file).filter((f): f is string => !!f))];
    if (files.length === 0 || !files.every((f) => f.endsWith('.test.ts'))) return;
    const children = childrenCpuSeconds();
    const line = {
      file: files.length === 1 ? relative(process.cwd(), files[0]!) : `${files.length} files`,
      ownCpuS: Math.round((ownCpuSeconds() - startOwn) * 10) / 10,
      childrenCpuS: children === undefined || startChildren === undefined ? undefined : Math.round((children - startChildren) * 10) / 10,
    };
    try {
      mkdirSync('reports', { recursive: true });
      appendFileSync(FILE_CPU_LOG, `${JSON.stringify(line)}\n`); // one small write: lines of two workers do not mix
    } catch {
      // the ledger is a measurement, never a reason for a test run to fail
    }
  },
};
