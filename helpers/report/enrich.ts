/**
 * Makes a run's Allure results readable before the HTML is generated, on a copy (the run's own results are never
 * changed): labels to filter and group by (phase, profile, target, the failure's masked summary), the failure message
 * shown once with a stack of the project's frames, and the run's facts as the Environment panel.
 */
import { copyFile, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { failureSummary } from './failure-kinds.cjs';
import { environmentOf, FACTS_FILE_PREFIX, readRunFacts, toProperties, type RunFacts } from './run-facts.js';
import { trimStack } from './stack.cjs';

interface Label {
  name: string;
  value?: string;
}
interface StatusDetails {
  message?: string;
  trace?: string;
}
interface StepResult {
  name?: string;
  parameters?: Array<{ name: string; value: string }>;
  status?: string;
  statusDetails?: StatusDetails;
  steps?: StepResult[];
}
interface Attachment {
  name: string;
  source: string;
  type: string;
}
export interface TestResult extends StepResult {
  uuid?: string;
  labels?: Label[];
  attachments?: Attachment[];
}

const PHASES = ['prepare', 'upgrade', 'check'] as const;

/** The phase a test failed in (named by the message), else the last phase it entered. */
export function phaseOf(result: TestResult): string | undefined {
  const named = /\[phase (\w+)\]/.exec(result.statusDetails?.message ?? '')?.[1];
  if (named) return named;
  const entered = (result.steps ?? []).map((s) => /^(\w+):/.exec(s.name ?? '')?.[1]).filter((p) => p && (PHASES as readonly string[]).includes(p));
  return entered.at(-1);
}

/** The innermost failed step: where the failure happened. */
function innermostFailed(steps: StepResult[] | undefined): StepResult | undefined {
  const failed = [...(steps ?? [])].reverse().find((s) => s.status === 'failed' || s.status === 'broken');
  return failed ? (innermostFailed(failed.steps) ?? failed) : undefined;
}

function clearDetails(steps: StepResult[] | undefined): void {
  for (const s of steps ?? []) {
    if (s.statusDetails) s.statusDetails = {};
    clearDetails(s.steps);
  }
}

/**
 * The failure once: steps keep their red status, and only the innermost failed step carries the test's own message
 * and stack, so the report folds its error into that step instead of repeating it per level and again at the end.
 */
function placeFailureOnce(result: TestResult): void {
  // The phase the message names, when it has a failed step: later red steps (invariants shown after the failure) are
  // consequences, not where it failed.
  const phase = phaseOf(result);
  const phaseStep = (result.steps ?? []).find((s) => (s.status === 'failed' || s.status === 'broken') && s.name?.startsWith(`${phase}:`));
  const where = phaseStep ? (innermostFailed(phaseStep.steps) ?? phaseStep) : innermostFailed(result.steps);
  clearDetails(result.steps);
  if (where && result.statusDetails) where.statusDetails = { ...result.statusDetails };
}

function setLabel(labels: Label[], name: string, value: string | undefined): void {
  const kept = labels.filter((l) => l.name !== name);
  labels.length = 0;
  labels.push(...kept);
  if (value) labels.push({ name, value });
}

/** One test result, made readable (pure: returns a new object). */
export function enrichResult(input: TestResult, facts: RunFacts[]): TestResult {
  const result = structuredClone(input);
  const labels = (result.labels ??= []);
  setLabel(labels, 'phase', phaseOf(result));
  const specFacts = facts.find((f) => labels.some((l) => l.name === 'package' && l.value?.includes(f.spec))) ?? facts[0];
  setLabel(labels, 'target', specFacts?.target);
  setLabel(labels, 'profile', specFacts?.profile);
  const message = result.statusDetails?.message;
  if (result.status === 'failed' || result.status === 'broken') setLabel(labels, 'failure', message ? failureSummary(message) : 'no message');
  if (result.statusDetails?.trace) result.statusDetails.trace = trimStack(result.statusDetails.trace);
  placeFailureOnce(result);
  return result;
}

/**
 * The report cuts long parameter values (release pullspecs, digests) with "…" and offers no way to see them whole:
 * each test with parameters gets them whole as a text attachment too.
 */
async function attachWholeParameters(result: TestResult, staging: string): Promise<void> {
  // the suite sets its parameters inside steps; the test's own come first
  const all: Array<{ name: string; value: string }> = [];
  const collect = (s: StepResult): void => {
    all.push(...(s.parameters ?? []));
    s.steps?.forEach(collect);
  };
  collect(result);
  if (!all.length) return;
  const source = `${result.uuid ?? 'test'}-parameters-attachment.txt`;
  await writeFile(join(staging, source), all.map((p) => `${p.name}: ${p.value}`).join('\n') + '\n');
  (result.attachments ??= []).push({ name: 'parameters (whole values)', source, type: 'text/plain' });
}

/** Copies a results folder into `staging`, enriched; returns how many test results it holds. */
export async function stageResults(resultsDir: string, staging: string): Promise<number> {
  await mkdir(staging, { recursive: true });
  const facts = readRunFacts(resultsDir);
  let tests = 0;
  for (const name of await readdir(resultsDir)) {
    if (name.startsWith(FACTS_FILE_PREFIX)) continue;
    if (name.endsWith('-result.json')) {
      const result = enrichResult(JSON.parse(await readFile(join(resultsDir, name), 'utf8')) as TestResult, facts);
      await attachWholeParameters(result, staging);
      await writeFile(join(staging, name), JSON.stringify(result));
      tests++;
    } else {
      await copyFile(join(resultsDir, name), join(staging, name));
    }
  }
  if (facts.length) await writeFile(join(staging, 'environment.properties'), toProperties(environmentOf(facts)));
  return tests;
}
