"""Negation (-t, dlx_unary DLX_UNOP_NEG) against NumPy and ml_dtypes: the sign bit of each part flips, NaN,
inf and zero included (a multiply by -1 turned -(1+inf j) into nan-inf j and left -(0+0j) as -0+0j),
integers wrap, bool is refused. Bits are compared, so NaN signs and -0.0 count."""
import numpy as np
import pytest
from peers import need
from hypothesis import given, settings
from hypothesis import strategies as st

import dlx

ml_dtypes = need("ml_dtypes")

SPECIAL = [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, -np.nan, 1e-40, -5e-324, 3.4e38, 1.5, 2.0**-149]


def neg(a):
    return np.from_dlpack(-dlx.from_dlpack(np.ascontiguousarray(a)))


def same_bits(x, y):
    x, y = np.ascontiguousarray(x), np.ascontiguousarray(y)
    assert x.dtype == y.dtype and x.shape == y.shape
    return np.array_equal(x.view(np.uint8), y.view(np.uint8))


def test_issue_examples():
    c = np.array([complex(1, np.inf), complex(np.inf, np.inf), complex(np.nan, 1), 0j], dtype=np.complex128)
    got = neg(c)
    assert same_bits(got, np.negative(c))
    assert got[0].real == -1 and got[0].imag == -np.inf
    assert np.signbit(got[3].real) and np.signbit(got[3].imag)
    r = np.array([np.nan, -np.nan, 0.0], dtype=np.float64)
    got = neg(r)
    assert np.signbit(got[0]) and not np.signbit(got[1]) and np.signbit(got[2])


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_floats_bit_exact(dtype):
    x = np.array(SPECIAL, dtype=np.float64).astype(dtype)
    assert same_bits(neg(x), np.negative(x))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_bit_exact(dtype):
    parts = np.array(SPECIAL)
    x = (parts[:, None] + 1j * parts[None, :]).astype(dtype).ravel()
    # every pair of special parts, NaN and inf in either place
    for i in range(x.size):
        x.view(np.float64 if dtype == np.complex128 else np.float32)[2 * i:2 * i + 2] = [
            parts[i // parts.size], parts[i % parts.size]]
    assert same_bits(neg(x), np.negative(x))


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64])
def test_integers_wrap(dtype):
    info = np.iinfo(dtype)
    x = np.array([0, 1, info.min, info.max, info.min + 1, info.max - 1], dtype=dtype)
    with np.errstate(over="ignore"):
        assert same_bits(neg(x), np.negative(x))


NARROW = ["bfloat16", "float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz",
          "float8_e5m2", "float8_e5m2fnuz"]


@pytest.mark.parametrize("name", NARROW)
def test_narrow_every_code_vs_ml_dtypes(name):
    """Every code of the format, negated as ml_dtypes does it."""
    dt = np.dtype(getattr(ml_dtypes, name))
    x = np.arange(2 ** (8 * dt.itemsize), dtype=np.uint16 if dt.itemsize == 2 else np.uint8).view(dt)
    want = -x
    raw = "uint16" if dt.itemsize == 2 else "uint8"
    t = dlx.from_dlpack(x.view(raw)).view(name)
    got = np.from_dlpack((-t).view(raw)).view(dt)
    nan = np.isnan(want.astype(np.float32))
    assert np.array_equal(np.isnan(got.astype(np.float32)), nan)
    # NaN codes as ml_dtypes gives them (their sign flips too where the format has signed NaNs)
    bad = np.nonzero(got.view(raw) != want.view(raw))[0]
    assert len(bad) == 0, [(hex(int(c)), hex(int(got.view(raw)[c])), hex(int(want.view(raw)[c]))) for c in bad[:8]]


def test_bool_refused():
    with pytest.raises(TypeError, match="negation of a bool tensor"):
        -dlx.zeros(3, "bool")


def test_strided_and_broadcast_views():
    a = np.arange(24, dtype=np.float32).reshape(4, 6) - 10
    t = dlx.from_dlpack(a)
    assert same_bits(np.from_dlpack(-t.T), np.negative(a.T))
    assert same_bits(np.from_dlpack(-t[::2, ::-3]), np.negative(a[::2, ::-3]))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(allow_nan=True, allow_infinity=True, width=64), min_size=1, max_size=32),
       st.lists(st.floats(allow_nan=True, allow_infinity=True, width=64), min_size=1, max_size=32))
def test_complex_hypothesis(re, im):
    n = min(len(re), len(im))
    x = np.empty(n, np.complex128)
    x.real, x.imag = re[:n], im[:n]
    assert same_bits(neg(x), np.negative(x))
    y = x.astype(np.complex64)
    assert same_bits(neg(y), np.negative(y))
