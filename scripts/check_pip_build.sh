#!/usr/bin/env bash
# scripts/check_pip_build.sh - `pip install .` must work from a read-only checkout and leave the tree as it
# was (no build/, *.egg-info or generated file in the source). Builds a wheel of the tree with pip, as an
# unprivileged user who cannot write to the checkout when this runs as root (the checkout is then really
# read-only to the build), else as the current user; then compares `git status --ignored` before and
# after, and imports the wheel in a scratch venv, where dlx.matmul must match NumPy. Then the same with
# DLX_SYSTEM_BLAS=OFF, the path of a machine without a system CBLAS: the wheel must link scipy-openblas32.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PY=${PYTHON:-python3}
work=$(mktemp -d)
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT
before=$(git status --porcelain --ignored)

as_user=()
if [ "$(id -u)" -eq 0 ] && id nobody >/dev/null 2>&1 && command -v runuser >/dev/null 2>&1 &&
  runuser -u nobody -- test ! -w "$ROOT"; then
  # nobody needs a Python it may run (pyenv's may live under /root) with pip
  for cand in /usr/bin/python3 "$(command -v "$PY")"; do
    if [ -x "$cand" ] && runuser -u nobody -- "$cand" -m pip --version >/dev/null 2>&1; then
      as_user=(runuser -u nobody -- env HOME="$work/home" PIP_CACHE_DIR="$work/cache")
      PY=$cand
      break
    fi
  done
fi
mkdir -p "$work/home" "$work/wheel" "$work/cache" && chmod 777 "$work/home" "$work/wheel" "$work/cache"
if [ ${#as_user[@]} -gt 0 ]; then
  echo "== pip wheel of the checkout as nobody, to whom it is read-only ($PY)"
else
  echo "== pip wheel of the checkout as $(id -un) (no unprivileged user to make it read-only)"
fi
"${as_user[@]+"${as_user[@]}"}" "$PY" -m pip wheel -q --no-deps -w "$work/wheel" "$ROOT"
after=$(git status --porcelain --ignored)
if [ "$before" != "$after" ]; then
  echo "check_pip_build.sh: building the wheel changed the checkout:" >&2
  diff <(echo "$before") <(echo "$after") >&2 || true
  exit 1
fi
echo "the checkout is untouched"
"$PY" -m venv "$work/venv"
"$work/venv/bin/python" -m pip install -q "$work"/wheel/dlx-*.whl
# matmul checks the BLAS the wheel carries (numpy comes with it for the reference)
MATMUL_CHECK='
import numpy as np, dlx
a = np.arange(12, dtype=np.float64).reshape(3, 4); b = np.arange(8, dtype=np.float64).reshape(4, 2)
assert np.array_equal(np.from_dlpack(dlx.matmul(dlx.asarray(a), dlx.asarray(b))), a @ b)
print("wheel", dlx.__version__, "imports; matmul matches NumPy")'
"$work/venv/bin/python" -m pip install -q numpy
"$work/venv/bin/python" -c "$MATMUL_CHECK"

# The other BLAS path: a machine without the system's CBLAS, where the wheel links the OpenBLAS of the
# scipy-openblas32 wheel (a dependency in pyproject.toml) and finds it beside itself at run time.
# (CUDA off: this build is about BLAS, and the CUDA build takes a minute more.)
echo "== pip wheel without the system's CBLAS (DLX_SYSTEM_BLAS=OFF: scipy-openblas32)"
rm -f "$work"/wheel/dlx-*.whl
"${as_user[@]+"${as_user[@]}"}" "$PY" -m pip wheel -q --no-deps -w "$work/wheel" \
  --config-settings=cmake.define.DLX_SYSTEM_BLAS=OFF --config-settings=cmake.define.DLX_WITH_CUDA=OFF "$ROOT"
[ "$before" = "$(git status --porcelain --ignored)" ] || { echo "check_pip_build.sh: the second build changed the checkout" >&2; exit 1; }
"$work/venv/bin/python" -m pip install -q --force-reinstall "$work"/wheel/dlx-*.whl
ext=$("$work/venv/bin/python" -c 'import dlx._dlx as m; print(m.__file__)')
# ldd's output is read once into a variable and matched there, not piped into `grep -q`: grep -q exits at
# its first match, ldd may then die of SIGPIPE, and under pipefail that failed the check (once, in CI) on a
# wheel that does link scipy-openblas32.
libs=$(ldd "$ext")
if [[ ! $libs =~ libscipy_openblas[^[:space:]]* ]]; then
  printf 'check_pip_build.sh: the DLX_SYSTEM_BLAS=OFF wheel does not link scipy-openblas32:\n%s\n' "$libs" >&2
  exit 1
fi
echo "links ${BASH_REMATCH[0]}"
"$work/venv/bin/python" -c "$MATMUL_CHECK"
