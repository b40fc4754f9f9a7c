"""dlx.Tensor arithmetic, comparisons, casts, fill/copy and fma against NumPy (and ml_dtypes for
bfloat16 and the float8 formats): random shapes, broadcasts, dtypes and strided views (transposed,
stepped, reversed), zero-size and 0-d operands, Python scalars with NumPy 2's weak-scalar rules, out=
aliasing an input, and the errors."""
import operator
import warnings
import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import dlx
from opsutil import COMPLEX, EDGE_INTS, EXT, FLOATS, INTS, STANDARD, assert_same, edge_ints, from_np, ml_dtypes, \
    np_dtype, random_array, strided_pair, to_np

ARITH = {"add": operator.add, "subtract": operator.sub, "multiply": operator.mul, "divide": operator.truediv}
COMPARE = {"less": operator.lt, "less_equal": operator.le, "greater": operator.gt, "greater_equal": operator.ge,
           "equal": operator.eq, "not_equal": operator.ne}
OPS = {**ARITH, **COMPARE}
ORDERED = {"less", "less_equal", "greater", "greater_equal"}


def numpy_result(op, a, b):
    """NumPy's answer, or the exception type it raises."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return OPS[op](a, b)
        except TypeError:
            return TypeError


def expected_failure(op, da, db):
    """What dlx refuses where NumPy has an answer: ordering complex numbers (NumPy 2 orders them
    lexicographically; dlx.ops documents UNSUPPORTED)."""
    if op in ORDERED and (da in COMPLEX or db in COMPLEX):
        return TypeError
    return None


def check_binary(op, a_np, a_t, b_np, b_t):
    da = a_np.dtype.name if hasattr(a_np, "dtype") else None
    db = b_np.dtype.name if hasattr(b_np, "dtype") else None
    want = numpy_result(op, a_np, b_np)
    fail = expected_failure(op, da, db) or (want if want is TypeError else None)
    if fail is not None:
        with pytest.raises(fail):
            OPS[op](a_t, b_t)
        with pytest.raises(fail):
            getattr(dlx, op)(a_t, b_t)
        return
    got = OPS[op](a_t, b_t)
    assert_result(op, got, want)
    # the function spelling is the same op
    assert_same(getattr(dlx, op)(a_t, b_t), to_np(got).copy())


def assert_result(op, got, want):
    """Exact, except complex products and quotients: dlx may form them in wider precision (or with C's
    division algorithm) where NumPy rounds each step, so the last bits can differ."""
    want = np.asarray(want)
    if op in ("multiply", "divide") and want.dtype.kind == "c":
        assert_same(got, want, exact=False, rtol=1e-5 if want.dtype == np.complex64 else 1e-13)
    else:
        assert_same(got, want)


@st.composite
def layouts(draw, shape):
    steps = [draw(st.sampled_from([1, 2, -1, -2])) for _ in shape]
    perm = draw(st.permutations(range(len(shape))))
    return steps, list(perm)


@st.composite
def binary_cases(draw, dtypes):
    shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4, max_side=4)).input_shapes
    da, db = draw(st.sampled_from(dtypes)), draw(st.sampled_from(dtypes))
    seed = draw(st.integers(0, 2**32 - 1))
    return shapes, (da, db), (draw(layouts(shapes[0])), draw(layouts(shapes[1]))), seed


@settings(max_examples=150)
@given(case=binary_cases(STANDARD), op=st.sampled_from(sorted(OPS)))
def test_binary_tensors_vs_numpy(case, op):
    """Every op on random dtypes (promotion included), broadcast shapes and strided views; integers over
    their whole range and at their edges (2**53 +- 1, 2**63 +- 1, the limits), floats with NaN, +-inf,
    -0.0 and their extremes."""
    shapes, dts, lays, seed = case
    rng = np.random.default_rng(seed)
    pairs = []
    for shape, dt, (steps, perm) in zip(shapes, dts, lays):
        base = random_array(rng, dt, shape, special=True)
        a_np, a_t, _, _ = strided_pair(rng, base, shape, steps, perm)
        pairs.append((a_np, a_t))
    check_binary(op, pairs[0][0], pairs[0][1], pairs[1][0], pairs[1][1])


@pytest.mark.parametrize("op", sorted(OPS))
@pytest.mark.parametrize("dt", STANDARD)
def test_same_dtype_every_op(op, dt):
    """Each (op, dtype) pair on a contiguous 2-d array and a transposed one, small values (division by
    zero included)."""
    rng = np.random.default_rng(zlib.crc32(f"{op} {dt}".encode()))
    a = random_array(rng, dt, (5, 7), small=True)
    b = random_array(rng, dt, (7, 5), small=True).T
    check_binary(op, a, from_np(a), b, from_np(np.ascontiguousarray(b.T)).T)


SCALARS = [0, 1, -3, 7, 2**40, True, False, 0.0, 1.5, -2.25, 1e-3, float("inf"), float("nan"), 2 + 0.5j, -1j]


def scalar_expectation(op, a, s, reversed_):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return OPS[op](s, a) if reversed_ else OPS[op](a, s)
        except (TypeError, OverflowError) as e:
            return type(e)


@pytest.mark.parametrize("dt", STANDARD)
def test_weak_scalars_vs_numpy(dt):
    """Python bool/int/float/complex scalars on both sides of every op: NumPy 2's result dtype and values
    (uint8 + 1 stays uint8, int + 1.5 is float64, float32 + 1j complex64, out-of-range ints raise
    OverflowError except in comparisons)."""
    rng = np.random.default_rng(7)
    a = random_array(rng, dt, (3, 4), small=True)
    t = from_np(a)
    for s in SCALARS:
        for op in sorted(OPS):
            for rev in (False, True):
                want = scalar_expectation(op, a, s, rev)
                fail = expected_failure(op, dt, type(s).__name__ == "complex" and "complex128" or None)
                if fail or (isinstance(want, type) and issubclass(want, Exception)):
                    with pytest.raises(fail or want):
                        OPS[op](s, t) if rev else OPS[op](t, s)
                    continue
                got = OPS[op](s, t) if rev else OPS[op](t, s)
                assert_result(op, got, want)


@pytest.mark.parametrize("dt", INTS)
def test_int_scalar_range(dt):
    info = np.iinfo(dt)
    t = from_np(np.arange(4, dtype=dt))
    for v in (int(info.max) + 1, int(info.min) - 1, 2**64, -(2**64)):
        with pytest.raises(OverflowError, match="out of bounds for " + dt):
            t + v
        # comparisons decide without converting, as NumPy 2
        for op in COMPARE:
            assert_same(OPS[op](t, v), OPS[op](np.arange(4, dtype=dt), v))
            assert_same(OPS[op](v, t), OPS[op](v, np.arange(4, dtype=dt)))
    assert_same(t + int(info.max), np.arange(4, dtype=dt) + np.array(info.max, dtype=dt))


# ---- comparisons of integers: exact for every pair of dtypes (issue 20) -------------------------------


def test_uint64_with_int64_is_exact_issue20():
    """Issue 20: uint64 with int64 promotes to float64 (NumPy's arithmetic rule), and dlx compared there:
    2**63 + 1 == 2**63 - 1 and 2**53 + 1 == 2**53 were True. NumPy 2 compares the exact values."""
    u = from_np(np.array([2**63 + 1, 2**53 + 1], np.uint64))
    i = from_np(np.array([2**63 - 1, 2**53], np.int64))
    assert to_np(dlx.equal(u, i)).tolist() == [False, False]
    assert to_np(u != i).tolist() == [True, True]
    assert to_np(u > i).tolist() == [True, True]
    assert to_np(i >= u).tolist() == [False, False]
    assert (u + i).dtype == "float64"  # arithmetic keeps NumPy's promotion


@pytest.mark.parametrize("da", INTS)
def test_integer_comparisons_every_dtype_pair_at_edges(da):
    """Every comparison on every pair of integer dtypes, both orders, on every pair of values from each
    dtype's extremes, 2**53 +- 1, 2**63 +- 1 and small values, against NumPy 2 (whose qQ / Qq loops compare
    int64 with uint64 exactly); 0-d operands and NumPy scalars too."""
    a = np.array(edge_ints(da), np_dtype(da))
    for db in INTS:
        b = np.array(edge_ints(db), np_dtype(db))
        x, y = np.repeat(a, len(b)), np.tile(b, len(a))  # every pair of values
        tx, ty = from_np(x), from_np(y)
        for op in sorted(COMPARE):
            assert_same(OPS[op](tx, ty), OPS[op](x, y))
            assert_same(getattr(dlx, op)(ty, tx), OPS[op](y, x))
        for k in (0, len(x) // 2, len(x) - 1):  # a 0-d tensor and a NumPy scalar on either side
            for op in ("less", "equal", "greater_equal"):
                assert_same(OPS[op](from_np(x[k:k + 1].reshape(())), ty), OPS[op](x[k], y))
                assert_same(OPS[op](ty, x[k]), OPS[op](y, x[k]))


@pytest.mark.parametrize("dt", INTS)
def test_integer_comparisons_with_python_ints(dt):
    """A Python int on either side of each comparison, inside and outside the dtype's range (t_uint64 ==
    -1, t_int64 < 2**63, 2**64 and beyond), against NumPy 2: values past the range decide the result
    without a conversion, the others compare exactly."""
    a = np.array(edge_ints(dt), np_dtype(dt))
    t = from_np(a)
    for v in sorted(set(EDGE_INTS) | {2**64, -(2**64), 2**65 + 1}):
        for op in sorted(COMPARE):
            assert_same(OPS[op](t, v), OPS[op](a, v))
            assert_same(OPS[op](v, t), OPS[op](v, a))


@st.composite
def int_pairs(draw):
    """Two integer dtypes and values drawn to meet: uniform over the dtype, near an edge (EDGE_INTS + -2..2),
    or the other operand's value moved by a little (equal or adjacent values past 2**53)."""
    wide = st.sampled_from(["int64", "uint64"])  # half the dtypes 64-bit: where float64 loses exactness
    da, db = draw(st.one_of(wide, st.sampled_from(INTS))), draw(st.one_of(wide, st.sampled_from(INTS)))
    n = draw(st.integers(1, 12))

    def value(name, near=None):
        info = np.iinfo(np_dtype(name))
        how = draw(st.sampled_from(["uniform", "edge", "big"] + ["near"] * (2 if near is not None else 0)))
        if how == "uniform":
            v = draw(st.integers(int(info.min), int(info.max)))
        elif how == "edge":
            v = draw(st.sampled_from(EDGE_INTS)) + draw(st.integers(-2, 2))
        elif how == "big":  # past float64's exact integers
            v = draw(st.sampled_from([1, -1])) * draw(st.integers(2**53 - 2, 2**64))
        else:
            v = near + draw(st.integers(-3, 3))
        return min(max(v, int(info.min)), int(info.max))

    xs = [value(da) for _ in range(n)]
    ys = [value(db, xs[i]) for i in range(n)]
    return da, db, xs, ys


@settings(max_examples=400)
@given(case=int_pairs(), op=st.sampled_from(sorted(OPS)))
def test_integer_ops_vs_numpy_past_2_53(case, op):
    """Random integer pairs of any two dtypes, values past 2**53 and near each other included: every op
    (comparisons exact, arithmetic as NumPy promotes it) against NumPy."""
    da, db, xs, ys = case
    x, y = np.array(xs, np_dtype(da)), np.array(ys, np_dtype(db))
    check_binary(op, x, from_np(x), y, from_np(y))
    check_binary(op, x[:1].reshape(()), from_np(x[:1].reshape(())), y, from_np(y))


@pytest.mark.skipif(ml_dtypes is None, reason="ml_dtypes is not installed")
@pytest.mark.parametrize("dt", [d for d in EXT if d != "float8_e8m0fnu"])
def test_narrow_formats_vs_ml_dtypes(dt):
    """bfloat16 and float8 arithmetic round through float32 exactly as ml_dtypes' ufuncs do; mixed
    with other dtypes and with Python scalars they promote as ml_dtypes promotes."""
    rng = np.random.default_rng(11)
    a = random_array(rng, dt, (4, 6), small=True)
    b = random_array(rng, dt, (6,), small=True)
    ta, tb = from_np(a), from_np(b)
    for op in sorted(OPS):
        with np.errstate(all="ignore"):
            want = OPS[op](a, b)
        got = OPS[op](ta, tb)
        assert got.dtype == want.dtype.name
        np.testing.assert_array_equal(to_np(got).astype(np.float32), want.astype(np.float32))
    for other in ["bool", "int8", "uint8", "int16", "int32", "float16", "float32", "float64", "complex64"]:
        c = random_array(rng, other, (6,), small=True)
        with np.errstate(all="ignore"):
            want = a * c
        got = ta * from_np(c)
        assert got.dtype == want.dtype.name, (dt, other)
        np.testing.assert_allclose(to_np(got).astype(want.dtype), want, rtol=1e-2)
    for s in (2, 1.5, 0.5j, True):
        with np.errstate(all="ignore"):
            want = a + s
        got = ta + s
        assert got.dtype == want.dtype.name, (dt, s)


def test_float16_matches_numpy_bits():
    rng = np.random.default_rng(3)
    a = random_array(rng, "float16", (1000,))
    b = random_array(rng, "float16", (1000,))
    for op in ARITH:
        with np.errstate(all="ignore"):
            want = OPS[op](a, b)
        got = to_np(OPS[op](from_np(a), from_np(b)))
        np.testing.assert_array_equal(got.view(np.uint16)[~np.isnan(want)], want.view(np.uint16)[~np.isnan(want)])


def test_zero_size_and_0d():
    z = np.zeros((0, 3), np.float32)
    assert_same(from_np(z) + 1, z + 1)
    assert_same(from_np(z) < from_np(np.ones(3, np.float32)), z < np.ones(3, np.float32))
    s = np.array(2.5, np.float64)
    assert_same(from_np(s) * from_np(s), s * s)
    assert_same(from_np(s) * from_np(np.arange(3.0)), s * np.arange(3.0))
    assert (from_np(s) + 1).shape == ()
    e = np.zeros((2, 0, 4), np.int16)
    assert_same(from_np(e) - from_np(np.ones((4,), np.int16)), e - np.ones((4,), np.int16))


def test_unary():
    a = np.array([[0.0, -1.5], [2.0, np.inf]], np.float32)
    assert_same(-from_np(a), -a)
    assert np.signbit(to_np(-from_np(a))[0, 0])
    u = np.arange(5, dtype=np.uint8)
    assert_same(-from_np(u), -u)
    i = np.array([-128, 0, 5], np.int8)
    assert_same(-from_np(i), -i)
    c = np.array([1 + 2j], np.complex64)
    assert_same(-from_np(c), -c)
    p = +from_np(a)
    assert_same(p, a)
    assert p.data_ptr != from_np(a).data_ptr
    with pytest.raises(TypeError):
        -from_np(np.array([True]))


@pytest.mark.parametrize("dt", ["bool", "int8", "int16", "int64", "float16", "float32", "float64", "complex64",
                                "complex128", "bfloat16"])
def test_transposed_operands_give_the_contiguous_bits(dt):
    # the CPU executor stages a transposed input 32 x 32 elements at a time (src/backends/cpu/exec.c): an op
    # on transposed views gives the bits of the same op on contiguous copies, in whole tiles, their
    # remainders, a 3-d permutation, both inputs transposed, and out= a transposed view; threads 1 and 2
    if dt == "bfloat16" and ml_dtypes is None:
        pytest.skip("ml_dtypes is not installed")
    rng = np.random.default_rng(11)
    was = dlx.get_num_threads()
    try:
        for threads in (1, 2):
            dlx.set_num_threads(threads)
            for shape, perm in (((64, 96), (1, 0)), ((70, 45), (1, 0)), ((33, 5), (1, 0)), ((3, 40, 37), (0, 2, 1)),
                                ((36, 4, 50), (2, 1, 0))):
                a, b = random_array(rng, dt, shape, small=True), random_array(rng, dt, shape, small=True)
                ta, tb = from_np(a).permute(*perm), from_np(b).permute(*perm)
                ca, cb = from_np(np.ascontiguousarray(np.transpose(a, perm))), from_np(
                    np.ascontiguousarray(np.transpose(b, perm)))
                unary = [dlx.logical_not] if dt == "bool" else [dlx.negative] if dt in COMPLEX else [dlx.negative,
                                                                                                      dlx.abs]
                if dt in ("float16", "float32", "float64", "bfloat16"):
                    unary += [dlx.exp, dlx.sin, dlx.isnan]
                for f in unary:
                    assert_same(f(ta), to_np(f(ca)).copy())
                binary = [dlx.add, dlx.equal] if dt != "bool" else [dlx.logical_and]
                for f in binary:
                    want = to_np(f(ca, cb)).copy()
                    assert_same(f(ta, cb), want)  # one input transposed
                    assert_same(f(ta, tb), want)  # both
                    out = from_np(np.zeros_like(np.transpose(want, np.argsort(perm)))).permute(*perm)
                    f(ca, cb, out=out)  # the output transposed, the inputs not
                    assert_same(out, want)
    finally:
        dlx.set_num_threads(was)


def test_bool_and_len():
    assert bool(dlx.full((), 3)) is True
    assert bool(dlx.full((1, 1), 0.0)) is False
    assert bool(dlx.full((1,), 1j)) is True
    with pytest.raises(ValueError, match="more than one"):
        bool(dlx.zeros((2,)))
    with pytest.raises(ValueError, match="empty"):
        bool(dlx.zeros((0,)))
    assert len(dlx.zeros((4, 2))) == 4
    with pytest.raises(TypeError):
        len(dlx.zeros(()))
    t = dlx.zeros((2,))
    assert hash(t) == hash(t)
    assert {t: 1}[t] == 1


def test_inplace_ops():
    rng = np.random.default_rng(5)
    a = random_array(rng, "float32", (3, 4))
    t = from_np(a.copy())
    ptr = t.data_ptr
    t += 1.5
    t *= from_np(np.arange(4, dtype=np.float32))
    t -= t.T.T
    t /= 3
    assert t.data_ptr == ptr
    want = a.copy()
    want += np.float32(1.5)
    want *= np.arange(4, dtype=np.float32)
    want -= want
    want /= 3
    assert_same(t, want)
    i = from_np(np.arange(6, dtype=np.int32))
    i += from_np(np.arange(6, dtype=np.int64))  # same_kind: cast back into int32
    assert_same(i, np.arange(6, dtype=np.int32) * 2)
    with pytest.raises(TypeError, match="same_kind"):
        i += 1.5
    with pytest.raises(TypeError, match="same_kind"):
        i /= 2
    with pytest.raises(ValueError):
        t += dlx.zeros((5, 3, 4))  # the result would not fit t


INPLACE = {"add": operator.iadd, "subtract": operator.isub, "multiply": operator.imul, "divide": operator.itruediv}
# every dtype dlx shares with NumPy / ml_dtypes: the float6/float4 formats and complex32 (storage only: no
# fill either) take part in no arithmetic in dlx
INPLACE_DTYPES = STANDARD + EXT + (["float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn", "complex32"]
                                   if ml_dtypes else [])


def dlx_full(v, name):
    return dlx.zeros(3, name) if name == "complex32" else dlx.full(3, v, dtype=name)


def numpy_inplace(op, target, other):
    """NumPy's own `a op= b` on arrays of these dtypes (b a Python scalar or a dtype name): the result,
    or TypeError (NumPy's UFuncTypeError) when it refuses."""
    a = np.full(3, 2, np_dtype(target))
    b = other if not isinstance(other, str) else np.full(3, 1, np_dtype(other))
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            INPLACE[op](a, b)
        except TypeError:
            return TypeError
    return a


def check_inplace(op, target, other):
    """dlx's `t op= other` against np.can_cast(result, target, "same_kind"), where result is the dtype of
    dlx's `t op other` (NumPy 2's promotion), and against NumPy's own in-place op."""
    t = dlx_full(2, target)
    o = dlx_full(1, other) if isinstance(other, str) else other
    try:
        result = ARITH[op](t, o).dtype
    except TypeError:  # no such op in dlx (bool - bool, the float6/float4 formats): not in place either
        with pytest.raises(TypeError):
            INPLACE[op](t, o)
        return
    allowed = bool(np.can_cast(np_dtype(result), np_dtype(target), casting="same_kind"))
    want = numpy_inplace(op, target, other)
    assert (want is not TypeError) == allowed, (op, target, other, result)
    ptr, before = t.data_ptr, to_np(t).astype(np.complex128)
    if not allowed:
        with pytest.raises(TypeError, match="same_kind"):
            INPLACE[op](t, o)
        np.testing.assert_array_equal(to_np(t).astype(np.complex128), before)  # untouched
        return
    r = INPLACE[op](t, o)
    assert r is t and t.data_ptr == ptr and t.dtype == target
    np.testing.assert_array_equal(to_np(t).astype(np.complex128), want.astype(np.complex128))


@pytest.mark.parametrize("op", sorted(INPLACE))
def test_inplace_same_kind_every_dtype_pair(op):
    """Issue 12: signed and unsigned ints were one kind, so uint8 += int8 wrapped -1 to 255 and
    uint32 += int64 went through. Every pair of dtypes now follows np.can_cast(..., "same_kind"),
    bfloat16 and the float8 formats as ml_dtypes registers their casts."""
    for target in INPLACE_DTYPES:
        for other in INPLACE_DTYPES:
            check_inplace(op, target, other)


@pytest.mark.parametrize("op", sorted(INPLACE))
def test_inplace_same_kind_python_scalars(op):
    for target in INPLACE_DTYPES:
        for s in (True, 1, 1.5, 1j):
            check_inplace(op, target, s)


def test_inplace_signed_into_unsigned_refused():
    t = dlx.zeros(2, "uint8")
    with pytest.raises(TypeError, match="from int16 to uint8 in place"):
        t += from_np(np.array([-1, -1], np.int8))
    assert to_np(t).tolist() == [0, 0]  # it was [255, 255]
    a = np.zeros(2, np.uint8)
    with pytest.raises(TypeError):  # numpy._core._exceptions._UFuncOutputCastingError
        a += np.array([-1, -1], np.int8)
    u = dlx.zeros(2, "uint32")
    with pytest.raises(TypeError, match="from int64 to uint32"):
        u += dlx.zeros(2, "int64")
    # unsigned into a wider signed target is fine (uint16 + int32 is int32), as in NumPy
    i = dlx.zeros(2, "int32")
    i += dlx.full(2, 7, dtype="uint16")
    assert to_np(i).tolist() == [7, 7]


@pytest.mark.parametrize("op", sorted(OPS))
def test_out_argument_and_aliasing(op):
    """out= given (a Tensor or a NumPy array), and out the same memory as an input or overlapping it
    reversed: the result is what separate memory would give."""
    if op == "divide":
        dt = "float64"
    else:
        dt = "int32"
    rng = np.random.default_rng(9)
    a = random_array(rng, dt, (6, 5), small=True)
    b = random_array(rng, dt, (5,), small=True)
    with np.errstate(all="ignore"):
        want = OPS[op](a, b)
    out = dlx.empty((6, 5), want.dtype.name)
    r = getattr(dlx, op)(from_np(a), from_np(b), out=out)
    assert r is out
    assert_same(out, want)
    out_np = np.empty((6, 5), want.dtype)
    r = getattr(dlx, op)(from_np(a), from_np(b), out=out_np)
    assert r is out_np
    np.testing.assert_array_equal(out_np, want)
    if op in COMPARE:
        return
    # out is a itself
    t = from_np(a.copy())
    getattr(dlx, op)(t, from_np(b), out=t)
    assert_same(t, want)
    # out is a reversed view of a's memory: every element read before it is overwritten
    base = a.copy()
    tb = from_np(base)
    getattr(dlx, op)(tb, from_np(b), out=tb[::-1])
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(to_np(tb), OPS[op](a, b)[::-1])


def test_out_errors():
    a = dlx.zeros((2, 3))
    with pytest.raises(ValueError, match="out has dtype float64, but the result is float32"):
        dlx.add(a, a, out=dlx.zeros((2, 3), "float64"))
    with pytest.raises(ValueError):
        dlx.add(a, a, out=dlx.zeros((3, 3)))
    with pytest.raises(ValueError):
        dlx.less(a, a, out=dlx.zeros((2, 3)))
    with pytest.raises(ValueError):
        dlx.add(a, dlx.zeros((4,)))
    with pytest.raises(TypeError, match="at least one operand"):
        dlx.add(1, 2)
    with pytest.raises(TypeError):
        dlx.add(a, "x")
    with pytest.raises(TypeError):
        a + [1, 2, 3]
    assert (a == "x") is False
    assert (a != None) is True  # noqa: E711
    ro = np.zeros(3, np.float32)
    ro.flags.writeable = False
    with pytest.raises(ValueError):
        dlx.add(dlx.zeros((3,)), 1.0, out=from_np(ro))


def test_numpy_operands_defer_to_dlx():
    """A NumPy array on the left of an operator gives the work to dlx (np.add calls Tensor.__array_ufunc__,
    which runs dlx.add: test_numpy_functions.py)."""
    a = np.arange(4, dtype=np.float32)
    t = from_np(np.ones(4, np.float32))
    r = a + t
    assert isinstance(r, dlx.Tensor)
    assert_same(r, a + 1)
    r = a < t
    assert isinstance(r, dlx.Tensor)
    assert_same(r, a < 1)


def test_unsupported_dtypes():
    c = from_np(np.array([1 + 1j], np.complex64))
    with pytest.raises(TypeError, match="not ordered"):
        c < c
    b = from_np(np.array([True]))
    with pytest.raises(TypeError):
        b - b
    if ml_dtypes is not None:
        x = dlx.zeros((2,), "float4_e2m1fn")
        with pytest.raises(TypeError):
            x + x
        with pytest.raises(TypeError, match="no common dtype"):
            dlx.zeros((2,), "bfloat16") + dlx.zeros((2,), "int128")


# ---- casts ------------------------------------------------------------------------------------------


def cast_source(rng, src, dst, n=257):
    """Values whose conversion NumPy defines: within an integer destination's range (no NaN), real
    parts only into real destinations."""
    a = random_array(rng, src, (n,))
    if dst in INTS and (src in FLOATS or src in COMPLEX or src in EXT):
        info = np.iinfo(dst)
        real = a.real.astype(np.float64) if src in COMPLEX else a.astype(np.float64)
        real = np.nan_to_num(real, nan=0.0, posinf=0.0, neginf=0.0)
        real = np.clip(np.trunc(real), max(info.min, -2**52), min(info.max, 2**52))
        if src in COMPLEX:
            return (real + 0j).astype(np_dtype(src))
        with np.errstate(all="ignore"):
            b = real.astype(np_dtype(src))
        # the source format may round a value past the range (float16 of 65504 into int16)
        ok = (b.astype(np.float64) >= info.min) & (b.astype(np.float64) <= info.max)
        return np.where(ok, b, np.zeros((), np_dtype(src)))
    return a


@pytest.mark.parametrize("src", STANDARD)
@pytest.mark.parametrize("dst", STANDARD)
def test_astype_standard_vs_numpy(src, dst):
    rng = np.random.default_rng(zlib.crc32(f"{src} {dst}".encode()))
    a = cast_source(rng, src, dst)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = a.astype(dst)
    got = from_np(a).astype(dst)
    assert got.dtype == dst
    np.testing.assert_array_equal(to_np(got), want)
    # a strided source gives the same values
    v = a[::-3]
    np.testing.assert_array_equal(to_np(from_np(a)[::-3].astype(dst)), want[::-3])
    assert v.shape == want[::-3].shape


def bits(x):
    return x.view(np.uint16 if x.dtype.itemsize == 2 else np.uint8 if x.dtype.itemsize == 1 else
                  np.uint32 if x.dtype.itemsize == 4 else np.uint64)


@pytest.mark.skipif(ml_dtypes is None, reason="ml_dtypes is not installed")
@pytest.mark.parametrize("dst", EXT)
@pytest.mark.parametrize("src", ["float32", "float64", "float16", "int32", "uint8", "bool"])
def test_astype_into_narrow_formats_bit_exact(src, dst):
    """Casts into bfloat16 / float8 agree with ml_dtypes' astype bit for bit (NaN: any NaN)."""
    rng = np.random.default_rng(zlib.crc32(f"{src} {dst}".encode()))
    a = random_array(rng, src, (2049,))
    if src in ("float32", "float64"):
        a[:8] = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e30, -1e-30, 448.0]
    want = a.astype(np_dtype(dst))
    got = to_np(from_np(a).astype(dst))
    nan = np.isnan(want.astype(np.float32))
    np.testing.assert_array_equal(np.isnan(got.astype(np.float32)), nan)
    np.testing.assert_array_equal(bits(got)[~nan], bits(want)[~nan])


@pytest.mark.skipif(ml_dtypes is None, reason="ml_dtypes is not installed")
@pytest.mark.parametrize("src", EXT)
@pytest.mark.parametrize("dst", ["float32", "float64", "float16", "bfloat16", "float8_e4m3fn", "complex64", "bool"])
def test_astype_from_narrow_formats_bit_exact(src, dst):
    """Every code of a narrow format (all 256 for float8) converted as ml_dtypes converts it."""
    n = 256 if np_dtype(src).itemsize == 1 else 65536
    carrier = np.uint8 if n == 256 else np.uint16
    a = np.arange(n, dtype=np.uint32).astype(carrier).view(np_dtype(src))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            want = a.astype(np_dtype(dst))
        except TypeError:  # ml_dtypes has no direct cast between some formats: it goes through float32
            want = a.astype(np.float32).astype(np_dtype(dst))
    got = to_np(from_np(a).astype(dst))
    if dst == "bool" or dst == "complex64":
        ok = ~np.isnan(a.astype(np.float32))
        np.testing.assert_array_equal(got[ok], want[ok])
        return
    nan = np.isnan(want.astype(np.float32))
    np.testing.assert_array_equal(np.isnan(got.astype(np.float32)), nan)
    np.testing.assert_array_equal(bits(got)[~nan], bits(want)[~nan])


def test_astype_arguments():
    t = dlx.zeros((2,), "float32")
    assert t.astype(np.float64).dtype == "float64"
    assert t.astype(np.dtype("int8")).dtype == "int8"
    if ml_dtypes is not None:
        assert t.astype(ml_dtypes.bfloat16).dtype == "bfloat16"
    with pytest.raises(ValueError, match="unknown dtype 'float33'"):
        t.astype("float33")
    with pytest.raises(TypeError):
        t.astype(3)
    assert t.view("int32").dtype == "int32"
    with pytest.raises(ValueError, match="differ in size"):
        t.view("int64")


# ---- fill, copy, full, empty_like --------------------------------------------------------------------


@pytest.mark.parametrize("dt", STANDARD + EXT)
def test_fill_and_full(dt):
    for v in (0, 1, True, 2.5, -3, 1 + 2j):
        a = np.zeros((3, 4), np_dtype(dt))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            try:
                a[...] = v
                want = a
            except (TypeError, OverflowError, ValueError, Warning) as e:
                want = e
        t = dlx.zeros((3, 4), dt)
        tv = t.T  # through a transposed view
        if isinstance(want, BaseException):
            exc = TypeError if isinstance(want, (Warning, TypeError)) else type(want)
            with pytest.raises(exc):
                tv.fill_(v)
            continue
        if dt in EXT and isinstance(v, complex):
            continue
        assert tv.fill_(v) is tv
        f = dlx.full((3, 4), v, dtype=dt)
        if dt in EXT:  # NaN == NaN only after widening (ml_dtypes' own comparison says no)
            np.testing.assert_array_equal(to_np(t).astype(np.float32), want.astype(np.float32))
            np.testing.assert_array_equal(to_np(f).astype(np.float32), want.astype(np.float32))
        else:
            np.testing.assert_array_equal(to_np(t), want)
            np.testing.assert_array_equal(to_np(f), want)
    for v, want in ((True, "bool"), (3, "int64"), (2.0, "float64"), (1j, "complex128")):
        assert dlx.full(2, v).dtype == want
        assert dlx.full((), v).shape == ()


@pytest.mark.parametrize("v", [0, -1, 2**31, 2**63 - 1, 2**63, 2**64 - 1, 2**64, -2**63, -2**63 - 1, 10**30, True,
                               False, 1.5, float("inf"), 1j])
def test_full_default_dtype_vs_numpy(v):
    """Issue 12: full(3, 2**63) raised "out of bounds for int64"; NumPy 2 types a Python int as int64,
    then uint64 ([2^63, 2^64)), then as an object array, which dlx has not: there dlx raises the
    OverflowError NumPy raises for that value with any integer dtype."""
    want = np.full(3, v)
    if want.dtype == object:
        for dt in ("int64", "uint64"):
            with pytest.raises(OverflowError):
                np.full(3, v, dtype=dt)
        with pytest.raises(OverflowError, match="out of bounds for int64 and uint64"):
            dlx.full(3, v)
        return
    assert_same(dlx.full(3, v), want)
    assert_same(dlx.full((), v), np.full((), v))


def test_fill_int_rules():
    t = dlx.zeros((3,), "uint8")
    with pytest.raises(OverflowError, match="out of bounds for uint8"):
        t.fill_(256)
    with pytest.raises(OverflowError):
        t.fill_(-1)
    with pytest.raises(ValueError, match="NaN"):
        t.fill_(float("nan"))
    with pytest.raises(OverflowError, match="infinity"):
        t.fill_(float("inf"))
    t.fill_(7.9)  # truncated, as NumPy's setitem
    assert to_np(t).tolist() == [7, 7, 7]
    u = dlx.zeros((2,), "uint64")
    u.fill_(2**64 - 1)
    assert to_np(u).tolist() == [2**64 - 1] * 2


def test_copy_and_empty_like():
    rng = np.random.default_rng(1)
    a = random_array(rng, "float64", (4, 5))
    t = dlx.zeros((5, 4), "float32")
    assert t.copy_(from_np(a).T) is t
    np.testing.assert_array_equal(to_np(t), a.T.astype(np.float32))
    t.copy_(np.arange(4, dtype=np.int64))  # a NumPy array, broadcast and cast
    np.testing.assert_array_equal(to_np(t), np.broadcast_to(np.arange(4, dtype=np.float32), (5, 4)))
    with pytest.raises(TypeError):
        t.copy_(3)
    with pytest.raises(ValueError):
        t.copy_(dlx.zeros((3,)))
    # self-overlapping copy (reversed): elements are read before they are written
    s = from_np(np.arange(10.0))
    s[1:].copy_(s[:-1])
    np.testing.assert_array_equal(to_np(s), np.r_[0.0, np.arange(9.0)])
    e = dlx.empty_like(from_np(a).T)
    assert e.shape == (5, 4) and e.dtype == "float64" and e.is_contiguous
    assert dlx.empty_like(a, dtype="int8").dtype == "int8"


def test_read_only_targets():
    ro = np.zeros((3,), np.float32)
    ro.flags.writeable = False
    t = dlx.from_dlpack(ro)
    assert t.readonly
    with pytest.raises(ValueError):
        t.fill_(1)
    with pytest.raises(ValueError):
        t.copy_(dlx.zeros((3,)))
    with pytest.raises(ValueError):
        t += 1
    assert_same(t + 1, np.ones(3, np.float32))  # reading is fine


# ---- fma ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dt", ["float32", "float64", "int8", "uint8", "int32", "float16", "complex64"])
def test_fma(dt):
    rng = np.random.default_rng(17)
    a = random_array(rng, dt, (4, 5), small=True)
    b = random_array(rng, dt, (5,), small=True)
    s = 1.75
    got = dlx.fma(s, from_np(a), from_np(b))
    assert got.dtype == dt and got.shape == (4, 5)
    if dt in INTS:
        info = np.iinfo(dt)
        want = np.clip(np.rint(s * a.astype(np.float64) + b.astype(np.float64)), info.min, info.max).astype(dt)
        np.testing.assert_array_equal(to_np(got), want)
    elif dt in ("float32", "float64", "complex64"):
        want = np.asarray(s, dtype=np.float32 if dt != "float64" else np.float64) * a + b
        np.testing.assert_array_equal(to_np(got), want.astype(dt))
    else:
        np.testing.assert_allclose(to_np(got).astype(np.float32), (s * a.astype(np.float32) + b), rtol=2e-3)
    out = dlx.empty((4, 5), dt)
    assert dlx.fma(s, from_np(a), from_np(b), out=out) is out
    np.testing.assert_array_equal(to_np(out), to_np(got))


def test_fma_signed_delta_on_unsigned():
    """augpy's case: an int8 delta scaled onto a uint8 image, saturated."""
    img = np.array([0, 10, 250, 128], np.uint8)
    delta = np.array([-5, 3, 10, -128], np.int8)
    got = dlx.fma(2.0, from_np(delta), from_np(img))
    assert got.dtype == "uint8"
    assert to_np(got).tolist() == [0, 16, 255, 0]
    with pytest.raises(ValueError, match="dtype mismatch"):
        dlx.fma(1.0, from_np(np.zeros(3, np.int16)), from_np(np.zeros(3, np.uint8)))


def test_threads_setting():
    n = dlx.get_num_threads()
    assert n >= 1
    try:
        dlx.set_num_threads(1)
        assert dlx.get_num_threads() == 1
        a = np.arange(100_000, dtype=np.float32)
        assert_same(from_np(a) * 2, a * 2)
        dlx.set_num_threads(2)
        assert dlx.get_num_threads() == 2
        assert_same(from_np(a) * 2, a * 2)
    finally:
        dlx.set_num_threads(0)
    assert dlx.get_num_threads() == n


def test_numpy_scalars_are_strong():
    """NumPy scalars keep their dtype (NumPy 2 types them strongly), numpy.float64 included although it
    subclasses Python's float."""
    a = np.arange(1, 4, dtype=np.float32)
    t = from_np(a)
    for s in (np.float32(2), np.int64(3), np.float64(1.5), np.complex128(1j), np.uint8(4), np.bool_(True),
              np.int8(-2)):
        for op in ("add", "multiply", "less"):
            if op == "less" and isinstance(s, complex):
                continue  # complex ordering: see test_unsupported_dtypes
            assert_result(op, OPS[op](t, s), OPS[op](a, s))
            assert_result(op, OPS[op](s, t), OPS[op](s, a))
    t[0] = np.float64(7.0)
    t[1:] = np.int16(2)
    np.testing.assert_array_equal(a, [7, 2, 2])
