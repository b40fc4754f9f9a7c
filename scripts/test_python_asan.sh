#!/usr/bin/env bash
# scripts/test_python_asan.sh [pytest args...] - the Python suite against an AddressSanitizer +
# UndefinedBehaviorSanitizer build of the dlx extension, then a leak-checked dlx-only workload.
# Needs .venv from scripts/test_python.sh (numpy, pytest, hypothesis; jax and torch when installed).
#
# How: the extension is built by the project's CMake (DLX_BUILD_PYTHON, DLX_SANITIZE=address,undefined,
# gcc) into build-pyasan/, or taken from the sanitized build DLX_PYASAN_BUILD names (scripts/test.sh: its
# clang one), installed (python component) into build-pyasan/site, put first on PYTHONPATH. CPython
# itself is not instrumented, so the compiler's ASan runtime is preloaded (LD_PRELOAD) to come first, as ASan
# requires; PYTHONMALLOC=malloc routes Python's small objects through malloc so ASan sees them too.
# Subprocess tests inherit all of it. Reports go to files (log_path): pytest captures a test's
# stderr, and a process that ASan stops never gets to show what it captured. Any report file, from
# the pytest process or any child, fails the run.
#
# Leaks: the pytest run has detect_leaks=0. NumPy, JAX and PyTorch keep objects past exit by design
# (NumPy alone leaves ~3 KB unreachable at `import numpy`); those are not CPython's own, and dlx's
# rules allow suppressions only for CPython's. So the leak check runs python/tests/leak_workload.py,
# which imports nothing but dlx, ctypes and the standard library, with detect_leaks=1 and the
# suppression file python/tests/lsan-cpython.supp (CPython's own known leaks, each commented).
#
# Environment: DLX_ASAN_JOBS (compile jobs, default nproc), DLX_PYTEST_JOBS (pytest workers, see
# scripts/venv.sh), DLX_LEAK_ROUNDS (default 100),
# DLX_STRESS_* (test_stress.py sizes; CI keeps the short defaults).
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=scripts/venv.sh
. scripts/venv.sh
VPY=.venv/bin/python
if [ ! -x "$VPY" ]; then
  echo "test_python_asan.sh: no .venv (run scripts/test_python.sh first)" >&2
  exit 2
fi
# the oneAPI tests run here too, against .venv's dpctl (scripts/oneapi_env.sh: OCL_ICD_VENDORS, DLX_DPCTL_LIBRARY)
# shellcheck source=scripts/oneapi_env.sh
. scripts/oneapi_env.sh
dlx_oneapi_env .venv
OUT=build-pyasan
JOBS=${DLX_ASAN_JOBS:-$(nproc 2>/dev/null || echo 2)}

# DLX_PYASAN_BUILD=<dir>: a sanitized build configured before with DLX_BUILD_PYTHON=ON and DLX_PY_TESTING=ON
# (scripts/test.sh: its clang ASan + UBSan build, whose library objects the extension then shares with the C
# tests and the fuzz harnesses); its extension is built there (nothing when it is current) and installed.
# Without it: gcc, like CPython's own build, into $OUT/build.
rm -rf "$OUT"
if [ -n "${DLX_PYASAN_BUILD:-}" ]; then
  BUILD=$DLX_PYASAN_BUILD
  grep -q '^DLX_PY_TESTING:BOOL=ON' "$BUILD/CMakeCache.txt" 2>/dev/null && grep -q '^DLX_SANITIZE:STRING=.*address' "$BUILD/CMakeCache.txt" ||
    { echo "test_python_asan.sh: DLX_PYASAN_BUILD=$BUILD is not a build with DLX_PY_TESTING=ON and DLX_SANITIZE=address,..." >&2; exit 2; }
  CC_ASAN=$(sed -n 's/^CMAKE_C_COMPILER:[A-Z]*=//p' "$BUILD/CMakeCache.txt")
  echo "== the extension of $BUILD ($CC_ASAN), installed into $OUT/site"
else
  BUILD=$OUT/build
  CC_ASAN=gcc
  echo "== building the extension with ASan + UBSan into $OUT/ (jobs: $JOBS)"
fi
mkdir -p "$OUT"
# The sanitizer runtime the extension was built for, preloaded: it must come first in the process
case $(basename "$CC_ASAN") in
  *clang*)
    # clang's ASan runtime carries UBSan's handlers (and no-op defaults for the edge-counter hooks of the
    # fuzz build, CMakeLists.txt)
    RUNTIME=$("$CC_ASAN" -print-file-name="libclang_rt.asan-$(uname -m).so")
    PRELOAD=$RUNTIME ;;
  *)
    RUNTIME=$(gcc -print-file-name=libasan.so)
    LIBUBSAN=$(gcc -print-file-name=libubsan.so)
    [ -e "$LIBUBSAN" ] || { echo "test_python_asan.sh: gcc has no libubsan.so (Debian: libubsan1)" >&2; exit 2; }
    PRELOAD=$RUNTIME:$LIBUBSAN ;;
esac
[ -e "$RUNTIME" ] || { echo "test_python_asan.sh: $CC_ASAN has no ASan runtime $(basename "$RUNTIME") (Debian: libasan8, or clang's libclang-rt-dev)" >&2; exit 2; }

if [ -z "${DLX_PYASAN_BUILD:-}" ]; then
  # the same CMake project pip builds (DLX_BUILD_PYTHON), with DLX_SANITIZE; no CUDA (nvcc takes no
  # sanitizer flags)
  cmake -S . -B "$BUILD" -DCMAKE_C_COMPILER=gcc -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDLX_BUILD_PYTHON=ON \
    -DDLX_PY_TESTING=ON -DDLX_SANITIZE=address,undefined -DDLX_WITH_CUDA=OFF -DDLX_BUILD_TESTS=OFF \
    -DDLX_BUILD_EXAMPLES=OFF -DDLX_BUILD_BENCH=OFF -DPython_EXECUTABLE="$PWD/$VPY" >"$OUT/build.log" 2>&1 || {
    tail -n 40 "$OUT/build.log" >&2
    exit 1
  }
fi
# the python component installs the importable package into $OUT/site
cmake --build "$BUILD" -j "$JOBS" --target dlx_pyext >>"$OUT/build.log" 2>&1 &&
  cmake --install "$BUILD" --component python --prefix "$OUT/site" >>"$OUT/build.log" 2>&1 || {
  tail -n 40 "$OUT/build.log" >&2
  exit 1
}
so=$(ls "$OUT"/site/dlx/_dlx*.so)
# Sanitized: gcc links libasan (ldd shows it); clang leaves the runtime's symbols to the preloaded library.
# (Read into a variable, not piped into grep -q: quitting at the first match would SIGPIPE the writer, a
# failure under pipefail.)
linked=$(ldd "$so"; nm -D --undefined-only "$so")
case $linked in
  *libasan*|*__asan_report_*) ;;
  *) echo "test_python_asan.sh: $so is not built with ASan" >&2; exit 1 ;;
esac

export LD_PRELOAD="$PRELOAD${LD_PRELOAD:+:$LD_PRELOAD}"
export PYTHONPATH="$PWD/$OUT/site${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONMALLOC=malloc
mkdir -p "$OUT/reports"
REPORTS=$PWD/$OUT/reports
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$REPORTS/ubsan"
# detect_leaks=0 here: see the header. The allocator may return NULL so that dlx's own out-of-memory
# paths (a huge dlx.empty) report MemoryError instead of ASan stopping at the request.
ASAN_BASE="allocator_may_return_null=1:strict_string_checks=1:detect_stack_use_after_return=1"
ASAN_BASE="$ASAN_BASE:check_initialization_order=1:log_path=$REPORTS/asan"

# Report files, and report lines in a log (a child whose stderr a test printed).
reports() {
  local f
  for f in "$REPORTS"/*; do [ -e "$f" ] && { echo "== $f"; head -n 60 "$f"; }; done
  grep -E "ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error:|SUMMARY: (Address|Undefined|Leak)" "$1" || true
}

# A fifth of each property test's examples (python/tests/conftest.py): this run looks for what the C code
# does with memory on the paths the tests reach; the plain run (test_python.sh) keeps the full counts.
export DLX_HYPOTHESIS_SCALE=${DLX_HYPOTHESIS_SCALE:-0.2}
# Two files reach no C path the others do not: test_stubs.py runs mypy's stubtest over the type stubs (pure
# Python, and with every allocation through ASan's malloc the slowest file here), test_bench_ufuncs.py the
# benchmark script's short mode (the same ufunc calls test_ufuncs.py makes). The plain run keeps both.
# test_check_peers.py runs `dlx check` on NumPy, PyTorch, JAX and dpctl: their code, in worker processes that
# each import the framework again (with every allocation through ASan's malloc, minutes each); dlx's own side
# of the checker is what test_check_producer.py, test_check_consumer.py and test_check_isolation.py run here.
ASAN_SKIP=(--ignore=python/tests/test_stubs.py --ignore=python/tests/test_bench_ufuncs.py
  --ignore=python/tests/test_check_peers.py)
# The checker's tests crash targets on purpose (a producer that segfaults, a consumer handed a NULL shape)
# in its worker processes, and look for the signal: ASan must not turn a SIGSEGV, SIGBUS or SIGFPE into its
# own report and exit status 1 there. A real fault in dlx still kills the test process, which fails the test;
# the memory errors ASan exists for (overflows, use after free) are reported as before.
ASAN_PYTEST="handle_segv=0:handle_sigbus=0:handle_sigfpe=0"
echo "== pytest under ASan + UBSan (module: $so; hypothesis examples x$DLX_HYPOTHESIS_SCALE)"
log=$OUT/pytest.log
set +e
# shellcheck disable=SC2046 # the jobs flag is two words or none; each worker is a sanitized process
ASAN_OPTIONS="$ASAN_BASE:$ASAN_PYTEST:detect_leaks=0" "$VPY" -m pytest python/tests -q -rs -p no:cacheprovider "${ASAN_SKIP[@]}" $(dlx_pytest_jobs) "$@" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
set -e
found=$(reports "$log")
if ! grep -q "dlx module: $PWD/$OUT/site/dlx" "$log"; then
  echo "test_python_asan.sh: pytest did not load the sanitized module" >&2
  exit 1
fi
if [ "$rc" -ne 0 ] || [ -n "$found" ]; then
  echo "$found" | head -n 20 >&2
  echo "test_python_asan.sh: pytest exit $rc under sanitizers" >&2
  exit 1
fi

echo "== leak-checked workload (LeakSanitizer, dlx and the standard library only)"
log=$OUT/leak.log
set +e
ASAN_OPTIONS="$ASAN_BASE:detect_leaks=1:fast_unwind_on_malloc=0" \
  LSAN_OPTIONS="suppressions=$PWD/python/tests/lsan-cpython.supp:print_suppressions=1" \
  "$VPY" python/tests/leak_workload.py "${DLX_LEAK_ROUNDS:-100}" >"$log" 2>&1
rc=$?
set -e
cat "$log"
found=$(reports "$log")
if [ "$rc" -ne 0 ] || [ -n "$found" ]; then
  echo "test_python_asan.sh: leak workload exit $rc" >&2
  exit 1
fi
echo "sanitizers: 0 reports (pytest under ASan + UBSan, leak workload under LeakSanitizer)"
