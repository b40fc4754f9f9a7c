#!/usr/bin/env bash
# scripts/check_install.sh [build-dir] - the packaging check: install dlx into a temporary prefix and
# use it the two ways a C user would.
#   1. cmake --install <build-dir> --prefix <tmp>       (build-dir default: build-install, configured
#                                                       and built here if it does not exist yet)
#   2. examples/consumer with find_package(dlx) against <tmp> (CMAKE_PREFIX_PATH): the ops consumer linked
#      shared and static, and the exchange-only program linked statically against dlx::exchange, which must
#      need nothing beyond libc and stay under 200 KB
#   3. examples/consumer/main.c compiled with `pkg-config --cflags --libs dlx` (PKG_CONFIG_PATH) and run
#      against the installed shared library (LD_LIBRARY_PATH), which loads the installed CUDA module when
#      the build made one; exchange_only.c built from `pkg-config dlx-exchange` with -ldlx_exchange alone
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD=${1:-build-install}
JOBS=$(nproc 2>/dev/null || echo 2)
CC_BIN=${CC:-cc}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/dlx-install.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
PREFIX=$TMP/prefix

if [ ! -f "$BUILD/CMakeCache.txt" ]; then
  cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DDLX_BUILD_TESTS=OFF -DDLX_BUILD_EXAMPLES=OFF \
    -DDLX_BUILD_BENCH=OFF >/dev/null
fi
targets="dlx_static dlx_shared dlx_exchange dlx_exchange_static"
grep -q '^DLX_CUDA:INTERNAL=ON' "$BUILD/CMakeCache.txt" 2>/dev/null && targets="$targets dlx_cuda"
# shellcheck disable=SC2086
cmake --build "$BUILD" -j "$JOBS" --target $targets >/dev/null
cmake --install "$BUILD" --prefix "$PREFIX" >"$TMP/install.log"
echo "installed into a temporary prefix: $(grep -c 'Installing:' "$TMP/install.log") files"

# What a package must contain: headers, both libraries, the CMake package and the pkg-config file.
for f in include/dlx/dlx.h include/dlx/dlpack.h include/dlx/version.h; do
  [ -f "$PREFIX/$f" ] || { echo "missing from the install: $f"; exit 1; }
done
LIBDIR=$(dirname "$(find "$PREFIX" -name 'libdlx.so' | head -n 1)")
for lib in libdlx.a libdlx_exchange.so libdlx_exchange.a; do
  [ -n "$LIBDIR" ] && [ -f "$LIBDIR/$lib" ] || { echo "libdlx.so or $lib missing from the install"; exit 1; }
done
PCDIR=$(dirname "$(find "$PREFIX" -name dlx.pc | head -n 1)")
CFGDIR=$(dirname "$(find "$PREFIX" -name dlxConfig.cmake | head -n 1)")
[ -f "$PCDIR/dlx.pc" ] && [ -f "$CFGDIR/dlxConfig.cmake" ] || { echo "dlx.pc or dlxConfig.cmake missing"; exit 1; }
# The install must not point back into the build tree.
if grep -rqs "$(pwd)" "$CFGDIR" "$PCDIR/dlx.pc"; then
  echo "the installed CMake package or dlx.pc refers to the source/build tree:"
  grep -rns "$(pwd)" "$CFGDIR" "$PCDIR/dlx.pc" | head
  exit 1
fi

# 2. find_package(dlx) from a separate project, shared then static.
for kind in shared static; do
  static=OFF
  [ $kind = static ] && static=ON
  cmake -S examples/consumer -B "$TMP/consumer-$kind" -DCMAKE_PREFIX_PATH="$PREFIX" \
    -DDLX_CONSUMER_STATIC=$static -DCMAKE_BUILD_TYPE=Release >"$TMP/consumer-$kind.log" 2>&1 ||
    { cat "$TMP/consumer-$kind.log"; exit 1; }
  cmake --build "$TMP/consumer-$kind" >>"$TMP/consumer-$kind.log" 2>&1 || { cat "$TMP/consumer-$kind.log"; exit 1; }
  if [ $kind = shared ] && command -v ldd >/dev/null 2>&1; then
    # (no grep -q after a pipe: with pipefail an early exit of grep would fail the pipeline)
    ldd "$TMP/consumer-$kind/dlx_consumer" | grep "$LIBDIR/libdlx.so" >/dev/null ||
      { echo "the CMake consumer is not linked to the installed libdlx.so:"; ldd "$TMP/consumer-$kind/dlx_consumer"; exit 1; }
  fi
  # a static program is no libdlx.so beside which the CUDA module would be found: it is told where
  echo "find_package(dlx), $kind: $(DLX_CUDA_MODULE="$LIBDIR/libdlx_cuda.so" "$TMP/consumer-$kind/dlx_consumer")"
done
# The exchange-only program (built above with the static package): libdlx_exchange.a linked in, libc alone
# loaded, small.
exo=$TMP/consumer-static/dlx_exchange_only
"$exo"
check_exchange_only() { # <binary> <how it was built>
  local deps size
  deps=$(ldd "$1" 2>&1 | awk '{print $1}' | grep -vE '^(linux-vdso\.so|/lib.*/ld-linux|libc\.so)' || true)
  [ -z "$deps" ] || { echo "the exchange-only program ($2) needs more than libc: $deps"; exit 1; }
  size=$(stat -c %s "$1")
  [ "$size" -lt 204800 ] || { echo "the exchange-only program ($2) is $size bytes, over 200 KB"; exit 1; }
  echo "exchange only ($2): $size bytes, loads libc alone"
}
check_exchange_only "$exo" "find_package, dlx::exchange"

# 3. pkg-config against the shared library.
if ! command -v pkg-config >/dev/null 2>&1; then
  echo "pkg-config is not installed (Debian: apt-get install pkg-config)"
  exit 1
fi
# `cmake --install --prefix` may differ from CMAKE_INSTALL_PREFIX: dlx.pc must still find this prefix.
pc_inc=$(PKG_CONFIG_PATH="$PCDIR" pkg-config --variable=includedir dlx)
if [ ! -f "$pc_inc/dlx/dlx.h" ]; then
  echo "dlx.pc installed with --prefix <tmp> points elsewhere: includedir=$pc_inc"
  echo "  (dlx.pc is filled in at configure time with CMAKE_INSTALL_PREFIX; a relocatable one says"
  echo "   prefix=\${pcfiledir}/../.. so that it follows the files wherever they are installed)"
  exit 1
fi
flags=$(PKG_CONFIG_PATH="$PCDIR" pkg-config --cflags --libs dlx)
# dlx.pc's with_cuda must say what the library has
case $(PKG_CONFIG_PATH="$PCDIR" pkg-config --variable=with_cuda dlx) in
  yes) flags="$flags -DDLX_EXPECT_CUDA=1" ;;
  no) flags="$flags -DDLX_EXPECT_CUDA=0" ;;
  *) echo "dlx.pc has no with_cuda variable (yes or no)"; exit 1 ;;
esac
# shellcheck disable=SC2086
"$CC_BIN" -std=c11 -Wall -Wextra -Werror examples/consumer/main.c $flags -o "$TMP/consumer-pc"
echo "pkg-config dlx ($(PKG_CONFIG_PATH="$PCDIR" pkg-config --modversion dlx)): $(LD_LIBRARY_PATH="$LIBDIR" "$TMP/consumer-pc")"
libs=$(LD_LIBRARY_PATH="$LIBDIR" ldd "$TMP/consumer-pc" 2>/dev/null)
case $libs in
  *"$LIBDIR/libdlx.so"*) ;;
  *) echo "the pkg-config consumer did not load the installed libdlx.so"; exit 1 ;;
esac
# pkg-config dlx-exchange: -ldlx_exchange alone, the static archive chosen
exflags=$(PKG_CONFIG_PATH="$PCDIR" pkg-config --cflags dlx-exchange)
exlibs=$(PKG_CONFIG_PATH="$PCDIR" pkg-config --libs-only-L dlx-exchange)
exl=$(PKG_CONFIG_PATH="$PCDIR" pkg-config --libs-only-l dlx-exchange)
# shellcheck disable=SC2086 # word splitting drops the space pkg-config ends its line with
exl=$(echo $exl)
[ "$exl" = "-ldlx_exchange" ] || { echo "dlx-exchange.pc asks for more than -ldlx_exchange: $exl"; exit 1; }
# shellcheck disable=SC2086
"$CC_BIN" -std=c11 -Wall -Wextra -Werror examples/consumer/exchange_only.c $exflags $exlibs \
  -Wl,-Bstatic -ldlx_exchange -Wl,-Bdynamic -o "$TMP/exchange-pc"
"$TMP/exchange-pc"
check_exchange_only "$TMP/exchange-pc" "pkg-config dlx-exchange, -ldlx_exchange"
# the CUDA module is installed beside libdlx.so exactly when the package says the build made it
if [ "$(PKG_CONFIG_PATH="$PCDIR" pkg-config --variable=with_cuda dlx)" = yes ]; then
  [ -f "$LIBDIR/libdlx_cuda.so" ] || { echo "with_cuda=yes but libdlx_cuda.so is not installed beside libdlx.so"; exit 1; }
  echo "CUDA module installed: $LIBDIR/libdlx_cuda.so"
fi
echo "install check passed"
