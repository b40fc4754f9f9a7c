#!/usr/bin/env bash
# scripts/check_layers.sh - the folders under src/ are layers, in the order of the README's table
# ("Layout of the repository": the rows `src/<layer>/`, top to bottom). This fails when:
#   1. a folder of src/ is missing from that table, or the table names one that does not exist;
#   2. a file includes a header of a layer after its own ("exchange/..." from src/core/, "compute/..."
#      from src/backends/), so the include graph is the table's order;
#   3. a file outside src/backends/ includes one backend's folder (backends/cuda/...): above the
#      backends layer nothing knows which backend runs (src/backends/backend.c, the rows, is the one
#      place inside it that names them);
#   4. a file above the backends layer names a device type constant (kDLCUDA, kDLOneAPI, ...) outside the
#      allow-list below, each entry of which says why that use is no switch on a device for streams,
#      events or memory.
# Run by scripts/test.sh. Prints every violation, then exits 1 if there was any.
set -euo pipefail
cd "$(dirname "$0")/.."

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

if [ $fail -ne 0 ]; then exit 1; fi
echo "check_layers: ok (${layers[*]})"
