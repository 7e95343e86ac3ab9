/** The reports folder of a run: emptied at start, with the mocha config that points the reporters into it. */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MOCHA_CONFIG, SUITE_REPORTER } from '../paths.js';

export const REPORT_FOLDERS = ['allure-results', 'junit', 'artifacts', 'recordings'] as const;

/** The mocha config every child of the run uses. */
export const runMochaConfig = (reportsDir: string): string => join(reportsDir, '.mocharc.run.json');

export const junitPath = (reportsDir: string, name: string): string => join(reportsDir, 'junit', `${name}.xml`);

/**
 * Empties this run's report folders and writes the mocha config of the run: specs/mocharc.json with the results folder
 * and the reporter made absolute, so results land in --reports-dir whatever the working directory.
 */
export async function prepareReportsDir(reportsDir: string): Promise<void> {
  for (const dir of REPORT_FOLDERS) {
    await rm(join(reportsDir, dir), { recursive: true, force: true });
    await mkdir(join(reportsDir, dir), { recursive: true });
  }
  const base = JSON.parse(await readFile(MOCHA_CONFIG, 'utf8')) as Record<string, unknown>;
  const config = { ...base, 'reporter-option': [`resultsDir=${join(reportsDir, 'allure-results')}`, `extraReporters=${SUITE_REPORTER}`] };
  await writeFile(runMochaConfig(reportsDir), JSON.stringify(config, null, 2));
}

export function describeReports(reportsDir: string): string {
  return `results: ${join(reportsDir, 'allure-results')} (HTML: ocp-e2e report), JUnit: ${join(reportsDir, 'junit')}, failure artefacts: ${join(reportsDir, 'artifacts')}`;
}
