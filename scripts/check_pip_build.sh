#!/usr/bin/env bash
# scripts/check_pip_build.sh - `pip install .` must work from a read-only checkout and leave the tree as it
# was (no build/, *.egg-info or generated file in the source). Builds a wheel of the tree with pip, as an
# unprivileged user who cannot write to the checkout when this runs as root (the checkout is then really
# read-only to the build), else as the current user; then compares `git status --ignored` before and
# after, and imports the wheel in a scratch venv.
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
"$work/venv/bin/python" -c 'import dlx; t = dlx.zeros((2, 3)); assert t.shape == (2, 3); print("wheel", dlx.__version__, "imports and runs:", t)'
