// Bundles the heaviest npm dependencies of the compiled tree, each into one file (esbuild), so that a process of the
// tree loads one file per package instead of hundreds: @kubernetes/client-node alone is ~970 ES modules, about 0.9 s
// of CPU to resolve and compile in every spec and run process, 0.27 s as one file (bench/RESULTS.md, startup).
//
//   node scripts/vendor-bundles.mjs OUT_DIR
//
// Writes OUT_DIR/node_modules/<package>/{package.json,index.mjs}. Each index.mjs re-exports exactly the names Node's
// own import of the package gives (read here by importing it), so `import { KubeConfig } from '@kubernetes/client-node'`
// and `import Docker from 'dockerode'` mean the same against a bundle as against the package. scripts/build.sh links
// the tree's node_modules/<package> to the bundle; every other package stays the checkout's.
//
// Left unbundled on purpose: mocha and allure-* (the runner and its reporters share module state with the specs),
// ajv with ajv-formats (ajv-formats reaches into ajv's internals: two copies would not know each other's classes),
// and native addons (kept external: a bundle cannot carry a .node file).
import { build } from 'esbuild';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));

export const BUNDLED = ['@kubernetes/client-node', 'dockerode', 'execa', 'undici', 'yaml', 'ws', 'node-forge', 'semver'];

// A bundle is an ES module: the CommonJS code inside it gets `require`, `__filename` and `__dirname` of the bundle's
// own place (its externals resolve from there, up to the checkout's node_modules).
const BANNER = [
  "import { createRequire as __vendorCreateRequire } from 'node:module';",
  "import { fileURLToPath as __vendorFileURLToPath } from 'node:url';",
  "import { dirname as __vendorDirname } from 'node:path';",
  'const require = __vendorCreateRequire(import.meta.url);',
  'const __filename = __vendorFileURLToPath(import.meta.url);',
  'const __dirname = __vendorDirname(__filename);',
].join('\n');

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
    format: 'esm',
    target: 'node20',
    // whitespace and syntax only: names stay, so a stack trace through a bundle still reads
    minifyWhitespace: true,
    minifySyntax: true,
    external: ['*.node', 'cpu-features'],
    banner: { js: BANNER },
    outfile: join(dir, 'index.mjs'),
    logLevel: 'error',
  });
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
