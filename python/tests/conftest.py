"""Shared fixtures, and a report of which frameworks the suite found.

The header lists every framework with its version (or why it is missing); the summary at the end
repeats that and groups the skipped tests by reason, so a run shows at a glance what it did not cover.
"""

import collections
import gc
import os
import sys

import pytest

# JAX: CPU only, and 64-bit types on, so that int64/float64/complex128 exist as themselves.
os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ.setdefault("JAX_ENABLE_X64", "1")

sys.path.insert(0, os.path.dirname(__file__))
from peers import import_failure  # noqa: E402 - the tests folder is on the path from here

_FRAMEWORKS = ["dlx", "numpy", "ml_dtypes", "jax", "jaxlib", "torch", "hypothesis", "mpi4py", "mypy", "dpctl"]


def pytest_configure(config):
    # The suite drives dlx through its test hooks (dlx._testing), which only test builds contain. A plain
    # `pip install .` has none: stop with the way out instead of failing hundreds of tests.
    import dlx

    if not hasattr(dlx, "_testing"):
        pytest.exit("dlx was built without its test hooks (dlx._testing): rebuild with "
                    "DLX_PY_TESTING=1 pip install . (scripts/test_python.sh does)", returncode=4)


def _probe(name):
    mod, why = import_failure(name)
    return (None, why) if mod is None else (getattr(mod, "__version__", "unknown version"), None)


_FOUND = {}
_MISSING = {}
for _name in _FRAMEWORKS:
    _ver, _why = _probe(_name)
    if _why is None:
        _FOUND[_name] = _ver
    else:
        _MISSING[_name] = _why

_CONSEQUENCE = {
    "torch": "test_interop_torch and the torch cases elsewhere are skipped (scripts/test_python.sh installs it)",
    "mpi4py": "test_mpi is skipped (needs Open MPI: libopenmpi-dev, openmpi-bin)",
    "mypy": "the stub check (mypy.stubtest) is skipped",
    "jax": "test_interop_jax is skipped",
    "jaxlib": "test_interop_jax is skipped",
    "ml_dtypes": "bfloat16/fp8 NumPy cases are skipped",
    "hypothesis": "the property-based round trips are skipped",
    "dlx": "every test fails: the module under test does not import",
    "numpy": "most tests fail or are skipped",
}


def _framework_lines():
    lines = []
    found = ", ".join(f"{k} {v}" for k, v in _FOUND.items())
    lines.append(f"dlx frameworks found: {found or 'none'}")
    for k, why in _MISSING.items():
        lines.append(f"dlx frameworks missing: {k} ({why}) -> {_CONSEQUENCE.get(k, 'its tests are skipped')}")
    if "dlx" in _FOUND:
        import dlx

        lines.append(f"dlx module: {getattr(dlx, '__file__', '?')}, DLPACK_VERSION={getattr(dlx, 'DLPACK_VERSION', '?')}")
    if "torch" in _FOUND:
        import torch

        has = hasattr(torch.Tensor, "__dlpack_c_exchange_api__") or hasattr(torch.Tensor, "__c_dlpack_exchange_api__")
        lines.append(f"torch C exchange API: {'yes' if has else 'no (dlx uses torch.Tensor.__dlpack__)'}")
    return lines


def pytest_collection_finish(session):
    # Move everything imported so far (numpy, jax, torch) out of the collector's reach: the many
    # gc.collect() calls of the lifetime checks then cost microseconds instead of a full heap walk.
    gc.collect()
    gc.freeze()


def pytest_report_header(config):
    return _framework_lines()


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    tr = terminalreporter
    tr.section("dlx: frameworks and skips")
    for line in _framework_lines():
        tr.write_line(line)
    skipped = tr.stats.get("skipped", [])
    reasons = collections.Counter()
    for rep in skipped:
        if isinstance(rep.longrepr, tuple) and len(rep.longrepr) == 3:
            reasons[rep.longrepr[2].removeprefix("Skipped: ")] += 1
        else:
            reasons[str(rep.longrepr)] += 1
    if reasons:
        tr.write_line(f"skipped {len(skipped)} test(s), by reason:")
        for why, n in reasons.most_common():
            tr.write_line(f"  {n:4d} x {why}")
    else:
        tr.write_line("skipped: none")


try:
    from hypothesis import HealthCheck, settings

    settings.register_profile(
        "dlx", max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow]
    )
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dlx"))
except ImportError:
    pass

# DLX_HYPOTHESIS_SCALE (a factor in (0, 1]) scales every property test's example count, its own
# @settings(max_examples=...) included, with at least 10 kept. scripts/test_python_asan.sh runs the suite
# again under ASan + UBSan with 0.2: that run is there to catch what the C code does with memory on the
# paths the tests reach, which a fifth of the examples reach as well, at a third of the time; the plain run
# keeps the full counts.
_HYPOTHESIS_SCALE = float(os.environ.get("DLX_HYPOTHESIS_SCALE", "1") or "1")


def pytest_collection_modifyitems(config, items):
    if not 0 < _HYPOTHESIS_SCALE < 1:
        return
    from hypothesis import settings as _settings

    for item in items:
        fn = getattr(getattr(item, "obj", None), "__func__", getattr(item, "obj", None))
        current = getattr(fn, "_hypothesis_internal_use_settings", None)
        if current is None or not hasattr(fn, "hypothesis"):
            continue
        fn._hypothesis_internal_use_settings = _settings(
            current, max_examples=max(10, int(current.max_examples * _HYPOTHESIS_SCALE))
        )


# ---------------------------------------------------------------------------------------------
# Fixtures


@pytest.fixture
def producer():
    """A ctypes DLPack producer; at teardown every capsule it made must have been deleted exactly once."""
    from dlpack_ctypes import Producer

    p = Producer()
    yield p
    gc.collect()
    assert p.live == 0, f"{p.live} managed tensor(s) never deleted (leak)"


@pytest.fixture
def deleter_calls():
    """Calls to dlx._testing.make_capsule deleters since the test began: a function returning the delta."""
    import dlx

    T = dlx._testing

    gc.collect()
    base = T.deleter_calls()

    def delta():
        gc.collect()
        return T.deleter_calls() - base

    return delta


@pytest.fixture
def exported_alive():
    """dlx-exported managed tensors alive now, relative to the start of the test."""
    import dlx

    T = dlx._testing

    gc.collect()
    base = T.exported_alive()

    def delta():
        gc.collect()
        return T.exported_alive() - base

    return delta
