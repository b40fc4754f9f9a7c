#!/usr/bin/env bash
# scripts/demo.sh - the main job on its built-in default: build dlx (Release, build-demo), run the C
# seed examples (export a strided view as a DLTensor; import a DLTensor with full validation), then a
# quick run of the conversion benchmark. When the Python module is installed in .venv (by
# scripts/test_python.sh), its demo `python -m dlx` runs as well.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/deps.sh
. scripts/deps.sh
dlx_need cmake cmake
dlx_need make make
dlx_need cc gcc
dlx_install_needed

BUILD=build-demo
JOBS=$(nproc 2>/dev/null || echo 2)
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DDLX_BUILD_TESTS=OFF -DDLX_BUILD_EXAMPLES=ON \
  -DDLX_BUILD_BENCH=ON >/dev/null
cmake --build "$BUILD" -j "$JOBS" >/dev/null

ran=0
for exe in $(find "$BUILD/examples" -maxdepth 1 -type f -name 'example_*' -perm -u+x 2>/dev/null | sort); do
  echo "== $(basename "$exe")"
  "$exe"
  echo
  ran=$((ran + 1))
done
if [ $ran -eq 0 ]; then
  echo "no C examples were built (examples/CMakeLists.txt defines none yet)"
fi

echo "== bench_view --quick (ns per DLTensor export/import; full run and instruction counts: scripts/bench.sh)"
"$BUILD/bench/bench_view" --quick

if [ -x .venv/bin/python ] &&
  .venv/bin/python -c 'import importlib.util, sys; sys.exit(importlib.util.find_spec("dlx.__main__") is None)' \
    >/dev/null 2>&1; then
  echo
  echo "== python -m dlx"
  .venv/bin/python -m dlx
fi
