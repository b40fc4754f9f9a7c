#!/usr/bin/env bash
# scripts/gen_errors.sh [--check] [build-dir] - write docs/errors.md, the bad-input catalogue: every
# dlx_status, an input that triggers it, its message, and the Python exception it becomes.
#   C half: tests/errors_catalogue (built here in build-dir, default build-errors) runs one trigger per
#           status through the public API and prints the rows;
#   Python half: python/tests/errors_catalogue.py runs the Python triggers against the dlx module and
#           dlx_example (examples/python_ext) installed in .venv (scripts/test_python.sh installs both).
# --check: write nothing; exit 1 when the committed docs/errors.md differs (CI runs this).
set -euo pipefail
cd "$(dirname "$0")/.."

CHECK=0
if [ "${1:-}" = "--check" ]; then
  CHECK=1
  shift
fi
BUILD=${1:-build-errors}
VPY=${PYTHON:-.venv/bin/python}
[ -x "$VPY" ] || { echo "gen_errors.sh: no $VPY (run scripts/test_python.sh first)" >&2; exit 2; }

if [ ! -f "$BUILD/CMakeCache.txt" ]; then
  cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DDLX_BUILD_EXAMPLES=OFF -DDLX_BUILD_BENCH=OFF >/dev/null
fi
cmake --build "$BUILD" --target errors_catalogue -j "$(nproc 2>/dev/null || echo 2)" >/dev/null

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$BUILD/tests/errors_catalogue" >"$tmp/rows"
"$VPY" python/tests/errors_catalogue.py "$tmp/rows" >"$tmp/errors.md"

if [ $CHECK -eq 1 ]; then
  if diff -u docs/errors.md "$tmp/errors.md"; then
    echo "docs/errors.md is current ($(grep -c '^| `DLX_ERR_' docs/errors.md) statuses)"
  else
    echo "docs/errors.md is out of date: run scripts/gen_errors.sh and commit the result" >&2
    exit 1
  fi
else
  cp "$tmp/errors.md" docs/errors.md
  echo "wrote docs/errors.md ($(grep -c '^| `DLX_ERR_' docs/errors.md) statuses)"
fi
