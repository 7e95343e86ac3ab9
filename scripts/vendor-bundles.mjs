// Bundles the heaviest npm dependencies of the compiled tree, each into one file (esbuild), so that a process of the
// tree loads one file per package instead of hundreds: @kubernetes/client-node alone is ~970 ES modules, about 0.9 s
// of CPU to resolve and compile in every spec and run process, 0.27 s as one file (bench/RESULTS.md, startup).
//
//   node scripts/vendor-bundles.mjs OUT_DIR
//
// Writes OUT_DIR/node_modules/<package>/{package.json,index.mjs,bundle.cjs,bundle.cjs.cache,vendor-loader.cjs} (a
// package of a GROUPS entry after the first has only its faces, index.mjs or <subpath>.mjs, on the first one's bundle). The
// bundle is CommonJS so that scripts/vendor-loader.cjs can compile it with V8's code cache (bundle.cjs.cache, made
// here by running it once): Node 20 has no compile cache for ES modules, and the cache halves what compiling the
// bundles costs each process. index.mjs is the package's ES face: it loads the bundle through the loader and
// re-exports exactly the names Node's own import of the package gives (read here by importing it), so
// `import { KubeConfig } from '@kubernetes/client-node'` and `import Docker from 'dockerode'` mean the same against a
// bundle as against the package. scripts/build.sh links the tree's node_modules/<package> to the bundle's folder;
// every other package stays the checkout's.
//
// Left unbundled on purpose: mocha and allure-* (the runner and its reporters share module state with the specs),
// ajv with ajv-formats (ajv-formats reaches into ajv's internals: two copies would not know each other's classes),
// and native addons (kept external: a bundle cannot carry a .node file).
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));

export const BUNDLED = ['@kubernetes/client-node', 'dockerode', 'execa', 'undici', 'yaml', 'ws', 'node-forge', 'semver'];
// Packages (and subpath exports) the code imports side by side that must share one copy of what they hold: one bundle
// each group. The mock's CEL (mock/cel) imports @bufbuild/cel, its strings extension and the RE2 that cel itself
// uses: ~130 ES modules, ~100 ms of CPU at every API server's start, ~20 ms as one cached bundle.
export const GROUPS = [['@bufbuild/cel', '@bufbuild/cel/ext', '@bufbuild/re2']];

// The bundle is strict code, as the ES module bundles it replaces were (the CommonJS packages inside ran strict there
// too); `import.meta.url`, which CommonJS lacks, is the bundle's own file URL, as it was.
const BANNER = '"use strict";const __vendorImportMetaUrl=require("node:url").pathToFileURL(__filename).href;';
const LOADER = join(ROOT, 'scripts', 'vendor-loader.cjs');

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** `@scope/name/sub/path` -> [`@scope/name`, `sub/path`]; `name` -> [`name`, '']. */
function splitSpecifier(spec) {
  const parts = spec.split('/');
  const n = spec.startsWith('@') ? 2 : 1;
  return [parts.slice(0, n).join('/'), parts.slice(n).join('/')];
}

/**
 * One bundle (in the first package's folder) of the specifiers of `group`, each of them a face: the package's
 * index.mjs, or `<subpath>.mjs` for a subpath export, picking its namespace out of the shared bundle.
 */
async function bundle(group, outDir) {
  const home = join(outDir, 'node_modules', splitSpecifier(group[0])[0]);
  mkdirSync(home, { recursive: true });
  const entry = [...group.map((spec, i) => `import * as ns${i} from ${JSON.stringify(spec)};`), `export const faces = [${group.map((_, i) => `ns${i}`).join(', ')}];`];
  await build({
    stdin: { contents: entry.join('\n'), resolveDir: ROOT, sourcefile: `${group[0]}-entry.mjs`, loader: 'js' },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    // whitespace and syntax only: names stay, so a stack trace through a bundle still reads
    minifyWhitespace: true,
    minifySyntax: true,
    external: ['*.node', 'cpu-features'],
    define: { 'import.meta.url': '__vendorImportMetaUrl' },
    banner: { js: BANNER },
    outfile: join(home, 'bundle.cjs'),
    logLevel: 'error',
  });
  // the loader cannot give a bundle import() (scripts/vendor-loader.cjs): one that kept any is refused, and the tree
  // then loads the packages as installed (build.sh)
  const kept = readFileSync(join(home, 'bundle.cjs'), 'utf8').match(/(?<![\w$.])import\s*\(/);
  if (kept) throw new Error(`${group[0]}: its bundle keeps a dynamic import() (at ${kept.index}), which scripts/vendor-loader.cjs cannot serve`);
  copyFileSync(LOADER, join(home, 'vendor-loader.cjs'));
  // in a process of its own: running the bundle must not touch this one
  execFileSync(process.execPath, [join(home, 'vendor-loader.cjs'), '--write-cache', join(home, 'bundle.cjs')], { stdio: ['ignore', 'ignore', 'inherit'] });

  const exportsOf = new Map(); // package -> its package.json exports
  for (const [i, spec] of group.entries()) {
    const namespace = await import(spec);
    const names = Object.keys(namespace).filter((n) => n !== 'default' && IDENTIFIER.test(n));
    const [pkg, subpath] = splitSpecifier(spec);
    const dir = join(outDir, 'node_modules', pkg);
    const faceFile = `${subpath || 'index'}.mjs`;
    mkdirSync(dirname(join(dir, faceFile)), { recursive: true });
    // the one loader of the bundle's folder, so that every face shares its one load of the bundle
    const toHome = relative(dirname(join(dir, faceFile)), home).split(sep).join('/') || '.';
    const face = [
      "import { createRequire } from 'node:module';",
      "import { fileURLToPath } from 'node:url';",
      `const ns = createRequire(import.meta.url)('${toHome}/vendor-loader.cjs').load(fileURLToPath(new URL('${toHome}/bundle.cjs', import.meta.url))).faces[${i}];`,
    ];
    if (names.length) face.push(`export const { ${names.join(', ')} } = ns;`);
    if ('default' in namespace) face.push('export default ns.default;');
    writeFileSync(join(dir, faceFile), `${face.join('\n')}\n`);
    const exports = exportsOf.get(pkg) ?? { './package.json': './package.json' };
    exports[subpath ? `./${subpath}` : '.'] = `./${faceFile}`;
    exportsOf.set(pkg, exports);
  }
  for (const [pkg, exports] of exportsOf) {
    // read directly: not every package exports its package.json
    const { version } = JSON.parse(readFileSync(join(ROOT, 'node_modules', pkg, 'package.json'), 'utf8'));
    const manifest = { name: pkg, version, type: 'module', main: './index.mjs', exports };
    writeFileSync(join(outDir, 'node_modules', pkg, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  }
}

const outDir = process.argv[2];
if (!outDir) {
  console.error('usage: node scripts/vendor-bundles.mjs OUT_DIR');
  process.exit(2);
}
for (const group of [...BUNDLED.map((pkg) => [pkg]), ...GROUPS]) await bundle(group, outDir);
