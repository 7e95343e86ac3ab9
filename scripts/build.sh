#!/usr/bin/env bash
# Compiles the product (bin/, helpers/, lib/, mock/, reference/, specs/; not test/ or bench/) to JavaScript, so the
# command and its spec processes start without tsx (which costs seconds of CPU per process).
#
#   scripts/build.sh           build when the sources changed since the last build; print the compiled tree's path
#   scripts/build.sh --check   print the path and exit 0 when the compiled tree is current; exit 1 otherwise (no build)
#   scripts/build.sh --force   build even when current
#
# Layout: .build/stage is tsc's incremental output (with its .tsbuildinfo); each build is then published as an
# immutable .build/tree-<stamp>, and .build/current is switched to it with one rename. A process running an older
# tree keeps loading consistent files while another process rebuilds (node resolves .build/current to the tree once).
# <stamp> hashes the path, size and modification time of every source file, so checking costs one `find`.
#
# A tree is the product as it runs anywhere (the image copies one): compiled .js/.cjs with source maps, the files the
# code reads at run time (images/, reference/crds/*.yaml and their parsed copy, specs/mocharc.json, package.json), and
# the launchers.
# Compiled specs keep their source names: specs/NAME.spec.ts is a link to NAME.spec.js (node loads the link's target,
# a .js file, while mocha, Allure, JUnit and the run know the spec by its usual name). In the checkout, the tree's
# .cache is a link to the checkout's, and its node_modules a folder of links to the checkout's packages, except that
# the heaviest ones link to their one-file bundles in .build/vendor-<lockfile hash> (scripts/vendor-bundles.mjs).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$root/.build"
stage="$build/stage"
mode=build
case "${1:-}" in
  --check) mode=check ;;
  --force) mode=force ;;
  '') ;;
  *) echo "build: unknown option $1" >&2; exit 2 ;;
esac

# What the product is made of. images/ocp-e2e and images/node-base build the suite's own image: not part of the tree.
SOURCE_DIRS=(bin helpers lib mock reference specs images)
SOURCE_FILES=(package.json package-lock.json tsconfig.json tsconfig.build.json scripts/build.sh scripts/vendor-bundles.mjs scripts/vendor-loader.cjs)

source_stamp() {
  cd "$root"
  find "${SOURCE_DIRS[@]}" "${SOURCE_FILES[@]}" \( -path images/ocp-e2e -o -path images/node-base \) -prune \
    -o -type f -printf '%p\t%s\t%T@\n' | LC_ALL=C sort | sha256sum | cut -c1-16
}

current_tree() {
  local stamp="$1" target
  target="$(readlink "$build/current" 2>/dev/null || true)"
  [ "$target" = "tree-$stamp" ] && [ -f "$build/current/.complete" ]
}

stamp="$(source_stamp)"
if [ "$mode" != force ] && current_tree "$stamp"; then echo "$build/tree-$stamp"; exit 0; fi
[ "$mode" = check ] && exit 1

tsc="$root/node_modules/typescript/bin/tsc"
[ -f "$tsc" ] || { echo "build: TypeScript is not installed ($tsc missing: npm ci installs the dev dependencies)" >&2; exit 1; }
mkdir -p "$build" "$root/.cache"

# One build at a time; whoever waited finds the tree the other one built.
exec 9>"$build/lock"
flock 9
stamp="$(source_stamp)"
if [ "$mode" != force ] && current_tree "$stamp"; then echo "$build/tree-$stamp"; exit 0; fi

# tsc's exit code 2 means "type errors, JavaScript emitted": the tree runs then as tsx would run the sources (tsx does
# not check types either); `npx tsc --noEmit -p .` is where type errors fail.
compile() {
  local code=0
  node "$tsc" -p "$root/tsconfig.build.json" >&2 || code=$?
  [ "$code" = 0 ] || [ "$code" = 2 ]
}
compile

# tsc never deletes the output of a deleted source, and trusts its .tsbuildinfo even when outputs were deleted.
missing_output=0
while IFS= read -r -d '' out; do
  rel="${out#"$stage"/}"
  case "$rel" in
    *.js.map) src="${rel%.js.map}.ts" ;;
    *.cjs.map) src="${rel%.cjs.map}.cts" ;;
    *.js) src="${rel%.js}.ts" ;;
    *.cjs) src="${rel%.cjs}.cts" ;;
    *) continue ;;
  esac
  [ -f "$root/$src" ] || rm -f "$out"
done < <(find "$stage" -type f -print0)
while IFS= read -r -d '' src; do
  case "$src" in *.d.ts) continue ;; *.cts) out="${src%.cts}.cjs" ;; *) out="${src%.ts}.js" ;; esac
  [ -f "$stage/$out" ] || missing_output=1
done < <(cd "$root" && find bin helpers lib mock reference specs -type f \( -name '*.ts' -o -name '*.cts' \) -print0)
if [ "$missing_output" = 1 ]; then
  rm -f "$stage/.tsbuildinfo"
  compile
fi

# The heaviest dependencies bundled one file each (scripts/vendor-bundles.mjs), once per lockfile: prints the folder,
# or nothing when bundling is impossible (the tree then loads those packages as installed, only slower).
vendor_bundles() {
  local hash dir tmpdir
  # the node version too: each bundle's V8 code cache is of the node that made it (another node rejects it and compiles)
  hash="$( (cat "$root/package-lock.json" "$root/scripts/vendor-bundles.mjs" "$root/scripts/vendor-loader.cjs"; node --version) | sha256sum | cut -c1-16)"
  dir="$build/vendor-$hash"
  if [ ! -f "$dir/.complete" ]; then
    tmpdir="$build/.vendor-$hash.$$"
    rm -rf "$tmpdir"
    if (cd "$root" && node scripts/vendor-bundles.mjs "$tmpdir" >&2); then
      touch "$tmpdir/.complete"
      rm -rf "$dir"
      mv "$tmpdir" "$dir"
    else
      rm -rf "$tmpdir"
      echo "build: could not bundle the dependencies (above); the tree loads them as installed" >&2
      return 0
    fi
  fi
  echo "$dir"
}

# The tree's node_modules: a link per package of the checkout's (relative, so a checkout that moves keeps working),
# and for each bundled package a link to its bundle instead.
link_node_modules() {
  local tree="$1" vendor="$2" entry name scoped
  mkdir "$tree/node_modules"
  for entry in "$root"/node_modules/* "$root"/node_modules/.bin; do
    [ -e "$entry" ] || continue
    name="$(basename "$entry")"
    if [[ "$name" == @* ]]; then
      mkdir "$tree/node_modules/$name"
      for scoped in "$entry"/*; do ln -s "../../../../node_modules/$name/$(basename "$scoped")" "$tree/node_modules/$name/$(basename "$scoped")"; done
    else
      ln -s "../../../node_modules/$name" "$tree/node_modules/$name"
    fi
  done
  [ -n "$vendor" ] || return 0
  while IFS= read -r -d '' manifest; do
    name="${manifest#"$vendor/node_modules/"}"
    name="${name%/package.json}"
    rm -f "$tree/node_modules/$name"
    if [[ "$name" == @*/* ]]; then
      ln -s "../../../$(basename "$vendor")/node_modules/$name" "$tree/node_modules/$name"
    else
      ln -s "../../$(basename "$vendor")/node_modules/$name" "$tree/node_modules/$name"
    fi
  done < <(find "$vendor/node_modules" -name package.json -print0)
}

tree="$build/tree-$stamp"
tmp="$build/.tree-$stamp.$$"
rm -rf "$tmp"
mkdir -p "$tmp"
cp -a "$stage/." "$tmp/"
rm -f "$tmp/.tsbuildinfo"
# The files the code reads next to itself at run time, and the launchers.
(cd "$root" && find bin helpers lib mock reference specs images \( -path images/ocp-e2e -o -path images/node-base \) -prune \
  -o -type f ! -name '*.ts' ! -name '*.cts' ! -name '*.md' -print0 | xargs -0 cp -a --parents -t "$tmp")
cp -a "$root/package.json" "$root/package-lock.json" "$tmp/"
for js in "$tmp"/specs/*.spec.js; do
  [ -e "$js" ] && ln -s "$(basename "$js")" "${js%.js}.ts"
done
link_node_modules "$tmp" "$(vendor_bundles)"
# Each release's CRD set parsed once, here: parsing their YAML cost every reference cluster's start about 150 ms of
# CPU (reference/crds/index.ts reads each set's copy when it is there, the YAML otherwise).
node --input-type=module -e 'const [dir] = process.argv.slice(1); (await import(`${dir}/reference/crds/index.js`)).writeParsedCrdSets();' "$tmp"
ln -s ../../.cache "$tmp/.cache"
echo "$stamp" > "$tmp/.complete"
rm -rf "$tree"
mv "$tmp" "$tree"
ln -sfn "tree-$stamp" "$build/current.new"
mv -T "$build/current.new" "$build/current"

# Old trees go after a day, or after two hours once there are more than 30 (a checkout several people edit builds
# often): a run started from one (a long real-cluster run) still finds its files meanwhile.
find "$build" -mindepth 1 -maxdepth 1 -name 'tree-*' ! -name "tree-$stamp" -mmin +1440 -exec rm -rf {} +
if [ "$(find "$build" -mindepth 1 -maxdepth 1 -name 'tree-*' | wc -l)" -gt 30 ]; then
  find "$build" -mindepth 1 -maxdepth 1 -name 'tree-*' ! -name "tree-$stamp" -mmin +120 -exec rm -rf {} +
fi
find "$build" -mindepth 1 -maxdepth 1 -name '.tree-*' -mmin +60 -exec rm -rf {} +
# bundles of an older lockfile, once no tree of the last day links to them
for old in "$build"/vendor-*; do
  [ -d "$old" ] || continue
  find "$build" -mindepth 3 -maxdepth 4 -lname "*$(basename "$old")/*" -print -quit | grep -q . || rm -rf "$old"
done
echo "$tree"
