/**
 * The run's Allure environment (allure-results/environment.properties, the report's "Environment" panel): what a
 * reference run was made of, the seed above all, so a failure seen in a report can be replayed with the same command.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface ReferenceEnvironment {
  profile: string;
  seed: number;
  faults: string[];
  timeFactor?: number;
  /** The reference's clock mode (`skip` or `fixed`). */
  clock: string;
}

/** Java properties: `key = value` lines; `:`, `=` and `\` in values escaped. */
function properties(entries: Record<string, string>): string {
  const escape = (v: string): string => v.replace(/[\\:=]/g, (c) => `\\${c}`);
  return Object.entries(entries).map(([k, v]) => `${k} = ${escape(v)}`).join('\n') + '\n';
}

export async function writeReferenceEnvironment(reportsDir: string, env: ReferenceEnvironment): Promise<void> {
  const replay = ['ocp-e2e run', `--profile ${env.profile}`, `--seed ${env.seed}`, ...env.faults.map((f) => `--fault ${f}`), ...(env.timeFactor ? [`--time-factor ${env.timeFactor}`] : []), `--clock ${env.clock}`].join(' ');
  await writeFile(
    join(reportsDir, 'allure-results', 'environment.properties'),
    properties({
      target: 'reference',
      'reference.profile': env.profile,
      'reference.seed': String(env.seed),
      'reference.faults': env.faults.join(',') || 'none',
      'reference.timeFactor': env.timeFactor ? String(env.timeFactor) : 'default',
      'reference.clock': env.clock,
      replay,
    }),
  );
}
