#!/usr/bin/env bash
# Finds the upstream programs the project's tests run as oracles (../shared/upstream/README.md says what each is and
# how it was built): on PATH, else in $OCP_E2E_UPSTREAM_BIN, else in ../shared/upstream/bin beside the checkout.
# Sourced by scripts/test.sh: puts the folder that has them on PATH, or prints one message naming every missing tool,
# what needs it and where to get it, and returns 2.
upstream_tools_check() {
  local root_dir candidates=() dir tool missing=()
  root_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  [ -n "${OCP_E2E_UPSTREAM_BIN:-}" ] && candidates+=("$OCP_E2E_UPSTREAM_BIN")
  candidates+=("$(cd "$root_dir/.." && pwd)/shared/upstream/bin")
  # tool|what needs it
  local tools=(
    "oc|the tests that drive the reference with the real oc 4.12 (test/bin/real-oc and phases, test/reference/report-commands and real-oc-pods)"
    "mco-oracle-cad20f710|the differential tests of render and required pools at the report's nightly (test/reference/upstream)"
    "mco-oracle-3943ef1d0|the differential tests of render and required pools at the fix (test/reference/upstream)"
  )
  for entry in "${tools[@]}"; do
    tool="${entry%%|*}"
    if command -v "$tool" >/dev/null 2>&1; then
      # the oracles' tests look in OCP_E2E_UPSTREAM_BIN: point it at the folder PATH found them in
      case "$tool" in mco-oracle-*) export OCP_E2E_UPSTREAM_BIN="${OCP_E2E_UPSTREAM_BIN:-$(dirname "$(command -v "$tool")")}" ;; esac
      continue
    fi
    for dir in "${candidates[@]}"; do
      if [ -x "$dir/$tool" ]; then
        export PATH="$dir:$PATH"
        export OCP_E2E_UPSTREAM_BIN="${OCP_E2E_UPSTREAM_BIN:-$dir}"
        continue 2
      fi
    done
    missing+=("$entry")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "ocp-e2e tests: MISSING upstream tools (looked on PATH, in \$OCP_E2E_UPSTREAM_BIN and in ${candidates[-1]}):" >&2
  for entry in "${missing[@]}"; do echo "  - ${entry%%|*}: needed by ${entry#*|}" >&2; done
  cat >&2 <<'MSG'
  where to get them: CI has them in ../shared/upstream/bin beside the checkout (the steering repository's shared/
  folder); its README.md says how each was built from public source (oc: openshift/oc release-4.12; the oracles:
  openshift/machine-config-operator at the commits in their names). Elsewhere, an oc 4.12 client from
  mirror.openshift.com/pub/openshift-v4/clients/ocp/ (4.12.x) serves as oc. Put them on PATH, or set
  OCP_E2E_UPSTREAM_BIN to their folder. To run only tests that need none of them, name the files:
  npm test -- 'test/mock/**/*.test.ts'
MSG
  return 2
}
