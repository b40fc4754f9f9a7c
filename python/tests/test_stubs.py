"""The type stubs (python/dlx/__init__.pyi, _dlx.pyi, py.typed) against the built module, with mypy.stubtest:
a function, method or attribute added to, removed from or renamed in the C code without the stubs fails
here, and so does a signature that differs from a C function's __text_signature__."""

import ast
import os
import shutil
import subprocess
import sys

import pytest
from peers import need

import dlx

need("mypy.stubtest", reason="mypy is not installed (pip install mypy): the stubs are not checked")

PKG = os.path.dirname(dlx.__file__)

# dlx.mpi (another module's business) and dlx.check hold ctypes structures whose fields mypy cannot see.
# libdlx_cuda.so, the CUDA backend module a CUDA build puts beside the extension, is a C library that the
# extension dlopens, not a Python module; stubtest takes every *.so in the package for one.
ALLOWLIST = [r"dlx\.mpi\._DL\w+\.\w+", r"dlx\.check\._capsule\.DL\w+\.\w+", r"dlx\.libdlx_cuda"]
MYPY_INI = """
[mypy]
# the modules python -m dlx may import are not under test: skipping them keeps the run at seconds
[mypy-torch.*,jax.*,jaxlib.*]
follow_imports = skip
[mypy-dlx.mpi]
ignore_errors = True
"""


def stubtest(site, tmp_path):
    (tmp_path / "mypy.ini").write_text(MYPY_INI)
    allowlist = list(ALLOWLIST)
    if sys.version_info < (3, 12):  # CPython makes these Python methods of every buffer type from 3.12 on
        allowlist.append(r"dlx\._dlx\.Tensor\.__(release_)?buffer__")
    try:
        import mpi4py.MPI  # noqa: F401 - dlx.mpi imports it
    except Exception:  # noqa: BLE001 - not installed, or MPI cannot start here
        allowlist.append(r"dlx\.mpi")
    (tmp_path / "allowlist.txt").write_text("\n".join(allowlist) + "\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([site, os.environ.get("PYTHONPATH", "")]))
    env.pop("MYPYPATH", None)
    cmd = [sys.executable, "-m", "mypy.stubtest", "dlx", "--mypy-config-file", str(tmp_path / "mypy.ini"),
           "--allowlist", str(tmp_path / "allowlist.txt"), "--ignore-unused-allowlist"]
    # run from tmp_path: the current directory is on mypy's path, and the checkout's python/ is not wanted
    return subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)


def test_the_stubs_ship_with_the_package():
    for name in ("__init__.pyi", "_dlx.pyi", "py.typed"):
        assert os.path.isfile(os.path.join(PKG, name)), name


def test_stubtest_passes(tmp_path):
    r = stubtest(os.path.dirname(PKG), tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr


def test_stubtest_catches_drift(tmp_path):
    """The check has teeth: a stub missing a method the module has fails it."""
    site = tmp_path / "site"
    shutil.copytree(PKG, site / "dlx", ignore=shutil.ignore_patterns("__pycache__", "include"))
    stub = site / "dlx" / "_dlx.pyi"
    text = stub.read_text()
    assert "    def tolist(self) -> Any: ...\n" in text
    stub.write_text(text.replace("    def tolist(self) -> Any: ...\n", ""))
    r = stubtest(str(site), tmp_path)
    assert r.returncode != 0 and "dlx._dlx.Tensor.tolist is not present in stub" in r.stdout, r.stdout + r.stderr


USER_PROGRAM = """
import numpy as np
import dlx

t = dlx.asarray([[1, 2], [3, 4]], dtype="float32")
a: np.ndarray = t.numpy()
u = dlx.zeros((2, 3), "bfloat16", device="cpu")
v = dlx.empty([2, 3], np.float16)
x = (t + 1) * 2.5 - u[0, 1:] / t.T
y = t @ dlx.from_dlpack(np.eye(2))
z: bool = bool(t[0, 0] == 1)
m = memoryview(t.view("uint32"))
n: int = t.shape[0] + t.ndim + t.data_ptr
c = dlx.asarray(b"abc", copy=True)
e = dlx.asarray(np.zeros(3), device=(1, 0), dtype=float)
t.fill_(0).copy_(e[:2, None])
dlx.zeros((2,), "float33")  # a misspelt dtype: the one error
"""


def test_the_stubs_type_check_a_program(tmp_path):
    (tmp_path / "mypy.ini").write_text(MYPY_INI)
    (tmp_path / "user.py").write_text(USER_PROGRAM)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.dirname(PKG), os.environ.get("PYTHONPATH", "")]))
    r = subprocess.run([sys.executable, "-m", "mypy", "user.py", "--config-file", "mypy.ini"], cwd=tmp_path,
                       env=env, capture_output=True, text=True, timeout=600)
    errors = [line for line in r.stdout.splitlines() if ": error:" in line]
    typo = 1 + USER_PROGRAM.splitlines().index('dlx.zeros((2,), "float33")  # a misspelt dtype: the one error')
    assert len(errors) == 1 and errors[0].startswith(f"user.py:{typo}:"), r.stdout + r.stderr


def _dtype_names():
    with open(os.path.join(PKG, "_dlx.pyi")) as f:
        tree = ast.parse(f.read())
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", None) == "_DTypeName":
            return [e.value for e in node.value.slice.elts]
    raise AssertionError("_DTypeName not found in _dlx.pyi")


def test_dtype_literal_names_every_scalar_dtype():
    names = _dtype_names()
    assert len(names) == len(set(names)) == 30
    for name in names:
        assert dlx.empty((0,), name).dtype == name  # each a dlx name, spelled canonically
