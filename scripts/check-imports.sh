#!/usr/bin/env bash
# Checks the import rules (.dependency-cruiser.cjs; docs/architecture.md says why) over specs/ helpers/ reference/
# mock/ lib/: which folder may import which, no import circle (type-only imports count), every import resolves.
# Exit 0 when every import is allowed; otherwise each offending import or circle is printed with its rule, exit 1.
# Usage: scripts/check-imports.sh [TREE]   (default: this repository; the rule tests pass a fixture tree)
set -uo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tree="${1:-$repo}"
cd "$tree" || exit 2
folders=()
for d in specs helpers reference mock lib; do [ -d "$d" ] && folders+=("$d"); done
[ ${#folders[@]} -gt 0 ] || { echo "check-imports: no specs/ helpers/ reference/ mock/ lib/ under $tree" >&2; exit 2; }
"$repo/node_modules/.bin/depcruise" --config "$repo/.dependency-cruiser.cjs" --output-type err "${folders[@]}" || exit 1
