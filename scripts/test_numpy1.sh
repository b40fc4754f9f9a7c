#!/usr/bin/env bash
# scripts/test_numpy1.sh - run by test_python.sh after the main suite: NumPy 1.x as a real peer.
# dlx.from_dlpack reads the fields of NumPy 2.x arrays itself and sends NumPy 1.x arrays through their own
# __dlpack__ (src/pyext/consumer.c: 1.x refuses read-only arrays and rewrites the strides of extents of 1,
# which the fields path would not). python/tests/test_buffer_path.py checks that every import equals the
# capsule path's; here it runs again against NumPy 1.x from PyPI, in a second venv (.venv-numpy1: numpy<2
# and pytest, wheels only). dlx is the test build test_python.sh installed into .venv, put on the path by
# itself (it does not link NumPy). When numpy<2 cannot be installed (no wheel for this Python), the check
# is skipped with pip's reason.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.venv-numpy1
if [ ! -x "$venv/bin/python" ]; then "${PYTHON:-python3}" -m venv "$venv"; fi
log=$(mktemp)
if ! "$venv/bin/python" -m pip install -q --only-binary=:all: "numpy<2" pytest >"$log" 2>&1; then
  echo "== NumPy 1.x check skipped: pip install numpy<2 failed: $(awk 'NF { l = $0 } END { print l }' "$log")"
  rm -f "$log"
  exit 0
fi
rm -f "$log"
site=$(.venv/bin/python -c 'import os, dlx; print(os.path.dirname(os.path.dirname(dlx.__file__)))')
only_dlx=$(mktemp -d)
trap 'rm -rf "$only_dlx"' EXIT
ln -s "$site/dlx" "$only_dlx/dlx"
echo "== python/tests/test_buffer_path.py against NumPy $("$venv/bin/python" -c 'import numpy; print(numpy.__version__)')"
PYTHONPATH="$only_dlx" "$venv/bin/python" -m pytest python/tests/test_buffer_path.py -q -rs -p no:cacheprovider
