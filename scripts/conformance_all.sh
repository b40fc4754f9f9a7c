#!/usr/bin/env bash
# scripts/conformance_all.sh - docs/conformance.md with all thirteen frameworks, both roles: NumPy, PyTorch,
# JAX, dpctl and dlx (the peers of CI's venv) and the heavy ones, which CI does not install: TensorFlow
# (tensorflow-cpu, about 1.4 GB), PaddlePaddle (about 770 MB), MLX (mlx[cpu]), apache-tvm-ffi,
# array-api-strict, pyarrow, warp-lang and ndonnx. Not run by CI (an hour of installs and checks on two
# cores); run it by hand when a peer or a check changes, and commit the doc.
#
#   scripts/conformance_all.sh            install (or reuse) the venv, rewrite docs/conformance.md
#   scripts/conformance_all.sh --check    the same venv, but only compare with the doc (exit 1 if it differs)
#
#   DLX_PEERS_VENV   the venv (default .venv-peers under the checkout, ignored by git)
#   DLX_TORCH_INDEX  the index of PyTorch's CPU wheels, tried first (default PyTorch's own); PyPI's wheel
#                    (which carries the CUDA libraries: about 4 GB more) is the fallback
#   PYTHON           the interpreter the venv is made from (default python3, >= 3.10 for every peer)
#   DLX_CHECK_TIMEOUT  the checker's per-case time limit in seconds (default 120, scripts/gen_conformance.py)
#
# Every install is `nice`d and goes through pip's cache. A peer that cannot be installed is written with
# pip's reason to $DLX_PEERS_VENV/dlx-peers-missing.txt; the doc then says "not checked" with that reason for
# it (a peer the doc already has keeps its recorded results, reported as not compared). The versions
# installed are printed and written to $DLX_PEERS_VENV/dlx-peers-versions.txt; the doc records each one.
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=${DLX_PEERS_VENV:-.venv-peers}
TORCH_INDEX=${DLX_TORCH_INDEX:-https://download.pytorch.org/whl/cpu}
MISSING=$VENV/dlx-peers-missing.txt

if [ ! -x "$VENV/bin/python" ]; then
  echo "== creating $VENV"
  "${PYTHON:-python3}" -m venv "$VENV"
fi
VPY=$VENV/bin/python
PIP=(nice -n 10 "$VPY" -m pip install -q)
rm -f "$MISSING"

# peer <module> <pip spec...>: install unless importable; on failure record the last line pip printed.
peer() {
  local mod=$1 log why
  shift
  if "$VPY" -c "import $mod" >/dev/null 2>&1; then return 0; fi
  echo "== installing $* into $VENV"
  log=$(mktemp)
  if "${PIP[@]}" "$@" >"$log" 2>&1 && "$VPY" -c "import $mod" >>"$log" 2>&1; then
    rm -f "$log"
    return 0
  fi
  why=$(awk 'NF { last = $0 } END { gsub(/\t/, " ", last); print last }' "$log")
  echo "   could not install $*: ${why:-pip printed no reason}"
  printf '%s\t%s\n' "${mod%%.*}" "pip install $* failed: ${why:-pip printed no reason}" >>"$MISSING"
  rm -f "$log"
}

"${PIP[@]}" --upgrade pip
# dlx's own run-time needs (scipy-openblas32: the CBLAS dlx.matmul loads) and the checker's dtypes
"${PIP[@]}" "numpy>=2" ml_dtypes scipy-openblas32

# PyTorch: the CPU wheel from PyTorch's index when it can be reached, else PyPI's
if ! "$VPY" -c "import torch" >/dev/null 2>&1; then
  echo "== installing torch (CPU wheel) into $VENV"
  "${PIP[@]}" torch --index-url "$TORCH_INDEX" >/dev/null 2>&1 || echo "   (no CPU wheel from $TORCH_INDEX: PyPI's)"
fi
peer torch torch
peer jax "jax[cpu]"
# dpctl pins the SYCL runtime it was built against (as scripts/venv.sh does)
peer dpctl "dpctl==0.21.1" "intel-opencl-rt==2025.3.3"
peer tensorflow tensorflow-cpu
peer paddle paddlepaddle
peer mlx.core "mlx[cpu]"
peer tvm_ffi apache-tvm-ffi
peer array_api_strict array-api-strict
peer pyarrow pyarrow
peer warp warp-lang
peer ndonnx ndonnx

echo "== building and installing dlx into $VENV (CPU only)"
# build-peers/ keeps the build between runs (ignored by git, as every build*/ is)
"${PIP[@]}" --force-reinstall --no-deps -C cmake.define.DLX_WITH_CUDA=OFF -C build-dir=build-peers .

echo "== versions"
"$VPY" - "$VENV/dlx-peers-versions.txt" <<'EOF'
import importlib.metadata as md, sys
names = ["numpy", "torch", "jax", "jaxlib", "dpctl", "tensorflow-cpu", "paddlepaddle", "mlx", "apache-tvm-ffi",
         "array-api-strict", "pyarrow", "warp-lang", "ndonnx", "dlx"]
lines = []
for n in names:
    try:
        lines.append(f"{n} {md.version(n)}")
    except md.PackageNotFoundError:
        lines.append(f"{n} (not installed)")
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
print("\n".join("   " + x for x in lines))
EOF

# dpctl's SYCL devices (OCL_ICD_VENDORS, DLX_DPCTL_LIBRARY), as CI has them
# shellcheck source=scripts/oneapi_env.sh
. scripts/oneapi_env.sh
dlx_oneapi_env "$VENV"

echo "== docs/conformance.md (scripts/gen_conformance.py $*)"
DLX_PEERS_MISSING=$MISSING nice -n 10 "$VPY" scripts/gen_conformance.py "$@"
