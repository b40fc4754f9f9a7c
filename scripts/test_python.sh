#!/usr/bin/env bash
# Build the dlx Python module into .venv and run its test suite, then the example C extension's
# tests and the `python -m dlx` smoke run. Works on a fresh machine: only python3 (>= 3.9) and a C
# compiler are needed; everything else comes from PyPI, the real peers included (PyTorch, mpi4py, mypy:
# scripts/venv.sh's dlx_venv_test_peers; one that cannot be installed is reported with its reason).
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=scripts/venv.sh
. scripts/venv.sh
dlx_venv_setup
dlx_venv_test_peers
# the oneAPI tests' SYCL devices and dpctl library (OCL_ICD_VENDORS, DLX_DPCTL_LIBRARY)
# shellcheck source=scripts/oneapi_env.sh
. scripts/oneapi_env.sh
dlx_oneapi_env .venv

if [ -d examples/python_ext ]; then
  echo "== building the example extension (examples/python_ext)"
  # The example asks the installed dlx for its headers, so it builds without isolation. It is built
  # from a scratch copy: setuptools writes build/ and *.egg-info into the source tree otherwise.
  ext_tmp="$(mktemp -d)"
  trap 'rm -rf "$ext_tmp"' EXIT
  cp -R examples/python_ext "$ext_tmp/"
  rm -rf "$ext_tmp/python_ext/build" "$ext_tmp/python_ext/"*.egg-info
  "$VPY" -m pip install -q --force-reinstall --no-deps --no-build-isolation "$ext_tmp/python_ext"
fi

echo "== python tests"
# shellcheck disable=SC2046 # the jobs flag is two words or none
"$VPY" -m pytest python/tests -q -rs $(dlx_pytest_jobs) "$@"

# docs/conformance.md: `python -m dlx check` against NumPy, PyTorch, JAX, dpctl and dlx, both ways; fails
# when the doc is not what the peers do now (a new failure, a fixed one, another version)
echo "== docs/conformance.md current (scripts/gen_conformance.py --check)"
"$VPY" scripts/gen_conformance.py --check

# NumPy 1.x as a peer of the ndarray import path (a second venv; skipped with pip's reason if it cannot be made)
bash scripts/test_numpy1.sh

echo "== python -m dlx (smoke)"
"$VPY" -m dlx
