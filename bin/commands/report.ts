/**
 * `ocp-e2e report`: turns the Allure results of the last run into the HTML report, offline, with the `allure` npm
 * package (Allure 3: no Java, no network). The report shows each spec's phases and steps, the attached objects, the
 * upgrade timeline and the failure artefacts.
 */
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { execa } from 'execa';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const ALLURE_CLI = join(ROOT, 'node_modules', 'allure', 'cli.js');

export interface ReportOptions {
  results: string;
  output: string;
  name: string;
}

/** Generates the report; returns the exit code (0 done, 2 nothing to report or allure failed). */
export async function generateReport(options: ReportOptions): Promise<number> {
  const results = resolve(options.results);
  if (!existsSync(results) || !readdirSync(results).some((f) => f.endsWith('-result.json'))) {
    console.error(`ocp-e2e report: no Allure results in ${results}: run \`ocp-e2e run\` first`);
    return 2;
  }
  if (!existsSync(ALLURE_CLI)) {
    console.error(`ocp-e2e report: the allure package is not installed (${ALLURE_CLI}): run npm ci`);
    return 2;
  }
  const output = resolve(options.output);
  const r = await execa(process.execPath, [ALLURE_CLI, 'generate', results, '--output', output, '--report-name', options.name], {
    cwd: ROOT,
    reject: false,
    timeout: 300_000,
    all: true,
  });
  if (r.exitCode !== 0 || !existsSync(join(output, 'index.html'))) {
    console.error(`ocp-e2e report: allure generate exited ${r.exitCode}:\n${String(r.all ?? '').split('\n').slice(-10).join('\n')}`);
    return 2;
  }
  console.log(`HTML report: ${join(output, 'index.html')}`);
  return 0;
}

export function register(program: Command): void {
  program
    .command('report')
    .description('make the HTML report (offline) from the Allure results of the last run')
    .option('--results <dir>', 'Allure results directory', join('reports', 'allure-results'))
    .option('--output <dir>', 'where the HTML report goes', join('reports', 'html'))
    .option('--name <name>', 'report title', 'ocp-e2e conformance')
    .action(async (options: ReportOptions) => {
      process.exit(await generateReport(options));
    });
}
