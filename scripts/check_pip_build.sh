#!/usr/bin/env bash
# scripts/check_pip_build.sh - `pip install .` must work from a read-only checkout and leave the tree as it
# was (no build/, *.egg-info or generated file in the source). Builds a wheel of the tree with pip, as an
# unprivileged user who cannot write to the checkout when this runs as root (the checkout is then really
# read-only to the build), else as the current user; then compares `git status --ignored` before and
# after, and imports the wheel in a scratch venv, where dlx.matmul must match NumPy (the CBLAS the wheel loads
# at run time: scipy-openblas32's, a dependency). The wheel must link nothing but libc's family (no BLAS, no
# CUDA file), and `auditwheel show` must find it consistent with a manylinux tag. With DLX_CUDA_MODULE_FILE
# (scripts/test.sh: the gcc build's libdlx_cuda.so) the wheel carries that CUDA module instead of compiling
# the CUDA sources again, and dlx.cuda.is_built() must say so; without it, a CPU-only wheel.
# DLX_WHEEL_KEEP=<dir> (scripts/test.sh): the wheel is a test build (DLX_PY_TESTING=1 compiles dlx._testing
# into the extension, the one difference from a user's wheel) and is copied to <dir>, where
# scripts/test_python.sh installs it (DLX_WHEEL) instead of compiling the same sources a second time.
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
cuda=(--config-settings=cmake.define.DLX_WITH_CUDA=OFF)
if [ -n "${DLX_CUDA_MODULE_FILE:-}" ] && [ -f "$DLX_CUDA_MODULE_FILE" ]; then
  cp "$DLX_CUDA_MODULE_FILE" "$work/libdlx_cuda.so" && chmod 644 "$work/libdlx_cuda.so"
  cuda+=(--config-settings="cmake.define.DLX_CUDA_MODULE_FILE=$work/libdlx_cuda.so")
  echo "   with the CUDA module built before ($DLX_CUDA_MODULE_FILE)"
fi
testing=()
if [ -n "${DLX_WHEEL_KEEP:-}" ]; then
  testing=(env DLX_PY_TESTING=1)
  echo "   a test build (DLX_PY_TESTING=1), kept in $DLX_WHEEL_KEEP for scripts/test_python.sh"
fi
"${as_user[@]+"${as_user[@]}"}" "${testing[@]+"${testing[@]}"}" "$PY" -m pip wheel -q --no-deps -w "$work/wheel" \
  "${cuda[@]}" "$ROOT"
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

# What the wheel's extension and module load: libc's family only (BLAS and CUDA are loaded at run time).
# (ldd's output is read once into a variable, not piped into `grep -q`: grep -q exits at its first match, ldd
# may then die of SIGPIPE, and under pipefail that failed a check once in CI.)
pkg=$("$work/venv/bin/python" -c 'import dlx, os; print(os.path.dirname(dlx.__file__))')
for so in "$pkg"/_dlx*.so "$pkg"/libdlx_cuda.so; do
  [ -f "$so" ] || continue
  libs=$(ldd "$so")
  extra=$(printf '%s\n' "$libs" | awk '{print $1}' |
    grep -vE '^(linux-vdso\.so|/lib.*/ld-linux|lib(c|m|dl|rt|pthread|gcc_s)\.so)' || true)
  [ -z "$extra" ] || { printf 'check_pip_build.sh: %s links more than libc:\n%s\n' "$so" "$libs" >&2; exit 1; }
  echo "$(basename "$so") links libc's family only"
done
built=$("$work/venv/bin/python" -c 'import dlx; print(int(dlx.cuda.is_built()))')
if [ ${#cuda[@]} -gt 1 ]; then
  [ "$built" = 1 ] && [ -f "$pkg/libdlx_cuda.so" ] ||
    { echo "check_pip_build.sh: the wheel should carry the CUDA module (dlx.cuda.is_built() is $built)" >&2; exit 1; }
  echo "the CUDA module is in the wheel and loads (dlx.cuda.is_built() is True, $("$work/venv/bin/python" -c 'import dlx; print(dlx.cuda.device_count())') device(s))"
else
  [ "$built" = 0 ] || { echo "check_pip_build.sh: a CPU-only wheel says dlx.cuda.is_built()" >&2; exit 1; }
fi
# auditwheel: the platform tag the wheel is consistent with
"$work/venv/bin/python" -m pip install -q auditwheel
show=$("$work/venv/bin/python" -m auditwheel show "$work"/wheel/dlx-*.whl 2>&1) || true
printf '%s\n' "$show" | sed 's/^/   /'
if [[ ! $show =~ (manylinux_[0-9]+_[0-9]+_[a-z0-9_]+) ]]; then
  echo "check_pip_build.sh: auditwheel show reports no manylinux tag for the wheel" >&2
  exit 1
fi
echo "auditwheel: consistent with ${BASH_REMATCH[1]}"
if [ -n "${DLX_WHEEL_KEEP:-}" ]; then
  "$work/venv/bin/python" -c 'import dlx; assert hasattr(dlx, "_testing")' ||
    { echo "check_pip_build.sh: the test build has no dlx._testing" >&2; exit 1; }
  mkdir -p "$DLX_WHEEL_KEEP"
  rm -f "$DLX_WHEEL_KEEP"/dlx-*.whl
  cp "$work"/wheel/dlx-*.whl "$DLX_WHEEL_KEEP"/
  echo "kept $(basename "$work"/wheel/dlx-*.whl) in $DLX_WHEEL_KEEP"
fi
