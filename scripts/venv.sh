# scripts/venv.sh - sourced by test_python.sh and demo.sh: make (or reuse) .venv with the module's
# runtime peers (NumPy 2.x, ml_dtypes, JAX on CPU) and the test tools, and install dlx into it.
# Needs only python3 >= 3.9 with venv and a C compiler; everything else comes from PyPI.
# PyTorch is optional and large: scripts/install_torch.sh adds it.
dlx_venv_setup() {
  local py="${PYTHON:-python3}"
  if [ ! -x .venv/bin/python ]; then
    echo "== creating .venv"
    "$py" -m venv .venv
  fi
  VPY=.venv/bin/python
  echo "== installing the peers and test tools into .venv"
  "$VPY" -m pip install -q --upgrade pip setuptools wheel
  "$VPY" -m pip install -q pytest hypothesis "numpy>=2" ml_dtypes "jax[cpu]"
  echo "== building and installing dlx into .venv (a test build: DLX_PY_TESTING=1 adds dlx._testing)"
  DLX_PY_TESTING=1 "$VPY" -m pip install -q --force-reinstall --no-deps .
}
