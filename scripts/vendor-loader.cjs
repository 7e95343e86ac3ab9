'use strict';
// Loads a dependency bundle of .build/vendor-<hash> (scripts/vendor-bundles.mjs writes one, CommonJS, beside a copy of
// this file) with V8's code cache: Node 20 keeps no compile cache of its own, and compiling @kubernetes/client-node's
// 5.4 MB alone costs every process ~110 ms of CPU, ~55 ms from the cache (bench/RESULTS.md, issue 46 item 2).
//
//   require('./vendor-loader.cjs').load(bundleFile)   the bundle's module.exports (once per process and file)
//   require('./vendor-loader.cjs').cacheUse(bundleFile)   'accepted', 'rejected' or 'none': what its load did with the cache
//   node vendor-loader.cjs --write-cache bundleFile   runs the bundle once and writes bundleFile + '.cache'
//
// The cache is made when the bundles are (once per lockfile and node version), never while a suite runs: the folder
// is shared by every process of every tree. A cache V8 rejects (another node or V8 flags) or a missing one costs only
// the ordinary compile: V8 then compiles the source as if no cache had been given.
const fs = require('node:fs');
const Module = require('node:module');
const path = require('node:path');
const vm = require('node:vm');

const loaded = new Map();
const cacheUses = new Map();

/** The bundle compiled as Node compiles a CommonJS file (its wrapper), with the cache when there is one. */
function compile(file, cachedData) {
  return new vm.Script(Module.wrap(fs.readFileSync(file, 'utf8')), {
    filename: file,
    cachedData,
    // No importModuleDynamically: Node 20's is experimental (a warning in every process) and is lost on a script
    // compiled from a cache, so an `import()` in a bundle would fail; scripts/vendor-bundles.mjs refuses such a bundle.
  });
}

/** Runs the compiled wrapper with a real Module of the bundle's place, so its require resolves its externals from there. */
function run(script, file) {
  const mod = new Module(file, module);
  mod.filename = file;
  mod.paths = Module._nodeModulePaths(path.dirname(file));
  const wrapper = script.runInThisContext({ displayErrors: true });
  wrapper.call(mod.exports, mod.exports, Module.createRequire(file), mod, file, path.dirname(file));
  mod.loaded = true;
  return mod.exports;
}

function readCache(file) {
  try {
    return fs.readFileSync(`${file}.cache`);
  } catch {
    return undefined;
  }
}

function load(file) {
  let exports = loaded.get(file);
  if (!exports) {
    const cachedData = readCache(file);
    const script = compile(file, cachedData);
    cacheUses.set(file, !cachedData ? 'none' : script.cachedDataRejected ? 'rejected' : 'accepted');
    exports = run(script, file);
    loaded.set(file, exports);
  }
  return exports;
}

function cacheUse(file) {
  return cacheUses.get(file);
}

module.exports = { load, cacheUse };

if (require.main === module && process.argv[2] === '--write-cache') {
  // After a run, the cache holds the functions the bundle's loading compiled too, not only its top level.
  const file = path.resolve(process.argv[3]);
  const script = compile(file, undefined);
  run(script, file);
  fs.writeFileSync(`${file}.cache`, script.createCachedData());
}
