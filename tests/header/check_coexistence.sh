#!/usr/bin/env bash
# tests/header/check_coexistence.sh <cc> [cache-dir]
#
# Checks that <dlx/dlpack.h> lives with an official DLPack header in one translation unit:
#   1. official 1.x header first, then dlx        -> compiles (C and C++)
#   2. dlx first, then the official 1.x header    -> compiles (C and C++)
#   3. official 0.6 header first, then dlx        -> fails with dlx's "pre-1.0" #error
#   4. dlx first, then the 0.6 header             -> compiles (dlx claims the include guard)
#   5. include/dlx/dlx.h alone as C++             -> g++ -fsyntax-only, C++11 and C++17
# No official header is committed to this repository. They are fetched at test time into the cache
# directory (the second argument; CTest passes <build>/dlpack-headers; default: a folder under $TMPDIR):
#   - DLPack 1.3 from the PyPI wheel apache-tvm-ffi (tvm_ffi/include/dlpack/dlpack.h), via pip download;
#   - DLPack 0.6 from Debian's libdlpack-dev, via apt-get download (no root needed, no install).
# Overrides: DLX_OFFICIAL_DLPACK_DIR / DLX_OLD_DLPACK_DIR name an include root holding dlpack/dlpack.h;
# DLX_DLPACK_CACHE_DIR replaces the cache directory (shared by several build dirs).
# Exit status: 0 pass, 1 fail, 77 skip (neither header obtainable, e.g. no network).
set -uo pipefail

if [ $# -lt 1 ]; then
  echo "usage: $0 <cc> [cache-dir]" >&2
  exit 2
fi
CC_BIN=$1
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
CACHE=${DLX_DLPACK_CACHE_DIR:-${2:-${TMPDIR:-/tmp}/dlx-dlpack-headers-$(id -u)}}
mkdir -p "$CACHE"
CACHE=$(cd "$CACHE" && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/dlx-coexist.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

failures=0
notes=()
pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; failures=$((failures + 1)); }

# ---- fetch the official 1.x header -------------------------------------------------------------
official_dir=""
official_why=""
pip_download() { # pip download into $1; plain first, then any manylinux wheel (the header is the same)
  local dest=$1 py=()
  if command -v python3 >/dev/null 2>&1 && python3 -m pip --version >/dev/null 2>&1; then
    py=(python3 -m pip)
  elif command -v python3 >/dev/null 2>&1; then
    # Debian's python3 has no pip module; a throwaway venv brings one (needs python3-venv).
    if [ ! -x "$CACHE/venv/bin/pip" ]; then
      python3 -m venv "$CACHE/venv" >"$WORK/venv.log" 2>&1 || return 1
    fi
    py=("$CACHE/venv/bin/pip")
  else
    return 1
  fi
  "${py[@]}" download --disable-pip-version-check -q --timeout 15 --retries 1 --no-deps --only-binary=:all: -d "$dest" \
    apache-tvm-ffi >"$WORK/pip.log" 2>&1 ||
    "${py[@]}" download --disable-pip-version-check -q --timeout 15 --retries 1 --no-deps --only-binary=:all: -d "$dest" \
      --platform manylinux_2_28_x86_64 --python-version 3.12 --implementation cp apache-tvm-ffi \
      >>"$WORK/pip.log" 2>&1
}
if [ -n "${DLX_OFFICIAL_DLPACK_DIR:-}" ]; then
  official_dir=$DLX_OFFICIAL_DLPACK_DIR
  [ -f "$official_dir/dlpack/dlpack.h" ] || { official_why="DLX_OFFICIAL_DLPACK_DIR has no dlpack/dlpack.h"; official_dir=""; }
elif [ -f "$CACHE/official/dlpack/dlpack.h" ]; then
  official_dir=$CACHE/official
else
  rm -rf "$CACHE/wheel"
  if pip_download "$CACHE/wheel"; then
    whl=$(ls "$CACHE"/wheel/*.whl 2>/dev/null | head -n 1)
    if [ -n "$whl" ] && command -v python3 >/dev/null 2>&1; then
      # A wheel is a zip; Python's zipfile avoids needing unzip.
      python3 - "$whl" "$CACHE/official/dlpack/dlpack.h" <<'PY' && official_dir=$CACHE/official
import sys, zipfile, os
whl, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(whl) as z:
    names = [n for n in z.namelist() if n.endswith("include/dlpack/dlpack.h")]
    if not names:
        sys.exit("no include/dlpack/dlpack.h in " + whl)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "wb") as f:
        f.write(z.read(names[0]))
PY
      [ -n "$official_dir" ] || official_why="the apache-tvm-ffi wheel has no include/dlpack/dlpack.h"
    else
      official_why="pip download produced no wheel"
    fi
  else
    official_why="pip download apache-tvm-ffi failed: $(tail -n 1 "$WORK/pip.log" 2>/dev/null || echo 'no python3/pip')"
  fi
fi
if [ -n "$official_dir" ]; then
  ver=$(printf '#include <dlpack/dlpack.h>\nDLPACK_MAJOR_VERSION.DLPACK_MINOR_VERSION\n' |
    "$CC_BIN" -E -P -I"$official_dir" -x c - 2>/dev/null | tail -n 1 | tr -d ' ')
  case $ver in
    1.*) echo "official DLPack header $ver: $official_dir/dlpack/dlpack.h" ;;
    *) official_why="$official_dir/dlpack/dlpack.h is not a DLPack 1.x header (version '$ver')"; official_dir="" ;;
  esac
fi

# ---- fetch the pre-1.0 header --------------------------------------------------------------------
old_dir=""
old_why=""
if [ -n "${DLX_OLD_DLPACK_DIR:-}" ]; then
  old_dir=$DLX_OLD_DLPACK_DIR
  [ -f "$old_dir/dlpack/dlpack.h" ] || { old_why="DLX_OLD_DLPACK_DIR has no dlpack/dlpack.h"; old_dir=""; }
elif [ -f "$CACHE/old/usr/include/dlpack/dlpack.h" ]; then
  old_dir=$CACHE/old/usr/include
elif command -v apt-get >/dev/null 2>&1 && command -v dpkg-deb >/dev/null 2>&1; then
  mkdir -p "$CACHE/deb"
  rm -f "$CACHE"/deb/libdlpack-dev_*.deb
  if (cd "$CACHE/deb" && apt-get download libdlpack-dev) >"$WORK/apt.log" 2>&1 &&
    deb=$(ls "$CACHE"/deb/libdlpack-dev_*.deb 2>/dev/null | head -n 1) && [ -n "$deb" ] &&
    dpkg-deb -x "$deb" "$CACHE/old" && [ -f "$CACHE/old/usr/include/dlpack/dlpack.h" ]; then
    old_dir=$CACHE/old/usr/include
  else
    old_why="apt-get download libdlpack-dev failed: $(grep -E '^(E|W):' "$WORK/apt.log" | grep -v unsandboxed | tail -n 1)"
  fi
else
  old_why="no apt-get/dpkg-deb on this system"
fi
if [ -n "$old_dir" ]; then
  if grep -q 'define DLPACK_MAJOR_VERSION' "$old_dir/dlpack/dlpack.h"; then
    old_why="$old_dir/dlpack/dlpack.h is not a pre-1.0 header"
    old_dir=""
  else
    echo "pre-1.0 DLPack header: $old_dir/dlpack/dlpack.h ($(grep -m1 -E 'define DLPACK_VERSION ' "$old_dir/dlpack/dlpack.h" | sed 's/^#define //'))"
  fi
fi

if [ -z "$official_dir" ] && [ -z "$old_dir" ]; then
  echo "SKIP: no official DLPack header available."
  echo "  1.x: $official_why"
  echo "  0.6: $old_why"
  echo "  (set DLX_OFFICIAL_DLPACK_DIR / DLX_OLD_DLPACK_DIR to include roots holding dlpack/dlpack.h)"
  exit 77
fi

# ---- compile ------------------------------------------------------------------------------------
CFLAGS_COMMON=(-std=c11 -Wall -Wextra -Werror -Wmissing-prototypes -Wstrict-prototypes -I"$ROOT/include" -I"$HERE")
# The C++ compiler that goes with <cc> (clang -> clang++, gcc-12 -> g++-12), else $CXX, else g++.
cc_dir=$(dirname "$CC_BIN")
case $CC_BIN in */*) cc_dir="$cc_dir/" ;; *) cc_dir="" ;; esac
case $(basename "$CC_BIN") in
  *clang*) CXX_BIN=${CXX:-$cc_dir$(basename "$CC_BIN" | sed 's/clang/clang++/')} ;;
  *gcc*) CXX_BIN=${CXX:-$cc_dir$(basename "$CC_BIN" | sed 's/gcc/g++/')} ;;
  *) CXX_BIN=${CXX:-g++} ;;
esac
command -v "$CXX_BIN" >/dev/null 2>&1 || CXX_BIN=g++
command -v "$CXX_BIN" >/dev/null 2>&1 || CXX_BIN=""
CXXFLAGS_COMMON=(-Wall -Wextra -Werror -I"$ROOT/include" -I"$HERE")

compile_c() { # name tu include-dir
  "$CC_BIN" "${CFLAGS_COMMON[@]}" -I"$3" -c "$HERE/$2" -o "$WORK/$1.o" >"$WORK/$1.log" 2>&1
}
compile_cxx() { # name tu include-dir std
  "$CXX_BIN" -x c++ -std="$4" "${CXXFLAGS_COMMON[@]}" -I"$3" -fsyntax-only "$HERE/$2" >"$WORK/$1.log" 2>&1
}
expect_ok() { # label name
  if [ $? -eq 0 ]; then pass "$1"; else fail "$1"; sed 's/^/    /' "$WORK/$2.log"; fi
}

if [ -n "$official_dir" ]; then
  compile_c official_first_c official_first.c "$official_dir"
  expect_ok "C: official $ver header first, then dlx" official_first_c
  compile_c dlx_first_c dlx_first.c "$official_dir"
  expect_ok "C: dlx first, then official $ver header" dlx_first_c
  if [ -n "$CXX_BIN" ]; then
    compile_cxx official_first_cxx official_first.c "$official_dir" c++17
    expect_ok "C++17: official $ver header first, then dlx" official_first_cxx
    compile_cxx dlx_first_cxx dlx_first.c "$official_dir" c++17
    expect_ok "C++17: dlx first, then official $ver header" dlx_first_cxx
  fi
else
  notes+=("official 1.x header cases not run: $official_why")
fi

if [ -n "$old_dir" ]; then
  if compile_c old_first_c official_first.c "$old_dir"; then
    fail "C: pre-1.0 header first must be refused, but it compiled"
  elif grep -q 'pre-1.0' "$WORK/old_first_c.log" && grep -q '#error' "$WORK/old_first_c.log"; then
    pass "C: pre-1.0 header first is refused: $(grep -m1 -o 'dlx: a pre-1.0[^"]*' "$WORK/old_first_c.log" | cut -c1-90)..."
  else
    fail "C: pre-1.0 header first failed, but not with dlx's \"pre-1.0\" #error"
    sed 's/^/    /' "$WORK/old_first_c.log"
  fi
  compile_c dlx_then_old_c dlx_first.c "$old_dir"
  expect_ok "C: dlx first, then the pre-1.0 header (skipped by the include guard)" dlx_then_old_c
else
  notes+=("pre-1.0 header cases not run: $old_why")
fi

if [ -n "$CXX_BIN" ]; then
  for std in c++11 c++17; do
    printf '#include "dlx/dlx.h"\nint main() { return dlx_dtype_is_subbyte(DLDataType()) ? 1 : 0; }\n' >"$WORK/dlx_h.cc"
    "$CXX_BIN" -std=$std -Wall -Wextra -Werror -I"$ROOT/include" -fsyntax-only "$WORK/dlx_h.cc" \
      >"$WORK/dlx_h_$std.log" 2>&1
    expect_ok "$(basename "$CXX_BIN") -std=$std -fsyntax-only include/dlx/dlx.h" "dlx_h_$std"
  done
else
  notes+=("no C++ compiler (g++): C++ checks not run")
fi

for n in "${notes[@]+"${notes[@]}"}"; do echo "NOTE $n"; done
if [ "$failures" -ne 0 ]; then
  echo "$failures coexistence check(s) failed"
  exit 1
fi
echo "all coexistence checks passed"
exit 0
