#!/usr/bin/env bash
# Makes this machine ready to run ocp-e2e, or says exactly what is missing and how to get it.
#
#   scripts/ensure-env.sh [--npm] [--engine] [--registry] [--busybox] [--browser] [--podman] [--terminal] [--emulation] [--all]
#
# --npm       npm dependencies installed (npm ci) when node_modules is missing or older than package-lock.json
# --engine    a Docker-compatible engine answering: DOCKER_HOST, a podman socket, or /var/run/docker.sock;
#             as root with apt and no engine: installs docker.io and starts dockerd in the background
# --registry  an OCI registry we can start on loopback: Debian's docker-registry binary (installed as root with apt)
# --busybox   a static busybox at /bin/busybox: the root file system of the reference cluster's base OS images
# --browser   Debian's chromium at /usr/bin/chromium: the tests open the HTML report in it, headless and offline
# --podman    Debian's podman, and its Docker-compatible API (`podman system service`) answering on
#             $OCP_E2E_PODMAN_SOCKET (default /run/ocp-e2e/podman.sock: not a socket the engine search looks at, so
#             dockerd stays the default engine; DOCKER_HOST=unix://<socket> picks podman)
# --terminal  tmux: the tests of interactive commands (oc debug node/N at a prompt) type into a real terminal
# --emulation qemu-user-static registered with binfmt_misc for the other architecture of amd64/arm64 (qemu-aarch64 on
#             an amd64 host): the layered images of arm64 and multi-arch clusters are built through it (--platform)
#
# Every step is idempotent: on a prepared machine it prints nothing and takes well under a second.
set -euo pipefail

root_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
want_npm=0 want_engine=0 want_registry=0 want_busybox=0 want_browser=0 want_podman=0 want_terminal=0 want_emulation=0
for arg in "$@"; do
  case "$arg" in
    --npm) want_npm=1 ;;
    --engine) want_engine=1 ;;
    --registry) want_registry=1 ;;
    --busybox) want_busybox=1 ;;
    --browser) want_browser=1 ;;
    --podman) want_podman=1 ;;
    --terminal) want_terminal=1 ;;
    --emulation) want_emulation=1 ;;
    # --all (the project's tests, CI): an emulator that cannot be registered is said, not fatal: only the arm64 and
    # multi-arch tests need it, and they fail naming it, where a hard stop here would fail every test
    --all) want_npm=1 want_engine=1 want_registry=1 want_busybox=1 want_browser=1 want_podman=1 want_terminal=1; [ "$want_emulation" = 1 ] || want_emulation=soft ;;
    *) echo "ensure-env: unknown option $arg" >&2; exit 2 ;;
  esac
done

say() { echo "ocp-e2e setup: $*" >&2; }
missing() {
  # One clear message naming what is missing and how to get it, then a distinct exit code for "environment".
  echo "ocp-e2e setup: MISSING: $1" >&2
  echo "  how to get it: $2" >&2
  exit 2
}

can_apt() { [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; }
apt_updated=0
apt_install() {
  if [ "$apt_updated" = 0 ]; then
    say "apt-get update"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
    apt_updated=1
  fi
  say "installing Debian packages: $*"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >&2
}

ensure_npm() {
  cd "$root_dir"
  if [ ! -d node_modules ] || [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    command -v npm >/dev/null 2>&1 || missing "npm (Node.js 20 or later)" "install Node.js 20 from your distribution or nodejs.org"
    say "installing npm dependencies (npm ci)"
    npm ci --no-audit --no-fund >&2
  fi
}

# Answers 0 when a Docker Engine API answers _ping at the given unix socket path.
socket_answers() {
  [ -S "$1" ] && curl -fsS --max-time 3 --unix-socket "$1" http://localhost/_ping >/dev/null 2>&1
}

engine_answers() {
  if [ -n "${DOCKER_HOST:-}" ]; then
    case "$DOCKER_HOST" in
      unix://*) socket_answers "${DOCKER_HOST#unix://}" ;;
      tcp://*) curl -fsS --max-time 3 "http://${DOCKER_HOST#tcp://}/_ping" >/dev/null 2>&1 ;;
      *) return 1 ;;
    esac
    return
  fi
  local sock
  for sock in "${XDG_RUNTIME_DIR:-/nonexistent}/podman/podman.sock" /run/podman/podman.sock /var/run/docker.sock; do
    socket_answers "$sock" && return 0
  done
  return 1
}

ensure_engine() {
  engine_answers && return 0
  if [ -n "${DOCKER_HOST:-}" ]; then
    missing "a container engine at DOCKER_HOST=$DOCKER_HOST (it does not answer)" \
      "start the engine behind DOCKER_HOST, or unset DOCKER_HOST to use the local one"
  fi
  if ! command -v dockerd >/dev/null 2>&1; then
    can_apt || missing "a Docker-compatible engine (none answers at DOCKER_HOST, a podman socket or /var/run/docker.sock)" \
      "as root: apt-get install docker.io && dockerd &  — or start podman's API: podman system service --time=0 &  and export DOCKER_HOST=unix://\$XDG_RUNTIME_DIR/podman/podman.sock"
    apt_install docker.io
  fi
  [ "$(id -u)" = 0 ] || missing "a running Docker engine (dockerd is installed but not running, and only root can start it)" \
    "sudo dockerd &  (or: sudo systemctl start docker), or use podman: podman system service --time=0 &"
  say "starting dockerd in the background (log: /var/log/ocp-e2e-dockerd.log)"
  setsid nohup dockerd >/var/log/ocp-e2e-dockerd.log 2>&1 < /dev/null &
  for _ in $(seq 1 60); do
    socket_answers /var/run/docker.sock && return 0
    sleep 0.5
  done
  missing "a running Docker engine (dockerd did not answer within 30 s)" "read /var/log/ocp-e2e-dockerd.log"
}

ensure_registry() {
  command -v docker-registry >/dev/null 2>&1 && return 0
  can_apt || missing "an OCI registry binary (docker-registry, distribution 2.x)" \
    "as root: apt-get install docker-registry"
  apt_install docker-registry
}

ensure_busybox() {
  # ldd exits non-zero on a static binary, so read its words rather than its exit code.
  if [ -x /bin/busybox ] && [[ "$(LC_ALL=C ldd /bin/busybox 2>&1 || true)" == *"not a dynamic executable"* ]]; then
    return 0
  fi
  can_apt || missing "a static busybox at /bin/busybox (it seeds the reference cluster's OS images)" \
    "as root: apt-get install busybox-static"
  apt_install busybox-static
}

ensure_browser() {
  [ -x /usr/bin/chromium ] && return 0
  can_apt || missing "Chromium at /usr/bin/chromium (the report tests open the HTML report in it)" \
    "as root: apt-get install chromium"
  apt_install chromium
}

ensure_terminal() {
  command -v tmux >/dev/null 2>&1 && return 0
  can_apt || missing "tmux (the interactive tests type into a real terminal through it)" "as root: apt-get install tmux"
  apt_install tmux
}

# The emulator of the architecture that is not the host's: binfmt_misc runs its binaries through qemu, inside build
# containers too (the F flag: the interpreter is opened at registration, not looked up in the container).
ensure_emulation() {
  local qemu
  case "$(uname -m)" in
    x86_64) qemu=qemu-aarch64 ;;
    aarch64) qemu=qemu-x86_64 ;;
    *) say "no emulator is set up for a $(uname -m) host: arm64 and multi-arch runs need OCP_E2E_BUILD_PLATFORMS or a native builder"; return 0 ;;
  esac
  local entry=/proc/sys/fs/binfmt_misc/$qemu
  [ -f "$entry" ] && head -n1 "$entry" | grep -qx enabled && return 0
  local fix="as root on the engine's machine: apt-get install qemu-user-static binfmt-support; mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc; update-binfmts --enable $qemu"
  can_apt || missing "$qemu registered with binfmt_misc (arm64 and multi-arch runs build their layered images through it)" "$fix"
  # the emulator's definition as qemu-user-static installs it (systemd's binfmt.d, or binfmt-support's older folder)
  if ! command -v update-binfmts >/dev/null 2>&1 || { [ ! -e "/usr/lib/binfmt.d/$qemu.conf" ] && [ ! -e "/usr/share/binfmts/$qemu" ]; }; then
    apt_install qemu-user-static binfmt-support
  fi
  if [ ! -e /proc/sys/fs/binfmt_misc/register ]; then
    say "mounting binfmt_misc on /proc/sys/fs/binfmt_misc"
    mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc 2>/dev/null || missing \
      "binfmt_misc: it cannot be mounted here (an unprivileged container? /proc/sys is read-only), so $qemu cannot be registered" \
      "register it on the host (or run this privileged): $fix; or build arm64 on a native builder (DOCKER_HOST)"
  fi
  update-binfmts --enable "$qemu" >&2 2>/dev/null || true
  # without systemd-binfmt nor binfmt-support's definition, the binfmt.d line is the register string itself
  if [ ! -f "$entry" ] && [ -e "/usr/lib/binfmt.d/$qemu.conf" ]; then
    grep -v '^#' "/usr/lib/binfmt.d/$qemu.conf" | head -n1 > /proc/sys/fs/binfmt_misc/register 2>/dev/null || true
  fi
  [ -f "$entry" ] && head -n1 "$entry" | grep -qx enabled || missing \
    "$qemu registered with binfmt_misc: update-binfmts --enable $qemu did not register it" \
    "read update-binfmts --display $qemu; $fix"
  say "$qemu registered with binfmt_misc"
}

podman_socket="${OCP_E2E_PODMAN_SOCKET:-/run/ocp-e2e/podman.sock}"
ensure_podman() {
  if ! command -v podman >/dev/null 2>&1; then
    can_apt || missing "podman (the image tests and the report's commands also run on it)" "as root: apt-get install podman"
    apt_install podman
  fi
  socket_answers "$podman_socket" && return 0
  mkdir -p "$(dirname "$podman_socket")"
  say "starting podman's Docker-compatible API on $podman_socket (log: /var/log/ocp-e2e-podman.log)"
  setsid nohup podman system service --time=0 "unix://$podman_socket" >/var/log/ocp-e2e-podman.log 2>&1 < /dev/null &
  for _ in $(seq 1 40); do
    socket_answers "$podman_socket" && return 0
    sleep 0.5
  done
  missing "podman's API service on $podman_socket (it did not answer within 20 s)" "read /var/log/ocp-e2e-podman.log"
}

[ "$want_npm" = 1 ] && ensure_npm
[ "$want_browser" = 1 ] && ensure_browser
[ "$want_busybox" = 1 ] && ensure_busybox
[ "$want_registry" = 1 ] && ensure_registry
[ "$want_engine" = 1 ] && ensure_engine
[ "$want_podman" = 1 ] && ensure_podman
[ "$want_terminal" = 1 ] && ensure_terminal
# soft (from --all): in a subshell, so what is missing is said (MISSING: ...) and the set-up still ends well
case "$want_emulation" in 1) ensure_emulation ;; soft) ( ensure_emulation ) || say "going on without the emulator: the arm64 and multi-arch tests will fail naming it" ;; esac
exit 0
