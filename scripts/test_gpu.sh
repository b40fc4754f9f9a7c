#!/usr/bin/env bash
# The checks that need a CUDA device, in one go, for a machine that has one and no network: build with
# CUDA (and the Python module, against the machine's python3 with its torch / CuPy / JAX), run ctest (the
# CUDA tests, the op table on the real CUDA backend, every CPU level the host runs), the CUDA Python tests
# with torch.cuda, CuPy and JAX on the GPU, then bench/bench_cuda.py.
#
#   bash scripts/test_gpu.sh [LOGDIR]      (logs: LOGDIR, default build-gpu/logs; a summary at the end)
#
# Each step has its own time limit and writes its own log, so a step that fails or runs long still leaves
# the others' results. Exits non-zero when a step failed. Not part of CI: CI machines have no GPU.
set -uo pipefail
cd "$(dirname "$0")/.."

LOG=${1:-build-gpu/logs}
BUILD=build-gpu
SITE=$BUILD/site
PY=${PYTHON:-python3}
mkdir -p "$LOG"
JOBS=$(nproc 2>/dev/null || echo 4)
declare -a SUMMARY=()
FAILED=0

step() { # step NAME SECONDS COMMAND...
  local name=$1 secs=$2
  shift 2
  local t0=$SECONDS
  timeout "$secs" "$@" >"$LOG/$name.log" 2>&1
  local rc=$?
  SUMMARY+=("$(printf '%-8s rc=%-3s %4ss  %s' "$name" "$rc" "$((SECONDS - t0))" "$(tail -n 1 "$LOG/$name.log")")")
  [ "$rc" -eq 0 ] || FAILED=1
  return "$rc"
}

{
  nvidia-smi -L 2>&1
  nvcc --version 2>&1 | tail -n 1
  "$PY" -c 'import sys; print("python", sys.version.split()[0])'
  for m in numpy torch cupy jax ml_dtypes pytest hypothesis; do
    "$PY" -c "import $m; print('$m', getattr($m, '__version__', '?'))" 2>&1 | tail -n 1
  done
  "$PY" -c 'import torch; print("torch.cuda", torch.cuda.is_available(), torch.version.cuda)' 2>&1 | tail -n 1
  grep -o -m 1 -w 'avx512f' /proc/cpuinfo || echo "no avx512f"
} >"$LOG/env.log" 2>&1

GEN=()
command -v ninja >/dev/null 2>&1 && GEN=(-G Ninja)
step configure 120 cmake -S . -B "$BUILD" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release -DDLX_WITH_CUDA=ON \
  -DDLX_BUILD_PYTHON=ON -DDLX_PY_TESTING=ON -DPython_EXECUTABLE="$(command -v "$PY")" &&
  step build 400 cmake --build "$BUILD" -j "$JOBS" &&
  step install 60 cmake --install "$BUILD" --component python --prefix "$SITE"
if [ "$FAILED" -eq 0 ]; then
  (cd "$BUILD" && timeout 300 ctest -j 8 --output-on-failure) >"$LOG/ctest.log" 2>&1
  rc=$?
  SUMMARY+=("$(printf '%-8s rc=%-3s        %s' ctest "$rc" "$(grep -E 'tests passed|tests failed' "$LOG/ctest.log" | tail -n 1)")")
  [ "$rc" -eq 0 ] || FAILED=1
  # the C test of every CUDA case, verbose (which cases ran, what was compared)
  (cd "$BUILD" && timeout 120 ctest -R 'cuda|backends$' -V) >"$LOG/ctest_cuda_verbose.log" 2>&1
  export PYTHONPATH=$PWD/$SITE DLX_PY_TESTING=1 PYTHONUNBUFFERED=1
  step pytest 300 "$PY" -m pytest -q -rfEs --tb=short -p no:cacheprovider python/tests/test_cuda.py \
    python/tests/test_cuda_ufuncs.py \
    python/tests/test_interop_torch.py python/tests/test_exchange_api.py
  step matrix 120 "$PY" -m dlx
  step bench 240 "$PY" bench/bench_cuda.py --gib 4
fi

printf '%s\n' "${SUMMARY[@]}" | tee "$LOG/summary.log"
exit "$FAILED"
