#!/usr/bin/env bash
# scripts/check_function_length.sh [--report] [dir ...] - rooms that a reader can hold in mind: no C
# function over 80 lines and no source file over 800 lines under each dir (default: src/pyext, the
# Python extension, whose files are split by what they hold). A function's length runs from the first
# line of its definition (where the return type starts) to its closing brace, both counted; comments and
# string literals are blanked first, so braces in them do not count. --report also prints the longest
# function and the longest file. Exit status 0 when every file and function is within the limits.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=python3
command -v "$PY" >/dev/null 2>&1 || { echo "check_function_length.sh: python3 is needed" >&2; exit 2; }

REPORT=0
if [ "${1:-}" = "--report" ]; then
  REPORT=1
  shift
fi
[ $# -gt 0 ] || set -- src/pyext

"$PY" - "$REPORT" "$@" <<'EOF'
import os
import re
import sys

sys.path.insert(0, "scripts")
from c_source import blank  # noqa: E402 (comments and literals blanked, lines kept)

MAX_FUNCTION, MAX_FILE = 80, 800


def code_lines(text):
    """The lines of text with comments, literals (c_source.blank) and preprocessor lines blanked."""
    # a macro body (#define ... \) is no definition of its own: blank every preprocessor line
    lines, cont = [], False
    for line in blank(text).split("\n"):
        if cont or line.lstrip().startswith("#"):
            cont = line.rstrip().endswith("\\")
            line = ""
        lines.append(line)
    return lines


def functions(lines):
    """(name, first line, last line) of each top-level brace block that follows a parameter list."""
    depth, head, start = 0, "", None
    for lineno, line in enumerate(lines, 1):
        for c in line:
            if depth == 0:
                if c == "{":
                    text = head.strip()
                    m = re.search(r"(\w+)\s*\([^()]*(\([^()]*\)[^()]*)*\)\s*$", text)
                    is_fn = m is not None and "=" not in text and not re.match(r"(typedef|struct|union|enum)\b", text)
                    start = (m.group(1), head_line) if is_fn else None
                    depth = 1
                elif c in ";}":
                    head = ""
                else:
                    if not head.strip() and not c.isspace():
                        head_line = lineno
                    head += c
            else:
                depth += c == "{"
                depth -= c == "}"
                if depth == 0:
                    if start is not None:
                        yield start[0], start[1], lineno
                    head, start = "", None
        if depth == 0:
            head += "\n"


report = sys.argv[1] == "1"
paths = []
for root in sys.argv[2:]:
    for dirpath, _, names in os.walk(root):
        paths += [os.path.join(dirpath, n) for n in sorted(names) if n.endswith((".c", ".h"))]
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
    for name, first, last in functions(code_lines(text)):
        n = last - first + 1
        if n > longest_fn[2]:
            longest_fn = (f"{path}:{first}", name, n)
        if n > MAX_FUNCTION:
            print(f"{path}:{first}: {name} is {n} lines (at most {MAX_FUNCTION})")
            bad += 1
if report:
    print(f"longest function: {longest_fn[1]} ({longest_fn[0]}), {longest_fn[2]} lines")
    print(f"longest file: {longest_file[0]}, {longest_file[1]} lines")
print(f"{len(paths)} files checked, {bad} over the limits ({MAX_FUNCTION} lines a function, {MAX_FILE} a file)")
sys.exit(1 if bad else 0)
EOF
