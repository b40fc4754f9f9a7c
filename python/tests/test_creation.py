"""The creation functions (src/pyext/create_more.c over src/compute/create.c): dlx.ones, empty_like,
zeros_like, ones_like, full_like, arange and eye, held against NumPy itself (with ml_dtypes for bfloat16
and the float8/6/4 formats), bit for bit: dtype, shape and every byte. arange and eye run through
hypothesis over every dtype (odd steps: negative, fractional, tiny, huge; empty results; integer wrapping),
and so do the C functions behind them (dlx_arange, dlx_arange_int, dlx_arange_length(_int), dlx_eye on
strided views) through dlx._testing's hooks. The device cases run on CUDA when a device is present and on
oneAPI when dpctl finds one, and skip with the reason otherwise.

Known differences from NumPy, pinned here: an int that only NumPy's object arrays hold (outside
[-2^63, 2^64)) is OverflowError; ml_dtypes refuses a Python int outside int64 for its dtypes
("expected number, got int") where dlx converts it; an arange of length exactly 2^63 is ValueError
(NumPy returns an empty array there, after an undefined conversion)."""

import math
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from peers import need

import dlx

T = dlx._testing

INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOATS = ["float16", "float32", "float64", "complex64", "complex128"]
NARROW = ["bfloat16", "float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz",
          "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu", "float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn"]


def np_dtype(name):
    """numpy's dtype for a dlx dtype name (None stays None)."""
    if name is None or name not in NARROW:
        return None if name is None else np.dtype(name)
    ml = need("ml_dtypes", "ml_dtypes is not installed: the bfloat16 / float8 cases are skipped")
    return np.dtype(getattr(ml, name))


ALL = [None, "bool"] + INTS + FLOATS + NARROW


def host(t):
    """t's values as a NumPy array (copied to the host first when on a device)."""
    if t.__dlpack_device__()[0] != 1:
        t = t.to("cpu")
    return np.asarray(t)


def outcome(fn):
    """("ok", dtype, shape, bytes) of fn's array, or ("err", exception type)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # NumPy warns on overflow in a cast; dlx gives the same inf silently
        try:
            r = fn()
        except Exception as e:  # noqa: BLE001 - the type is the outcome
            return ("err", type(e))
    a = r if isinstance(r, np.ndarray) else host(r)
    return ("ok", a.dtype.name, a.shape, a.tobytes())


def same_outcome(got, ref):
    if ref[0] == "err":
        assert got[0] == "err" and got[1] is ref[1], (got, ref)
    else:
        assert got == ref, (got[:3], ref[:3])


# --- arange ------------------------------------------------------------------------------------------


def numpy_length(start, stop, step):
    """NumPy's _calc_length on Python numbers, for filtering only (no allocation); None when it raises."""
    try:
        q = (stop - start) / step
    except (ZeroDivisionError, OverflowError):
        return None
    return None if math.isnan(q) or math.isinf(q) else max(0, math.ceil(q))


@st.composite
def arange_args(draw, dtypes=ALL, max_len=300):
    """(start, stop, step, dtype): numbers of either kind, steps negative, fractional, tiny or huge, stop
    placed so that the length is at most max_len (often 0, 1 or 2)."""
    kinds = draw(st.lists(st.sampled_from(["int", "float"]), min_size=3, max_size=3))
    dtype = draw(st.sampled_from(dtypes))
    narrow = dtype in NARROW

    def number(kind):
        if kind == "int":
            # ml_dtypes takes ints within int64 only, and through float32 past 2^53: kept below there
            bound = 2**53 if narrow else 2**63 - 1
            return draw(st.one_of(st.integers(-300, 300), st.integers(-bound, bound)))
        return draw(st.one_of(st.floats(-1e3, 1e3), st.floats(allow_nan=False, allow_infinity=False),
                              st.floats(-1e-300, 1e-300)))

    start, step = number(kinds[0]), number(kinds[2])
    assume(step != 0)
    n = draw(st.integers(0, max_len))
    if kinds[1] == "int" and isinstance(start, int) and isinstance(step, int):
        stop = start + step * n - draw(st.integers(0, max(0, abs(step) - 1))) * (1 if step > 0 else -1)
        if dtype is None or narrow:
            assume(-(2**63) <= stop < 2**63)
    else:
        stop = start + step * n + draw(st.floats(-1, 1)) * step
        assume(math.isfinite(stop))
    length = numpy_length(start, stop, step)
    assume(length is not None and length <= max_len)
    return start, stop, step, dtype


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(arange_args())
def test_arange_against_numpy(args):
    start, stop, step, dtype = args
    ref = outcome(lambda: np.arange(start, stop, step, dtype=np_dtype(dtype)))
    same_outcome(outcome(lambda: dlx.arange(start, stop, step, dtype=dtype)), ref)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(st.integers(-(2**64), 2**64), st.integers(1, 40), st.sampled_from(INTS + [None]))
def test_arange_integers_wrap_and_refuse_as_numpy(start, n, dtype):
    """Integers: out-of-range starts are OverflowError, values past the dtype wrap (NumPy's fill)."""
    ref = outcome(lambda: np.arange(start, start + n, dtype=np_dtype(dtype)))
    got = outcome(lambda: dlx.arange(start, start + n, dtype=dtype))
    if ref[0] == "ok" and ref[1] == "object":
        assert got == ("err", OverflowError)
    else:
        same_outcome(got, ref)


@pytest.mark.parametrize("dtype", [None, "float16", "float32", "float64", "bfloat16", "float8_e5m2", "int8", "uint64"])
@pytest.mark.parametrize("args", [(0, 1, 0.1), (1, 0, -0.3), (1e-320, 1e-319, 1e-322), (0, 5, float("inf")),
                                  (0, -5, float("inf")), (65500, 65600, 16), (2040, 2060, 3), (5,), (0,), (-3,),
                                  (2.5,), (-0.5, 3), (2**63 - 5, 2**63 - 1), (1e300, 1e308, 1e307),
                                  (0.0, 1e40, 1e39), (3, 3, -1), (0, 2**62 + 1, 2**62)])
def test_arange_edges(args, dtype):
    ref = outcome(lambda: np.arange(*args, dtype=np_dtype(dtype)))
    same_outcome(outcome(lambda: dlx.arange(*args, dtype=dtype)), ref)


def test_arange_default_dtypes_and_signature():
    assert dlx.arange(3).dtype == "int64" and dlx.arange(3.0).dtype == "float64"
    assert dlx.arange(0, 3, 1.0).dtype == "float64" and dlx.arange(True).dtype == "int64"
    assert dlx.arange(np.int8(3)).dtype == "int64"  # __index__: a Python int, as NumPy's result dtype
    assert dlx.arange(2**63, 2**63 + 2).dtype == "float64"  # int64 with uint64 promotes to float64
    same_outcome(outcome(lambda: dlx.arange(0, 10, 3, "float32")), outcome(lambda: np.arange(0, 10, 3, "float32")))
    same_outcome(outcome(lambda: dlx.arange(2, step=None)), outcome(lambda: np.arange(2, step=None)))
    assert host(dlx.arange(stop=4, start=1)).tolist() == [1, 2, 3]


def test_arange_refusals():
    """The exceptions NumPy raises, with dlx's messages."""
    with pytest.raises(ZeroDivisionError):
        dlx.arange(0, 10, 0)
    with pytest.raises(ZeroDivisionError):
        dlx.arange(0.0, 10, -0.0)
    with pytest.raises(ValueError, match="arange: cannot compute length"):
        dlx.arange(float("nan"))
    with pytest.raises(ValueError, match="Maximum allowed size exceeded"):
        dlx.arange(0, 1, 1e-310)
    with pytest.raises(ValueError, match="Maximum allowed size exceeded"):
        dlx.arange(10**20, dtype="float64")
    with pytest.raises(ValueError, match="Maximum allowed size exceeded"):
        dlx.arange(0.0, 2.0**63)  # NumPy: an empty array, after an undefined conversion of 2^63 to intp
    with pytest.raises(OverflowError, match="Python integer -1 out of bounds for uint8"):
        dlx.arange(-1, 5, dtype="uint8")
    with pytest.raises(OverflowError, match="Python integer 300 out of bounds for int8"):
        dlx.arange(300.5, 302, dtype="int8")
    with pytest.raises(OverflowError, match="Python integer 128 out of bounds for int8"):
        dlx.arange(126, 130, 2, dtype="int8")  # start + step, the second value NumPy stores
    with pytest.raises(OverflowError, match=r"Python integer -?\d+ out of bounds for int64 and uint64"):
        dlx.arange(2**64, 2**64 + 2)  # NumPy: an object array
    with pytest.raises(TypeError, match="NumPy makes bool aranges of at most 2"):
        dlx.arange(3, dtype=bool)
    with pytest.raises(TypeError, match="complex number 1j; dlx.arange takes real numbers"):
        dlx.arange(1j)
    with pytest.raises(TypeError, match="step must be a real number, not str"):
        dlx.arange(0, 5, "1")
    with pytest.raises(TypeError, match="requires stop to be specified"):
        dlx.arange(start=3)
    with pytest.raises(TypeError, match="int128 has no scalar conversion"):
        dlx.arange(3, dtype="int128")
    with pytest.raises(ValueError, match="unknown dtype 'xyz'"):
        dlx.arange(3, dtype="xyz")
    with pytest.raises(ValueError):
        dlx.arange(3, device="nowhere")


# --- the C functions behind it ------------------------------------------------------------------------


@settings(max_examples=800, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(arange_args(dtypes=["bool"] + INTS + FLOATS + NARROW), st.sampled_from(["compact", "every other", "reversed"]))
def test_c_arange_against_numpy(args, layout):
    """dlx_arange (Python floats: doubles) and dlx_arange_int (ints within int64) into strided views."""
    start, stop, step, dtype = args
    ints = isinstance(start, int) and isinstance(step, int)
    assume(not ints or (-(2**63) <= start < 2**63 and -(2**63) <= step < 2**63))
    if not ints:
        start, step = float(start), float(step)  # what dlx_arange takes
    ref = outcome(lambda: np.arange(start, stop, step, dtype=np_dtype(dtype)))
    assume(ref[0] == "ok")
    n = ref[2][0]
    if layout == "compact" or dtype in ("float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn"):
        out = dlx.empty(n, dtype=dtype)  # packed codes: no strided views (a host buffer and dlx_copy)
    elif layout == "every other":
        out = dlx.empty(2 * n, dtype=dtype)[::2]
    else:
        out = dlx.empty(n, dtype=dtype)[::-1]
    try:
        T.arange_c(out, start, step)
    except ValueError as e:  # start + step past int64: NumPy's Python ints go on, the C int64 API cannot
        if "overflows int64" not in str(e):
            raise
        assume(False)
    got = host(out)
    assert got.dtype.name == ref[1] and got.tobytes() == ref[3]


def calc_length(start, stop, step):
    """NumPy's _calc_length (numpy/_core/src/multiarray/ctors.c) restated on Python numbers, for lengths NumPy
    cannot allocate: ("ok", n), or ("err",) where NumPy raises (ZeroDivisionError, or ValueError: "arange:
    cannot compute length", "Maximum allowed size exceeded"; also for exactly 2^63, which NumPy lets through)."""
    diff = stop - start
    try:
        q = diff / step
    except (ZeroDivisionError, OverflowError):
        return ("err",)
    if q == 0 and diff != 0:
        return ("ok", 0 if math.copysign(1.0, q) < 0 else 1)
    if math.isnan(q) or math.isinf(q):
        return ("err",)
    c = math.ceil(q)
    return ("ok", max(0, c)) if -(2**63) <= c < 2**63 else ("err",)


@settings(max_examples=600, deadline=None)
@given(st.one_of(st.integers(-(2**63), 2**63 - 1), st.floats(allow_nan=False)),
       st.one_of(st.integers(-(2**63), 2**63 - 1), st.floats(allow_nan=False)),
       st.one_of(st.integers(-(2**63), 2**63 - 1), st.floats(allow_nan=True)))
def test_c_lengths_against_numpy(start, stop, step):
    """dlx_arange_length(_int) against NumPy's length: np.arange's own size where the result is small, and
    NumPy's computation restated (calc_length) where it could not be allocated."""
    if not all(isinstance(x, int) for x in (start, stop, step)):
        start, stop, step = float(start), float(stop), float(step)  # dlx_arange_length takes doubles
    try:
        got = ("ok", T.arange_length(start, stop, step))
    except ValueError:
        got = ("err",)
    assert got == calc_length(start, stop, step), (start, stop, step)
    if got[0] == "ok" and got[1] <= 10**5:
        assert np.arange(start, stop, step).size == got[1]
    elif got == ("err",) and numpy_length(start, stop, step) is None:
        with pytest.raises((ZeroDivisionError, ValueError)):
            np.arange(start, stop, step)


def test_c_lengths_numpy_quotes():
    """NumPy's sizes at the rounding edges of the integer quotient (np.arange(...).size, or the shape its
    MemoryError names: "Unable to allocate ... for an array with shape (9007199254740992,)", quoted here
    rather than asked for, since the test suite also runs under AddressSanitizer, which reports every
    failed allocation of that size)."""
    assert T.arange_length(0, 2**62 + 1, 2**62) == np.arange(0, 2**62 + 1, 2**62).size == 1
    assert T.arange_length(-(2**63), 2**63 - 1, 2**62) == np.arange(-(2**63), 2**63 - 1, 2**62).size == 4
    for stop, step, size in ((2**53 + 1, 1, 2**53), (2**53 + 3, 1, 2**53 + 4), (2**54 + 1, 2, 2**53)):
        assert T.arange_length(0, stop, step) == size
    with pytest.raises(ValueError, match="step is 0"):
        T.arange_length(0, 1, 0)
    with pytest.raises(ValueError, match="does not fit int64"):
        T.arange_length(0, 2**63 - 1, 1)


# --- eye ----------------------------------------------------------------------------------------------


@settings(max_examples=400, deadline=None)
@given(st.integers(0, 9), st.one_of(st.none(), st.integers(0, 9)), st.integers(-12, 12), st.sampled_from(ALL))
def test_eye_against_numpy(n, m, k, dtype):
    ref = outcome(lambda: np.eye(n, m, k, dtype=np_dtype(dtype)))
    same_outcome(outcome(lambda: dlx.eye(n, m, k, dtype=dtype)), ref)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 7), st.integers(1, 7), st.integers(-8, 8), st.sampled_from(["bool"] + INTS + FLOATS + NARROW[:9]),
       st.sampled_from(["transposed", "sliced", "reversed"]))
def test_c_eye_on_strided_views(n, m, k, dtype, layout):
    """dlx_eye on a view that is not compact: the ones land on the view's diagonal, nothing else changes."""
    if layout == "transposed":
        base = dlx.full((m, n), 7, dtype=dtype)
        out = base.T
    elif layout == "sliced":
        base = dlx.full((n + 2, 2 * m), 7, dtype=dtype)
        out = base[1:-1, ::2]
    else:
        base = dlx.full((n, m), 7, dtype=dtype)
        out = base[::-1, ::-1]
    T.eye_c(out, k)
    ref = np.eye(n, m, k, dtype=np_dtype(dtype))
    assert host(out).tobytes() == np.ascontiguousarray(ref).tobytes()
    whole = host(base)
    if layout == "sliced":
        untouched = np.full((n + 2, 2 * m), 7, dtype=np_dtype(dtype))
        assert whole[0].tobytes() == untouched[0].tobytes() and whole[:, 1::2].tobytes() == untouched[:, 1::2].tobytes()


def test_eye_arguments():
    assert dlx.eye(3, k=2**70).shape == (3, 3) and not host(dlx.eye(3, k=2**70)).any()
    assert dlx.eye(3, k=-(2**70)).shape == (3, 3) and not host(dlx.eye(3, k=-(2**70))).any()
    assert host(dlx.eye(3, k=np.int8(1))).tobytes() == np.eye(3, k=1).tobytes()
    assert dlx.eye(2, dtype=None).dtype == "float64" and dlx.eye(0).shape == (0, 0)
    for bad in (2.5, True, "3"):
        with pytest.raises(TypeError):
            dlx.eye(bad)
    with pytest.raises(TypeError):
        dlx.eye(3, k=1.0)
    with pytest.raises(ValueError, match="-1"):
        dlx.eye(-1)
    with pytest.raises(TypeError, match="uint128 has no kernel"):
        dlx.eye(2, dtype="uint128")


# --- ones and the *_like functions ------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 4), max_size=3), st.sampled_from(ALL))
def test_ones_against_numpy(shape, dtype):
    want = np.ones(shape, dtype=np_dtype(dtype or "float32"))  # dlx's default dtype is float32, as dlx.zeros
    same_outcome(outcome(lambda: dlx.ones(shape, dtype=dtype)), outcome(lambda: want))


LIKES = [(dlx.empty_like, np.empty_like), (dlx.zeros_like, np.zeros_like), (dlx.ones_like, np.ones_like)]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 4), max_size=3), st.sampled_from(["bool"] + INTS + FLOATS + NARROW),
       st.sampled_from([None] + ["int16", "float64", "bfloat16", "complex64"]), st.sampled_from(["numpy", "dlx", "view"]))
def test_likes_against_numpy(shape, dtype, want_dtype, source):
    x = np.zeros(shape, dtype=np_dtype(dtype))
    xs = {"numpy": x, "dlx": dlx.asarray(x), "view": dlx.asarray(np.zeros(shape[::-1], x.dtype)).T}[source]
    for mine, theirs in LIKES:
        got = mine(xs, dtype=want_dtype)
        ref = theirs(x, dtype=np_dtype(want_dtype))
        assert got.dtype == ref.dtype.name and got.shape == ref.shape and got.is_contiguous
        if mine is not dlx.empty_like:
            assert host(got).tobytes() == ref.tobytes()


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["bool"] + INTS + FLOATS + NARROW), st.data())
def test_full_like_against_numpy(dtype, data):
    x = np.zeros((2, 3), dtype=np_dtype(dtype))
    if dtype in NARROW:
        # NumPy fills through ml_dtypes' cast from float64, which rounds twice (through float32) and maps
        # (0, 1.5 * 2^-127) to 2^-126 or NaN in float8_e8m0fnu; dlx rounds once (docs/numerics.md,
        # "Float64 ... into the narrow formats"): float32 values round the same either way
        lo = 2.0**-120 if dtype == "float8_e8m0fnu" else 0.0
        value = data.draw(st.one_of(st.integers(-1000, 1000), st.floats(width=32).filter(lambda v: v != v or abs(v) >= lo)))
    else:
        value = data.draw(st.one_of(st.booleans(), st.integers(-(2**70), 2**70), st.floats(), st.floats(-300, 300)))
    if dtype == "bool" and isinstance(value, int):
        # NumPy's bool setitem goes through a C long: OverflowError past int64; dlx stores the truth
        assume(-(2**63) <= value < 2**63)
    if isinstance(value, float) and x.dtype.kind in "iu":
        # a float past the integer dtype saturates in dlx (docs/numerics.md, "Float to integer casts
        # saturate"), where NumPy's unsafe cast is C's undefined conversion
        info = np.iinfo(x.dtype)
        assume(math.isfinite(value) and info.min - 1 < value < info.max + 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = outcome(lambda: np.full_like(x, value))
    assume(ref[0] == "ok" or ref[1] is OverflowError)
    same_outcome(outcome(lambda: dlx.full_like(x, value)), ref)


def test_likes_of_python_values_and_arguments():
    for mine, theirs in LIKES[1:]:
        for x in ([1, 2], [[1.5], [2.0]], 3, 2.5, True, [1j]):
            assert host(mine(x)).tobytes() == theirs(x).tobytes() and mine(x).dtype == theirs(x).dtype.name
    assert dlx.full_like([1, 2], 7, dtype="float32").dtype == "float32"
    assert dlx.empty_like(dlx.zeros(3), device="cpu").__dlpack_device__() == (1, 0)
    with pytest.raises(TypeError, match="cannot make a tensor of object"):
        dlx.zeros_like(object())
    with pytest.raises(OverflowError, match="Python integer 300 out of bounds for uint8"):
        dlx.full_like(np.zeros(2, np.uint8), 300)
    with pytest.raises(TypeError, match="cannot assign a complex number"):
        dlx.full_like(np.zeros(2, np.int8), 1.5j)  # NumPy warns and drops the imaginary part
    with pytest.raises(ValueError, match="unknown dtype"):
        dlx.ones_like([1], dtype="nope")
    with pytest.raises(TypeError):
        dlx.ones(True)
    with pytest.raises(ValueError, match="-2"):
        dlx.ones((2, -2))


# --- devices -------------------------------------------------------------------------------------------


def cuda_device():
    if not dlx.cuda.is_built():
        pytest.skip("no CUDA device: dlx was built without CUDA (DLX_WITH_CUDA=OFF)")
    if dlx.cuda.device_count() == 0:
        pytest.skip("no CUDA device (dlx.cuda.device_count() is 0: no GPU or no driver)")
    return "cuda:0"


def oneapi_device():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            import dpctl
        except Exception as e:  # noqa: BLE001 - any import failure means "not available"
            pytest.skip(f"dpctl cannot be imported ({type(e).__name__}: {e})")
    if not dpctl.get_devices():
        pytest.skip("dpctl finds no SYCL device (source scripts/oneapi_env.sh, see the README)")
    return "oneapi:0"


@pytest.fixture(params=["cuda", "oneapi"])
def device(request):
    return cuda_device() if request.param == "cuda" else oneapi_device()


def where(t):
    return t.__dlpack_device__()


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.parametrize("dtype", [None, "int8", "uint64", "float16", "float32", "float64", "complex128", "bfloat16",
                                   "float8_e4m3fn", "float4_e2m1fn"])
def test_on_devices_the_bits_of_the_host(device, dtype):
    """The same bits on the device as on the host (and as NumPy's), the result on the device."""
    cases = [(lambda d: dlx.arange(-3, 1000, 0.7, dtype=dtype, device=d)),
             (lambda d: dlx.arange(250, 1250, dtype=dtype, device=d)),
             (lambda d: dlx.eye(5, 7, -2, dtype=dtype, device=d)),
             (lambda d: dlx.ones((3, 4), dtype=dtype, device=d))]
    for make in cases:
        ref = outcome(lambda: make(None))
        same_outcome(outcome(lambda: make(device)), ref)
        if ref[0] == "ok":
            assert where(make(device))[0] != 1
    assert host(dlx.arange(0, 1, 0.1, dtype=dtype, device=device)).tobytes() == \
        np.arange(0, 1, 0.1, dtype=np_dtype(dtype)).tobytes()


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_likes_stay_on_the_device(device):
    x = dlx.arange(12.0, device=device).reshape(3, 4)
    for fn in (dlx.empty_like, dlx.zeros_like, dlx.ones_like):
        r = fn(x)
        assert where(r) == where(x) and r.shape == (3, 4)
    r = dlx.full_like(x, 2.5, dtype="float32")
    assert where(r) == where(x) and host(r).tolist() == [[2.5] * 4] * 3
    assert host(dlx.zeros_like(x)).tobytes() == np.zeros((3, 4)).tobytes()
    assert host(dlx.ones_like(x)).tobytes() == np.ones((3, 4)).tobytes()
    c = dlx.ones_like(x, device="cpu")  # device= moves the new tensor, never x
    assert where(c) == (1, 0) and where(x)[0] != 1
    d = dlx.zeros_like(np.arange(3), device=device)
    assert where(d)[0] != 1 and host(d).tobytes() == np.zeros(3, np.int64).tobytes()
