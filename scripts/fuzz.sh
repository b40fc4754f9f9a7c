#!/usr/bin/env bash
# scripts/fuzz.sh [seconds] - build the libFuzzer harnesses with clang (ASan + UBSan) into build-fuzz and
# run each for N seconds (default 30, what CI uses), starting from the committed seed corpus.
#   bash scripts/fuzz.sh          # 30 s per harness
#   bash scripts/fuzz.sh 3600     # long mode: an hour per harness (run before a release)
# Environment: CC (default clang), DLX_FUZZ_PARALLEL (harnesses run side by side, default the CPU count),
# DLX_FUZZ_JOBS (parallel fuzzing workers per harness, default 1), DLX_FUZZ_BUILD (a build dir configured
# with DLX_BUILD_FUZZ=ON to use instead of build-fuzz),
# DLX_FUZZ_ARGS (extra libFuzzer flags), DLX_FUZZ_ONLY (space-separated harness names: only those).
# New interesting inputs go to fuzz/corpus-run/<harness> (git-ignored); a crash leaves fuzz_<harness>-crash-* files in build-fuzz/ and fails the script. To keep a crash as a
# regression seed, copy it into fuzz/corpus/<harness>/ (the C tests replay that folder).
set -euo pipefail
cd "$(dirname "$0")/.."

SECONDS_PER_HARNESS=${1:-30}
case $SECONDS_PER_HARNESS in ''|*[!0-9]*) echo "usage: $0 [seconds]" >&2; exit 2 ;; esac
CC_FUZZ=${CC:-clang}
case $(basename "$CC_FUZZ") in *clang*) ;; *) CC_FUZZ=clang ;; esac
if ! command -v "$CC_FUZZ" >/dev/null 2>&1; then
  echo "fuzz.sh: clang not found (libFuzzer comes with clang; Debian: apt-get install clang)" >&2
  exit 1
fi
BUILD=${DLX_FUZZ_BUILD:-build-fuzz}
JOBS=$(nproc 2>/dev/null || echo 2)

# DLX_FUZZ_BUILD: a clang build configured with DLX_BUILD_FUZZ=ON already (scripts/test.sh: its ASan build,
# whose library the harnesses then link); the harnesses are built there, nothing is configured again
if [ -n "${DLX_FUZZ_BUILD:-}" ]; then
  grep -q '^DLX_BUILD_FUZZ:BOOL=ON' "$BUILD/CMakeCache.txt" 2>/dev/null ||
    { echo "fuzz.sh: DLX_FUZZ_BUILD=$BUILD is not a build configured with -DDLX_BUILD_FUZZ=ON" >&2; exit 2; }
else
  cmake -S . -B "$BUILD" -DCMAKE_C_COMPILER="$CC_FUZZ" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DDLX_BUILD_FUZZ=ON -DDLX_BUILD_TESTS=OFF -DDLX_BUILD_EXAMPLES=OFF -DDLX_BUILD_BENCH=OFF -DDLX_WITH_CUDA=OFF >/dev/null
fi
# Every fuzz/fuzz_<name>.c is a harness (target fuzz_<name>, seeds in fuzz/corpus/<name>/ if present).
HARNESSES=()
for f in fuzz/fuzz_*.c; do
  h=$(basename "$f" .c)
  # DLX_FUZZ_ONLY="viewops dynlayout": a long run of some harnesses only
  case " ${DLX_FUZZ_ONLY:-${h#fuzz_}} " in *" ${h#fuzz_} "*) HARNESSES+=("${h#fuzz_}") ;; esac
done
[ ${#HARNESSES[@]} -gt 0 ] || { echo "fuzz.sh: no harness matches DLX_FUZZ_ONLY=${DLX_FUZZ_ONLY:-}" >&2; exit 2; }
cmake --build "$BUILD" -j "$JOBS" --target "${HARNESSES[@]/#/fuzz_}" >/dev/null

export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# One harness: its libFuzzer run, then its summary line into $BUILD/fuzz_<h>.line; exit 1 on a crash.
run_harness() {
  local h=$1 run_corpus log rc execs rate cov line report
  local seeds=() parallel=()
  run_corpus=fuzz/corpus-run/$h
  mkdir -p "$run_corpus"
  [ -d "fuzz/corpus/$h" ] && seeds=("../fuzz/corpus/$h")
  log=$BUILD/fuzz_$h.log
  echo "== fuzz_$h for ${SECONDS_PER_HARNESS}s (seeds: ${seeds[*]:-none}, new inputs: $run_corpus)"
  set +e
  # -max_len covers rank-64 tensors with raw 9-byte extents; artifacts land in the build dir, named by
  # harness (harnesses run side by side).
  if [ "${DLX_FUZZ_JOBS:-1}" -gt 1 ]; then parallel=(-fork="$DLX_FUZZ_JOBS"); fi
  (cd "$BUILD" && ./fuzz/fuzz_$h -max_total_time="$SECONDS_PER_HARNESS" -max_len=2048 -timeout=10 \
      -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="fuzz_$h-" "${parallel[@]+"${parallel[@]}"}" \
      ${DLX_FUZZ_ARGS:-} "../$run_corpus" "${seeds[@]+"${seeds[@]}"}") >"$log" 2>&1
  rc=$?
  set -e
  execs=$(awk '/^stat::number_of_executed_units/ {s += $2} END {print s + 0}' "$log")
  rate=$(awk '/^stat::average_exec_per_sec/ {s += $2} END {print s + 0}' "$log")
  cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -n 1 | awk '{print $2}' || true)
  if [ "$execs" = 0 ]; then # killed before the final stats: take the last status line
    execs=$(grep -oE '^#[0-9]+' "$log" | tail -n 1 | tr -d '#' || true)
    execs=${execs:-0}
  fi
  if [ $rc -eq 0 ]; then
    line="fuzz_$h: ${execs} executions in ${SECONDS_PER_HARNESS}s (${rate}/s), coverage ${cov:-?} edges, no crash"
  else
    line="fuzz_$h: FAILED (exit $rc) after ${execs} executions; see $log and $BUILD/fuzz_$h-crash-*"
    grep -E "ERROR|fuzz_$h:|SUMMARY|Test unit written" "$log" | head -n 12 >&2 || true
    # What reproduces it: the harness's own report (the failed check and the case it decoded), the
    # sanitizer's first lines, and the input in base64 (printf %s '<base64>' | base64 -d > crash; then
    # build-fuzz/fuzz/fuzz_$h crash). Also appended to $DLX_FAILURE_DETAILS when test.sh runs this.
    report=$BUILD/fuzz_$h.failure.txt
    {
      echo "fuzz_$h failed (exit $rc) after ${execs} executions, libFuzzer $(grep -m1 -oE 'Seed: [0-9]+' "$log" || true)"
      grep -m 1 -A 14 -E '^---- fuzz_|^==[0-9]+== ?ERROR|runtime error:|fuzz_[a-z_]+\.c:[0-9]+: ' "$log" || true
      grep -m 1 -E '^(SUMMARY|MS:)' "$log" || true
      grep -E '^Base64: ' "$log" | tail -n 1 || true
    } >"$report"
    cat "$report" >&2
    if [ -n "${DLX_FAILURE_DETAILS:-}" ]; then cat "$report" >>"$DLX_FAILURE_DETAILS"; fi
  fi
  echo "$line"
  echo "$line" >"$BUILD/fuzz_$h.line"
  [ $rc -eq 0 ]
}

# The harnesses run side by side, DLX_FUZZ_PARALLEL at a time (default: the CPU count): each libFuzzer
# process is single-threaded, so on 2 cores two harnesses take the time of one and each still gets its
# full SECONDS_PER_HARNESS of a core.
PAR=${DLX_FUZZ_PARALLEL:-$JOBS}
case $PAR in ''|*[!0-9]*|0) PAR=1 ;; esac
status=0
running=0
for h in "${HARNESSES[@]}"; do
  rm -f "$BUILD/fuzz_$h.line"
  if [ "$running" -ge "$PAR" ]; then
    wait -n || status=1
    running=$((running - 1))
  fi
  run_harness "$h" &
  running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
  wait -n || status=1
  running=$((running - 1))
done
summary=()
for h in "${HARNESSES[@]}"; do
  if [ -f "$BUILD/fuzz_$h.line" ]; then summary+=("$(cat "$BUILD/fuzz_$h.line")"); else
    summary+=("fuzz_$h: FAILED (no result; see $BUILD/fuzz_$h.log)"); status=1; fi
done
echo
echo "fuzz summary:"
for l in "${summary[@]}"; do echo "  $l"; done
exit $status
