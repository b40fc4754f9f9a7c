#!/usr/bin/env bash
# scripts/check_layers.sh [--self-test] - the folders under src/ are layers, in the order of the README's
# table ("Layout of the repository": the rows `src/<layer>/`, top to bottom). This fails when:
#   1. a folder of src/ is missing from that table, or the table names one that does not exist;
#   2. a file includes a header of a layer after its own ("exchange/..." from src/core/, "compute/..."
#      from src/backends/), so the include graph is the table's order;
#   3. a file outside src/backends/ includes one backend's folder (backends/cuda/...): above the
#      backends layer nothing knows which backend runs (src/backends/backend.c, the rows, is the one
#      place inside it that names them);
#   4. a file above the backends layer names a device type constant (kDLCUDA, kDLOneAPI, ...) outside the
#      allow-list below, each entry of which says why that use is no switch on a device for streams,
#      events or memory;
#   5. a file of a layer declares a function that a later layer defines (a prototype at file scope, or an
#      extern declaration in a block): the same dependency as an include that goes up, without the include
#      (a function defined in the declaring layer or an earlier one too is not counted; static ones neither);
#   6. an include under src/ or include/ has a relative path ("../core/x.h"): the layers are named from
#      src/, the public headers from include/, so that rules 2 and 3 see every include by its layer;
#   7. a file under src/ gives a device type as a number (device_type == 2, .device_type = 13,
#      (DLDevice){2, 0}, DLDevice d = {2, 0}, .device = {2, 0}, (DLDeviceType)2) instead of its name
#      (kDLCPU, kDLCUDA, ...: include/dlx/dlpack.h).
# Rules 5 and 7 read the code with comments and literals blanked (scripts/c_source.py); a function that a
# macro defines or declares is not seen by rule 5.
# --self-test copies README.md, scripts/, src/ and include/ to a temporary folder, plants a file that breaks
# each rule (and some that must pass), and checks that each rule fires, and only where it should.
# Run by scripts/test.sh (the self-test, then the check). Prints every violation, then exits 1 if any.
set -euo pipefail
cd "$(dirname "$0")/.."

# --self-test: each case plants files in a copy of the tree, runs the copy's check and compares the exit
# status and the lines it must (or must not) print.
self_test() {
  local tmp failed=0
  tmp=$(mktemp -d)
  mkdir -p "$tmp/scripts"
  cp -R README.md src include "$tmp/"
  cp scripts/check_layers.sh scripts/c_source.py "$tmp/scripts/"
  # expect <name> <status> <file=content ...> [-- <lines that must be printed>] [-! <lines that must not>]
  expect() {
    local name=$1 want=$2 out rc planted=() musts=() nots=() mode=files arg
    shift 2
    for arg in "$@"; do
      case $mode:$arg in
        *:--) mode=must ;;
        *:-!) mode=not ;;
        files:*)
          mkdir -p "$(dirname "$tmp/${arg%%=*}")"
          printf '%s\n' "${arg#*=}" >"$tmp/${arg%%=*}"
          planted+=("$tmp/${arg%%=*}")
          ;;
        must:*) musts+=("$arg") ;;
        not:*) nots+=("$arg") ;;
      esac
    done
    set +e
    out=$(bash "$tmp/scripts/check_layers.sh" 2>&1)
    rc=$?
    set -e
    rm -f "${planted[@]}"
    local ok=1 l
    [ "$rc" -eq "$want" ] || ok=0
    for l in "${musts[@]+"${musts[@]}"}"; do grep -qF -- "$l" <<<"$out" || ok=0; done
    for l in "${nots[@]+"${nots[@]}"}"; do ! grep -qF -- "$l" <<<"$out" || ok=0; done
    if [ $ok -eq 1 ]; then
      echo "check_layers self-test ok: $name"
    else
      echo "check_layers self-test FAILED: $name (exit $rc, want $want; must print: ${musts[*]+"${musts[*]}"}; must not: ${nots[*]+"${nots[*]}"})"
      echo "$out" | sed 's/^/    /'
      failed=1
    fi
  }
  local up='int dlx__selftest_up(int x) { return x; }'
  expect "the tree as it is passes" 0 -- "check_layers: ok"
  expect "1: a folder of src/ missing from the table" 1 "src/zz_selftest/a.c=int a;" -- "src/zz_selftest/ is not in"
  rmdir "$tmp/src/zz_selftest"
  expect "2: an include that goes up" 1 'src/core/zz_selftest.c=#include "compute/ops_internal.h"' \
    -- 'src/core/zz_selftest.c:1 includes "compute/ops_internal.h": compute is above core'
  expect "3: a backend's folder included outside it" 1 'src/compute/zz_selftest.c=#include "backends/cuda/x.h"' \
    -- 'src/compute/zz_selftest.c:1 includes "backends/cuda/x.h": only src/backends/cuda/'
  expect "4: a device type named above the backends" 1 'src/compute/zz_selftest.c=int a = kDLCUDA;' \
    -- "src/compute/zz_selftest.c:1 names a device type (kDLCUDA)"
  expect "5: a prototype of a later layer's function, in a .c and in a .h" 1 "src/backends/zz_selftest_up.c=$up" \
    "src/exchange/zz_selftest.c=#include <stddef.h>
dlx_status dlx__selftest_up(int x);" "src/kernels/zz_selftest.h=DLX__SHARED int
dlx__selftest_up(int x);" \
    -- "src/exchange/zz_selftest.c:2 declares dlx__selftest_up, which src/backends/zz_selftest_up.c defines: backends is above exchange" \
    "src/kernels/zz_selftest.h:2 declares dlx__selftest_up"
  expect "5: an extern declaration in a block" 1 "src/backends/zz_selftest_up.c=$up" \
    "src/core/zz_selftest.c=int f(void) {
  extern int dlx__selftest_up(int);
  return dlx__selftest_up(1);
}" -- "src/core/zz_selftest.c:2 an extern declaration of dlx__selftest_up"
  expect "5: not for a later layer declaring an earlier one's function, a static one, or one the layer defines too" \
    0 "src/exchange/zz_selftest_low.c=$up" "src/pyext/zz_selftest.c=int dlx__selftest_up(int x);" \
    "src/backends/zz_selftest.c=static int dlx__selftest_static(int x) { return x; }
int dlx__selftest_both(void) { return 0; }" \
    "src/core/zz_selftest.c=static int dlx__selftest_static(int x);
int dlx__selftest_both(void);
int dlx__selftest_both(void) { return 1; }
/* int dlx__selftest_up(int x); in a comment */" -- "check_layers: ok"
  expect "6: a relative include under src/ and under include/" 1 'src/core/zz_selftest.c=#include "../core/error_internal.h"' \
    'include/dlx/zz_selftest.h=#  include <../dlx/dlpack.h>' \
    -- 'src/core/zz_selftest.c:1 includes a relative path ("../core/error_internal.h")' \
    'include/dlx/zz_selftest.h:1 includes a relative path (<../dlx/dlpack.h>)'
  expect "7: device types as numbers" 1 "src/core/zz_selftest.c=static void f(DLDevice d, DLTensor *t) {
  if (d.device_type == 2) return;
  t->device.device_type = 13;
  DLDevice c = (DLDevice){2, 0};
  DLDevice e = {kDLCPU, 0};
  dlx_view v = {.device = {2, 0}};
  if (1 != t->device.device_type) return;
  d.device_type = (DLDeviceType)14;
  static const DLDevice h[] = {{2, 0}};
}" \
    -- "src/core/zz_selftest.c:2 gives a device type as a number (device_type == 2)" \
    "src/core/zz_selftest.c:3 gives a device type as a number (device_type = 13)" \
    "src/core/zz_selftest.c:4 gives a device type as a number ((DLDevice){2)" \
    "src/core/zz_selftest.c:6 gives a device type as a number (.device = {2)" \
    "src/core/zz_selftest.c:7 gives a device type as a number (1 != t->device.device_type)" \
    "src/core/zz_selftest.c:8 gives a device type as a number (device_type = (DLDeviceType)14)" \
    "src/core/zz_selftest.c:9 gives a device type as a number (DLDevice h[] = {{2)" \
    -! "src/core/zz_selftest.c:5 "
  expect "7: not for a bit index, a comment, a string or a name" 0 "src/core/zz_selftest.c=static int f(DLDevice d) {
  /* device_type == 2 in a comment */
  const char *s = \"(DLDevice){2, 0}\";
  return d.device_type < 32 && d.device_type == kDLCUDA && s != 0;
}" -- "check_layers: ok"
  rm -rf "$tmp"
  [ $failed -eq 0 ] || exit 1
  echo "check_layers self-test: all cases ok"
}
if [ "${1:-}" = "--self-test" ]; then
  self_test
  exit 0
fi

mapfile -t layers < <(grep -oE '^\| `src/[a-z_]+/` \|' README.md | sed -E 's/^\| `src\/([a-z_]+)\/` \|$/\1/')
fail=0
bad() {
  echo "check_layers: $*"
  fail=1
}

[ "${#layers[@]}" -gt 0 ] || { echo "check_layers: no src/<layer>/ rows in README.md's table"; exit 1; }
declare -A rank
for i in "${!layers[@]}"; do
  rank[${layers[$i]}]=$i
  [ -d "src/${layers[$i]}" ] || bad "README.md's table names src/${layers[$i]}/, which does not exist"
done
for d in src/*/; do
  d=${d%/}
  d=${d#src/}
  [ -n "${rank[$d]+x}" ] || bad "src/$d/ is not in README.md's layer table"
done

# 2 and 3: includes
while IFS= read -r f; do
  own=${f#src/}
  own=${own%%/*}
  [ -n "${rank[$own]+x}" ] || continue
  while IFS=: read -r line inc; do
    target=${inc%%/*}
    [ -n "${rank[$target]+x}" ] || continue
    if [ "${rank[$target]}" -gt "${rank[$own]}" ]; then
      bad "$f:$line includes \"$inc\": $target is above $own (README.md's layer table)"
    fi
    if [[ $inc == backends/*/* ]]; then
      sub=${inc#backends/}
      sub=${sub%%/*}
      case $f in
        src/backends/"$sub"/* | src/backends/backend.c) ;;
        *) bad "$f:$line includes \"$inc\": only src/backends/$sub/ and the rows (src/backends/backend.c) know that backend" ;;
      esac
    fi
  done < <(grep -noE '^[[:space:]]*#[[:space:]]*include[[:space:]]+"[a-z_]+/[A-Za-z0-9_./]+"' "$f" |
    sed -E 's/^([0-9]+):.*"([^"]+)".*/\1:\2/')
done < <(find src -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) | sort)

# 4: device type constants above the backends layer. "file: why" (the file may name them; nothing else).
allowed=(
  "src/exchange/dltensor.c: DLPack's memory spaces (which device types a host, device or managed import takes)"
  "src/pyext/device.c: device= names ('cuda_host' is kDLCUDAHost), the parser of a user's argument"
  "src/pyext/tensor.c: the repr's memory label (generic / device), a format of the label"
  "src/pyext/oneapi.c: dlx._dlx._oneapi, the oneAPI submodule, answers for oneAPI tensors only"
  "src/pyext/numpy.c: reading oneAPI USM in place needs its USM kind (dlx_oneapi_pointer_kind, dlx/oneapi.h)"
)
above=0
for l in "${layers[@]}"; do
  if [ "$l" = backends ]; then
    above=1
    continue
  fi
  [ $above -eq 1 ] || continue
  while IFS=: read -r f line text; do
    ok=0
    for a in "${allowed[@]}"; do
      [ "${a%%:*}" = "$f" ] && ok=1
    done
    [ $ok -eq 1 ] || bad "$f:$line names a device type ($(echo "$text" | grep -oE 'kDL[A-Za-z]+' | head -n 1)): only the backends layer chooses by device type"
  done < <(grep -rnE 'kDL(CUDA|CUDAHost|CUDAManaged|ROCM|ROCMHost|OneAPI|Vulkan|Metal|VPI|OpenCL|ExtDev|Hexagon|MAIA|Trn)\b' "src/$l" \
    --include='*.c' --include='*.h' --include='*.cu' --include='*.cuh' || true)
done

# 5 and 7: declarations of a later layer's functions, device types as numbers (comments and literals blanked)
if ! found=$(python3 - "${layers[@]}" <<'EOF'
import os
import re
import sys

sys.path.insert(0, "scripts")
from c_source import blank, code_lines, declarations, functions  # noqa: E402

layers = sys.argv[1:]
rank = {layer: i for i, layer in enumerate(layers)}
files = []
for layer in layers:
    for dirpath, _, names in os.walk(os.path.join("src", layer)):
        files += [(layer, os.path.join(dirpath, n)) for n in sorted(names) if n.endswith((".c", ".h", ".cu", ".cuh"))]
files.sort(key=lambda f: f[1])
texts, code = {}, {}
for _, path in files:
    with open(path, encoding="utf-8", errors="replace") as f:
        texts[path] = f.read()
    code[path] = code_lines(texts[path])

# 5. where each function with external linkage is defined: name -> [(layer, file)]
defined = {}
for layer, path in files:
    for fn in functions(code[path]):
        if not re.search(r"\bstatic\b", fn.head):
            defined.setdefault(fn.name, []).append((layer, path))
for layer, path in files:
    for d in declarations(code[path]):
        where = defined.get(d.name, [])
        if d.is_static or not where or min(rank[lay] for lay, _ in where) <= rank[layer]:
            continue
        up_layer, up_path = min(where, key=lambda w: rank[w[0]])
        how = "an extern declaration of" if d.is_extern else "declares"
        print(f"{path}:{d.line} {how} {d.name}, which {up_path} defines: {up_layer} is above {layer} "
              "(README.md's layer table); call it through what the lower layer owns (a hook, a table entry)")

# 7. device types as numbers
NUM = r"\(?\s*(?:\(\s*\w+\s*\)\s*)?\d+\w*"  # a number, perhaps in parentheses or after a cast
DEVICE_NUMBER = [
    re.compile(r"\bdevice_type\s*(?:==|!=)\s*" + NUM),
    re.compile(r"\b\d+[uUlL]*\s*\)?\s*(?:==|!=)\s*[\w.\->\[\]]*\bdevice_type\b"),
    re.compile(r"\bdevice_type\s*=(?!=)\s*" + NUM),
    re.compile(r"\(\s*(?:const\s+)?DLDevice\s*\)\s*\{\s*" + NUM),
    re.compile(r"\bDLDevice\s+\w+\s*(?:\[[^\]]*\]\s*)?=\s*\{\s*\{?\s*" + NUM),
    re.compile(r"\.device\s*=\s*\{\s*" + NUM),
    re.compile(r"\(\s*DLDeviceType\s*\)\s*\(?\s*\d+\w*"),
]
for _, path in files:
    for lineno, line in enumerate(blank(texts[path]).split("\n"), 1):
        for pattern in DEVICE_NUMBER:
            m = pattern.search(line)
            if m:
                print(f"{path}:{lineno} gives a device type as a number ({m.group(0).strip()}): name it "
                      "(kDLCPU, kDLCUDA, ...: include/dlx/dlpack.h)")
                break
EOF
); then
  echo "check_layers: rules 5 and 7 (python3, scripts/c_source.py) did not run" >&2
  exit 2
fi
while IFS= read -r msg; do [ -z "$msg" ] || bad "$msg"; done <<<"$found"

# 6: relative includes
while IFS=: read -r f line text; do
  bad "$f:$line includes a relative path ($(echo "$text" | grep -oE '["<][^">]*[">]' | head -n 1)): name it from src/ (a layer) or include/ (dlx/...)"
done < <(grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*["<]([^">]*/)?\.\./' src include \
  --include='*.c' --include='*.h' --include='*.cu' --include='*.cuh' || true)

if [ $fail -ne 0 ]; then exit 1; fi
echo "check_layers: ok (${layers[*]})"
