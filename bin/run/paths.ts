/**
 * Where the run finds the suite: the tree it runs from, the specs, mocha and the suite's reporter, and where it may
 * write caches.
 *
 * The same code runs in two forms: the TypeScript sources under tsx (ROOT is the checkout), or the compiled tree
 * scripts/build.sh makes (ROOT is `<checkout>/.build/tree-<stamp>`, or the install folder of the image, which has
 * no checkout). In both, ROOT/specs/NAME.spec.ts names a spec: in a compiled tree it is a link to NAME.spec.js.
 */
import { existsSync, realpathSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { sourceCheckout } from '../../lib/files/source-checkout.js';

const HERE = fileURLToPath(import.meta.url);
/** True when this process runs JavaScript compiled by scripts/build.sh rather than TypeScript through tsx. */
export const COMPILED = HERE.endsWith('.js');
export const ROOT = resolve(dirname(HERE), '..', '..');
/** The checkout a compiled tree was built from, when the tree still sits in its .build folder; else ROOT. */
export const SOURCE_ROOT = sourceCheckout(ROOT);
export const SPECS_DIR = join(ROOT, 'specs');
export const MOCHA_CONFIG = join(SPECS_DIR, 'mocharc.json');
/** mocha's command itself, not its launcher: run under `node --import TSX_LOADER`, it is one process, not two. */
export const MOCHA_CLI = join(ROOT, 'node_modules', 'mocha', 'lib', 'cli', 'cli.js');
/** tsx by file URL, so the children load TypeScript whatever their working directory. */
export const TSX_LOADER = pathToFileURL(join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
export const SUITE_REPORTER = join(ROOT, 'helpers', 'mocha', COMPILED ? 'suite-reporter.cjs' : 'suite-reporter.cts');
/** Loaded by every spec process (mocha --require): waits for the target when the run hands it over later. */
export const TARGET_HANDOFF = join(ROOT, 'helpers', 'mocha', COMPILED ? 'target-handoff.js' : 'target-handoff.ts');
/** The reporter of the specs' listing (mocha --dry-run): their tests with what each declares. */
export const LISTING_REPORTER = join(ROOT, 'helpers', 'mocha', COMPILED ? 'listing-reporter.cjs' : 'listing-reporter.cts');


/**
 * Where caches go: $OCP_E2E_CACHE_DIR, else $XDG_CACHE_HOME/ocp-e2e, else the checkout's .cache. Caches are
 * best-effort: an install may be read-only (the image), so writers must survive failing to write here.
 */
export function cacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.OCP_E2E_CACHE_DIR) return resolve(env.OCP_E2E_CACHE_DIR);
  if (env.XDG_CACHE_HOME) return join(resolve(env.XDG_CACHE_HOME), 'ocp-e2e');
  return join(SOURCE_ROOT, '.cache');
}

/**
 * The file a spec process loads for a spec file a user named: a compiled run given the checkout's
 * specs/NAME.spec.ts runs the compiled one (ROOT/specs/NAME.spec.ts), so a run knows each spec by one path.
 */
export function runnableSpec(file: string): string {
  if (!COMPILED || SOURCE_ROOT === ROOT) return file;
  const rel = relative(SOURCE_ROOT, file);
  if (rel.startsWith('..') || !rel.startsWith(`specs${sep}`)) return file;
  const compiled = join(ROOT, rel);
  return existsSync(compiled) ? compiled : file;
}

/**
 * node's options before mocha for these spec files: none when all are compiled, the tsx loader when one is TypeScript
 * (a spec from outside the compiled tree, or every spec when this process runs from the sources).
 */
export function specNodeOptions(files: string[]): string[] {
  return files.some(isTypeScript) ? ['--import', TSX_LOADER] : [];
}

/** By the file node loads: in a compiled tree, specs/NAME.spec.ts is a link to the compiled NAME.spec.js. */
function isTypeScript(file: string): boolean {
  let loaded = file;
  try {
    loaded = realpathSync(file);
  } catch {
    // a missing file fails in mocha, which says so better
  }
  return /\.[cm]?tsx?$/.test(loaded);
}
