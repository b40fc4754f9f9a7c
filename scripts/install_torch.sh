#!/usr/bin/env bash
# Install PyTorch from PyPI into the test venv (.venv), so that python/tests also runs the torch
# interop tests. Kept apart from scripts/test_python.sh because the wheel and its dependencies are
# several GB. Usage: bash scripts/install_torch.sh [extra pip args]
set -euo pipefail
cd "$(dirname "$0")/.."

PY="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q torch "$@"
.venv/bin/python -c 'import torch; print("torch", torch.__version__, "installed in .venv")'
