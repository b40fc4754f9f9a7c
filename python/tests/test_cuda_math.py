"""The math functions (exp ... cos, issue 29) on a CUDA device: the same bits as the CPU, which test_math.py
checks against MPFR: every float16 and bfloat16 code, float32 odd values (every power of two with its
neighbours, NaN, +-inf, subnormals) and random ones, float64 (deterministic: the same operations on both).

Without a device every test is skipped with the reason (tests/cuda/test_cuda_emulated.c runs the same
kernels' bodies on the host in every build with CUDA)."""

import numpy as np
import pytest

import dlx
from peers import cuda_absent_reason

ml_dtypes = pytest.importorskip("ml_dtypes", reason="ml_dtypes is not installed")

cuda = dlx.cuda
_NO_DEVICE = cuda_absent_reason()
pytestmark = pytest.mark.skipif(_NO_DEVICE is not None, reason=_NO_DEVICE or "")

ALL = ["exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "tanh", "sin", "cos"]
FUNCS = [f for f in ALL if f in {r[0] for r in dlx._dlx._op_table}]


def _inputs(dtype):
    if dtype in ("float16", "bfloat16"):
        return np.arange(2**16, dtype=np.uint32).astype(np.uint16).view(
            np.dtype(ml_dtypes.bfloat16) if dtype == "bfloat16" else np.float16)
    rng = np.random.default_rng(29)
    if dtype == "float32":
        e = np.arange(0, 256, dtype=np.uint32) << 23
        bits = np.concatenate([e, e + 1, np.maximum(e, 1) - 1, rng.integers(0, 2**32, 200000, dtype=np.uint64)
                               .astype(np.uint32)]).astype(np.uint32)
        return np.concatenate([bits, bits | 0x80000000]).astype(np.uint32).view(np.float32)
    return np.concatenate([rng.standard_normal(100000) * rng.choice([1e-8, 1.0, 100.0, 1e6], 100000),
                           [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-310, 5e-324, 1e308]])


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "float64"])
@pytest.mark.parametrize("fn", FUNCS)
def test_device_gives_the_cpus_bits(fn, dtype):
    x = _inputs(dtype)
    host = dlx.asarray(x)
    want = np.asarray(getattr(dlx, fn)(host))
    got_t = getattr(dlx, fn)(host.to("cuda"))
    assert got_t.device == (2, 0)
    got = np.asarray(got_t.to("cpu"))
    u = {2: np.uint16, 4: np.uint32, 8: np.uint64}[want.dtype.itemsize]
    with np.errstate(invalid="ignore"):
        same = (got.view(u) == want.view(u)) | (np.isnan(got.astype(np.float64)) & np.isnan(want.astype(np.float64)))
    assert same.all(), f"{fn} {dtype}: {int((~same).sum())} differ, first x={x[~same][:4]!r}"


@pytest.mark.parametrize("fn", FUNCS)
def test_numpy_ufunc_of_a_device_tensor_runs_on_the_device(fn):
    x = np.linspace(0.25, 4, 1000, dtype=np.float32)
    r = getattr(np, fn)(dlx.asarray(x).to("cuda"))
    assert isinstance(r, dlx.Tensor) and r.device == (2, 0)
    want = np.asarray(getattr(dlx, fn)(dlx.asarray(x)))
    assert (np.asarray(r.to("cpu")).view(np.uint32) == want.view(np.uint32)).all()
