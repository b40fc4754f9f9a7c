#!/usr/bin/env bash
# scripts/check_no_abort.sh [libdlx.so ...] - a library loaded into Python must return errors, never end
# the process (STYLE.md: ggml's GGML_ASSERT is the habit not to copy). Three checks:
#   1. source: no call of abort, exit, _Exit, quick_exit, assert, Py_FatalError or Py_Exit anywhere
#      under src/ (every layer, the backends and the Python extension included; comments and string literals are blanked first, so prose may name them; atexit,
#      pthread_exit and static_assert are different words and pass);
#   2. binary: no undefined reference to abort, exit, _exit, _Exit, quick_exit, __assert_fail,
#      __assert_perror_fail, Py_FatalError or Py_Exit in each shared object given (default: the gcc build
#      build-test/libdlx.so, plus the installed Python extension when .venv has one). Sanitizer builds
#      are not for this check: their runtimes bring abort with them;
#   3. headers: every public header in include/dlx/ states its thread safety ("Thread safety:").
# Exit status 0 when all are clean; every finding is printed as file:line or object: symbol.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=python3
command -v "$PY" >/dev/null 2>&1 || { echo "check_no_abort.sh: python3 is needed" >&2; exit 2; }

status=0
echo "== source: process-ending calls under src/"
# Blank comments and literals (keeping line numbers), then look for the calls.
if ! "$PY" - src <<'EOF'
import os
import re
import sys

sys.path.insert(0, "scripts")
from c_source import blank  # noqa: E402 (comments and literals blanked, lines kept)

CALL = re.compile(r"\b(abort|exit|_Exit|quick_exit|assert|Py_FatalError|Py_Exit)\s*\(")


found = 0
files = 0
for root in sys.argv[1:]:
    for dirpath, _, names in os.walk(root):
        for name in sorted(names):
            if not name.endswith((".c", ".h", ".cu", ".cuh")):
                continue
            path = os.path.join(dirpath, name)
            files += 1
            with open(path, encoding="utf-8", errors="replace") as f:
                code = blank(f.read())
            for lineno, line in enumerate(code.split("\n"), 1):
                for m in CALL.finditer(line):
                    print(f"{path}:{lineno}: {m.group(1)}() on a library code path")
                    found += 1
print(f"{files} source files, {found} finding(s)")
sys.exit(1 if found else 0)
EOF
then
  status=1
fi

echo "== binaries: undefined references that end the process"
objects=("$@")
if [ ${#objects[@]} -eq 0 ]; then
  [ -f build-test/libdlx.so ] && objects+=(build-test/libdlx.so)
  while IFS= read -r so; do objects+=("$so"); done < <(ls .venv/lib/python3*/site-packages/dlx/_dlx*.so 2>/dev/null || true)
fi
if [ ${#objects[@]} -eq 0 ]; then
  echo "no shared object to inspect (build build-test first, or pass paths)" >&2
  status=1
fi
for obj in "${objects[@]+"${objects[@]}"}"; do
  if [ ! -f "$obj" ]; then
    echo "$obj: no such file" >&2
    status=1
    continue
  fi
  bad=$(nm -D --undefined-only "$obj" | awk '{print $NF}' | sed 's/@.*//' |
    grep -xE 'abort|exit|_exit|_Exit|quick_exit|__assert_fail|__assert_perror_fail|__assert|Py_FatalError|Py_Exit' || true)
  if [ -n "$bad" ]; then
    echo "$obj: $(echo "$bad" | tr '\n' ' ')"
    status=1
  else
    echo "$obj: clean ($(nm -D --undefined-only "$obj" | wc -l) undefined symbols, none ends the process)"
  fi
done
echo "== headers: each states its thread safety"
for h in include/dlx/*.h; do
  if ! grep -q "Thread safety:" "$h"; then
    echo "$h: no \"Thread safety:\" line"
    status=1
  fi
done
echo "$(ls include/dlx/*.h | wc -l) headers checked"
[ $status -eq 0 ] && echo "no-abort check: clean" || echo "no-abort check: FAILED"
exit $status
