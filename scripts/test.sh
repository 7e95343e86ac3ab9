#!/usr/bin/env bash
# The project's own tests (README's second Quick start command, and what CI runs): set-up, type check, mocha on test/.
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

echo "== tests (mocha)"
exec npx --no-install mocha "$@"
