/**
 * One render case through both sides: the reference's RunBootstrap model and the upstream oracle of a commit, each
 * reduced to what the test compares (per pool: rendered name, spec, annotations; or the error text).
 */
import { runBootstrap } from '../../../../reference/mco/render.js';
import { mcoBuildFor } from '../../../../reference/mco/version.js';
import { canonicalJson, runOracle, type UpstreamCommit } from './oracle.js';
import { oracleRenderInput, type RenderCase } from './render-cases.js';

export type RenderOutcome =
  | { error: string }
  | { rendered: Array<{ name: string; spec: unknown; annotations: Record<string, string> }> }
  | { oracleProblem: string };

export function referenceOutcome(c: RenderCase, commit: UpstreamCommit): RenderOutcome {
  const build = { ...mcoBuildFor('differential', commit.profile), hash: c.controllerVersion };
  // the reference works on its own copies, as the controllers do on informer objects
  const input = structuredClone(c);
  try {
    const rendered = runBootstrap({ pools: input.pools, configs: input.machineConfigs, controllerConfig: input.controllerConfig, mco: commit.code, build });
    return { rendered: rendered.map((mc) => ({ name: mc.metadata.name ?? '', spec: mc.spec, annotations: mc.metadata.annotations ?? {} })) };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

interface OracleRenderAnswer {
  error?: string;
  inputError?: string;
  panic?: string;
  rendered?: Array<{ metadata: { name: string; annotations?: Record<string, string> }; spec: unknown }>;
}

function oracleOutcome(answer: OracleRenderAnswer): RenderOutcome {
  if (answer.inputError !== undefined) return { oracleProblem: `inputError: ${answer.inputError}` };
  if (answer.panic !== undefined) return { oracleProblem: `panic: ${answer.panic}` };
  if (answer.error !== undefined) return { error: answer.error };
  return { rendered: (answer.rendered ?? []).map((mc) => ({ name: mc.metadata.name, spec: mc.spec, annotations: mc.metadata.annotations ?? {} })) };
}

export interface RenderDifference {
  index: number;
  case: RenderCase;
  reference: RenderOutcome;
  upstream: RenderOutcome;
}

export interface RenderComparison {
  cases: number;
  errors: number;
  differences: RenderDifference[];
}

/**
 * Feed the cases to the oracle in batches (one process each, run one after another) and compare every answer with the
 * reference's, which is computed while the next batch is in the oracle.
 */
export async function compareRender(commit: UpstreamCommit, cases: readonly RenderCase[], batchSize = 500): Promise<RenderComparison> {
  const differences: RenderDifference[] = [];
  let errors = 0;
  const batches: Array<{ start: number; cases: readonly RenderCase[] }> = [];
  for (let start = 0; start < cases.length; start += batchSize) batches.push({ start, cases: cases.slice(start, start + batchSize) });
  let chain: Promise<unknown> = Promise.resolve();
  const answers = batches.map((batch) => {
    const next = chain.then(() => runOracle<OracleRenderAnswer>(commit, 'render', batch.cases.map((c) => oracleRenderInput(c, commit))));
    chain = next.catch(() => undefined);
    return next;
  });
  for (const [b, batch] of batches.entries()) {
    const upstreamAnswers = await answers[b]!;
    upstreamAnswers.forEach((answer, i) => {
      const upstream = oracleOutcome(answer);
      const reference = referenceOutcome(batch.cases[i]!, commit);
      if ('error' in upstream) errors++;
      if (canonicalJson(upstream) !== canonicalJson(reference)) differences.push({ index: batch.start + i, case: batch.cases[i]!, reference, upstream });
    });
  }
  return { cases: cases.length, errors, differences };
}

/** Where two outcomes first differ, for a failure message. */
export function describeDifference(d: { reference: unknown; upstream: unknown }): string {
  const lines: string[] = [];
  const walk = (a: unknown, b: unknown, path: string): void => {
    if (lines.length >= 3 || canonicalJson(a) === canonicalJson(b)) return;
    if (a && b && typeof a === 'object' && typeof b === 'object') {
      for (const k of new Set([...Object.keys(a as object), ...Object.keys(b as object)])) walk((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}.${k}`);
      return;
    }
    lines.push(`${path}: upstream ${JSON.stringify(a)?.slice(0, 400)}, reference ${JSON.stringify(b)?.slice(0, 400)}`);
  };
  walk(d.upstream, d.reference, '$');
  return lines.join('; ');
}
