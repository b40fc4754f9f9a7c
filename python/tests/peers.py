"""Importing the suite's real peers (torch, JAX, ml_dtypes, mpi4py, mypy, dpctl...) one way everywhere.

A peer that cannot be imported skips the tests that need it, with the reason: never an error at collection
and never a silent pass. pytest.importorskip is not enough for that. It skips only on ModuleNotFoundError,
while a peer whose install broke half-way (pip stopped by a full disk, say) raises OSError on the first
import and ImportError("torch can only be initialized once per process") on the next, and either would
stop the whole run at collection. The reason names pip's own failure when scripts/venv.sh recorded one.
"""

import importlib
import os
import sys

import pytest


def _install_failures():
    """{module: why} from .venv/dlx-peers-missing.txt, written by scripts/venv.sh (module, tab, reason)."""
    failed = {}
    try:
        with open(os.path.join(sys.prefix, "dlx-peers-missing.txt")) as f:
            for line in f:
                mod, _, why = line.rstrip("\n").partition("\t")
                failed[mod] = why
    except OSError:
        pass
    return failed


INSTALL_FAILED = _install_failures()


def import_failure(name):
    """(module, None) when `name` imports, else (None, why it does not)."""
    try:
        return importlib.import_module(name), None
    except Exception as e:  # noqa: BLE001 - any failure means "not usable here"
        kind = "not installed" if isinstance(e, ModuleNotFoundError) and e.name == name else "import failed"
        why = f"{kind}: {type(e).__name__}: {e}"
        recorded = INSTALL_FAILED.get(name.partition(".")[0])
        return None, f"{recorded}; {why}" if recorded else why


def need(name, reason=None):
    """The module `name`, or a skip of the calling test (or module) that says why it is missing."""
    mod, why = import_failure(name)
    if mod is None:
        pytest.skip(f"{reason} [{name}: {why}]" if reason else f"{name}: {why}", allow_module_level=True)
    return mod


def cuda_absent_reason():
    """None when dlx has a CUDA device to run on, else why not (the skip reason of the CUDA test files)."""
    import dlx

    if not dlx.cuda.is_built():
        return "no CUDA device: dlx was built without CUDA (DLX_WITH_CUDA=OFF)"
    if dlx.cuda.device_count() == 0:
        return "no CUDA device (dlx.cuda.device_count() is 0: no GPU or no driver)"
    return None
