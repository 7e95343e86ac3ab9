/** Where the run finds the suite: the checkout, the specs, mocha and the suite's reporter. */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SPECS_DIR = join(ROOT, 'specs');
export const MOCHA_CONFIG = join(SPECS_DIR, 'mocharc.json');
/** mocha's command itself, not its launcher: run under `node --import TSX_LOADER`, it is one process, not two. */
export const MOCHA_CLI = join(ROOT, 'node_modules', 'mocha', 'lib', 'cli', 'cli.js');
/** tsx by file URL, so the children load TypeScript whatever their working directory. */
export const TSX_LOADER = pathToFileURL(join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
export const SUITE_REPORTER = join(ROOT, 'helpers', 'mocha', 'suite-reporter.cts');
