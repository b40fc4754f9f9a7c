"""dlx.asarray (src/pyext/create.c, buffer.c, fromlist.c), the Array API's asarray, checked against np.asarray: DLPack objects and
buffers without a copy, Python scalars and nested sequences with NumPy 2's dtype inference (hypothesis),
NumPy's conversions when a dtype is given, and copy / device as the standard defines them."""

import array
import ctypes
import gc
import math
import mmap
import re
import sys
import warnings

import numpy as np
import pytest
from peers import need
from hypothesis import given
from hypothesis import strategies as st

import dlx

T = dlx._testing

NUMPY_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                "float16", "float32", "float64", "complex64", "complex128"]
NARROW = ["bfloat16", "float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz",
          "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu", "float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn"]


def addr(a):
    return a.__array_interface__["data"][0]


def same_values(t, ref):
    """t (a dlx tensor) holds ref's dtype, shape and values: NaN where NaN, -0.0 where -0.0."""
    assert t.dtype == ref.dtype.name and t.shape == ref.shape
    got = np.asarray(t)
    np.testing.assert_array_equal(got, ref)
    if ref.dtype.kind in "fc":
        assert (np.signbit(got.real) == np.signbit(ref.real)).all()


# --- DLPack objects ---------------------------------------------------------------------------------


def test_a_tensor_is_returned_as_is():
    t = dlx.zeros((2, 3))
    assert dlx.asarray(t) is t
    assert dlx.asarray(t, dtype="float32", copy=False, device="cpu") is t


@pytest.mark.parametrize("dtype", NUMPY_DTYPES)
def test_numpy_arrays_without_a_copy(dtype):
    a = np.arange(12).astype(dtype).reshape(3, 4)[::-1, 1:]
    for copy in (None, False):
        t = dlx.asarray(a, copy=copy)
        assert t.data_ptr == addr(a) and t.stride == tuple(s // a.itemsize for s in a.strides)
        same_values(t, a)
    c = dlx.asarray(a, copy=True)
    assert c.data_ptr != addr(a) and c.is_contiguous
    same_values(c, a)


def test_copies_and_conversions():
    a = np.arange(6, dtype=np.int32)
    a.flags.writeable = False
    t = dlx.asarray(a)
    assert t.readonly and t.data_ptr == addr(a)
    c = dlx.asarray(a, copy=True)
    assert not c.readonly and c.data_ptr != addr(a)
    c[0] = 9
    assert a[0] == 0
    f = dlx.asarray(a, dtype="float64")
    assert f.dtype == "float64" and f.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0] and not f.readonly
    assert dlx.asarray(a, dtype=np.float64, copy=True).dtype == "float64"
    with pytest.raises(ValueError, match="copy=False, but a dtype conversion needs a copy"):
        dlx.asarray(a, dtype="int64", copy=False)
    assert dlx.asarray(a, dtype=np.int32, copy=False).data_ptr == addr(a)


@pytest.mark.parametrize("name", NARROW)
def test_ml_dtypes_arrays_without_a_copy(name):
    """NumPy's DLPack refuses ml_dtypes arrays; asarray reads their bits instead and keeps their dtype."""
    ml = need("ml_dtypes")
    a = np.array([[0.5, 1.0], [2.0, 4.0], [1.0, 0.5]], dtype=getattr(ml, name))  # exact in every format
    with pytest.raises((BufferError, TypeError)):
        np.from_dlpack(a)  # the reason asarray has a way of its own
    t = dlx.asarray(a.T)
    assert t.dtype == name and t.data_ptr == addr(a) and t.shape == (2, 3) and t.stride == (1, 2)
    assert t.itemsize == 1 if name != "bfloat16" else t.itemsize == 2  # float6/float4: padded, one per byte
    assert t.tolist() == a.T.astype(np.float64).tolist()
    y = t.numpy()
    assert addr(y) == addr(a) and y.dtype == a.dtype
    s = dlx.asarray(getattr(ml, name)(2.0))  # an ml_dtypes scalar
    assert s.dtype == name and s.shape == () and s.tolist() == 2.0


def test_dlpack_errors_propagate():
    class Failing:
        def __dlpack__(self, **kw):
            raise RuntimeError("no capsule today")

        def __dlpack_device__(self):
            return (1, 0)

    with pytest.raises(RuntimeError, match="no capsule today"):
        dlx.asarray(Failing())


def test_arrays_nothing_reads():
    a = np.zeros(3, dtype="datetime64[s]")
    with pytest.raises(BufferError):  # NumPy's own refusal, passed on
        dlx.asarray(a)
    with pytest.raises(BufferError):
        dlx.from_dlpack(a)


def test_numpy_scalars():
    t = dlx.asarray(np.float32(2.5))
    assert t.dtype == "float32" and t.shape == () and t.tolist() == 2.5
    assert dlx.asarray(np.bool_(True)).dtype == "bool"
    assert dlx.asarray(np.float64(1.5)).dtype == "float64"  # a float subclass, and a NumPy scalar
    assert dlx.asarray(np.int8(-3), dtype="int64").tolist() == -3
    with pytest.raises(ValueError):  # a NumPy scalar has no memory to share (NumPy's asarray says the same)
        dlx.asarray(np.float32(1), copy=False)
    c = dlx.asarray(np.uint16(7), copy=True)
    assert c.dtype == "uint16" and c.tolist() == 7


class ArrayLike:
    """An object speaking only NumPy's __array__ protocol (a pandas-like container)."""

    dtype = np.dtype("float32")

    def __init__(self, accepts_copy=True, fails=False):
        self.a = np.arange(3, dtype=np.float32)
        self.accepts_copy, self.fails = accepts_copy, fails

    def __array__(self, dtype=None, **kw):
        if self.fails:
            raise RuntimeError("no array today")
        if kw and not self.accepts_copy:
            raise TypeError("__array__() takes no keyword arguments")
        return self.a.copy() if kw.get("copy") else self.a


def test_objects_with_array():
    x = ArrayLike()
    for copy in (None, False):
        assert dlx.asarray(x, copy=copy).data_ptr == addr(x.a)
    c = dlx.asarray(x, copy=True)
    assert c.data_ptr != addr(x.a) and c.tolist() == [0.0, 1.0, 2.0]
    assert dlx.asarray(ArrayLike(accepts_copy=False)).data_ptr != 0
    with pytest.raises(ValueError, match="copy=False, but an __array__ without copy= needs a copy"):
        dlx.asarray(ArrayLike(accepts_copy=False), copy=False)
    with pytest.raises(RuntimeError, match="no array today"):
        dlx.asarray(ArrayLike(fails=True))


def test_capsules():
    cap = T.make_capsule((2, 3), "int16")
    t = dlx.asarray(cap)
    assert t.shape == (2, 3) and t.dtype == "int16"


# --- buffers ----------------------------------------------------------------------------------------


def test_bytes_and_bytearray():
    t = dlx.asarray(b"abc")
    assert t.dtype == "uint8" and t.readonly and t.tolist() == [97, 98, 99]
    ba = bytearray(b"\x01\x02\x03\x04")
    t = dlx.asarray(ba)
    assert not t.readonly and t.shape == (4,)
    t[0] = 9  # the same memory
    assert ba[0] == 9
    with pytest.raises(BufferError):  # held: it cannot move while the tensor uses it
        ba.append(5)
    del t
    gc.collect()
    ba.append(5)
    assert dlx.asarray(bytearray()).shape == (0,)


@pytest.mark.parametrize("code, dtype", [("b", "int8"), ("B", "uint8"), ("h", "int16"), ("H", "uint16"),
                                         ("i", "int32"), ("I", "uint32"), ("l", "int64"), ("L", "uint64"),
                                         ("q", "int64"), ("Q", "uint64"), ("f", "float32"), ("d", "float64")])
def test_array_module(code, dtype):
    if array.array(code).itemsize * 8 != int(dtype.lstrip("uintfloa")):
        pytest.skip(f"array code {code} has another size here")
    a = array.array(code, [1, 2, 3])
    t = dlx.asarray(a)
    assert t.dtype == dtype and t.tolist() == [1, 2, 3] and t.data_ptr == a.buffer_info()[0]


def test_memoryviews_keep_their_layout():
    x = np.arange(24, dtype=np.float64).reshape(4, 6)
    for view in (x, x.T, x[::-1, ::2], x[1, 2, ...], np.asfortranarray(x), x[:0]):
        m = memoryview(view)
        t = dlx.asarray(m)
        assert t.shape == view.shape and t.dtype == "float64"
        if view.size:
            assert t.data_ptr == addr(view) and t.stride == tuple(s // 8 for s in view.strides)
        assert np.asarray(t).tolist() == view.tolist()
    assert dlx.asarray(memoryview(b"ab").cast("B", (1, 2))).shape == (1, 2)
    assert dlx.asarray(memoryview(np.zeros(3, np.float16))).dtype == "float16"
    assert dlx.asarray(memoryview(np.array([1 + 2j], np.complex64))).tolist() == [1 + 2j]
    assert dlx.asarray(memoryview(np.array([True, False]))).tolist() == [True, False]
    big = memoryview(np.zeros(2, np.int64).view(np.dtype(">i8") if sys.byteorder == "big" else "<i8"))
    assert dlx.asarray(big).dtype == "int64"


def test_ctypes_and_mmap():
    c = (ctypes.c_int32 * 4)(1, 2, 3, 4)  # format '<i'
    t = dlx.asarray(c)
    assert t.dtype == "int32" and t.tolist() == [1, 2, 3, 4] and t.data_ptr == ctypes.addressof(c)
    with mmap.mmap(-1, 16) as m:
        t = dlx.asarray(m)
        t[3] = 7
        assert m[3] == 7
        del t
        gc.collect()


def test_buffers_that_must_be_copied():
    raw = bytearray(range(17))
    odd = memoryview(raw)[1:].cast("i")  # int32 at an odd address
    t = dlx.asarray(odd)
    assert t.dtype == "int32" and t.tolist() == odd.tolist() and t.data_ptr % 4 == 0
    raw[1] = 99  # a copy: not seen
    assert t.tolist()[0] != odd.tolist()[0]
    with pytest.raises(ValueError, match="copy=False, but a buffer that is misaligned or strided in partial items"):
        dlx.asarray(odd, copy=False)
    rec = np.zeros(3, dtype=[("a", "<i4"), ("b", "u1")])
    rec["a"] = [5, 6, 7]
    field = memoryview(rec["a"])  # stride 5: not a multiple of the item size
    assert dlx.asarray(field).tolist() == [5, 6, 7]
    assert dlx.asarray(field, copy=True).tolist() == [5, 6, 7]  # one copy, not two
    with pytest.raises(ValueError):
        dlx.asarray(field, copy=False)


@pytest.mark.parametrize("make", [
    lambda: (ctypes.c_int8 * 2)(),  # fine, as a control
    lambda: memoryview(np.zeros(2, ">i4" if sys.byteorder == "little" else "<i4")),  # the other byte order
    lambda: memoryview(np.zeros(2, np.longdouble)),  # 'g'
    lambda: memoryview(b"ab").cast("c"),
    lambda: memoryview(bytearray(16)).cast("P"),
    lambda: memoryview(np.zeros(2, "V8")),  # raw bytes of 8
    lambda: memoryview(np.zeros(2, dtype=[("a", "<i4"), ("b", "<f4")])),  # T{...}
    lambda: memoryview(dlx.from_dlpack(T.make_capsule((2,), "float32x4"))),  # (4)f
])
def test_buffer_formats_without_a_dtype(make):
    obj = make()
    if isinstance(obj, ctypes.Array):
        assert dlx.asarray(obj).dtype == "int8"
        return
    with pytest.raises(TypeError, match=f"no dlx dtype for buffer format '{re.escape(obj.format)}'"):
        dlx.asarray(obj)


def test_indirect_buffers_are_refused():
    tb = need("_testbuffer", reason="CPython's _testbuffer makes PIL-style buffers")
    x = tb.ndarray(list(range(8)), shape=[8], format="B", flags=tb.ND_PIL)
    with pytest.raises(BufferError, match="indirect buffers"):
        dlx.asarray(x)


def test_buffers_that_refuse_to_export():
    tb = need("_testbuffer", reason="CPython's _testbuffer makes failing exporters")
    x = tb.ndarray([1, 2], shape=[2], format="B", flags=tb.ND_GETBUF_FAIL)
    with pytest.raises(BufferError):
        dlx.asarray(x)


# --- Python scalars and nested sequences ------------------------------------------------------------


def check_inference(x):
    """dlx.asarray(x) against np.asarray(x): the same dtype, shape and values, or the same refusal."""
    try:
        ref = np.asarray(x)
    except ValueError:
        with pytest.raises(ValueError):
            dlx.asarray(x)
        return
    if ref.dtype == object:  # an int past int64 and uint64: dlx has no object dtype
        with pytest.raises(OverflowError, match="out of bounds for int64 and uint64"):
            dlx.asarray(x)
        return
    t = dlx.asarray(x)
    same_values(t, ref)
    assert not t.readonly and t.is_contiguous


@pytest.mark.parametrize("x", [
    0, True, 1.5, 1 + 2j, -(2**63), 2**63, 2**64 - 1, 2**64, -(2**63) - 1, [2**63, 1], [2**63, True],
    [-1, 2**63], [2**63, 1.5], [2**64, 1.0], [], [[], []], [[[]]], (), [()], [[1, 2], (3, 4)], range(4),
    [range(2), range(2)], [True, 2], [True, 2.5], [1, 2.5j], [1, [2]], [[1], 2], [[1], [2, 3]], [[], [1]],
    [float("nan"), -0.0, float("inf")], [[True, False]] * 3,
])
def test_inference_examples(x):
    check_inference(x)


EDGE_INTS = [2**63 - 1, 2**63, 2**64 - 1, 2**64, -(2**63), -(2**63) - 1, 0, -1, 1]
scalars = st.one_of(
    st.booleans(),
    st.integers(-300, 300),
    st.sampled_from(EDGE_INTS),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.complex_numbers(allow_nan=True, allow_infinity=True),
)


@st.composite
def rectangular(draw, elements):
    """Nested lists / tuples of a random shape (up to 4 dimensions) holding elements."""
    shape = draw(st.lists(st.integers(0, 3), max_size=4))
    n = math.prod(shape)
    flat = iter(draw(st.lists(elements, min_size=n, max_size=n)))

    def build(dims):
        if not dims:
            return next(flat)
        items = [build(dims[1:]) for _ in range(dims[0])]
        return tuple(items) if draw(st.booleans()) else items

    return build(shape)


@given(rectangular(scalars))
def test_inference_matches_numpy(x):
    check_inference(x)


@given(st.recursive(scalars, lambda inner: st.lists(inner, max_size=3) | st.tuples(inner, inner),
                               max_leaves=12))
def test_ragged_and_nested_match_numpy(x):
    check_inference(x)


def check_with_dtype(x, dtype):
    """dlx.asarray(x, dtype=d) against np.asarray(x, dtype=d): the same values, or the same exception type."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # NumPy's overflow warnings
        try:
            ref = np.asarray(x, dtype=dtype)
        except (OverflowError, ValueError, TypeError) as e:
            with pytest.raises(type(e)):
                dlx.asarray(x, dtype=dtype)
            return
    same_values(dlx.asarray(x, dtype=dtype), ref)


@given(rectangular(scalars), st.sampled_from(NUMPY_DTYPES))
def test_dtype_conversions_match_numpy(x, dtype):
    check_with_dtype(x, dtype)


@pytest.mark.parametrize("x, dtype", [
    ([300], "uint8"), ([-1], "uint8"), ([300.5], "int8"), ([127.9, -128.9], "int8"), ([-0.5], "uint8"),
    ([1e300], "int64"), ([2.0**63], "int64"), ([2.0**63], "uint64"), ([2.0**64], "uint64"), ([float("nan")], "int32"),
    ([float("inf")], "int16"), ([2**62 + 1, 0.5], "int64"), ([2**64], "float32"), ([2**1030], "float64"),
    ([1j], "float64"), ([1j], "int8"), ([1j, 0j], "bool"), ([float("nan"), 0.0], "bool"), ([2**70], "bool"),
    ([True, 2], "float16"), ([1e20], "float16"), ([2**64 - 1], "uint64"), ([2**64], "uint64"), (-(2**63), "int64"),
    ([[1, 2.5], [3, 4]], "complex64"), (7, "int8"), ([2**64], "complex128"),
])
def test_dtype_conversion_examples(x, dtype):
    check_with_dtype(x, dtype)


@given(rectangular(st.one_of(st.floats(width=32), st.integers(-(2**24), 2**24), st.booleans())),
                  st.sampled_from(NARROW))
def test_narrow_dtypes_match_ml_dtypes(x, name):
    """Values float32 holds exactly: ml_dtypes rounds through float32, dlx from float64, and the two agree."""
    ml = need("ml_dtypes")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = np.asarray(x, dtype=getattr(ml, name))
    t = dlx.asarray(x, dtype=name)
    assert t.dtype == name and t.shape == ref.shape
    y = t.numpy()
    bits = f"u{ref.itemsize}"
    nan = np.isnan(ref.astype(np.float32))
    assert (np.isnan(y.astype(np.float32)) == nan).all()
    np.testing.assert_array_equal(y.view(bits)[~nan], ref.view(bits)[~nan])


def test_sequence_errors():
    with pytest.raises(ValueError, match="inhomogeneous nested sequence.*after 1 dimension"):
        dlx.asarray([[1], [2, 3]])
    deep = 0
    for _ in range(65):
        deep = [deep]
    with pytest.raises(ValueError, match="nested more than 64 deep"):
        dlx.asarray(deep)
    ok = 0
    for _ in range(64):
        ok = [ok]
    assert dlx.asarray(ok).ndim == 64
    loop = []
    loop.append(loop)
    with pytest.raises(ValueError, match="nested more than 64 deep"):
        dlx.asarray(loop)
    for bad in (["a"], [np.float32(1)], [None], [1, dlx.zeros(())], [b"x"]):
        with pytest.raises(TypeError, match="expected bool, int, float, complex, or lists / tuples of them"):
            dlx.asarray(bad)
    with pytest.raises(OverflowError):  # len() of this range
        dlx.asarray(range(2**64))
    with pytest.raises(ValueError, match="copy=False, but a Python scalar or sequence needs a copy"):
        dlx.asarray([1, 2], copy=False)
    with pytest.raises(ValueError, match="copy=False"):
        dlx.asarray(1.5, copy=False)
    assert dlx.asarray([1, 2], copy=True).tolist() == [1, 2]


def test_a_sequence_that_changes_while_it_is_read():
    """A scalar's conversion may run Python code; lists it changes are caught, not read out of bounds."""
    rows = [[1.0, 2.0], [3.0, 4.0]]

    class Sneaky(float):
        def __bool__(self):
            rows[1].pop()
            return True

    rows[0][0] = Sneaky(1.0)
    with pytest.raises(ValueError, match="inhomogeneous"):
        dlx.asarray(rows, dtype="bool")
    rows = [[1.0, 2.0], [3.0, 4.0]]
    rows[0][0] = Sneaky(1.0)

    def shrink():
        rows[1] = 5.0

    class Sneaky2(float):
        def __bool__(self):
            shrink()
            return True

    rows[0][0] = Sneaky2(1.0)
    with pytest.raises(ValueError, match="inhomogeneous"):
        dlx.asarray(rows, dtype="bool")
    nested = [[1.0], [2.0]]

    class Sneaky3(float):
        def __bool__(self):
            nested[1][0] = [2.0]
            return True

    nested[0][0] = Sneaky3(1.0)
    with pytest.raises(ValueError, match="inhomogeneous"):
        dlx.asarray(nested, dtype="bool")

    class Bad(float):
        def __bool__(self):
            raise RuntimeError("no truth")

    with pytest.raises(RuntimeError, match="no truth"):
        dlx.asarray([Bad(1.0)], dtype="bool")


@pytest.mark.parametrize("dtype, error", [("int128", "Python scalars do not convert to int128"),
                                          ("float32x4", "Python scalars do not convert to float32x4"),
                                          ("complex32", "Python scalars do not convert to complex32"),
                                          ("float128", "Python scalars do not convert to float128")])
def test_dtypes_python_scalars_do_not_reach(dtype, error):
    with pytest.raises(TypeError, match=error):
        dlx.asarray([1, 2], dtype=dtype)


def test_bad_arguments():
    with pytest.raises(TypeError, match="copy must be True, False or None"):
        dlx.asarray([1], copy=1)
    with pytest.raises(ValueError, match="unknown dtype 'float33'"):
        dlx.asarray([1], dtype="float33")
    with pytest.raises(TypeError, match="cannot make a tensor of object"):
        dlx.asarray(object())
    with pytest.raises(TypeError, match="cannot make a tensor of str"):
        dlx.asarray("abc")
    with pytest.raises(TypeError):
        dlx.asarray([1], "float32")  # dtype is keyword-only, as the Array API has it
    with pytest.raises(TypeError):
        dlx.asarray(obj=[1])


# --- device -------------------------------------------------------------------------------------------


def test_device_argument():
    # every device form dlx.empty takes; host memory for "cpu" (obj's own memory where it can)
    for device in (None, "cpu", "cpu:0", (1, 0), ("cpu", 0)):
        assert dlx.asarray([1.0], device=device).device == (1, 0)
        a = np.zeros(2)
        t = dlx.asarray(a, device=device)
        assert t.device == (1, 0) and t.data_ptr == a.ctypes.data
    # a device no backend of this build allocates, or that is absent: the allocation's error
    for device in ((1, 1), (1, 2**70)):
        with pytest.raises(ValueError, match="device id"):
            dlx.asarray([1.0], device=device)
    if not dlx.cuda.is_available():
        for device in ("cuda", (2, 0)):
            with pytest.raises(ValueError, match="cuda:0"):
                dlx.asarray([1.0], device=device)
            with pytest.raises(ValueError, match="cuda:0"):
                dlx.asarray(np.zeros(2), device=device)
    with pytest.raises(ValueError, match="unknown device 'gpu'"):
        dlx.asarray([1.0], device="gpu")
    for device in (1, 1.5, [1, 0]):
        with pytest.raises(TypeError, match="device must be"):
            dlx.asarray([1.0], device=device)


def test_device_memory():
    t = dlx.from_dlpack(T.make_capsule((2,), device=(2, 0)))
    assert dlx.asarray(t) is t  # device=None: where it is
    assert dlx.asarray(t, device="cuda:0") is t  # already there
    assert dlx.asarray(T.make_capsule((2,), device=(2, 0))).device == (2, 0)
    with pytest.raises(ValueError, match="copy=False, but moving the data to another device needs a copy"):
        dlx.asarray(t, device="cpu", copy=False)
    with pytest.raises(ValueError, match="copy=False, but moving the data to another device needs a copy"):
        dlx.asarray(np.zeros(2), device="cuda:0", copy=False)
    managed = dlx.from_dlpack(T.make_capsule((2,), device=(13, 0)))  # host-accessible: no move needed
    assert dlx.asarray(managed, device="cpu") is managed


@pytest.mark.skipif(dlx.cuda.is_available(), reason="with a GPU the copy is made (the capsule's memory is no device's)")
def test_copies_of_device_memory_need_the_backend():
    t = dlx.from_dlpack(T.make_capsule((2,), device=(2, 0)))
    with pytest.raises(BufferError, match="cuda:0"):
        dlx.asarray(t, copy=True)
    with pytest.raises(ValueError, match="cuda:0"):
        dlx.asarray(t, device="cpu")  # as Tensor.to
