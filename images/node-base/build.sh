#!/usr/bin/env bash
# Builds a local Node.js base image from the host's node binary (see Containerfile) and prints its tag,
# localhost/ocp-e2e/node-base:<node version>-<hash>. The hash covers every file of the root file system, so a second
# build with the same host binaries builds nothing.
#
#   images/node-base/build.sh [--engine docker|podman]     (default: docker; podman talks to its local storage)
#
# Needs: node on PATH (the image's node), bash, a static busybox at /bin/busybox (scripts/ensure-env.sh --busybox).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
engine=docker
while [ $# -gt 0 ]; do
  case "$1" in
    --engine) engine="$2"; shift 2 ;;
    *) echo "node-base: unknown option $1" >&2; exit 2 ;;
  esac
done

node_bin="$(readlink -f "$(command -v node)")"
bash_bin="$(readlink -f "$(command -v bash)")"
busybox=/bin/busybox
[ -x "$busybox" ] && [[ "$(LC_ALL=C ldd "$busybox" 2>&1 || true)" == *"not a dynamic executable"* ]] ||
  { echo "node-base: needs a static busybox at /bin/busybox (as root: apt-get install busybox-static)" >&2; exit 2; }

ctx="$(mktemp -d "${TMPDIR:-/tmp}/ocp-e2e-node-base.XXXXXX")"
trap 'rm -rf "$ctx"' EXIT
rootfs="$ctx/rootfs"
mkdir -p "$rootfs"/{bin,usr/bin,usr/local/bin,etc/ssl/certs,tmp,lib64}
chmod 1777 "$rootfs/tmp"

# A binary and each shared library ldd resolves for it, at the same paths as on the host (the loader included).
copy_with_libraries() {
  local bin="$1" dest="$2" lib
  cp "$bin" "$rootfs$dest"
  for lib in $(ldd "$bin" | grep -o '/[^ ]*'); do
    mkdir -p "$rootfs$(dirname "$lib")"
    cp -L "$lib" "$rootfs$lib"
  done
}
copy_with_libraries "$node_bin" /usr/local/bin/node
copy_with_libraries "$bash_bin" /bin/bash

cp "$busybox" "$rootfs/bin/busybox"
for applet in $("$busybox" --list); do
  case "$applet" in busybox|bash) continue ;; esac
  [ -e "$rootfs/bin/$applet" ] || ln -s busybox "$rootfs/bin/$applet"
done
# #!/usr/bin/env bash, as the launchers start.
ln -s ../../bin/busybox "$rootfs/usr/bin/env"
ln -s ../../bin/bash "$rootfs/usr/bin/bash"

# The system roots, for programs that read them (oc); node carries its own.
[ -f /etc/ssl/certs/ca-certificates.crt ] && cp /etc/ssl/certs/ca-certificates.crt "$rootfs/etc/ssl/certs/"
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' > "$rootfs/etc/passwd"
printf 'root:x:0:\nnobody:x:65534:\n' > "$rootfs/etc/group"
printf 'hosts: files dns\n' > "$rootfs/etc/nsswitch.conf"
cp "$here/Containerfile" "$ctx/Containerfile"

hash="$(cd "$ctx" && find . -printf '%p %l\n' | LC_ALL=C sort | sha256sum | cut -c1-8)"
hash="$hash$(cd "$ctx" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -c1-8)"
tag="localhost/ocp-e2e/node-base:$("$node_bin" --version | tr -d v)-$hash"
if ! "$engine" image inspect "$tag" >/dev/null 2>&1; then
  "$engine" build -q -t "$tag" -f "$ctx/Containerfile" "$ctx" >&2
fi
echo "$tag"
