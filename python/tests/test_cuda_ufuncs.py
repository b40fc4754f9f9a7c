"""Every row of the op table (src/kernels/op_table.h, dlx._dlx._op_table) on a CUDA device, bit for bit
against the CPU: the same rules (src/kernels/expr.h) compiled by nvcc must give the CPU's bits, on odd values
(NaN, +-inf, -0.0, subnormals, the dtypes' extremes, shift counts past the width) and on strided and
broadcast layouts; np.<ufunc>(t) of a device tensor runs dlx's kernel and stays on the device.

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

ROWS = [r for r in dlx._dlx._op_table]
DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32",
          "float64", "complex64", "complex128", "bfloat16", "float8_e4m3fn", "float8_e5m2"]
# NaN's sign and payload are unspecified for arithmetic (docs/numerics.md); these keep a NaN's bits
KEEPS_NAN_BITS = {"negative", "positive", "where", "copysign"}


def _np_dtype(name):
    return np.dtype(getattr(ml_dtypes, name)) if hasattr(ml_dtypes, name) and not hasattr(np, name) else np.dtype(name)


def _values(name, n, rng):
    """n values of the dtype: its odd values first, then random ones."""
    dt = _np_dtype(name)
    if dt.kind == "b":
        return rng.integers(0, 2, n).astype(bool)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        odd = [0, 1, -1, 2, info.min, info.max, info.min + 1, info.max - 1, dt.itemsize * 8, dt.itemsize * 8 + 3]
        odd = np.array([v for v in odd if info.min <= v <= info.max], dtype=dt)
        rand = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
        return np.concatenate([odd, rand])[:n]
    special = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 1.5, 2.5, 1e-40,
                        -3e-8, 65504.0, 1e300])
    rand = rng.standard_normal(n) * rng.choice([1e-3, 1.0, 1e3], n)
    real = np.concatenate([special, rand])[:n]
    with np.errstate(over="ignore", invalid="ignore"):
        if dt.kind == "c":
            return (real + 1j * rng.permutation(real)).astype(dt)
        return real.astype(dt)


def _bytes_equal(name, got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    g, w = got.view(np.uint8).reshape(got.shape + (-1,)), want.view(np.uint8).reshape(want.shape + (-1,))
    same = (g == w).all(axis=-1)
    if name not in KEEPS_NAN_BITS and got.dtype.kind in "fcV":
        with np.errstate(invalid="ignore"):
            gf, wf = got.astype(np.complex128 if got.dtype.kind == "c" else np.float64), want.astype(
                np.complex128 if want.dtype.kind == "c" else np.float64)
        same |= np.isnan(gf) & np.isnan(wf)
    assert same.all(), f"{name}: {int((~same).sum())} elements differ, first at {np.argwhere(~same)[0]}"


def _call(name, nin, args):
    fn = getattr(dlx, name)
    try:
        return fn(*args), None
    except TypeError as e:  # a dtype the row does not take: the same refusal on both devices
        return None, str(e)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("row", ROWS, ids=lambda r: r[0])
def test_every_row_on_the_device_gives_the_cpus_bits(row, dtype):
    name, nin, _ = row
    rng = np.random.default_rng(abs(hash((name, dtype))) % 2**32)
    shape = (37, 29)
    hosts = []
    for k in range(nin):
        if name == "where" and k == 0:
            hosts.append(dlx.asarray(rng.integers(0, 2, shape).astype(bool)))
            continue
        a = _values(dtype, shape[0] * shape[1], rng).reshape(shape)
        # a transposed operand and a broadcast row among the inputs
        hosts.append(dlx.asarray(a.T.copy().T if k == 0 else a[k % 2:k % 2 + 1] if k == 2 else a))
    devs = [h.to("cuda") for h in hosts]
    want, why = _call(name, nin, hosts)
    got, why_dev = _call(name, nin, devs)
    assert (why is None) == (why_dev is None), (why, why_dev)
    if why is not None:
        return
    assert got.device == (2, 0)
    _bytes_equal(name, got.to("cpu"), want)


@pytest.mark.parametrize("row", [r for r in ROWS if r[1] == 1], ids=lambda r: r[0])
def test_numpy_ufuncs_of_device_tensors_run_on_the_device(row):
    name = row[0]
    a = np.linspace(-3, 3, 64, dtype=np.float32)
    t = dlx.asarray(a).to("cuda")
    ufunc = getattr(np, name, None)
    if ufunc is None or not isinstance(ufunc, np.ufunc):
        pytest.skip(f"NumPy has no ufunc {name}")
    try:
        r = ufunc(t)
    except TypeError as e:
        assert "dlx." in str(e)  # dlx's refusal of the dtype, not NumPy's
        return
    assert isinstance(r, dlx.Tensor) and r.device == (2, 0)
    _bytes_equal(name, r.to("cpu"), getattr(dlx, name)(dlx.asarray(a)))


def test_host_scalars_go_to_the_device_by_value():
    a = np.arange(-8, 8, dtype=np.int32)
    t = dlx.asarray(a).to("cuda")
    for got, want in [(dlx.maximum(t, 3), np.maximum(a, 3)), (t // 3, a // 3), (t % -3, a % -3), (t << 2, a << 2),
                      (dlx.clip(t, -2, 5), np.clip(a, -2, 5)), (dlx.where(t > 0, t, 7), np.where(a > 0, a, 7))]:
        assert got.device == (2, 0)
        np.testing.assert_array_equal(got.to("cpu"), want)
