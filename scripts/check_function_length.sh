#!/usr/bin/env bash
# scripts/check_function_length.sh [--report] [dir ...] | --self-test - rooms that a reader can hold in mind:
# no C function over 80 lines and no source file over 800 lines under each dir (default: src, every layer,
# the CUDA sources .cu/.cuh included). A function's length runs from the first line of its definition
# (where the return type starts, or its template line) to its closing brace, both counted; comments, string
# literals and preprocessor lines are blanked first, so braces in them do not count, and a macro call with
# no ';' after it (DLX_DEF_UNARY(...) on a line of its own) is no part of the definition that follows it
# (scripts/c_source.py, functions). --report also prints the longest function and the longest file.
# --self-test plants files in a temporary folder and checks what they must give (run by scripts/test.sh).
# Exit status 0 when every file and function is within the limits.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=python3
command -v "$PY" >/dev/null 2>&1 || { echo "check_function_length.sh: python3 is needed" >&2; exit 2; }

check() {
  "$PY" - "$@" <<'PYEOF'
import os
import sys

sys.path.insert(0, "scripts")
from c_source import code_lines, functions  # noqa: E402 (comments, literals, preprocessor lines blanked)

MAX_FUNCTION, MAX_FILE = 80, 800

report = sys.argv[1] == "1"
paths = []
for root in sys.argv[2:]:
    if not os.path.isdir(root):
        sys.exit(f"check_function_length.sh: {root} is not a folder")
    for dirpath, _, names in os.walk(root):
        paths += [os.path.join(dirpath, n) for n in sorted(names) if n.endswith((".c", ".h", ".cu", ".cuh"))]
bad, longest_fn, longest_file = 0, ("", "", 0), ("", 0)
for path in sorted(paths):
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    nlines = text.count("\n") + (0 if text.endswith("\n") else 1)
    if nlines > longest_file[1]:
        longest_file = (path, nlines)
    if nlines > MAX_FILE:
        print(f"{path}: {nlines} lines (at most {MAX_FILE})")
        bad += 1
    for fn in functions(code_lines(text)):
        n = fn.last - fn.first + 1
        if n > longest_fn[2]:
            longest_fn = (f"{path}:{fn.first}", fn.name, n)
        if n > MAX_FUNCTION:
            print(f"{path}:{fn.first}: {fn.name} is {n} lines (at most {MAX_FUNCTION})")
            bad += 1
if report:
    print(f"longest function: {longest_fn[1]} ({longest_fn[0]}), {longest_fn[2]} lines")
    print(f"longest file: {longest_file[0]}, {longest_file[1]} lines")
print(f"{len(paths)} files checked, {bad} over the limits ({MAX_FUNCTION} lines a function, {MAX_FILE} a file)")
sys.exit(1 if bad else 0)
PYEOF
}

# body <name> <lines> [head]: a definition of exactly <lines> lines (head line, body, closing brace).
body() {
  local i
  echo "${3:-static int} $1(int x) {"
  for ((i = 2; i < $2; i++)); do echo "  x += $i;"; done
  echo "}"
}

# shellcheck disable=SC2317 # (the generators are called through expect)
self_test() {
  local tmp failed=0
  tmp=$(mktemp -d)
  # expect <name> <status> <pattern|-> <file> <generator...>: plant the generated file alone in a folder,
  # check it and compare the exit status and (unless -) a line of the output
  expect() {
    local name=$1 want=$2 pattern=$3 file=$4 out rc
    shift 4
    rm -rf "${tmp:?}/src" && mkdir -p "$tmp/src"
    "$@" >"$tmp/src/$file"
    set +e
    out=$(check 0 "$tmp/src" 2>&1)
    rc=$?
    set -e
    out=${out//$tmp\//}
    if [ "$rc" -ne "$want" ] || { [ "$pattern" != - ] && ! grep -qF -- "$pattern" <<<"$out"; }; then
      echo "check_function_length self-test FAILED: $name (exit $rc, want $want${pattern:+, a line with: $pattern})"
      echo "$out" | sed 's/^/    /'
      failed=1
    else
      echo "check_function_length self-test ok: $name"
    fi
  }
  macro_then_80() {
    echo '#define DEF(n) static int n(void) { return 0; }'
    echo 'DEF(a)'
    echo 'DEF(b)'
    body eighty 80
  }
  macro_then_81() {
    echo 'static int first(void) { return 1; }'
    echo 'DEF(a)'
    body eightyone 81
    echo 'DEF(b)'
    body short 3
  }
  macro_then_allman() {
    echo 'DEF(a)'
    echo 'static int allman(int x)'
    echo '{'
    for ((i = 0; i < 78; i++)); do echo "  x += $i;"; done
    echo '}'
  }
  attribute_under_if() {
    echo '#if defined(__GNUC__)'
    echo '__attribute__((format(printf, 1, 2)))'
    echo '#endif'
    body formatted 79 'static int'
  }
  cuda_namespace() {
    echo 'namespace n {'
    echo 'template <class T>'
    body kernel 80 '__global__ void'
    echo '}  // namespace n'
  }
  extern_c() {
    echo 'extern "C" {'
    body in_extern_c 81 'int'
    echo '}'
  }
  long_file() { for ((i = 0; i < 801; i++)); do echo "/* $i */"; done; }
  expect "a macro call before a function of 80 lines is not counted in it" 0 - x.c macro_then_80
  expect "a function of 81 lines after a macro call is counted from its own line" 1 \
    "src/x.c:3: eightyone is 81 lines" x.c macro_then_81
  expect "a body brace on the line after the head, after a macro call" 1 "src/x.c:2: allman is 81 lines" \
    x.c macro_then_allman
  expect "an attribute under #if starts the definition after it" 1 "src/x.c:2: formatted is 81 lines" \
    x.c attribute_under_if
  expect "a .cu file, a template in a namespace (the template line counts)" 1 "src/k.cu:2: kernel is 81 lines" \
    k.cu cuda_namespace
  expect "a .cuh file, a function inside extern \"C\" { }" 1 "src/k.cuh:2: in_extern_c is 81 lines" \
    k.cuh extern_c
  expect "a file of 801 lines" 1 "src/long.h: 801 lines (at most 800)" long.h long_file
  rm -rf "$tmp"
  [ $failed -eq 0 ] || exit 1
  echo "check_function_length self-test: all cases ok"
}

if [ "${1:-}" = "--self-test" ]; then
  self_test
  exit 0
fi
REPORT=0
if [ "${1:-}" = "--report" ]; then
  REPORT=1
  shift
fi
[ $# -gt 0 ] || set -- src
check "$REPORT" "$@"
