"""What test_ufuncs.py compares dlx's elementwise ops with: the ops of dlx's op table by arity, values of
every dtype (odd ones and random ones), NumPy's answer (ml_dtypes' for bfloat16 and the float8 formats)
with dlx's documented differences applied (test_ufuncs.py's docstring lists them), the operands of the
known bugs that have their own xfail tests, and a bit-for-bit comparison of results."""
import functools
import warnings

import numpy as np
import pytest

import dlx
from opsutil import STANDARD, edge_ints, ml_dtypes, to_np

# the ten binary ops test_ops.py covers
OLD = {"add", "subtract", "multiply", "divide", "less", "less_equal", "greater", "greater_equal", "equal",
       "not_equal"}
ROWS = [row for row in dlx._dlx._op_table if row[0] not in OLD]
UNARY = [n for n, k, _ in ROWS if k == 1]
BINARY = [n for n, k, _ in ROWS if k == 2]
TERNARY = [n for n, k, _ in ROWS if k == 3]
LOGICAL_BINARY = [n for n, k, kind in ROWS if k == 2 and kind == "logical"]
NARROW = ["bfloat16", "float8_e4m3fn", "float8_e5m2"] if ml_dtypes is not None else []
DTYPES = STANDARD + NARROW
ALIASES = {"abs": "absolute", "bitwise_not": "invert"}

# documented differences (test_ufuncs.py's docstring)
# the math functions (issue 29): correctly rounded in every float dtype, where NumPy's are not (its float32
# loops are within a few ulp; its float16 and ml_dtypes' formats round twice, through float32)
MATH = {"exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "tanh", "sin", "cos"}
NO_COMPLEX = {"absolute", "sign", "sqrt", "rint", "maximum", "minimum", "fmax", "fmin", "clip", "remainder",
              "floor_divide"} | MATH
KEEPS_BITS = {"negative", "positive", "where", "copysign"}


def keeps_bits(name, dt, args):
    """Whether dlx.<name>(*args) keeps a NaN's bits, its result of dtype dt. Not where an operand is
    converted first (a conversion quiets a NaN, docs/numerics.md), nor in copysign of float16, bfloat16 and
    the float8 formats, which computes in float32 (test_copysign_keeps_nan_bits_of_narrow_floats)."""
    moved = args[1:] if name == "where" else args
    if any(isinstance(x, np.ndarray) and x.dtype != dt for x in moved):
        return False
    return name in KEEPS_BITS and not (name == "copysign" and dt.itemsize <= 2)


SECOND_ON_TIE, FIRST_ON_TIE = {"maximum", "minimum"}, {"fmax", "fmin"}

# Python scalars for either side of a binary op, where's x and y, and clip's bounds
SCALARS = [0, 1, -1, 2, 3, 7, 8, 64, -3, 300, 2**40, True, False, 0.0, -0.0, 1.5, -2.5, float("inf"),
           float("nan"), 2 + 0.5j, -1j]


def is_float(dt):
    return dt.kind in "fc" or dt.name in NARROW


# ---- values ---------------------------------------------------------------------------------------------


def finfo(dt):
    return ml_dtypes.finfo(dt) if dt.name in NARROW else np.finfo(dt)


# NaNs with a payload, of both signs, signalling ones too (bit patterns per float format)
PAYLOAD_NANS = {"float16": [0x7E01, 0xFC01], "float32": [0x7FC12345, 0xFF800001],
                "float64": [0x7FF8000000012345, 0xFFF0000000000001], "bfloat16": [0x7FC1, 0xFF81],
                "float8_e5m2": [0x7E, 0xFD], "float8_e4m3fn": [0x7F, 0xFF]}


def float_pool(dt):
    """The odd values of float dtype dt: NaN (with payloads), +-inf, +-0.0, halves (rint's ties), the
    extremes, the smallest normal and subnormal numbers, integers past 2**53."""
    fi = finfo(dt)
    vals = [np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 3.0, -8.0,
            0.1, 1 / 3, 1e30, 2.0**53, 2.0**53 + 2, -(2.0**63), 2.0**64, float(fi.max), -float(fi.max),
            float(fi.tiny), -float(fi.tiny), float(fi.smallest_subnormal), -float(fi.smallest_subnormal)]
    with np.errstate(all="ignore"):
        x = np.array(vals, np.float64).astype(dt)
    bits = PAYLOAD_NANS.get(dt.name, [])
    if bits:
        carrier = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[dt.itemsize]
        x = np.concatenate([x, np.array(bits, carrier).view(dt)])
    return x


def int_pool(dt):
    """The odd values of integer dtype dt: its extremes, 2**53 +- 1 and 2**63 +- 1 where it holds them,
    small values, and shift counts about every bit width (negative ones too)."""
    info = np.iinfo(dt)
    counts = [4, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, -4, -8, -9, -64, -65]
    return np.array(edge_ints(dt.name) + [c for c in counts if info.min <= c <= info.max], dt)


def pool(dt):
    if dt.kind == "b":
        return np.array([False, True])
    if dt.kind in "iu":
        return int_pool(dt)
    if dt.kind == "c":
        part = float_pool(np.dtype(np.float32 if dt == np.complex64 else np.float64))
        return complex_of(np.repeat(part, len(part)), np.tile(part, len(part)), dt)
    return float_pool(dt)


def complex_of(re, im, dt):
    z = np.empty(re.shape, dt)
    z.real, z.imag = re, im  # copies the parts' bits (NaN payloads kept)
    return z


def values(rng, dt, shape):
    """Values of NumPy dtype dt: a third from its pool of odd values, the rest random (integers over the
    whole range or small, floats of mixed magnitudes, some integral or halves)."""
    n = int(np.prod(shape, dtype=np.int64))
    if dt.kind == "b":
        return rng.integers(0, 2, size=shape).astype(bool)
    if dt.kind == "c":
        part = np.dtype(np.float32 if dt == np.complex64 else np.float64)
        return complex_of(values(rng, part, shape), values(rng, part, shape), dt)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        x = rng.integers(info.min, info.max, size=n, endpoint=True, dtype=dt)
        small = rng.random(n) < 0.3
        x[small] = rng.integers(max(info.min, -5), min(info.max, 70), size=n, endpoint=True)[small]
    else:
        f = rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4, size=n)
        f = np.where(rng.random(n) < 0.2, np.round(f * 2) / 2, f)  # integral values and halves
        with np.errstate(all="ignore"):  # the narrow formats through float32 (ml_dtypes' cast from float64 is slow)
            x = f.astype(np.float32).astype(dt) if dt.name in NARROW else f.astype(dt)
    p = pool(dt)
    pick = rng.random(n) < 1 / 3
    x[pick] = p[rng.integers(0, len(p), size=n)][pick]
    return x.reshape(shape)


# ---- NumPy's answer, and the documented differences -----------------------------------------------------


def numpy_fn(name):
    return {"where": np.where, "clip": np.clip}.get(name) or getattr(np, name)


def numpy_call(name, *args, **kwargs):
    """NumPy's (ml_dtypes') answer, or the type of the exception it raises."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return np.asarray(numpy_fn(name)(*args, **kwargs))
        except (TypeError, ValueError, OverflowError) as e:  # as the builtin type (UFuncTypeError is TypeError)
            return next(t for t in (TypeError, OverflowError, ValueError) if isinstance(e, t))


def as_array(x, dt):
    """An operand (array or Python scalar) as an array of dtype dt."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return np.asarray(x).astype(dt) if isinstance(x, np.ndarray) else np.asarray(x, dt)


def negative_powers(a, b, want_dt):
    """dlx's integer power where NumPy raises for a negative exponent: a ** b truncated toward zero (0,
    1 for a == 1, +-1 for a == -1), the rest NumPy's."""
    x, e = np.broadcast_arrays(as_array(a, want_dt), as_array(b, want_dt))
    neg = e < 0
    want = np.asarray(numpy_call("power", x, np.where(neg, np.zeros((), want_dt), e)))
    odd = (e % 2) != 0
    want[neg & (x != 1) & (x != -1)] = 0
    want[neg & (x == 1)] = 1
    if want_dt.kind == "i":
        want[neg & (x == -1)] = np.where(odd, -1, 1)[neg & (x == -1)]
    return want


def signalling(x):
    """The signalling NaNs of a float16 / float32 / float64 array (the quiet bit clear)."""
    if x.dtype not in (np.float16, np.float32, np.float64):
        return np.zeros(x.shape, bool)
    _, u = ubits(x)
    quiet = u.dtype.type(1) << u.dtype.type({2: 9, 4: 22, 8: 51}[x.dtype.itemsize])
    return np.isnan(x) & ((u & quiet) == 0)


def min_max_rules(name, a, b, want):
    """want with dlx's rules where NumPy's answer depends on its loop: the ties of -0.0 with +0.0 of
    maximum, minimum, fmax and fmin (test_zero_ties); and fmax / fmin of a signalling NaN with a number,
    the number (C's fmax and IEEE 754's maximumNumber), where NumPy's float32 / float64 loop gives it on
    long contiguous arrays but a NaN on one element or strided ones."""
    if not is_float(want.dtype) or want.dtype.kind == "c":
        return want
    x, y = np.broadcast_arrays(as_array(a, want.dtype), as_array(b, want.dtype))
    xf, yf = x.astype(np.float64), y.astype(np.float64)
    tie = (xf == 0) & (yf == 0) & (np.signbit(xf) != np.signbit(yf))
    want = np.where(tie, y if name in SECOND_ON_TIE else x, want)
    if name in FIRST_ON_TIE:
        want = np.where(signalling(x) & ~np.isnan(y), y, np.where(signalling(y) & ~np.isnan(x), x, want))
    return want


def promotes_first(name, args):
    """Whether NumPy's loop for arrays of these dtypes is another than dlx's, which promotes the operands
    pairwise, then takes the first loop the common dtype casts to safely. NumPy takes the first loop each
    operand casts to safely, so copysign of int8 with uint8 is float16 in NumPy but float32 in dlx (int16's
    loop), and clip of int8 between uint8 and float16 float16, where dlx promotes int8 with uint8 to int16
    first. A bug: test_loop_of_mixed_integer_operands pins it (xfail) and the other tests pass these
    operands by."""
    if name == "where" or not all(isinstance(x, np.ndarray) and x.dtype.name in STANDARD for x in args):
        return False
    common = functools.reduce(np.result_type, [x.dtype for x in args])
    own = numpy_call(name, *[np.ones(1, x.dtype) for x in args])
    promoted = numpy_call(name, *[np.ones(1, common) for _ in args])
    return isinstance(own, np.ndarray) and isinstance(promoted, np.ndarray) and own.dtype != promoted.dtype


def logical_int_past_range(name, args):
    """Whether a logical op gets a Python int outside its integer tensor's dtype. NumPy takes the int's
    truth (anything int64 holds), dlx raises OverflowError as for arithmetic. A bug:
    test_logical_ops_take_the_truth_of_any_int pins it (xfail) and the other tests pass these by."""
    if name not in LOGICAL_BINARY or len(args) != 2:
        return False
    ints = [x for x in args if isinstance(x, int) and not isinstance(x, bool)]
    arrays = [x for x in args if isinstance(x, np.ndarray) and x.dtype.kind in "iu"]
    return bool(ints and arrays) and not (np.iinfo(arrays[0].dtype).min <= ints[0] <= np.iinfo(arrays[0].dtype).max)


def known_bug(name, args):
    """Operands of a bug pinned by its own xfail test, which the other tests pass by."""
    return promotes_first(name, args) or logical_int_past_range(name, args)


def expected(name, args):
    """What dlx.<name>(*args) must give: NumPy's answer, but for the documented differences."""
    want = numpy_call(name, *args)
    if name == "where":
        want = where_expected(args, want)
    if name == "power" and want is ValueError and isinstance(args[1], (int, np.integer)) and not isinstance(
            args[1], (bool, np.bool_)) and not isinstance(args[1], np.ndarray):
        return ValueError  # a negative Python int exponent: NumPy's ValueError in dlx too
    if name == "power" and want is ValueError:  # an integer to a negative power in a tensor
        # NumPy's dtype, from operands without negative values (of the same dtypes, or weak scalars)
        dt = numpy_call("power", *[np.zeros_like(x) if isinstance(x, np.ndarray) else abs(x) for x in args])
        return negative_powers(args[0], args[1], dt.dtype) if isinstance(dt, np.ndarray) else dt
    if not isinstance(want, np.ndarray):
        return want
    complex_in = want.dtype.kind == "c" or any(isinstance(x, complex) or getattr(x, "dtype", np.dtype(int)).kind == "c"
                                               for x in args)
    if (name in NO_COMPLEX and complex_in) or (name == "power" and is_float(want.dtype)):
        return TypeError
    if name in MATH and is_float(want.dtype):
        want = correctly_rounded(name, as_array(args[0], want.dtype), want.dtype)
        if want.dtype == np.float64:
            want = want.view(WithinUlps)
    if name == "reciprocal" and want.dtype.kind == "i":
        want = np.where(as_array(args[0], want.dtype) == 0, np.zeros((), want.dtype), want)
    if name in SECOND_ON_TIE | FIRST_ON_TIE:
        want = min_max_rules(name, args[0], args[1], want)
    if name == "clip":
        want = clip_expected(args, want)
    if name == "sign" and want.dtype.name in NARROW:
        want = np.where(want.astype(np.float32) == 0, np.zeros((), want.dtype), want)  # never -0.0
    if name == "square" and want.dtype.kind == "c":
        x = as_array(args[0], want.dtype)
        with np.errstate(all="ignore"):
            want = complex_of(x.real * x.real - x.imag * x.imag, x.real * x.imag + x.imag * x.real, want.dtype)
    return want


class WithinUlps(np.ndarray):
    """An expected float64 result of a math function, which dlx's may miss by up to `ulps` (float64 is
    deterministic there, not correctly rounded: docs/numerics.md)."""

    ulps = 1


def correctly_rounded(name, x, dt):
    """The math function name of each element of x, rounded once to dt (MPFR through gmpy2, with dt's
    precision and gradual underflow; the cast of that exact value gives dt's overflow)."""
    gmpy2 = pytest.importorskip("gmpy2", reason="gmpy2 (MPFR), the math functions' oracle, is not installed")
    info = ml_dtypes.finfo(dt) if dt.name in NARROW else np.finfo(dt)
    p, emin = info.nmant + 1, int(np.log2(float(info.smallest_subnormal))) + 1
    fn = getattr(gmpy2, name)
    with gmpy2.context(precision=p, emin=emin, emax=1024, subnormalize=True):
        ys = [float(fn(gmpy2.mpfr(v, 64))) for v in x.astype(np.float64).ravel().tolist()]
    with np.errstate(over="ignore", invalid="ignore"):
        return np.array(ys).astype(dt).reshape(x.shape)


def where_expected(args, want):
    """np.where's answer, but x and y in the dtype of arithmetic on them where a narrow float is among them
    or NumPy's promotion finds no common dtype; and OverflowError for a Python int outside an integer
    result's dtype, which np.where wraps into it."""
    narrow = any(isinstance(x, np.ndarray) and x.dtype.name in NARROW for x in args[1:])
    if (want is TypeError or narrow) and any(isinstance(x, np.ndarray) for x in args[1:]):
        try:
            dt = common_dtype(args[1:])
        except (TypeError, OverflowError):
            return want
        want = numpy_call("where", args[0], as_array(args[1], dt), as_array(args[2], dt))
    if isinstance(want, np.ndarray) and want.dtype.kind in "iu":
        info = np.iinfo(want.dtype)
        if any(isinstance(x, int) and not isinstance(x, bool) and not info.min <= x <= info.max for x in args[1:]):
            return OverflowError
    return want


def common_dtype(args):
    """The dtype NumPy's arithmetic gives these operands (ml_dtypes' loops included): the arrays' common
    dtype, then each Python scalar's weak rule with it."""
    arrays = [np.zeros(0, x.dtype) for x in args if isinstance(x, np.ndarray)]
    z = arrays[0]
    for x in arrays[1:] + [x for x in args if x is not None and not isinstance(x, np.ndarray)]:
        z = np.add(z[:0], x)
    return z.dtype


def clip_expected(args, want):
    """np.clip's answer, but at zero ties minimum(maximum(a, a_min), a_max) by dlx's rule for them; and
    that composition (ml_dtypes' maximum and minimum) for bfloat16 and the float8 formats, which np.clip
    computes in float32 (ml_dtypes registers no clip loop)."""
    narrow = any(isinstance(x, np.ndarray) and x.dtype.name in NARROW for x in args)
    if not narrow and not (is_float(want.dtype) and want.dtype.kind != "c"):
        return want
    dt = common_dtype(args) if narrow else want.dtype
    a, lo, hi = [None if x is None else as_array(x, dt) for x in args]
    step = a if lo is None else expected("maximum", [a, lo])
    composed = step if hi is None else expected("minimum", [step, hi])
    if narrow:
        return composed
    zero = lambda x: x is not None and np.broadcast_to(x.astype(np.float64) == 0, want.shape)  # noqa: E731
    tie = zero(a) & (zero(lo) | zero(hi)) | zero(lo) & zero(hi)
    return np.where(tie, composed, want)


# ---- comparing ------------------------------------------------------------------------------------------


def ubits(x):
    x = np.asarray(x, order="C")
    if x.dtype.kind == "c":  # parts
        x = x.reshape(x.shape + (1,)).view(np.float32 if x.dtype == np.complex64 else np.float64)
    return x, x.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[x.dtype.itemsize])


def assert_bits(got, want, nan_bits=False, what=""):
    """got (a dlx.Tensor) is want (an array): dtype, shape and bytes; a NaN as any NaN unless nan_bits."""
    if isinstance(want, WithinUlps):
        assert isinstance(got, dlx.Tensor), (what, type(got))
        assert (got.dtype, tuple(got.shape)) == (want.dtype.name, want.shape), what
        assert_array_bits(to_np(got), want, nan_bits, what)
        return
    want = np.asarray(want)
    assert isinstance(got, dlx.Tensor), (what, type(got))
    assert (got.dtype, tuple(got.shape)) == (want.dtype.name, want.shape), what
    assert_array_bits(to_np(got), want, nan_bits, what)


def assert_array_bits(g, want, nan_bits=False, what=""):
    if isinstance(want, WithinUlps):
        w = want.view(np.ndarray)
        gv, wv = np.asarray(g).astype(np.float64), w.astype(np.float64)
        with np.errstate(invalid="ignore"):
            # an ulp of want's own dtype (a cast of the float64 result into out= may move it by one there)
            ulp = np.spacing(np.abs(w.astype(w.dtype if w.dtype.kind == "f" else np.float32))).astype(np.float64)
            ulp *= 2.0 ** (finfo(np.dtype(np.float32)).nmant - finfo(w.dtype).nmant) if w.dtype.kind != "f" else 1.0
            ok = (np.isnan(gv) & np.isnan(wv)) | (gv == wv) | (np.abs(gv - wv) <= want.ulps * ulp)
        if not ok.all():
            k = np.nonzero(~ok.ravel())[0][:6]
            raise AssertionError(f"{what}: {(~ok).sum()} of {ok.size} beyond {want.ulps} ulp, e.g. got "
                                 f"{gv.ravel()[k]!r}, want {wv.ravel()[k]!r}")
        return
    (gv, gu), (wv, wu) = ubits(g), ubits(want)
    if is_float(want.dtype) and not nan_bits:
        gn, wn = np.isnan(gv), np.isnan(wv)
        bad = (gn != wn) | (~wn & (gu != wu))
    else:
        bad = gu != wu
    if bad.any():
        k = np.nonzero(bad.ravel())[0][:6]
        raise AssertionError(f"{what}: {bad.sum()} of {bad.size} differ, e.g. got {gv.ravel()[k]} "
                             f"({[hex(v) for v in gu.ravel()[k]]}), want {wv.ravel()[k]} "
                             f"({[hex(v) for v in wu.ravel()[k]]})")


def same_bits(x, y):
    try:
        assert_array_bits(x, y, True)
    except AssertionError:
        return False
    return True


def cast_to(x, dt):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return x.astype(dt)
        except TypeError:  # ml_dtypes has no direct cast between some formats: through float32 (exact)
            return x.astype(np.float32).astype(dt)
