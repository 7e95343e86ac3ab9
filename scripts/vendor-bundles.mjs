// Bundles the heaviest npm dependencies of the compiled tree, each into one file (esbuild), so that a process of the
// tree loads one file per package instead of hundreds: @kubernetes/client-node alone is ~970 ES modules, about 0.9 s
// of CPU to resolve and compile in every spec and run process, 0.27 s as one file (bench/RESULTS.md, startup).
//
//   node scripts/vendor-bundles.mjs OUT_DIR
//
// Writes OUT_DIR/node_modules/<package>/{package.json,index.mjs,bundle.cjs,bundle.cjs.cache,vendor-loader.cjs}. The
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
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));

export const BUNDLED = ['@kubernetes/client-node', 'dockerode', 'execa', 'undici', 'yaml', 'ws', 'node-forge', 'semver'];

// The bundle is strict code, as the ES module bundles it replaces were (the CommonJS packages inside ran strict there
// too); `import.meta.url`, which CommonJS lacks, is the bundle's own file URL, as it was.
const BANNER = '"use strict";const __vendorImportMetaUrl=require("node:url").pathToFileURL(__filename).href;';
const LOADER = join(ROOT, 'scripts', 'vendor-loader.cjs');

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

async function bundle(pkg, outDir) {
  const namespace = await import(pkg);
  const names = Object.keys(namespace).filter((n) => n !== 'default' && IDENTIFIER.test(n));
  const lines = [`import * as ns from ${JSON.stringify(pkg)};`];
  if (names.length) lines.push(`export const { ${names.join(', ')} } = ns;`);
  if ('default' in namespace) lines.push('export default ns.default;');
  const dir = join(outDir, 'node_modules', pkg);
  mkdirSync(dir, { recursive: true });
  await build({
    stdin: { contents: lines.join('\n'), resolveDir: ROOT, sourcefile: `${pkg}-entry.mjs`, loader: 'js' },
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
    outfile: join(dir, 'bundle.cjs'),
    logLevel: 'error',
  });
  // the loader cannot give a bundle import() (scripts/vendor-loader.cjs): one that kept any is refused, and the tree
  // then loads the packages as installed (build.sh)
  const kept = readFileSync(join(dir, 'bundle.cjs'), 'utf8').match(/(?<![\w$.])import\s*\(/);
  if (kept) throw new Error(`${pkg}: its bundle keeps a dynamic import() (at ${kept.index}), which scripts/vendor-loader.cjs cannot serve`);
  copyFileSync(LOADER, join(dir, 'vendor-loader.cjs'));
  // in a process of its own: running the bundle must not touch this one
  execFileSync(process.execPath, [join(dir, 'vendor-loader.cjs'), '--write-cache', join(dir, 'bundle.cjs')], { stdio: ['ignore', 'ignore', 'inherit'] });
  const face = [
    "import { createRequire } from 'node:module';",
    "import { fileURLToPath } from 'node:url';",
    "const ns = createRequire(import.meta.url)('./vendor-loader.cjs').load(fileURLToPath(new URL('./bundle.cjs', import.meta.url)));",
  ];
  if (names.length) face.push(`export const { ${names.join(', ')} } = ns;`);
  if ('default' in namespace) face.push('export default ns.default;');
  writeFileSync(join(dir, 'index.mjs'), `${face.join('\n')}\n`);
  // read directly: not every package exports its package.json
  const { version } = JSON.parse(readFileSync(join(ROOT, 'node_modules', pkg, 'package.json'), 'utf8'));
  const manifest = { name: pkg, version, type: 'module', main: './index.mjs', exports: { '.': './index.mjs', './package.json': './package.json' } };
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
}

const outDir = process.argv[2];
if (!outDir) {
  console.error('usage: node scripts/vendor-bundles.mjs OUT_DIR');
  process.exit(2);
}
for (const pkg of BUNDLED) await bundle(pkg, outDir);
