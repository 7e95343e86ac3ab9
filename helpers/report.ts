/**
 * Allure vocabulary for the specs: QE-style labels (epic/feature/story, Polarion-style test case link), steps,
 * and attachments as YAML. Everything attached passes through the secret masker first.
 */
import * as allure from 'allure-js-commons';
import { stringify } from 'yaml';
import { stopwatch, type TargetCapabilities } from './capabilities.js';
import { maskDeep, maskSecrets } from './secrets.js';

/** Where Polarion-style case ids link to; the case id is appended. */
export const TEST_CASE_URL = 'https://polarion.engineering.redhat.com/polarion/#/project/OSE/workitem?id=OCP-';

export interface CaseLabels {
  epic: string;
  feature: string;
  story: string;
  caseId: string;
  severity?: 'blocker' | 'critical' | 'normal' | 'minor' | 'trivial';
  tags?: string[];
}

export async function labelCase(labels: CaseLabels): Promise<void> {
  await allure.epic(labels.epic);
  await allure.feature(labels.feature);
  await allure.story(labels.story);
  await allure.severity(labels.severity ?? 'critical');
  // Numeric ids are Polarion cases (the report's 54183); the suite's own cases have no Polarion item to link to.
  if (/^\d+$/.test(labels.caseId)) await allure.tms(`${TEST_CASE_URL}${labels.caseId}`, `OCP-${labels.caseId}`);
  await allure.testCaseId(labels.caseId);
  if (labels.tags?.length) await allure.tags(...labels.tags);
}

/**
 * An Allure step. With `clock` (the target's time factor), the step's title ends with how long it took in cluster
 * time: Allure can only show wall durations, and on the reference a 47-minute wait takes seconds of wall time.
 */
export function step<T>(name: string, body: () => T | Promise<T>, clock?: Pick<TargetCapabilities, 'timeFactor' | 'clock'>): Promise<T> {
  const title = maskSecrets(name);
  if (!clock || clock.timeFactor === 1) return Promise.resolve(allure.step(title, () => body()));
  return Promise.resolve(
    allure.step(title, async (context) => {
      const took = stopwatch(clock);
      try {
        return await body();
      } finally {
        await context.displayName(`${title} · took ${took.format()}`);
      }
    }),
  );
}

export function toYaml(value: unknown): string {
  return stringify(maskDeep(value), { lineWidth: 0 });
}

export async function attachYaml(name: string, value: unknown): Promise<void> {
  await allure.attachment(name, toYaml(value), { contentType: 'application/yaml', fileExtension: 'yaml' });
}

export async function attachText(name: string, text: string): Promise<void> {
  await allure.attachment(name, maskSecrets(text), { contentType: 'text/plain', fileExtension: 'txt' });
}

/** A fact of this run shown with the result (versions, images); excluded from Allure's history id, which must stay
 * the same run after run for the history and retries views to work. */
export async function parameter(name: string, value: string): Promise<void> {
  await allure.parameter(name, maskSecrets(value), { excluded: true });
}
