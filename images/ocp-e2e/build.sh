#!/usr/bin/env bash
# Builds the suite's image (images/ocp-e2e/Containerfile) with docker or podman and prints its tag,
# localhost/ocp-e2e/ocp-e2e:<version>-<hash>. The hash covers everything that goes in (compiled tree, lockfile, oc,
# base image, Containerfile, source commit), so building again with nothing changed builds nothing.
#
#   images/ocp-e2e/build.sh [--engine docker|podman] [--node-image IMAGE|host] [--oc FILE] [--tag TAG]
#
#   --engine       the CLI that builds (default docker; podman builds into its local storage)
#   --node-image   the Node.js 20 base (default: the Containerfile's, docker.io/library/node:20-bookworm-slim);
#                  `host` builds images/node-base from this machine's node, for machines that cannot pull
#   --oc           the oc binary to ship (default: ../shared/upstream/bin/oc next to the checkout, as in CI)
#   --tag          also tag the image so (e.g. quay.io/you/ocp-e2e:latest)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
engine=docker node_image="" oc="$root/../shared/upstream/bin/oc" extra_tag=""
while [ $# -gt 0 ]; do
  case "$1" in
    --engine) engine="$2"; shift 2 ;;
    --node-image) node_image="$2"; shift 2 ;;
    --oc) oc="$2"; shift 2 ;;
    --tag) extra_tag="$2"; shift 2 ;;
    *) echo "ocp-e2e image: unknown option $1" >&2; exit 2 ;;
  esac
done
[ -x "$oc" ] || { echo "ocp-e2e image: no oc binary at $oc (pass --oc FILE)" >&2; exit 2; }
[ "$node_image" = host ] && node_image="$(bash "$root/images/node-base/build.sh" --engine "$engine")"

tree="$(bash "$root/scripts/build.sh")"
work="$root/.build/image"
mkdir -p "$work"
exec 9>"$work/lock"
flock 9

# Production dependencies, pruned once per lockfile (npm prune works offline on a copy of the checkout's node_modules).
lock_hash="$(sha256sum "$root/package-lock.json" | cut -c1-16)"
deps="$work/deps-$lock_hash"
if [ ! -f "$deps/.complete" ]; then
  rm -rf "$deps" && mkdir -p "$deps"
  cp "$root/package.json" "$root/package-lock.json" "$deps/"
  cp -a "$root/node_modules" "$deps/"
  (cd "$deps" && npm prune --omit=dev --offline --no-audit --no-fund --loglevel=error >&2)
  touch "$deps/.complete"
  find "$work" -mindepth 1 -maxdepth 1 -name 'deps-*' ! -name "deps-$lock_hash" -exec rm -rf {} +
fi

version="$(node -p "require('$root/package.json').version")"
commit="$(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)"
state=clean
[ -n "$(git -C "$root" status --porcelain --untracked-files=no 2>/dev/null)" ] && state=dirty
source_url="$(git -C "$root" remote get-url origin 2>/dev/null | sed -E 's#^([a-z][a-z0-9+.-]*://)[^@/]*@#\1#' || true)"
base_id=default
if [ -n "$node_image" ]; then base_id="$("$engine" image inspect --format '{{.Id}}' "$node_image" 2>/dev/null || echo "$node_image")"; fi
hash="$({
  echo "tree $(basename "$tree") lock $lock_hash base $base_id commit $commit $state"
  sha256sum "$oc" "$here/Containerfile" | cut -c1-64
} | sha256sum | cut -c1-12)"
tag="localhost/ocp-e2e/ocp-e2e:$version-$hash"

if ! "$engine" image inspect "$tag" >/dev/null 2>&1; then
  ctx="$work/context"
  rm -rf "$ctx" && mkdir -p "$ctx/suite"
  # The tree without the links into the checkout (node_modules, .cache) and the build's own marker.
  (cd "$tree" && find . -mindepth 1 -maxdepth 1 ! -name node_modules ! -name .cache ! -name .complete -exec cp -a {} "$ctx/suite/" \;)
  cp -a "$deps/node_modules" "$ctx/suite/node_modules"
  cp "$oc" "$ctx/oc"
  cp "$here/Containerfile" "$ctx/Containerfile"
  # The image runs under any uid (Containerfile): whatever the umask of whoever built the tree, everything it copies is
  # readable by all and writable by none but root. Done here, not by a RUN chmod, which would copy every file into a
  # second layer.
  chmod -R a+rX,go-w "$ctx"
  printf '{"commit": "%s", "version": "%s", "buildDate": "%s", "gitTreeState": "%s", "sourceUrl": "%s"}\n' \
    "$commit" "$version" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$state" "$source_url" > "$ctx/build-info.json"
  args=(build -t "$tag" --build-arg "SOURCE_COMMIT=$commit" --build-arg "VERSION=$version" -f "$ctx/Containerfile")
  [ -n "$node_image" ] && args+=(--build-arg "NODE_IMAGE=$node_image")
  log="$work/build.log"
  if ! "$engine" "${args[@]}" "$ctx" >"$log" 2>&1; then
    cat "$log" >&2
    echo "ocp-e2e image: $engine build failed (above)" >&2
    exit 1
  fi
  rm -rf "$ctx"
fi
[ -n "$extra_tag" ] && "$engine" tag "$tag" "$extra_tag" >&2
echo "$tag"
