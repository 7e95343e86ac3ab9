/**
 * `ocp-e2e report`: turns the Allure results of a run into one HTML file that opens from disk, offline, and calls no
 * other host (Allure 3 from the `allure` npm package: no Java, no network). The results are staged on a copy first
 * (helpers/report/enrich.ts) and the page is checked for remote references after (helpers/report/offline.ts).
 */
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { execa } from 'execa';
import { allureConfig } from '../../helpers/report/allure-config.js';
import { stageResults } from '../../helpers/report/enrich.js';
import { makeOffline } from '../../helpers/report/offline.js';
import { addHelpExtras } from '../help.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const ALLURE_CLI = join(ROOT, 'node_modules', 'allure', 'cli.js');

export interface ReportOptions {
  /** The run's reports folder (as `run --reports-dir`): results from allure-results/, HTML to html/. */
  reportsDir: string;
  /** Override: the Allure results folder. */
  results?: string;
  /** Override: where the HTML goes. */
  output?: string;
  name: string;
}

/** Where the report of a reports folder keeps its history: beside, not inside, the folders a run empties. */
export function historyFile(reportsDir: string): string {
  return join(resolve(reportsDir), 'history', 'allure-history.jsonl');
}

/** Generates the report; returns the exit code (0 done, 2 nothing to report or allure failed). */
export async function generateReport(options: ReportOptions): Promise<number> {
  const results = resolve(options.results ?? join(options.reportsDir, 'allure-results'));
  if (!existsSync(results) || !readdirSync(results).some((f) => f.endsWith('-result.json'))) {
    console.error(`ocp-e2e report: no Allure results in ${results}: run \`ocp-e2e run${options.reportsDir === 'reports' ? '' : ` --reports-dir ${options.reportsDir}`}\` first`);
    return 2;
  }
  if (!existsSync(ALLURE_CLI)) {
    console.error(`ocp-e2e report: the allure package is not installed (${ALLURE_CLI}): run npm ci`);
    return 2;
  }
  const output = resolve(options.output ?? join(options.reportsDir, 'html'));
  const history = historyFile(options.reportsDir);
  await mkdir(dirname(history), { recursive: true });
  const work = await mkdtemp(join(tmpdir(), 'ocp-e2e-report-'));
  try {
    const staged = join(work, 'allure-results');
    await stageResults(results, staged);
    const config = join(work, 'allurerc.json');
    await writeFile(config, JSON.stringify(allureConfig({ name: options.name, output, historyPath: history }), null, 2));
    await rm(output, { recursive: true, force: true });
    const r = await execa(process.execPath, [ALLURE_CLI, 'generate', staged, '--config', config, '--output', output], {
      cwd: work,
      reject: false,
      timeout: 300_000,
      all: true,
      env: { NO_COLOR: '1' },
    });
    const index = join(output, 'index.html');
    if (r.exitCode !== 0 || !existsSync(index)) {
      console.error(`ocp-e2e report: allure generate exited ${r.exitCode}:\n${String(r.all ?? '').split('\n').slice(-10).join('\n')}`);
      return 2;
    }
    try {
      await writeFile(index, makeOffline(await readFile(index, 'utf8')));
    } catch (error) {
      console.error(`ocp-e2e report: ${(error as Error).message}; the page was not kept`);
      await rm(index, { force: true });
      return 2;
    }
    console.log(`HTML report: ${index} (one file: open it from disk, no network needed)`);
    console.log(`history: ${history} (kept across runs)`);
    return 0;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

export function register(program: Command): void {
  const command = program
    .command('report')
    .description('make the HTML report of a run: one file that opens from disk, offline, and calls no other host')
    .option('--reports-dir <dir>', 'the run\'s reports folder, as given to `run --reports-dir`: reads <dir>/allure-results, writes <dir>/html/index.html, keeps history in <dir>/history', 'reports')
    .option('--results <dir>', 'read the Allure results from here instead (default: <reports-dir>/allure-results)')
    .option('--output <dir>', 'write the HTML here instead (default: <reports-dir>/html)')
    .option('--name <name>', 'report title', 'ocp-e2e conformance')
    .action(async (options: ReportOptions) => {
      process.exit(await generateReport(options));
    });
  addHelpExtras(command, {
    examples: [
      'ocp-e2e report                                   # reports/allure-results -> reports/html/index.html',
      'ocp-e2e report --reports-dir /tmp/nightly         # the run of `ocp-e2e run --reports-dir /tmp/nightly`',
      'chromium reports/html/index.html                  # or double-click it: it needs no network and no server',
    ],
    exitCodes: ['0  the report was written', '2  no results in the folder, allure missing or failed, or the page would call another host'],
  });
}
