"""Edge cases a careless user meets, each held against NumPy's own behaviour: bool() of 128-bit integers,
index arrays in the other byte order, integer indices past uint64, iterating packed float4, reversed(),
lists, tuples and leading extent-1 dimensions as setitem values, dlx.sum & co of Python values, ufunc.at
and out= on read-only tensors, and sum / prod into an out= of another dtype."""
import sys
import warnings

import numpy as np
import pytest

import dlx

OTHER_ORDER = ">" if sys.byteorder == "little" else "<"
NATIVE_ORDER = "<" if sys.byteorder == "little" else ">"


def wide_ints(values, dtype):
    """A (len(values),) int128 / uint128 tensor of Python ints: their two's complement words, little-endian,
    through a complex128 array (16 bytes an element) viewed as the 128-bit dtype."""
    words = []
    for v in values:
        u = v % 2**128
        lo, hi = u % 2**64, u >> 64
        words += [lo, hi] if sys.byteorder == "little" else [hi, lo]
    return dlx.from_dlpack(np.array(words, np.uint64).view(np.complex128)).view(dtype)


# ---- 1. bool() of int128 / uint128 -------------------------------------------------------------------


@pytest.mark.parametrize("dtype, value", [("int128", 0), ("int128", 1), ("int128", -1), ("int128", 2**100),
                                          ("int128", -(2**127)), ("uint128", 0), ("uint128", 2**64),
                                          ("uint128", 2**128 - 1)])
def test_bool_of_a_128_bit_integer(dtype, value):
    t = wide_ints([value], dtype)
    assert int(t) == value
    # NumPy has no 128-bit integers; its truth of one int is that of an object array holding it
    want = bool(np.array([value], dtype=object))
    assert bool(t) is want
    assert bool(t.reshape(1, 1)) is want
    assert bool(t.reshape(())) is want


def test_bool_of_128_bit_integers_is_ambiguous_as_numpy_says():
    for shape in [(0,), (2,)]:
        with pytest.raises(ValueError):
            bool(np.zeros(shape, np.int64))
        with pytest.raises(ValueError, match="ambiguous"):
            bool(wide_ints([0, 1][: shape[0]], "int128"))


@pytest.mark.parametrize("value", [0, 1, -0.0, 0.5, float("nan"), float("inf"), 1j, 0j, True, False])
@pytest.mark.parametrize("dtype", ["bool", "int8", "uint64", "float16", "float32", "float64", "complex64"])
def test_bool_of_other_dtypes_is_numpys(dtype, value):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # NumPy's casts of complex, NaN and infinity warn
        a = np.array([value]).astype(dtype)
    assert bool(dlx.asarray(a)) is bool(a)


def test_bool_of_narrow_floats_is_ml_dtypes():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    for name in ["bfloat16", "float8_e4m3fn", "float4_e2m1fn"]:
        for value in [0.0, -0.0, 0.5, 1.0]:
            a = np.array([value], getattr(ml_dtypes, name))
            assert bool(dlx.asarray(a)) is bool(a), (name, value)
            assert bool(dlx.asarray(np.array([value], np.float32)).astype(name)) is bool(a), (name, value)


# ---- 2. index arrays in the other byte order ----------------------------------------------------------


@pytest.mark.parametrize("code", ["i8", "i4", "i2", "u8", "u2"])
def test_index_array_in_the_other_byte_order(code):
    a = np.arange(30, dtype=np.float32).reshape(10, 3)
    t = dlx.asarray(a)
    values = [1, 7, 2, 9] if code.startswith("u") else [1, -3, 2, -1]
    idx = np.array(values, OTHER_ORDER + code)
    assert not idx.dtype.isnative
    np.testing.assert_array_equal(t[idx].numpy(), a[idx])
    np.testing.assert_array_equal(t[idx, 1:].numpy(), a[idx, 1:])
    np.testing.assert_array_equal(t[1:3, idx[:3] % 3].numpy(), a[1:3, idx[:3] % 3])
    a[idx] = -5
    t[idx] = -5
    np.testing.assert_array_equal(t.numpy(), a)
    # out of range is NumPy's IndexError, with the value as the machine's order reads it
    big = np.array([10], OTHER_ORDER + code)
    with pytest.raises(IndexError):
        a[big]
    with pytest.raises(IndexError, match="index 10 is out of bounds for axis 0 with size 10"):
        t[big]


def test_a_float_index_array_in_the_other_byte_order_is_no_index():
    a = np.arange(5.0)
    idx = np.array([1.0, 2.0], OTHER_ORDER + "f8")
    with pytest.raises(IndexError):
        a[idx]
    with pytest.raises(IndexError, match="must be of integer"):
        dlx.asarray(a)[idx]


def test_an_index_array_in_native_order_is_unchanged():
    a = np.arange(5.0)
    idx = np.array([4, 0], NATIVE_ORDER + "i8")
    np.testing.assert_array_equal(dlx.asarray(a)[idx].numpy(), a[idx])


# ---- 3. reductions of Python values -------------------------------------------------------------------

REDUCTIONS = ["sum", "prod", "min", "max", "mean", "argmin", "argmax", "any", "all"]


@pytest.mark.parametrize("name", REDUCTIONS)
@pytest.mark.parametrize("value", [5, -2.5, True, 1 + 2j, 2**63, [1, 2, 3], [[1.5, 2], [3, 4]], (0, 1), range(4),
                                   [True, False]])
def test_reduction_of_python_values_is_numpys(name, value):
    want = np.asarray(getattr(np, name)(value))
    got = getattr(dlx, name)(value)
    assert isinstance(got, dlx.Tensor) and got.shape == ()  # a 0-d tensor where NumPy gives a scalar
    assert got.dtype == want.dtype.name
    assert got.tolist() == want.tolist()


@pytest.mark.parametrize("name", ["sum", "max", "mean"])
def test_reduction_of_python_values_with_arguments(name):
    value = [[1, 5], [3, 2]]
    for kwargs in [{"axis": 0}, {"axis": 1, "keepdims": True}, {"axis": (0, 1)}] + (
            [] if name == "max" else [{"dtype": np.float32}]):  # NumPy's max takes no dtype=
        want = getattr(np, name)(value, **kwargs)
        got = getattr(dlx, name)(value, **kwargs)
        assert got.dtype == np.asarray(want).dtype.name, kwargs
        np.testing.assert_array_equal(got.numpy(), want)


def test_reduction_of_python_values_errors_are_numpys():
    with pytest.raises(IndexError):  # NumPy's AxisError is an IndexError
        np.sum(5, axis=1)
    with pytest.raises(IndexError, match="axis 1 is out of range"):
        dlx.sum(5, axis=1)
    with pytest.raises(ValueError):
        np.min([])
    with pytest.raises(ValueError, match="empty min"):
        dlx.min([])
    with pytest.raises(ValueError):
        np.sum([[1, 2], [3]])
    with pytest.raises(ValueError, match="inhomogeneous"):
        dlx.sum([[1, 2], [3]])
    with pytest.raises(TypeError):
        np.sum("12")
    with pytest.raises(TypeError, match="not str"):
        dlx.sum("12")


# ---- 4. integer indices past uint64 -------------------------------------------------------------------


@pytest.mark.parametrize("key", [[2**64], [-(2**64) - 1], [0, 2**70], [[1], [2**64]], ([0], [-(2**64)]),
                                 (slice(None), [2**64]), 2**64, -(2**64)])
def test_an_index_past_uint64_is_index_error(key):
    a = np.arange(12).reshape(3, 4)
    t = dlx.asarray(a.copy())
    with pytest.raises(IndexError):
        a[key]
    with pytest.raises(IndexError, match="out of bounds"):
        t[key]
    with pytest.raises(IndexError, match="out of bounds"):
        t[key] = 1
    np.testing.assert_array_equal(t.numpy(), a)  # nothing written


def test_an_index_in_uint64_past_the_extent_names_the_axis():
    t = dlx.asarray(np.arange(5))
    with pytest.raises(IndexError, match="index 9223372036854775808 is out of bounds for axis 0 with size 5"):
        t[[2**63]]


# ---- 5. iterating packed float4 ----------------------------------------------------------------------


def packed_float4(values):
    t = dlx.asarray(np.array(values, np.float32)).astype("float4_e2m1fn")
    assert t.nbytes * 2 == len(values)  # two elements a byte: packed
    return t


def test_iterating_packed_float4_raises_what_indexing_raises():
    t = packed_float4([0.5, 1, 1.5, 2])
    with pytest.raises(TypeError) as by_index:
        t[1]
    with pytest.raises(TypeError) as by_iteration:
        list(t)
    assert "does not start on a byte" in str(by_index.value)
    assert "does not start on a byte" in str(by_iteration.value)
    # a for loop stops at the error, never quietly at the element that cannot be a view
    seen = []
    with pytest.raises(TypeError, match="does not start on a byte"):
        for x in t:
            seen.append(x.tolist())
    assert seen == [0.5]
    with pytest.raises(TypeError, match="does not start on a byte"):
        list(reversed(t))


def test_rows_of_packed_float4_that_start_on_bytes_iterate():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    values = [0.5, 1, 1.5, 2, -3, 6, 0, 4]
    t = packed_float4(values).reshape(4, 2)
    a = np.array(values, ml_dtypes.float4_e2m1fn).reshape(4, 2)
    got = [r.numpy() for r in t]
    assert len(got) == len(list(a))
    for g, w in zip(got, a):
        np.testing.assert_array_equal(g, w)
    for g, w in zip([r.numpy() for r in reversed(t)], reversed(a)):
        np.testing.assert_array_equal(g, w)


# ---- 6. ufunc.at and out= on read-only tensors --------------------------------------------------------


def read_only_pair():
    a = np.arange(4, dtype=np.float32)
    a.flags.writeable = False
    t = dlx.asarray(a)
    assert t.readonly
    return a, t


AT_CALLS = {
    "add.at": lambda x: np.add.at(x, [0, 0, 2], 1),
    "negative.at": lambda x: np.negative.at(x, [1]),
    "maximum.at": lambda x: np.maximum.at(x, [3], 9),
    "multiply.at": lambda x: np.multiply.at(x, np.array([1, 2]), np.array([2, 3], np.float32)),
}


@pytest.mark.parametrize("name", AT_CALLS)
def test_ufunc_at_refuses_a_read_only_tensor(name):
    a, t = read_only_pair()
    before = a.copy()
    with pytest.raises(ValueError, match="assignment destination is read-only"):
        AT_CALLS[name](t)
    np.testing.assert_array_equal(a, before)
    # the words are NumPy's for a read-only destination
    with pytest.raises(ValueError, match="assignment destination is read-only"):
        np.copyto(a, 1)
    # a writable tensor is written as NumPy writes its array
    w = before.copy()
    tw = dlx.asarray(before.copy())
    AT_CALLS[name](w)
    AT_CALLS[name](tw)
    np.testing.assert_array_equal(tw.numpy(), w)


OUT_CALLS = {
    "add": lambda o: np.add(np.ones(4, np.float32), 1, out=o),
    "add, out tuple": lambda o: np.add(np.ones(4, np.float32), 1, out=(o,)),
    "negative of itself": lambda o: np.negative(o, out=o),
    "sqrt": lambda o: np.sqrt(np.ones(4, np.float32), out=o),
    "divmod": lambda o: np.divmod(np.ones(4, np.float32), 1, out=(o, None)),
    "add.reduce": lambda o: np.add.reduce(np.ones((2, 4), np.float32), out=o),
    "add.accumulate": lambda o: np.add.accumulate(np.ones(4, np.float32), out=o),
    "add.reduceat": lambda o: np.add.reduceat(np.ones(8, np.float32), [0, 2, 4, 6], out=o),
    "add.outer": lambda o: np.add.outer(np.ones(2, np.float32), np.ones(2, np.float32), out=o.reshape(2, 2)),
    "matmul": lambda o: np.matmul(np.ones((2, 2), np.float32), np.ones((2, 2), np.float32), out=o.reshape(2, 2)),
    "sum": lambda o: np.sum(np.ones((2, 4), np.float32), axis=0, out=o),
    "cumsum": lambda o: np.cumsum(np.ones(4, np.float32), out=o),
    "clip": lambda o: np.clip(np.ones(4, np.float32), 0, 2, out=o),
}


@pytest.mark.parametrize("name", OUT_CALLS)
def test_out_on_a_read_only_tensor_is_refused_as_numpy_refuses(name):
    a, t = read_only_pair()
    before = a.copy()
    with pytest.raises(ValueError, match="read-only"):
        OUT_CALLS[name](a)
    with pytest.raises(ValueError, match="read-only"):
        OUT_CALLS[name](t)
    np.testing.assert_array_equal(a, before)


# ---- 7. sum and prod into an out of another dtype -----------------------------------------------------

# inputs whose sums and products are exact in every dtype involved, so that only the dtype the reduction
# computes in decides the result
OUT_CASES = [
    (np.array([[0.5, 1.5, -0.75], [0.5, 2.5, -0.75]]), "int32"),  # float64 summed, truncated once
    (np.array([[2**24, 3], [1, 1], [1, 1]], np.int64), "float32"),  # summed in float64, rounded once
    (np.array([[1, 2, 0], [-1, 0, 0]], np.int64), "bool"),  # the truth of the sum
    (np.array([[0.25, 0.0], [0.5, -0.0]]), "bool"),
    (np.array([[200, 100], [200, 100]], np.uint8), "int8"),
    (np.array([[2**31 - 1, 7], [2**31 - 1, -9]], np.int64), "int32"),
    (np.array([[1.5, 2], [2, 3]], np.float32), "float64"),
    (np.array([[1.5, 2], [2, 3]], np.float64), "float16"),
    (np.array([[True, False], [True, True]]), "int8"),
    (np.array([[3, 5], [7, 9]], np.int16), "uint8"),
    (np.array([[1.5, -2], [2, 3]], np.float64), "complex64"),
]


@pytest.mark.parametrize("name", ["sum", "prod"])
@pytest.mark.parametrize("case", range(len(OUT_CASES)))
def test_sum_and_prod_into_an_out_of_another_dtype_are_numpys(name, case):
    a, dtype = OUT_CASES[case]
    want = np.zeros(a.shape[1], dtype)
    getattr(np, name)(a, axis=0, out=want)
    for call in ("numpy", "dlx", "method"):
        out = dlx.zeros((a.shape[1],), dtype)
        t = dlx.asarray(a)
        if call == "numpy":
            r = getattr(np, name)(t, axis=0, out=out)
        elif call == "dlx":
            r = getattr(dlx, name)(t, axis=0, out=out)
        else:
            r = getattr(t, name)(axis=0, out=out)
        assert r is out
        np.testing.assert_array_equal(out.numpy(), want, err_msg=call)
    # over every axis, into a 0-d out
    want0 = np.zeros((), dtype)
    getattr(np, name)(a, out=want0)
    out0 = dlx.zeros((), dtype)
    getattr(np, name)(dlx.asarray(a), out=out0)
    np.testing.assert_array_equal(out0.numpy(), want0)


def test_dtype_given_with_out_is_still_what_the_sum_computes_in():
    a = np.array([[0.5, 1.5], [0.5, 1.5]])
    for dtype in (np.float64, np.int64):
        want = np.zeros(2, np.int32)
        np.sum(a, axis=0, dtype=dtype, out=want)
        out = dlx.zeros((2,), "int32")
        np.sum(dlx.asarray(a), axis=0, dtype=dtype, out=out)
        np.testing.assert_array_equal(out.numpy(), want)


# ---- 8. setitem: lists, tuples and leading extent-1 dimensions ----------------------------------------

SEQUENCE_CASES = [
    ("int64", (3,), [0, 1], [3, 4]),
    ("int64", (3,), [0, 1], (3, 4)),
    ("int64", (3,), slice(None), [1, 2, 3]),
    ("int64", (3,), slice(None), range(3)),
    ("int64", (3,), slice(0, 0), []),
    ("int64", (3,), slice(None), [7]),
    ("int64", (3,), [2, 0], [1.7, -2.9]),  # truncated, as NumPy's setitem
    ("float32", (3,), [True, False, True], [0.5, 2]),
    ("float64", (3,), slice(None), [True, 2, 3.5]),
    ("bool", (3,), slice(None), [2, 0, -1.5]),
    ("uint8", (3,), [0, 1, 2], [255, 0, 7]),
    ("complex64", (3,), slice(1, None), [1j, 2]),
    ("int32", (2, 3), (slice(None), [0, 2]), [[1, 2], [3, 4]]),
    ("int32", (2, 3), 0, (1, 2, 3)),
    ("int32", (2, 3), ([0, 1], slice(1, None)), [[5, 6]]),
    ("int32", (2, 3), (Ellipsis, 1), [8, 9]),
    ("int32", (2, 3), (slice(None), slice(None)), [[1], [2]]),
    ("int32", (2, 3), ([1, 0, 1], [2, 2, 0]), [4, 5, 6]),
]


@pytest.mark.parametrize("case", range(len(SEQUENCE_CASES)))
def test_setitem_takes_lists_and_tuples_as_numpy_does(case):
    dtype, shape, key, value = SEQUENCE_CASES[case]
    a = np.zeros(shape, dtype)
    t = dlx.zeros(shape, dtype)
    a[key] = value
    t[key] = value
    assert t.dtype == a.dtype.name
    np.testing.assert_array_equal(t.numpy(), a)


@pytest.mark.parametrize("dtype, key, value, exc", [
    ("uint8", slice(None), [300, 1, 1], OverflowError),
    ("uint8", [0], [-1], OverflowError),
    ("int64", slice(None), [1, 2, 2**70], OverflowError),
    ("float64", slice(None), [1 + 1j, 2, 3], TypeError),
    ("int64", slice(None), [float("nan"), 1, 2], ValueError),
    ("int64", slice(None), [1, 2], ValueError),  # does not broadcast
    ("int64", [0, 1], [1, 2, 3], ValueError),
    ("int64", slice(None), [[1, 2], [3]], ValueError),  # ragged
    ("int64", slice(None), ["a", "b", "c"], (TypeError, ValueError)),
])
def test_setitem_sequence_errors_are_numpys(dtype, key, value, exc):
    a = np.zeros(3, dtype)
    t = dlx.zeros((3,), dtype)
    with pytest.raises(exc):
        a[key] = value
    with pytest.raises(exc):
        t[key] = value
    assert t.tolist() == [0, 0, 0]


def test_setitem_sequence_into_a_read_only_tensor_is_refused():
    a, t = read_only_pair()
    with pytest.raises(ValueError):
        a[:2] = [5, 6]
    with pytest.raises(ValueError, match="read-only"):
        t[:2] = [5, 6]
    with pytest.raises(ValueError, match="read-only"):
        t[[0, 1]] = (5, 6)


@pytest.mark.parametrize("shape, key, vshape", [
    ((3,), slice(None), (1, 3)),
    ((3,), slice(None), (1, 1, 3)),
    ((3,), slice(None), (1, 1)),
    ((3,), (0, Ellipsis), (1, 1)),
    ((3,), [0, 2], (1, 2)),
    ((3,), [0, 2], (1, 1, 1)),
    ((2, 3), slice(None), (1, 1, 3)),
    ((2, 3), (slice(None), 0), (1, 2)),
    ((2, 3), ([0, 1], 0), (1, 1, 2)),
    ((2, 3), ([0, 1], slice(None)), (1, 2, 3)),
])
def test_setitem_drops_leading_unit_dimensions_as_numpy(shape, key, vshape):
    value = np.arange(1, 1 + int(np.prod(vshape)), dtype=np.float64).reshape(vshape)
    a = np.zeros(shape)
    a[key] = value
    for v in (value, dlx.asarray(value)):
        t = dlx.zeros(shape, "float64")
        t[key] = v
        np.testing.assert_array_equal(t.numpy(), a)


@pytest.mark.parametrize("shape, key, vshape", [
    ((3,), slice(None), (2, 3)),
    ((3,), slice(None), (3, 1)),
    ((3,), [0, 1], (2, 1, 2)),
    ((2, 3), ([0, 1], 0), (1, 2, 1, 2)),
])
def test_setitem_keeps_refusing_values_that_do_not_broadcast(shape, key, vshape):
    value = np.ones(vshape)
    a = np.zeros(shape)
    t = dlx.zeros(shape, "float64")
    with pytest.raises(ValueError):
        a[key] = value
    with pytest.raises(ValueError):
        t[key] = value
    with pytest.raises(ValueError):
        t[key] = dlx.asarray(value)


def test_a_nested_list_deeper_than_the_target_is_its_array():
    """A deliberate difference: NumPy's basic setitem refuses a list deeper than the target
    (a[:] = [[1, 2, 3]] into (3,)) though it takes the same value as an array or through advanced
    indexing; dlx takes a list as the array NumPy makes of it, everywhere."""
    value = [[1, 2, 3]]
    a = np.zeros(3)
    with pytest.raises(ValueError):
        a[:] = value
    a[:] = np.asarray(value)
    t = dlx.zeros((3,), "float64")
    t[:] = value
    np.testing.assert_array_equal(t.numpy(), a)


# ---- 10. reversed() ----------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(5,), (3, 2), (0,), (1, 4, 2), (0, 3)])
def test_reversed_is_numpys(shape):
    a = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    t = dlx.asarray(a)
    got = list(reversed(t))
    want = list(reversed(a))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert isinstance(g, dlx.Tensor) and g.shape == np.shape(w)  # 0-d tensors where NumPy gives scalars
        np.testing.assert_array_equal(g.numpy(), w)
    # strided views too
    for g, w in zip(reversed(t[::-2]), reversed(a[::-2])):
        np.testing.assert_array_equal(g.numpy(), w)


def test_reversed_gives_views():
    t = dlx.asarray(np.zeros((3, 2), np.float32))
    last = next(reversed(t))
    last[:] = 7
    assert t.tolist() == [[0, 0], [0, 0], [7, 7]]
    it = reversed(t)
    assert iter(it) is it
    assert len(list(it)) == 3 and list(it) == []


def test_reversed_of_a_0d_tensor_is_type_error_as_numpy():
    with pytest.raises(TypeError):
        reversed(np.array(5))
    with pytest.raises(TypeError, match="reversed\\(\\) over a 0-d tensor"):
        reversed(dlx.asarray(5))
