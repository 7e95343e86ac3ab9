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
[ ${#specs[@]} -gt 0 ] || set -- "$@" 'test/**/*.test.ts'

echo "== tests (mocha)"
exec npx --no-install mocha "$@"
