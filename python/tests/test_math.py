"""The math functions (exp, exp2, expm1, log, log2, log10, log1p, tanh, sin, cos: the op table's rows with
nar WIDE, issue 29) against MPFR through gmpy2 and against NumPy.

- float32: the correctly rounded result, bit for bit, on odd values (NaN, +-inf, -0.0, subnormals, the
  extremes, powers of two and their neighbours) and on hypothesis's floats;
- float16 and bfloat16 (ml_dtypes): every code, against MPFR rounding once to the format's own precision
  (no double rounding through float32);
- special values exact (C Annex F), the same in every float dtype;
- float64: within the ulp bound measured for each function (docs/numerics.md);
- NumPy: the values within NumPy's own error (its float32 loops are not correctly rounded), its loop dtypes
  for integer and bool inputs (exp(int8) is float16, exp(int32) float64), np.exp(t) returning a dlx tensor;
- complex refused with a TypeError naming the function and the dtype.

bench/math/exhaustive.c checks every float32 input at every SIMD level through the C API; this file is the
Python side's check of the same contract."""

import math

import numpy as np
import pytest

import dlx

gmpy2 = pytest.importorskip("gmpy2", reason="gmpy2 (MPFR) is not installed")
ml_dtypes = pytest.importorskip("ml_dtypes", reason="ml_dtypes is not installed")
hypothesis = pytest.importorskip("hypothesis", reason="hypothesis is not installed")
from hypothesis import given, settings, strategies as st  # noqa: E402

ALL = ["exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "tanh", "sin", "cos"]
SHIPPED = {r[0] for r in dlx._dlx._op_table}
FUNCS = [f for f in ALL if f in SHIPPED]
pytestmark = pytest.mark.skipif(not FUNCS, reason="no math function in this build's op table")

MPFR = {"exp": gmpy2.exp, "exp2": gmpy2.exp2, "expm1": gmpy2.expm1, "log": gmpy2.log, "log2": gmpy2.log2,
        "log10": gmpy2.log10, "log1p": gmpy2.log1p, "tanh": gmpy2.tanh, "sin": gmpy2.sin, "cos": gmpy2.cos}
# float64: the largest error in ulps each function may have (the math helpers' measurements, rounded up;
# docs/numerics.md lists the measured values)
F64_ULPS = {"exp": 1.0, "exp2": 1.0, "expm1": 1.0, "log": 1.0, "log2": 1.0, "log10": 1.0, "log1p": 1.0,
            "tanh": 1.0, "sin": 1.0, "cos": 1.0}
# NumPy's float32 loops: within this many float32 ulps of the correctly rounded value (NumPy documents up to
# 4 ulp for its SIMD float32 exp/log and its sin/cos; the others go through float64 or libm)
NUMPY_ULPS = 4

# (precision, emin, emax) of MPFR contexts with the format's gradual underflow (gmpy2's emin: the exponent
# of the smallest normal value in MPFR's [0.5, 1) convention, less the precision's subnormal range)
FORMATS = {"float32": (24, -148, 128), "float16": (11, -23, 16), "bfloat16": (8, -132, 128),
           "float64": (53, -1073, 1024)}


def _np_dtype(name):
    return np.dtype(getattr(ml_dtypes, name)) if name == "bfloat16" else np.dtype(name)


def correctly_rounded_array(fn, xs, fmt):
    """fn(x) of each x rounded once to the format (nearest, ties to even), in the format's dtype."""
    p, emin, emax = FORMATS[fmt]
    f = MPFR[fn]
    with gmpy2.context(precision=p, emin=emin, emax=emax, subnormalize=True):
        ys = [float(f(gmpy2.mpfr(x, 64))) for x in xs.astype(np.float64).tolist()]
    with np.errstate(over="ignore", invalid="ignore"):
        return np.array(ys).astype(_np_dtype(fmt))


def run(fn, a):
    return np.asarray(getattr(dlx, fn)(dlx.asarray(a)))


def assert_same_bits(fn, x, got, want):
    g, w = got.astype(np.float64), want.astype(np.float64)
    same = (got.view(np.uint8).reshape(got.shape + (-1,)) == want.view(np.uint8).reshape(want.shape + (-1,))).all(-1)
    same |= np.isnan(g) & np.isnan(w)
    if not same.all():
        i = np.argwhere(~same)[:5].ravel()
        pytest.fail(f"{fn}({got.dtype}): {int((~same).sum())} differ; x={x[i]!r} dlx={got[i]!r} want={want[i]!r}")


def odd_float32():
    """NaN, +-inf, +-0, subnormals, the extremes, every power of two with its neighbours, both signs."""
    e = np.arange(0, 255, dtype=np.uint32) << 23
    bits = np.concatenate([e, e + 1, np.maximum(e, 1) - 1, np.array([0x7f800000, 0x7fc00000, 0x7f800001, 1, 0x7fffff,
                                                                        0x7f7fffff, 0x3f800000], dtype=np.uint32)])
    bits = np.concatenate([bits, bits | 0x80000000])
    return bits.astype(np.uint32).view(np.float32)


@pytest.mark.parametrize("fn", FUNCS)
def test_float32_odd_values_are_correctly_rounded(fn):
    x = odd_float32()
    assert_same_bits(fn, x, run(fn, x), correctly_rounded_array(fn, x, "float32"))


@pytest.mark.parametrize("fn", FUNCS)
def test_float32_random_values_are_correctly_rounded(fn):
    rng = np.random.default_rng(ALL.index(fn))
    x = np.concatenate([rng.integers(0, 2**32, 3000, dtype=np.uint64).astype(np.uint32).view(np.float32),
                        rng.uniform(-100, 100, 3000).astype(np.float32),
                        rng.uniform(-1e-3, 1e-3, 1000).astype(np.float32)])
    assert_same_bits(fn, x, run(fn, x), correctly_rounded_array(fn, x, "float32"))


@pytest.mark.parametrize("fn", FUNCS)
@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(width=32, allow_nan=True, allow_infinity=True, allow_subnormal=True), min_size=1,
                max_size=40))
def test_hypothesis_float32_against_mpfr(fn, values):
    x = np.array(values, dtype=np.float32)
    assert_same_bits(fn, x, run(fn, x), correctly_rounded_array(fn, x, "float32"))


@pytest.mark.parametrize("fmt", ["float16", "bfloat16"])
@pytest.mark.parametrize("fn", FUNCS)
def test_every_16_bit_code_is_correctly_rounded_to_its_format(fn, fmt):
    x = np.arange(2**16, dtype=np.uint32).astype(np.uint16).view(_np_dtype(fmt))
    assert_same_bits(fn, x, run(fn, x), correctly_rounded_array(fn, x, fmt))


@pytest.mark.parametrize("fmt", ["float8_e4m3fn", "float8_e5m2"])
@pytest.mark.parametrize("fn", FUNCS)
def test_float8_codes_round_once_from_the_exact_value(fn, fmt):
    """Every code: the format's encoding of MPFR's value rounded to the format's precision (its own range
    and overflow are the encoder's: ml_dtypes' cast of that exactly representable value)."""
    dt = np.dtype(getattr(ml_dtypes, fmt))
    info = ml_dtypes.finfo(dt)
    p = info.nmant + 1
    emin = int(math.log2(float(info.smallest_subnormal))) + 1
    x = np.arange(256, dtype=np.uint8).view(dt)
    with gmpy2.context(precision=p, emin=emin, emax=1024, subnormalize=True):
        want = [float(MPFR[fn](gmpy2.mpfr(v, 64))) for v in x.astype(np.float64).tolist()]
    with np.errstate(over="ignore", invalid="ignore"):
        want = np.array(want).astype(dt)
    assert_same_bits(fn, x, run(fn, x), want)


SPECIALS = {
    "exp": [(0.0, 1.0), (-0.0, 1.0), (math.inf, math.inf), (-math.inf, 0.0), (1e4, math.inf), (-1e4, 0.0)],
    "exp2": [(0.0, 1.0), (3.0, 8.0), (-3.0, 0.125), (10.0, 1024.0), (-math.inf, 0.0), (math.inf, math.inf)],
    "expm1": [(0.0, 0.0), (-0.0, -0.0), (math.inf, math.inf), (-math.inf, -1.0)],
    "log": [(1.0, 0.0), (0.0, -math.inf), (-0.0, -math.inf), (math.inf, math.inf), (-1.0, math.nan),
            (-math.inf, math.nan)],
    "log2": [(1.0, 0.0), (8.0, 3.0), (0.25, -2.0), (0.0, -math.inf), (math.inf, math.inf), (-2.0, math.nan)],
    "log10": [(1.0, 0.0), (10.0, 1.0), (1000.0, 3.0), (0.0, -math.inf), (math.inf, math.inf), (-1.0, math.nan)],
    "log1p": [(0.0, 0.0), (-0.0, -0.0), (-1.0, -math.inf), (math.inf, math.inf), (-2.0, math.nan)],
    "tanh": [(0.0, 0.0), (-0.0, -0.0), (math.inf, 1.0), (-math.inf, -1.0), (100.0, 1.0), (-100.0, -1.0)],
    "sin": [(0.0, 0.0), (-0.0, -0.0), (math.inf, math.nan), (-math.inf, math.nan)],
    "cos": [(0.0, 1.0), (-0.0, 1.0), (math.inf, math.nan), (-math.inf, math.nan)],
}


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("fn", FUNCS)
def test_special_values_are_exact(fn, dtype):
    xs, want = zip(*(SPECIALS[fn] + [(math.nan, math.nan)]))
    dt = _np_dtype(dtype)
    got = run(fn, np.array(xs, dtype=np.float64).astype(dt)).astype(np.float64)
    for x, g, w in zip(xs, got, want):
        if math.isnan(w):
            assert math.isnan(g), f"{fn}({x}) in {dtype}: {g}, want NaN"
        else:
            assert g == w and math.copysign(1, g) == math.copysign(1, w), f"{fn}({x}) in {dtype}: {g!r}, want {w!r}"


def ulp_error(fn, x, y):
    """|y - fn(x)| in ulps of the exact value's binade (float64)."""
    with gmpy2.context(precision=200, emin=-20000, emax=20000):
        exact = MPFR[fn](gmpy2.mpfr(x, 53))
        if not gmpy2.is_finite(exact):
            return 0.0 if (math.isinf(y) and float(exact) == y) or (math.isnan(y) and gmpy2.is_nan(exact)) else math.inf
        if exact == 0:
            return 0.0 if y == 0 else math.inf
        e = max(gmpy2.get_exp(exact) - 53, -1074)
        return float(abs(gmpy2.mpfr(y) - exact) / gmpy2.mul_2exp(gmpy2.mpfr(1), e))


DOMAIN = {"exp": (-745, 709), "exp2": (-1074, 1023), "expm1": (-40, 709), "log": (1e-300, 1e300),
          "log2": (1e-300, 1e300), "log10": (1e-300, 1e300), "log1p": (-0.999, 1e300), "tanh": (-20, 20),
          "sin": (-1e6, 1e6), "cos": (-1e6, 1e6)}


@pytest.mark.parametrize("fn", FUNCS)
def test_float64_within_the_measured_ulp_bound(fn):
    rng = np.random.default_rng(64 + ALL.index(fn))
    lo, hi = DOMAIN[fn]
    if lo > 0:
        x = np.exp(rng.uniform(np.log(lo), np.log(hi), 4000))
    else:
        x = np.concatenate([rng.uniform(lo, hi, 3000), rng.uniform(-1, 1, 500), rng.uniform(-1e-8, 1e-8, 500)])
        x = x[(x > lo) & (x < hi)]
    got = run(fn, x)
    worst = max(ulp_error(fn, float(a), float(b)) for a, b in zip(x, got))
    assert worst <= F64_ULPS[fn], f"{fn} float64: {worst:.3f} ulp"


def _f32_ulps_apart(a, b):
    """Distance in float32 ulps (ordered bit patterns); NaN and inf must match exactly (inf: 0 or huge)."""
    ia, ib = a.view(np.int32).astype(np.int64), b.view(np.int32).astype(np.int64)
    ia = np.where(ia < 0, -(ia & 0x7fffffff), ia)
    ib = np.where(ib < 0, -(ib & 0x7fffffff), ib)
    return np.abs(ia - ib)


@pytest.mark.parametrize("fn", FUNCS)
def test_float32_agrees_with_numpy_within_its_error(fn):
    rng = np.random.default_rng(7 + ALL.index(fn))
    x = np.concatenate([(rng.standard_normal(20000) * rng.choice([1e-3, 1.0, 30.0], 20000)).astype(np.float32),
                        odd_float32()])
    with np.errstate(all="ignore"):
        want = getattr(np, fn)(x)
    got = run(fn, x)
    assert got.dtype == want.dtype
    nan_g, nan_w = np.isnan(got), np.isnan(want)
    assert (nan_g == nan_w).all(), f"{fn}: NaN at {x[nan_g != nan_w][:5]!r}"
    fin = ~nan_g
    d = _f32_ulps_apart(got[fin], want[fin])
    assert d.max() <= NUMPY_ULPS, f"{fn}: {d.max()} ulps from NumPy at x={x[fin][d.argmax()]!r}"


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int16", "uint16", "int32", "int64", "uint64"])
@pytest.mark.parametrize("fn", FUNCS)
def test_integer_inputs_promote_as_numpy(fn, dtype):
    a = (np.arange(1, 40) % (2 if dtype == "bool" else 40)).astype(dtype)
    with np.errstate(all="ignore"):
        want = getattr(np, fn)(a)
    got = getattr(dlx, fn)(dlx.asarray(a))
    g = np.asarray(got)
    assert g.dtype == want.dtype, (fn, dtype, g.dtype, want.dtype)
    # the value: correctly rounded in the loop's dtype (NumPy's float16 loop rounds twice, through float32)
    assert_same_bits(fn, a, g, correctly_rounded_array(fn, a.astype(np.float64), g.dtype.name))


@pytest.mark.parametrize("fn", FUNCS)
def test_numpy_ufunc_returns_a_dlx_tensor(fn):
    x = np.linspace(0.1, 3, 50, dtype=np.float32)
    t = dlx.asarray(x)
    r = getattr(np, fn)(t)
    assert isinstance(r, dlx.Tensor)
    assert_same_bits(fn, x, np.asarray(r), run(fn, x))
    out = dlx.asarray(np.zeros_like(x))
    assert getattr(np, fn)(t, out=out) is out
    assert_same_bits(fn, x, np.asarray(out), run(fn, x))


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("fn", FUNCS)
def test_complex_is_refused_naming_the_function_and_dtype(fn, dtype):
    t = dlx.asarray(np.ones(3, dtype=dtype))
    with pytest.raises(TypeError, match=rf"dlx\.{fn} is not supported for {dtype}"):
        getattr(dlx, fn)(t)


@pytest.mark.parametrize("fn", FUNCS)
def test_strided_and_broadcast_layouts_give_the_contiguous_bits(fn):
    rng = np.random.default_rng(11)
    a = (rng.standard_normal((33, 47)) * 3).astype(np.float32)
    want = run(fn, np.ascontiguousarray(a.T))
    assert_same_bits(fn, a.T, run(fn, a.T), want)
    h = (rng.standard_normal((33, 47)) * 3).astype(ml_dtypes.bfloat16)
    assert_same_bits(fn, h[::-1, ::3], run(fn, h[::-1, ::3]), run(fn, np.ascontiguousarray(h[::-1, ::3])))
