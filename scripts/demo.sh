#!/usr/bin/env bash
# scripts/demo.sh - the main job on its built-in default, nothing to prepare:
#   1. `python -m dlx`: the interoperability matrix of dlx, NumPy, JAX (and PyTorch when installed by
#      scripts/install_torch.sh): for each producer -> consumer pair and dtype, whether the exchange works,
#      whether it is zero-copy, and its cost per call. Sets up .venv on first use (PyPI).
#   2. the C examples of CCCL's rules (export a strided view as a DLTensor; import one with full validation) and a
#      quick run of the C conversion benchmark.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/deps.sh
. scripts/deps.sh
dlx_need cmake cmake
dlx_need make make
dlx_need cc gcc
dlx_need python3 python3
python3 -c 'import ensurepip' >/dev/null 2>&1 || dlx_need_pkg python3-venv
[ -f "$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["include"])' 2>/dev/null)/Python.h" ] ||
  dlx_need_pkg python3-dev
dlx_install_needed

# The CUDA module only where a GPU can use it: elsewhere the demo builds the CPU libraries alone.
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
  DEMO_CUDA=AUTO
else
  DEMO_CUDA=OFF
fi
# shellcheck source=scripts/venv.sh
. scripts/venv.sh
DLX_PY_CUDA=$DEMO_CUDA dlx_venv_setup >/dev/null
echo "== python -m dlx"
"$VPY" -m dlx

BUILD=build-demo
JOBS=$(nproc 2>/dev/null || echo 2)
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DDLX_BUILD_TESTS=OFF -DDLX_BUILD_EXAMPLES=ON \
  -DDLX_BUILD_BENCH=ON -DDLX_WITH_CUDA="$DEMO_CUDA" >/dev/null
# the examples and bench_view only: they need the exchange layer and the static library, nothing else
cmake --build "$BUILD" -j "$JOBS" --target example_export_view example_import_view example_exchange_only \
  bench_view >/dev/null
for exe in $(find "$BUILD/examples" -maxdepth 1 -type f -name 'example_*' -perm -u+x 2>/dev/null | sort); do
  echo
  echo "== $(basename "$exe")"
  "$exe"
done
echo
echo "== bench_view --quick (ns per DLTensor export/import; full run and instruction counts: scripts/bench.sh)"
"$BUILD/bench/bench_view" --quick
