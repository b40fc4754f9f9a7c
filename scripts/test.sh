#!/usr/bin/env bash
# scripts/test.sh - the whole test suite, as CI runs it (.ci/run). On a fresh Debian machine it first
# installs what is missing (apt-get; sudo only when not root), then:
#   0. scripts/check_layers.sh: the includes and declarations obey the README's layer table, no relative
#      include, no device type as a number (its --self-test first: each rule fires on a planted file)
#   1. build with gcc and -Werror, run ctest (unit tests, examples, ABI + header coexistence, seed replay)
#   2. build with clang, ASan + UBSan, run ctest again
#   3. scripts/check_install.sh: install, then find_package(dlx) and pkg-config consumers; then
#      scripts/check_pip_build.sh: pip builds a wheel from a checkout it cannot write to, and leaves it as it
#      was; that wheel (a test build) is what step 5 installs into .venv
#   4. scripts/fuzz.sh: each libFuzzer harness for DLX_FUZZ_SECONDS (default 20) seconds (built in step 2)
#   5. scripts/test_python.sh, when pyproject.toml and that script exist (the ownership stress test in
#      its short mode included); its peers install in the background from step 1 on (wait_prefetch)
#   6. scripts/check_no_abort.sh: no abort/exit/assert on a library code path, in source or binary;
#      scripts/check_function_length.sh: no function over 80 lines, no file over 800, in all of src/ (its
#      --self-test first)
#   7. scripts/gen_errors.sh --check: docs/errors.md matches what the code does now
#   8. scripts/test_python_asan.sh: the Python suite against an ASan + UBSan extension (step 2's build), then
#      a leak-checked workload
# Stops at the first failure and prints a summary either way.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/deps.sh
. scripts/deps.sh

JOBS=$(nproc 2>/dev/null || echo 2)
FUZZ_SECONDS=${DLX_FUZZ_SECONDS:-20}
# One cache of the official DLPack headers for both builds (the coexistence test downloads them).
export DLX_DLPACK_CACHE_DIR=${DLX_DLPACK_CACHE_DIR:-$PWD/build-dlpack-cache}
export CTEST_OUTPUT_ON_FAILURE=1

START=$(date +%s)
SUMMARY=()
# A step that fails may leave the facts needed to reproduce it here (scripts/fuzz.sh: the report and the
# crashing input in base64); they are printed after the summary, at the end of the output, because CI
# reports often keep only the tail of a long log.
export DLX_FAILURE_DETAILS=${DLX_FAILURE_DETAILS:-$PWD/build-ci/failure-details.txt}
mkdir -p "$(dirname "$DLX_FAILURE_DETAILS")"
rm -f "$DLX_FAILURE_DETAILS"
finish() {
  local rc=$?
  if [ -n "${PREFETCH_PID:-}" ]; then kill "$PREFETCH_PID" 2>/dev/null || true; fi
  echo
  echo "================ test.sh summary ($(( $(date +%s) - START )) s${CI:+, CI})"
  local l
  for l in "${SUMMARY[@]+"${SUMMARY[@]}"}"; do echo "  $l"; done
  if [ $rc -eq 0 ]; then echo "ALL PASSED"; else echo "FAILED (exit $rc)"; fi
  if [ $rc -ne 0 ] && [ -s "$DLX_FAILURE_DETAILS" ]; then
    echo "---------------- details of the failure ($DLX_FAILURE_DETAILS)"
    tail -n 60 "$DLX_FAILURE_DETAILS"
  fi
}
trap finish EXIT

# step <name> <command...>: run, time, record; stop at the first failure.
step() {
  local name=$1 t0 rc
  shift
  echo
  echo "================ $name"
  t0=$(date +%s)
  set +e
  (set -e; "$@") # a subshell, so that errexit holds inside functions too
  rc=$?
  set -e
  local dt=$(( $(date +%s) - t0 ))
  if [ $rc -eq 0 ]; then
    SUMMARY+=("ok     ${dt}s  $name")
  else
    SUMMARY+=("FAILED ${dt}s  $name (exit $rc)")
    exit $rc
  fi
}

# ---- 0. dependencies ------------------------------------------------------------------------------
deps() {
  dlx_need cmake cmake
  dlx_need make make
  dlx_need gcc gcc
  dlx_need g++ g++ # the C++ check of the public headers
  dlx_need clang clang
  dlx_need valgrind valgrind
  dlx_need pkg-config pkg-config
  # CBLAS for dlx_gemm (without it the build still passes, but gemm is untested)
  pkg-config --exists openblas 2>/dev/null || dlx_need_pkg libopenblas-dev
  # Open MPI for mpi4py (python/tests/test_mpi.py runs mpirun)
  dlx_need mpirun openmpi-bin
  command -v mpicc >/dev/null 2>&1 || dlx_need_pkg libopenmpi-dev
  # MPFR for the math functions' oracle (bench/math/exhaustive.c, the ctest math_sample)
  [ -f /usr/include/mpfr.h ] || dlx_need_pkg libmpfr-dev
  dlx_need python3 python3
  # the coexistence test fetches a wheel with pip; Debian's python3 gets pip through a venv
  if command -v python3 >/dev/null 2>&1 && ! python3 -m pip --version >/dev/null 2>&1 &&
    ! python3 -c 'import ensurepip' >/dev/null 2>&1; then
    dlx_need_pkg python3-venv
  fi
  if [ -f pyproject.toml ]; then
    command -v python3 >/dev/null 2>&1 && python3 -c 'import ensurepip' >/dev/null 2>&1 || dlx_need_pkg python3-venv
    if ! command -v python3 >/dev/null 2>&1 ||
      [ ! -f "$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["include"])' 2>/dev/null)/Python.h" ]; then
      dlx_need_pkg python3-dev
    fi
  fi
  dlx_install_needed
  # libFuzzer and the sanitizer runtimes are a separate package for some clang versions.
  local probe
  probe=$(mktemp -d)
  printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' >"$probe/f.c"
  if ! clang -fsanitize=fuzzer,address,undefined "$probe/f.c" -o "$probe/f" >/dev/null 2>&1; then
    local major
    major=$(clang -dumpversion | cut -d. -f1)
    dlx_need_pkg "libclang-rt-$major-dev"
    dlx_install_needed
    clang -fsanitize=fuzzer,address,undefined "$probe/f.c" -o "$probe/f" ||
      { echo "clang cannot link libFuzzer + ASan + UBSan"; rm -rf "$probe"; return 1; }
  fi
  rm -rf "$probe"
  # A full run writes about 8.5 GB here (.venv with torch, the build trees). A disk that fills up half-way
  # shows up much later as a peer that "could not be installed", so say it up front.
  local free_kb
  free_kb=$(df -Pk . | awk 'NR == 2 { print $4 }')
  if [ "${free_kb:-0}" -lt $((10 * 1024 * 1024)) ]; then
    echo "warning: $((free_kb / 1024)) MiB free in $(pwd); a full run writes about 8.5 GB (.venv with torch, the build trees)" >&2
  fi
  echo "cmake $(cmake --version | head -n 1 | awk '{print $3}'), gcc $(gcc -dumpfullversion), clang $(clang -dumpversion), valgrind $(valgrind --version | sed 's/valgrind-//'), pkg-config $(pkg-config --version)"
}

build_and_test() { # <build-dir> <cmake args...>
  local dir=$1
  shift
  cmake -S . -B "$dir" "$@"
  cmake --build "$dir" -j "$JOBS"
  # ctest's oneapi tests run against .venv's dpctl on two OpenCL CPU platforms (exported for this step only)
  # shellcheck source=scripts/oneapi_env.sh
  . scripts/oneapi_env.sh
  dlx_oneapi_env .venv
  (cd "$dir" && ctest -j "$JOBS" --timeout 600)
}

step "dependencies" deps
step "layers: each rule fires on a planted file (scripts/check_layers.sh --self-test)" \
  bash scripts/check_layers.sh --self-test
step "layers (scripts/check_layers.sh)" bash scripts/check_layers.sh
if [ -f pyproject.toml ]; then
  # dpctl and Intel's OpenCL CPU runtime into .venv before the ctest runs (scripts/venv.sh); one that cannot
  # be installed leaves the oneapi tests skipping, with the reason in .venv/dlx-peers-missing.txt
  step "oneAPI runtime for the oneapi tests (dpctl into .venv)" bash -c '. scripts/venv.sh && dlx_venv_oneapi'
  # The Python peers (torch, jax, mpi4py, mypy ...) install in the background while the C steps compile:
  # pip's work from its cache is mostly unpacking, which the compilers' CPU time hides. The Python step
  # waits for it first (its log: build-ci/venv-prefetch.log). DLX_VENV_PREFETCH=0 turns it off.
  if [ "${DLX_VENV_PREFETCH:-1}" != 0 ]; then
    mkdir -p build-ci
    PREFETCH_LOG=$PWD/build-ci/venv-prefetch.log
    PREFETCH_T0=$(date +%s)
    (bash -c '. scripts/venv.sh && dlx_venv_prefetch' >"$PREFETCH_LOG" 2>&1; echo "exit $?" >>"$PREFETCH_LOG") &
    PREFETCH_PID=$!
  fi
fi
# wait_prefetch: the background install above, done. In this shell (a step runs in a subshell, which
# cannot wait for this shell's child). Its failures are not ours to stop on: test_python.sh installs
# whatever is still missing, and records a peer that cannot be installed.
wait_prefetch() {
  [ -n "${PREFETCH_PID:-}" ] || return 0
  local t0
  t0=$(date +%s)
  echo
  echo "================ python peers (the background install, waited for)"
  wait "$PREFETCH_PID" || true
  PREFETCH_PID=
  tail -n 20 "$PREFETCH_LOG"
  SUMMARY+=("ok     $(( $(date +%s) - t0 ))s  python peers: waited for the background install (it ran $(( $(date +%s) - PREFETCH_T0 )) s)")
}
step "gcc build (-Werror) + ctest" build_and_test build-test -DCMAKE_C_COMPILER=gcc -DCMAKE_BUILD_TYPE=Release \
  -DDLX_WERROR=ON
asan_build_and_test() {
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  # The fuzz harnesses too (step 4 runs them) and the Python extension with its test hooks (step 8 runs the
  # Python suite against it): both link this build's library, which compiles once for the three
  # (fuzz/CMakeLists.txt, scripts/test_python_asan.sh's DLX_PYASAN_BUILD).
  local py=()
  if [ -f pyproject.toml ] && [ -x .venv/bin/python ]; then
    py=(-DDLX_BUILD_PYTHON=ON -DDLX_PY_TESTING=ON "-DPython_EXECUTABLE=$PWD/.venv/bin/python")
  fi
  build_and_test build-asan -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDLX_WERROR=ON \
    -DDLX_SANITIZE=address,undefined -DDLX_BUILD_BENCH=OFF -DDLX_BUILD_FUZZ=ON "${py[@]+"${py[@]}"}"
}
step "clang ASan+UBSan build + ctest" asan_build_and_test
# The CUDA module the gcc build made: the Python steps put it into the package instead of compiling the CUDA
# sources again (scripts/venv.sh, scripts/check_pip_build.sh)
if [ -f build-test/libdlx_cuda.so ]; then export DLX_CUDA_MODULE_FILE=$PWD/build-test/libdlx_cuda.so; fi
step "install + find_package/pkg-config consumers" bash scripts/check_install.sh build-test
# The wheel that check is a test build, kept for scripts/test_python.sh to install (DLX_WHEEL): the library
# and the extension compile once for both.
export DLX_WHEEL_KEEP=$PWD/build-ci/wheel
step "pip wheel from a read-only checkout (scripts/check_pip_build.sh)" bash scripts/check_pip_build.sh
DLX_WHEEL=$(ls "$DLX_WHEEL_KEEP"/dlx-*.whl 2>/dev/null | head -n 1 || true)
export DLX_WHEEL
step "fuzz (${FUZZ_SECONDS}s per harness)" env DLX_FUZZ_BUILD=build-asan bash scripts/fuzz.sh "$FUZZ_SECONDS"
if [ -f pyproject.toml ]; then
  if [ -f scripts/test_python.sh ]; then
    wait_prefetch
    step "python (scripts/test_python.sh)" bash scripts/test_python.sh
    step "no abort/exit/assert on library paths (scripts/check_no_abort.sh)" bash scripts/check_no_abort.sh
    step "function lengths counted right (scripts/check_function_length.sh --self-test)" \
      bash scripts/check_function_length.sh --self-test
    step "src/: functions <= 80 lines, files <= 800 (scripts/check_function_length.sh src)" \
      bash scripts/check_function_length.sh src
    step "docs/errors.md current (scripts/gen_errors.sh --check)" bash scripts/gen_errors.sh --check build-test
    pyasan=()
    if grep -q '^DLX_PY_TESTING:BOOL=ON' build-asan/CMakeCache.txt 2>/dev/null; then pyasan=(DLX_PYASAN_BUILD=build-asan); fi
    step "python under ASan + UBSan, leak workload (scripts/test_python_asan.sh)" \
      env "${pyasan[@]+"${pyasan[@]}"}" bash scripts/test_python_asan.sh
  else
    SUMMARY+=("skip       python: pyproject.toml exists but scripts/test_python.sh does not")
  fi
fi
