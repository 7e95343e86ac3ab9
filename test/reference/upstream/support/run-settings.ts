/**
 * Seed and sizes of a differential run. The seed is random unless OCP_E2E_DIFF_SEED is set, and is always printed, so
 * a failing run can be repeated exactly; differing cases are written under reports/ to turn into fixtures.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name}=${raw}: expected a whole number`);
  return value;
}

export const DIFF_SEED = positiveInt('OCP_E2E_DIFF_SEED', Math.floor(Math.random() * 2 ** 31));
/** Render cases per commit (two commits: at least 5,000 a run). */
export const RENDER_CASES = positiveInt('OCP_E2E_DIFF_RENDER_CASES', 2500);
/** Required-pool cases per commit. */
export const POOL_CASES = positiveInt('OCP_E2E_DIFF_POOL_CASES', 2000);

/** Save differing cases for a human to minimise; returns the file. */
export function saveDifferences(kind: string, label: string, differences: readonly unknown[]): string {
  const dir = path.join(REPO_ROOT, 'reports', 'upstream-differential');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${kind}-${label}-seed${DIFF_SEED}.json`);
  writeFileSync(file, `${JSON.stringify(differences.slice(0, 50), null, 2)}\n`);
  return file;
}
