#!/usr/bin/env bash
# The project's own tests (README's second Quick start command, and what CI runs): set-up, type check, import rules,
# mocha on test/.
# Extra arguments go to mocha, e.g. `npm test -- 'test/mock/**/*.test.ts'` or `npm test -- --grep informer`.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/ensure-env.sh --all || exit $?

echo "== type check (tsc --noEmit)"
if ! npx --no-install tsc --noEmit -p .; then
  echo "The type check failed (errors above); no test was run."
  echo "0 passed, 1 failed"
  exit 1
fi

echo "== import rules (dependency-cruiser)"
if ! bash scripts/check-imports.sh; then
  echo "An import breaks the rules of docs/architecture.md (above); no test was run."
  echo "0 passed, 1 failed"
  exit 1
fi

# Mocha appends command-line spec paths to a config's spec list, so the default list lives here, not in .mocharc.json:
# naming files runs just those files; giving only options (e.g. --grep) runs everything.
specs=() takes_value=0
for arg in "$@"; do
  if [ "$takes_value" = 1 ]; then takes_value=0; continue; fi
  case "$arg" in
    --grep|-g|--fgrep|-f|--timeout|-t|--reporter|-R|--reporter-option|-O|--slow|-s|--retries|--jobs|-j) takes_value=1 ;;
    -*) ;;
    *) specs+=("$arg") ;;
  esac
done
if [ ${#specs[@]} -eq 0 ]; then
  # every test file, the slowest first (scripts/test-order.mjs): in a parallel run no long file starts last
  mapfile -t all_files < <(node scripts/test-order.mjs)
  set -- "$@" "${all_files[@]}"
  # The whole run takes two files at a time (mocha --parallel, one worker process each): one file alone leaves about
  # a third of two cores idle while its clusters wait on timers, builds and child processes. OCP_E2E_TEST_JOBS=1 runs
  # the files one after another, as naming files does.
  jobs="${OCP_E2E_TEST_JOBS:-2}"
  case " $* " in
    *" --parallel "*|*" --jobs "*|*" -j "*) ;;
    *) if [ "$jobs" != 1 ]; then set -- --parallel --jobs "$jobs" "$@"; fi ;;
  esac
  # The whole suite runs the upstream programs as oracles: stop here, naming each one missing, rather than in a dozen
  # failed tests. Named files run without this check (their own tests fail clearly if they need a tool).
  # shellcheck source=scripts/upstream-tools.sh
  source scripts/upstream-tools.sh
  if ! upstream_tools_check; then
    echo "The upstream tools above are missing; no test was run."
    echo "0 passed, 1 failed"
    exit 1
  fi
fi

# The command the tests run through its launcher (bin/ocp-e2e, the OTE shim, the image) runs the compiled tree: build
# it once here, so no test pays for (or races on) the first build.
echo "== compiled JavaScript (scripts/build.sh)"
if ! bash scripts/build.sh >/dev/null; then
  echo "The build failed (errors above); no test was run."
  echo "0 passed, 1 failed"
  exit 1
fi

echo "== tests (mocha)"
# each file's CPU, for the costliest-files list at the end (test/support/file-cpu.ts)
rm -f reports/test-file-cpu.jsonl
export OCP_E2E_TEST_CPU_LOG=1
exec npx --no-install mocha "$@"
