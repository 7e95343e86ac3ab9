/**
 * The suite's spec files, read from specs/ (every *.spec.ts, by name): tests that count what a whole run did take the
 * number from here, so adding a spec changes no test.
 */
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const SPECS_DIR = fileURLToPath(new URL('../../../specs/', import.meta.url));

/** File names (no folder) of specs/*.spec.ts, sorted. */
export function specFiles(): string[] {
  return readdirSync(SPECS_DIR).filter((name) => name.endsWith('.spec.ts')).sort();
}

/** How many specs a whole run runs. */
export const SPEC_COUNT = specFiles().length;
