/** Where the run finds the suite: the checkout, the specs, mocha and the suite's reporter. */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SPECS_DIR = join(ROOT, 'specs');
export const MOCHA_CONFIG = join(SPECS_DIR, 'mocharc.json');
export const MOCHA_BIN = join(ROOT, 'node_modules', '.bin', 'mocha');
export const SUITE_REPORTER = join(ROOT, 'helpers', 'mocha', 'suite-reporter.cts');
