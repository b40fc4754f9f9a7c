#!/usr/bin/env bash
# scripts/bench.sh [--quick] - build Release into build-bench, time DLTensor export/import
# (bench/bench_view: ns per call at rank 1, 2, 4, 8 and every layout, with targets and ratios), then
# count instructions per call under callgrind, which does not depend on the machine's load.
# Benchmarks never fail on timing; the script fails only if something does not build or run.
set -euo pipefail
cd "$(dirname "$0")/.."

QUICK=()
[ "${1:-}" = "--quick" ] && QUICK=(--quick)
BUILD=build-bench
JOBS=$(nproc 2>/dev/null || echo 2)

cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DDLX_BUILD_TESTS=OFF -DDLX_BUILD_EXAMPLES=OFF \
  -DDLX_BUILD_BENCH=ON >/dev/null
cmake --build "$BUILD" -j "$JOBS" --target bench_view >/dev/null
BENCH=$BUILD/bench/bench_view

echo "== wall clock (clock_gettime, $(nproc 2>/dev/null || echo '?') cores, $(uname -m))"
"$BENCH" "${QUICK[@]+"${QUICK[@]}"}"

echo
echo "== instructions per call (valgrind --tool=callgrind, counting inside dlx_view_from_dltensor / dlx_view_to_dltensor)"
if ! command -v valgrind >/dev/null 2>&1; then
  echo "valgrind is not installed: instruction counts skipped (Debian: apt-get install valgrind)"
  exit 0
fi
CALLS=2000
OUT=$(mktemp -d "${TMPDIR:-/tmp}/dlx-callgrind.XXXXXX")
trap 'rm -rf "$OUT"' EXIT
valgrind --tool=callgrind --collect-atstart=no \
  --toggle-collect=dlx_view_from_dltensor --toggle-collect=dlx_view_to_dltensor \
  --callgrind-out-file="$OUT/cg.out" "$BENCH" --callgrind "$CALLS" >"$OUT/run.log" 2>&1 || {
  echo "callgrind run failed:"; tail -n 20 "$OUT/run.log"; exit 1; }
if grep -q 'client requests: yes' "$OUT/run.log"; then
  # One dump per case (cg.out.1, cg.out.2, ...), each "desc: Trigger: Client Request: <case>" + "totals: <Ir>".
  printf '%-8s %4s  %-6s  %10s\n' op rank layout "Ir/call"
  printf '%-8s %4s  %-6s  %10s\n' -------- ---- ------ ----------
  ndumps=$(ls "$OUT" | grep -c '^cg\.out\.[0-9]*$' || true)
  for i in $(seq 1 "$ndumps"); do
    f=$OUT/cg.out.$i
    awk -v calls="$CALLS" '
      /^desc: Trigger: Client Request:/ { name = $5 }
      /^totals:/ { total = $2 }
      END {
        if (name == "") exit
        n = split(name, part, "_")
        printf "%-8s %4s  %-6s  %10.1f\n", part[1], substr(part[2], 2), part[3], total / calls
      }' "$f"
  done
else
  # Without <valgrind/callgrind.h> at build time: one total over all cases, split evenly.
  total=$(awk '/^totals:/ {s += $2} END {print s + 0}' "$OUT"/cg.out*)
  cases=$("$BENCH" --list | wc -l)
  echo "bench_view was built without <valgrind/callgrind.h>: average over all $cases cases only"
  awk -v t="$total" -v c="$cases" -v n="$CALLS" 'BEGIN { printf "average Ir/call: %.1f\n", t / (c * n) }'
fi
