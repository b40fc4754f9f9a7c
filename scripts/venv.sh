# scripts/venv.sh - sourced by test_python.sh and demo.sh: make (or reuse) .venv with the module's
# runtime peers (NumPy 2.x, ml_dtypes, JAX on CPU) and the test tools, and install dlx into it.
# Needs only python3 >= 3.9 with venv and a C compiler; everything else comes from PyPI.
#   dlx_venv_setup       the peers `python -m dlx` shows and dlx itself (demo.sh, test_python.sh); with
#                        DLX_WHEEL a wheel of a test build made before is installed rather than built; with
#                        DLX_CUDA_MODULE_FILE a libdlx_cuda.so built before goes into the package instead of
#                        compiling the CUDA sources again, and DLX_PY_CUDA=OFF builds without CUDA
#   dlx_venv_oneapi      only dpctl and Intel's OpenCL CPU runtime, into .venv (made if missing): test.sh
#                        runs it before its ctest runs, whose oneapi tests use them (scripts/oneapi_env.sh)
#   dlx_venv_test_peers  the heavier real peers of the test suite: PyTorch (the PyPI wheel, used on the
#                        CPU), mpi4py (needs Open MPI: test.sh installs libopenmpi-dev), mypy (stubtest),
#                        dpctl with Intel's OpenCL CPU runtime (oneAPI tests; scripts/oneapi_env.sh sets
#                        up its devices)
# A peer that cannot be installed is written with pip's reason to .venv/dlx-peers-missing.txt;
# python/tests/conftest.py reports it, and the tests that need it skip with that reason.
dlx_venv_create() {
  local py="${PYTHON:-python3}"
  if [ ! -x .venv/bin/python ]; then
    echo "== creating .venv"
    "$py" -m venv .venv
  fi
  VPY=.venv/bin/python
}

# dlx_venv_tools: the test tools and the light peers (quick when they are there already)
dlx_venv_tools() {
  dlx_venv_create
  echo "== installing the peers and test tools into .venv"
  "$VPY" -m pip install -q --upgrade pip
  # scipy-openblas32: dlx's run-time dependency (the CBLAS dlx.matmul loads), installed here because dlx
  # itself is installed with --no-deps
  # gmpy2: MPFR, the oracle of python/tests/test_math.py
  "$VPY" -m pip install -q pytest pytest-xdist hypothesis gmpy2 "numpy>=2" ml_dtypes "jax[cpu]" scipy-openblas32
}

# dlx_venv_prefetch: what dlx_venv_setup and dlx_venv_test_peers install, but dlx itself. scripts/test.sh
# runs it in the background while the C builds compile: installing torch's 4 GB from pip's cache is
# unpacking (disk), which overlaps the compilers' CPU time; the Python step then finds it all in place.
dlx_venv_prefetch() {
  dlx_venv_tools
  dlx_venv_test_peers
}

dlx_venv_setup() {
  dlx_venv_tools
  if [ -n "${DLX_WHEEL:-}" ] && [ -f "$DLX_WHEEL" ]; then
    # a test build made before (scripts/test.sh: the wheel scripts/check_pip_build.sh built and checked)
    echo "== installing dlx into .venv from $DLX_WHEEL (a test build: it has dlx._testing)"
    "$VPY" -m pip install -q --force-reinstall --no-deps "$DLX_WHEEL"
    return
  fi
  echo "== building and installing dlx into .venv (a test build: DLX_PY_TESTING=1 adds dlx._testing)"
  local cuda=()
  if [ -n "${DLX_CUDA_MODULE_FILE:-}" ] && [ -f "$DLX_CUDA_MODULE_FILE" ]; then
    # the CUDA module a C build made already goes into the package: the CUDA sources compile once
    echo "   (CUDA module from $DLX_CUDA_MODULE_FILE, not compiled again)"
    cuda=(-C cmake.define.DLX_WITH_CUDA=OFF -C "cmake.define.DLX_CUDA_MODULE_FILE=$DLX_CUDA_MODULE_FILE")
  elif [ "${DLX_PY_CUDA:-AUTO}" = OFF ]; then
    cuda=(-C cmake.define.DLX_WITH_CUDA=OFF)
  fi
  DLX_PY_TESTING=1 "$VPY" -m pip install -q --force-reinstall --no-deps "${cuda[@]+"${cuda[@]}"}" .
}

# dlx_pytest_jobs: pytest-xdist's worker flag for the Python suites: DLX_PYTEST_JOBS workers, by default
# the CPU count up to 4 (the suite is a few thousand short tests, so it scales with processes; more than 4
# mostly adds start-up); nothing (one process) for 1 or 0, or where pytest-xdist is missing.
dlx_pytest_jobs() {
  local n=${DLX_PYTEST_JOBS:-}
  if [ -z "$n" ]; then
    n=$(nproc 2>/dev/null || echo 1)
    [ "$n" -le 4 ] || n=4
  fi
  if [ "$n" -gt 1 ] && "$VPY" -c "import xdist" >/dev/null 2>&1; then echo "-n $n"; fi
}

# dlx_venv_peer <module> <pip spec...>: install unless importable; on failure record why.
dlx_venv_peer() {
  local mod=$1 log why
  shift
  if "$VPY" -c "import $mod" >/dev/null 2>&1; then return 0; fi
  echo "== installing $* into .venv"
  log=$(mktemp)
  if "$VPY" -m pip install -q "$@" >"$log" 2>&1 && "$VPY" -c "import $mod" >>"$log" 2>&1; then
    rm -f "$log"
    return 0
  fi
  # the last non-blank line holds the reason (pip's output can end blank: it did when a full disk stopped it)
  why=$(awk 'NF { last = $0 } END { gsub(/\t/, " ", last); print last }' "$log")
  echo "   could not install $*: ${why:-pip printed no reason}"
  printf '%s\t%s\n' "$mod" "pip install $* failed: ${why:-pip printed no reason}" >>.venv/dlx-peers-missing.txt
  rm -f "$log"
}

# dpctl pins the SYCL runtime it was built against; intel-opencl-rt is the OpenCL CPU device SYCL runs on
dlx_venv_oneapi_peer() {
  dlx_venv_peer dpctl "dpctl==0.21.1" "intel-opencl-rt==2025.3.3"
}

dlx_venv_oneapi() {
  dlx_venv_create
  dlx_venv_oneapi_peer
}

dlx_venv_test_peers() {
  rm -f .venv/dlx-peers-missing.txt
  dlx_venv_peer torch torch
  dlx_venv_peer mpi4py mpi4py
  dlx_venv_peer mypy mypy
  dlx_venv_oneapi_peer
}
