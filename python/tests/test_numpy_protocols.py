"""dlx.Tensor for NumPy and the other readers of Python memory (src/pyext/numpy.c, buffer.c, tolist.c): the
buffer protocol (PEP 3118), __array__, numpy() and tolist().

The reference is NumPy itself: the same memory seen as a NumPy array and as a dlx tensor must give the
same np.asarray (by address), the same memoryview, the same answer to every buffer request (made with
ctypes, flag by flag) and the same tolist(); ml_dtypes is the reference for the narrow formats."""

import array
import ctypes as C
import gc
import hashlib
import struct
import sys

import numpy as np
import pytest
from peers import need

import dlx
from dlpack_ctypes import FLAG_SUBBYTE_PADDED

T = dlx._testing

NUMPY_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                "float16", "float32", "float64", "complex64", "complex128"]
NARROW = ["bfloat16", "float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz",
          "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu"]
SUBBYTE = ["float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn"]

# PEP 3118 request flags (Include/pybuffer.h)
SIMPLE, WRITABLE, FORMAT, ND = 0, 0x1, 0x4, 0x8
STRIDES = 0x10 | ND
C_CONTIGUOUS, F_CONTIGUOUS, ANY_CONTIGUOUS = 0x20 | STRIDES, 0x40 | STRIDES, 0x80 | STRIDES
INDIRECT = 0x100 | STRIDES
REQUESTS = {
    "SIMPLE": SIMPLE, "WRITABLE": WRITABLE, "FORMAT": FORMAT, "ND": ND, "ND|FORMAT": ND | FORMAT,
    "STRIDES": STRIDES, "STRIDES|WRITABLE": STRIDES | WRITABLE, "C_CONTIGUOUS": C_CONTIGUOUS,
    "F_CONTIGUOUS": F_CONTIGUOUS, "ANY_CONTIGUOUS": ANY_CONTIGUOUS, "INDIRECT": INDIRECT,
    "FULL": INDIRECT | FORMAT | WRITABLE, "RECORDS_RO": STRIDES | FORMAT,
}


class PyBuffer(C.Structure):
    _fields_ = [("buf", C.c_void_p), ("obj", C.c_void_p), ("len", C.c_ssize_t), ("itemsize", C.c_ssize_t),
                ("readonly", C.c_int), ("ndim", C.c_int), ("format", C.c_char_p),
                ("shape", C.POINTER(C.c_ssize_t)), ("strides", C.POINTER(C.c_ssize_t)),
                ("suboffsets", C.POINTER(C.c_ssize_t)), ("internal", C.c_void_p)]


_get_buffer = C.pythonapi.PyObject_GetBuffer
_get_buffer.argtypes = [C.py_object, C.POINTER(PyBuffer), C.c_int]
_get_buffer.restype = C.c_int
_release = C.pythonapi.PyBuffer_Release
_release.argtypes = [C.POINTER(PyBuffer)]
_release.restype = None


def get_buffer(obj, flags):
    """PyObject_GetBuffer(obj, flags) as a dict of the Py_buffer's fields (raises what the exporter raises)."""
    view = PyBuffer()
    _get_buffer(obj, C.byref(view), flags)
    try:
        n = view.ndim

        def arr(p):
            return None if not p else tuple(p[i] for i in range(n))

        return {"buf": view.buf, "obj": view.obj, "len": view.len, "itemsize": view.itemsize,
                "readonly": bool(view.readonly), "ndim": n,
                "format": view.format.decode() if view.format else None,
                "shape": arr(view.shape), "strides": arr(view.strides), "suboffsets": arr(view.suboffsets)}
    finally:
        _release(C.byref(view))


def addr(a):
    return a.__array_interface__["data"][0]


def sample(dtype, shape=(4, 6)):
    n = int(np.prod(shape))
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return (np.arange(n) % 3 == 0).reshape(shape)
    if dt.kind == "c":
        return (np.arange(n) + 1j * np.arange(n, 0, -1)).astype(dt).reshape(shape)
    return (np.arange(n) % 100).astype(dt).reshape(shape)


def _readonly(a):
    a = a.copy()
    a.flags.writeable = False
    return a


# Every layout NumPy can make, from a (4, 6) array.
LAYOUTS = {
    "c": lambda a: a,
    "f": np.asfortranarray,
    "transpose": lambda a: a.T,
    "step": lambda a: a[::2, 1::3],
    "negative": lambda a: a[::-1, ::-2],
    "offset": lambda a: a[1:, 2:],
    "size-1 dims": lambda a: a[1:2, None, :, None],
    "0d": lambda a: a[1, 2, ...],
    "empty": lambda a: a[:0],
    "empty-mid": lambda a: a[:, 3:3],
    "broadcast": lambda a: np.broadcast_to(a[0], (3, 6)),
    "zero-stride-writable": lambda a: np.lib.stride_tricks.as_strided(a, (3, 6), (0, a.strides[1])),
    "readonly": _readonly,
}


def pair(dtype, layout):
    """A NumPy array of the layout, and the dlx tensor over the same memory."""
    x = LAYOUTS[layout](sample(dtype))
    t = dlx.from_dlpack(x)
    assert t.shape == x.shape
    return x, t


# --- np.asarray / memoryview against NumPy ---------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", NUMPY_DTYPES)
def test_np_asarray_is_zero_copy(dtype, layout):
    x, t = pair(dtype, layout)
    y = np.asarray(t)
    assert type(y) is np.ndarray and y.dtype == x.dtype and y.shape == x.shape
    np.testing.assert_array_equal(y, x)
    assert y.flags.writeable == x.flags.writeable
    if x.size:
        assert addr(y) == addr(x) == t.data_ptr
        assert y.strides == np.asarray(memoryview(x)).strides
    if x.flags.writeable and x.size and layout != "zero-stride-writable":
        y[(0,) * y.ndim] = x[(-1,) * x.ndim]
        assert x[(0,) * x.ndim] == x[(-1,) * x.ndim]
    # the array keeps the tensor (and so the memory) alive through its base
    del t
    gc.collect()
    np.testing.assert_array_equal(y, x)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", NUMPY_DTYPES)
def test_memoryview_matches_numpys(dtype, layout):
    x, t = pair(dtype, layout)
    mt, mx = memoryview(t), memoryview(x)
    for attr in ("format", "itemsize", "ndim", "shape", "readonly", "c_contiguous", "f_contiguous", "contiguous",
                 "nbytes"):
        assert getattr(mt, attr) == getattr(mx, attr), attr
    if x.size:
        assert mt.strides == mx.strides
    assert mt.tobytes() == mx.tobytes()
    assert mt.obj is t
    try:
        expected = mx.tolist()
    except NotImplementedError:  # memoryview has no item access for 'e' (3.11) and 'Z*'
        with pytest.raises(NotImplementedError):
            mt.tolist()
    else:
        assert mt.tolist() == expected


@pytest.mark.parametrize("request_name", REQUESTS)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_buffer_requests_as_numpy_answers_them(layout, request_name):
    """Every request flag, honoured exactly: NumPy's own exporter gives the same fields, or refuses too."""
    flags = REQUESTS[request_name]
    for dtype in ("float32", "complex128", "bool"):
        x, t = pair(dtype, layout)
        try:
            want = get_buffer(x, flags)
        except (BufferError, ValueError):  # NumPy raises ValueError where the protocol says BufferError
            with pytest.raises(BufferError):
                get_buffer(t, flags)
            continue
        got = get_buffer(t, flags)
        assert got["obj"] == id(t)
        for key in ("len", "itemsize", "readonly", "format", "shape", "suboffsets"):
            assert got[key] == want[key], (key, got, want)
        if x.size:
            assert got["buf"] == want["buf"]
            assert got["strides"] == want["strides"]
        if flags & ND:
            assert got["ndim"] == want["ndim"]
        else:  # as PyBuffer_FillInfo: one dimension of len bytes (NumPy says 0)
            assert got["ndim"] == 1 and got["shape"] is None and got["strides"] is None


def test_buffer_without_format_is_bytes_with_the_items_size():
    t = dlx.asarray(np.arange(6, dtype=np.float64).reshape(2, 3))
    b = get_buffer(t, ND)
    assert b["format"] is None and b["itemsize"] == 8 and b["len"] == 48 and b["shape"] == (2, 3)
    assert b["strides"] is None


def test_empty_tensor_with_null_data_exports_a_valid_address():
    t = dlx.from_dlpack(T.make_capsule((0, 3), null_data=True))
    b = get_buffer(t, STRIDES | FORMAT)
    assert b["buf"] and b["len"] == 0 and b["shape"] == (0, 3)
    a = np.asarray(t)
    assert a.shape == (0, 3) and a.dtype == np.float32


def test_buffer_of_an_empty_tensor_with_huge_extents():
    """Only an empty tensor has extents whose product passes a buffer's size: its strides stay finite."""
    for shape in [(0, 2**62), (2**62, 0)]:
        m = memoryview(dlx.empty(shape, "float64"))
        assert m.shape == shape and m.nbytes == 0 and 0 in m.strides


def test_extent_1_stride_too_large_for_bytes():
    t = dlx.from_dlpack(T.make_capsule((1, 3), strides=(2**62, 2)))
    assert get_buffer(t, STRIDES)["strides"] == (0, 8)


def test_broadcast_beyond_a_buffers_size_is_refused():
    t = dlx.from_dlpack(T.make_capsule((2**62,), strides=(0,)))
    with pytest.raises(BufferError, match="more bytes than a buffer can describe"):
        memoryview(t)
    with pytest.raises(BufferError, match="more bytes than a buffer can describe"):
        t.numpy()
    with pytest.raises(ValueError, match="overflows"):  # the float64 copy tolist reads would be 2**65 bytes
        t.tolist()


# --- read-only, writes, lifetime -------------------------------------------------------------------


def test_readonly_is_honoured():
    x, t = pair("float32", "readonly")
    assert memoryview(t).readonly
    with pytest.raises(BufferError, match="read-only"):
        get_buffer(t, STRIDES | WRITABLE)
    with pytest.raises(TypeError):
        memoryview(t)[0, 0] = 1.0
    with pytest.raises(BufferError):  # what a writer such as readinto asks for
        get_buffer(t, WRITABLE)


def test_writes_through_a_memoryview_reach_the_tensor():
    t = dlx.zeros((2, 3), "int32")
    m = memoryview(t)
    m[1, 2] = 7
    assert t.tolist() == [[0, 0, 0], [0, 0, 7]]
    memoryview(t.T)[0, 1] = 5  # strided
    assert t.tolist() == [[0, 0, 0], [5, 0, 7]]


def test_the_buffer_keeps_the_storage_alive_until_release(deleter_calls):
    t = dlx.from_dlpack(T.make_capsule((4,)))
    m = memoryview(t)
    del t
    gc.collect()
    assert deleter_calls() == 0
    assert m.tolist() == [0.0] * 4
    m.release()
    assert deleter_calls() == 1


def test_numpy_array_keeps_the_storage_alive(deleter_calls):
    t = dlx.from_dlpack(T.make_capsule((3,), "bfloat16"))
    a = t.numpy()
    del t
    gc.collect()
    assert deleter_calls() == 0
    assert a.tolist() == [0.0] * 3
    del a
    assert deleter_calls() == 1


# --- the narrow formats and the other dtypes without a PEP 3118 format -----------------------------


@pytest.mark.parametrize("name", NARROW)
def test_narrow_formats_refuse_a_formatted_buffer(name):
    t = dlx.zeros((2, 3), name)
    with pytest.raises(BufferError, match=f"{name} has no PEP 3118 format.*numpy"):
        memoryview(t)
    b = get_buffer(t, STRIDES)  # bytes: no format asked for
    assert b["format"] is None and b["itemsize"] == t.itemsize and b["buf"] == t.data_ptr
    assert b["shape"] == (2, 3) and b["strides"] == (3 * t.itemsize, t.itemsize)
    assert get_buffer(t, SIMPLE)["len"] == t.nbytes
    assert hashlib.sha256(t).digest() == hashlib.sha256(bytes(memoryview(t.view(f"uint{8 * t.itemsize}")))).digest()


@pytest.mark.parametrize("name", SUBBYTE)
def test_subbyte_buffers(producer, name):
    ml = need("ml_dtypes")
    packed = dlx.zeros((4,), name)
    for flags in (SIMPLE, STRIDES, STRIDES | FORMAT):
        with pytest.raises(BufferError, match="packed .* not byte-addressable.*numpy"):
            get_buffer(packed, flags)
    a = np.array([0.5, 1.0, 1.5, 2.0], dtype=getattr(ml, name))
    padded = dlx.from_dlpack(producer.capsule(a, flags=FLAG_SUBBYTE_PADDED))
    with pytest.raises(BufferError, match="no PEP 3118 format"):
        memoryview(padded)
    b = get_buffer(padded, STRIDES)
    assert b["itemsize"] == 1 and b["buf"] == addr(a) and b["len"] == 4
    del padded


@pytest.mark.parametrize("name, itemsize", [("int128", 16), ("uint128", 16), ("float128", 16), ("complex32", 4),
                                            ("opaque64", 8)])
def test_dtypes_without_a_format_give_bytes(name, itemsize):
    t = dlx.from_dlpack(T.make_capsule((3,), name))
    with pytest.raises(BufferError, match=f"{name} has no PEP 3118 format; request the buffer without"):
        memoryview(t)
    b = get_buffer(t, STRIDES)
    assert b["itemsize"] == itemsize and b["format"] is None and b["len"] == 3 * itemsize


def test_vector_dtype_format_and_numpy():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = dlx.from_dlpack(T.make_capsule((3,), "float32x4"))
    memoryview(t).cast("B").cast("f")[:] = array.array("f", x.ravel())
    m = memoryview(t)
    assert m.format == "(4)f" and m.itemsize == 16 and m.shape == (3,)
    for y in (np.asarray(t), t.numpy()):  # NumPy expands the sub-array: lanes become the last axis
        assert y.shape == (3, 4) and y.dtype == np.float32 and addr(y) == t.data_ptr
        np.testing.assert_array_equal(y, x)
    assert t.tolist() == x.tolist()
    assert t[::2].tolist() == x[::2].tolist()
    odd = dlx.from_dlpack(T.make_capsule((1, 2), "float32x2", strides=(2**62, 1)))  # an extent-1 stride
    assert odd.tolist() == [[[0.0, 0.0], [0.0, 0.0]]]

    ml = need("ml_dtypes")
    b = dlx.from_dlpack(T.make_capsule((3,), "bfloat16x2"))
    y = b.numpy()
    assert y.shape == (3, 2) and y.dtype == np.dtype(ml.bfloat16) and addr(y) == b.data_ptr
    assert b.tolist() == [[0.0, 0.0]] * 3


# --- host memory only ------------------------------------------------------------------------------


def test_device_memory_is_refused_by_every_protocol():
    t = dlx.from_dlpack(T.make_capsule((2, 3), device=(2, 0)))
    with pytest.raises(BufferError, match=r"cuda:0 memory.*t\.to\(\"cpu\"\)"):
        memoryview(t)
    for f in (np.asarray, lambda t: t.numpy(), lambda t: t.tolist(), lambda t: t.__array__()):
        with pytest.raises(TypeError, match=r"cuda:0 memory.*t\.to\(\"cpu\"\)"):
            f(t)
    t = dlx.from_dlpack(T.make_capsule((2,), device=(10, 1)))  # ROCm
    with pytest.raises(BufferError, match=r"rocm:1 memory"):
        memoryview(t)


# --- buffer consumers other than NumPy (mpi4py-style: bytes of a C-contiguous tensor) --------------


def test_consumers_of_plain_buffers():
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    t = dlx.asarray(x)
    raw = memoryview(t).cast("B")  # what mpi4py does with [buf, MPI.BYTE]
    assert raw.nbytes == 96 and raw.tobytes() == x.tobytes()
    assert bytes(t) == x.tobytes()
    a = array.array("f")
    a.frombytes(raw)  # bytes only (itemsize 1): NumPy arrays as well need the cast
    assert a.tolist() == x.ravel().tolist()
    assert struct.unpack_from("<6f", t, 24) == tuple(x[1])
    assert hashlib.sha256(t).digest() == hashlib.sha256(x).digest()
    assert memoryview(t).cast("B").cast("f", (6, 4)).tolist() == x.reshape(6, 4).tolist()
    # into the tensor, as a receive buffer
    memoryview(t).cast("B")[:4] = struct.pack("f", 42.0)
    assert t[0, 0].tolist() == 42.0
    # a strided tensor is not bytes in a row
    with pytest.raises(BufferError, match="not C-contiguous and no strides were requested"):
        hashlib.sha256(t.T)  # PyBUF_SIMPLE


def test_fortran_request_gets_fortran_strides():
    t = dlx.asarray(np.asfortranarray(np.zeros((3, 4), np.float64)))
    assert get_buffer(t, F_CONTIGUOUS)["strides"] == (8, 24)
    with pytest.raises(BufferError, match="not C-contiguous"):
        get_buffer(t, C_CONTIGUOUS)
    with pytest.raises(BufferError, match="neither C- nor Fortran-contiguous"):
        get_buffer(t[:, ::2], ANY_CONTIGUOUS)
    with pytest.raises(BufferError, match="not Fortran-contiguous"):
        get_buffer(t.T, F_CONTIGUOUS)


# --- __array__ -------------------------------------------------------------------------------------


def test_array_protocol_copy_semantics():
    x = sample("float32")
    t = dlx.asarray(x)
    assert addr(t.__array__()) == addr(x)
    assert addr(np.array(t, copy=False)) == addr(x)
    c = t.__array__(copy=True)
    assert addr(c) != addr(x) and c.flags.writeable
    np.testing.assert_array_equal(c, x)
    assert addr(t.__array__(np.float32, copy=False)) == addr(x)  # already that dtype: no copy
    d = t.__array__(np.dtype("float64"))
    assert d.dtype == np.float64 and addr(d) != addr(x)
    np.testing.assert_array_equal(d, x)
    assert t.__array__(dtype="int16", copy=True).dtype == np.int16
    with pytest.raises(ValueError, match="copy=False, but a dtype conversion needs a copy"):
        t.__array__(np.float64, copy=False)
    with pytest.raises(ValueError):  # NumPy passes copy=False on to __array__ only for dtypes it cannot buffer
        np.array(t.astype("bfloat16"), dtype=np.float32, copy=False)
    with pytest.raises(TypeError, match="copy must be True, False or None"):
        t.__array__(copy="yes")
    with pytest.raises(TypeError):
        t.__array__(np.float32, None, 1)
    with pytest.raises(TypeError):  # NumPy's own error for what is no dtype
        t.__array__(dtype="no such dtype")


def test_array_of_a_readonly_tensor():
    x, t = pair("int16", "readonly")
    assert not t.__array__().flags.writeable
    assert addr(t.__array__()) == addr(x)
    assert t.__array__(copy=True).flags.writeable
    assert np.array(t).flags.writeable  # NumPy copies by default


# --- numpy(): the narrow formats through ml_dtypes, without a copy ----------------------------------


@pytest.mark.parametrize("name", NARROW)
def test_numpy_of_narrow_formats_is_zero_copy(name):
    ml = need("ml_dtypes")
    mt = getattr(ml, name)
    a = np.array([[0.5, 1.0, 2.0], [4.0, 0.25, 8.0]], dtype=mt)
    t = dlx.asarray(a)  # NumPy cannot DLPack-export these; asarray reads them as bits
    assert t.dtype == name and t.data_ptr == addr(a)
    for view, ref in [(t, a), (t.T, a.T), (t[::-1, ::2], a[::-1, ::2]), (t[1, 2], a[1, 2, ...])]:
        for y in (view.numpy(), np.asarray(view), np.array(view, copy=False)):
            assert y.dtype == np.dtype(mt) and y.shape == ref.shape and y.strides == ref.strides
            assert addr(y) == addr(ref)
            np.testing.assert_array_equal(y.view(f"u{y.itemsize}"), ref.view(f"u{ref.itemsize}"))
    assert t.tolist() == a.astype(np.float64).tolist()
    c = np.array(t, copy=True)
    assert addr(c) != addr(a) and c.dtype == np.dtype(mt)
    f = np.asarray(t, dtype=np.float32)
    np.testing.assert_array_equal(f, a.astype(np.float32))
    t.numpy()[0, 0] = 8.0  # the same memory
    assert float(a[0, 0]) == 8.0


def test_numpy_of_a_readonly_narrow_tensor():
    need("ml_dtypes")
    t = dlx.from_dlpack(T.make_capsule((2, 2), "bfloat16", readonly=True))
    y = t.numpy()
    assert not y.flags.writeable and addr(y) == t.data_ptr


@pytest.mark.parametrize("name", SUBBYTE)
def test_numpy_of_packed_subbyte_unpacks_a_copy(name):
    ml = need("ml_dtypes")
    mt = getattr(ml, name)
    values = [[0.5, 1.0, 1.5, 4.0], [2.0, -3.0, 0.0, -0.5]]
    t = dlx.asarray(values, dtype=name)
    assert t.nbytes < t.size  # packed
    ref = np.array(values, dtype=mt)
    # (views of packed fp6 must start on a byte: element 4 does)
    for view, r in [(t, ref), (t.T, ref.T), (t[::-1, ::2], ref[::-1, ::2])]:
        y = view.numpy()
        assert y.dtype == np.dtype(mt) and y.shape == r.shape
        np.testing.assert_array_equal(y.view(np.uint8), r.view(np.uint8))
    y = t.numpy()
    y[0, 0] = 3.0  # a copy: the tensor keeps its values
    assert t.tolist() == ref.astype(np.float64).tolist()
    assert np.asarray(t).dtype == np.dtype(mt)
    with pytest.raises(ValueError, match="copy=False, but unpacking packed sub-byte elements needs a copy"):
        np.array(t, copy=False)
    assert np.array(t, copy=True).dtype == np.dtype(mt)


@pytest.mark.parametrize("name", SUBBYTE)
def test_numpy_of_padded_subbyte_is_zero_copy(producer, name):
    ml = need("ml_dtypes")
    a = np.array([0.5, 1.0, 1.5, -2.0], dtype=getattr(ml, name))
    t = dlx.from_dlpack(producer.capsule(a, flags=FLAG_SUBBYTE_PADDED))
    y = t.numpy()
    assert y.dtype == a.dtype and addr(y) == addr(a)
    np.testing.assert_array_equal(y.view(np.uint8), a.view(np.uint8))
    assert np.array(t, copy=False).dtype == a.dtype
    assert t.tolist() == [0.5, 1.0, 1.5, -2.0]
    del t, y


@pytest.mark.parametrize("name", ["float4_e2m1fnx2", "float6_e2m3fnx4", "float4_e2m1fnx3"])
def test_numpy_of_lanes_sharing_bytes_is_refused(name):
    need("ml_dtypes")
    t = dlx.from_dlpack(T.make_capsule((3,), name))
    with pytest.raises(TypeError, match=f"the lanes of {name} share bytes"):
        t.numpy()
    with pytest.raises(TypeError, match=f"the lanes of {name} share bytes"):
        np.asarray(t)


@pytest.mark.parametrize("name", ["int128", "uint128", "float128", "complex32", "opaque64"])
def test_numpy_has_no_dtype(name):
    t = dlx.from_dlpack(T.make_capsule((2,), name))
    with pytest.raises(TypeError, match=f"NumPy has no dtype for {name}; convert first"):
        t.numpy()
    with pytest.raises(TypeError, match=f"NumPy has no dtype for {name}"):
        np.asarray(t)


def test_without_ml_dtypes(monkeypatch):
    """Narrow formats need ml_dtypes in NumPy; without it, a conversion to a NumPy dtype still works."""
    t = dlx.asarray([[1.5, -2.0], [0.25, 4.0]], dtype="bfloat16")
    monkeypatch.setitem(sys.modules, "ml_dtypes", None)  # import ml_dtypes now raises ImportError
    with pytest.raises(TypeError, match="bfloat16 reaches NumPy as ml_dtypes.bfloat16, which is not available") as e:
        t.numpy()
    assert isinstance(e.value.__cause__, ImportError)
    with pytest.raises(TypeError, match="ml_dtypes"):
        np.asarray(t)
    f = np.asarray(t, dtype=np.float32)  # through dlx's cast
    assert f.dtype == np.float32 and f.tolist() == [[1.5, -2.0], [0.25, 4.0]]
    assert t.__array__(np.dtype("float64"), copy=True).tolist() == f.tolist()
    with pytest.raises(ValueError, match="copy=False, but a dtype conversion needs a copy"):
        t.__array__(np.dtype("float32"), copy=False)
    for dtype in ("float8_e4m3fn", np.dtype("U3")):  # still narrow, or no dlx dtype: the ml_dtypes error
        with pytest.raises(TypeError, match="ml_dtypes"):
            t.__array__(dtype)
    with pytest.raises(TypeError, match="no conversion from bfloat16 to int128"):  # dlx's cast refuses
        t.__array__("int128")
    assert t.tolist() == [[1.5, -2.0], [0.25, 4.0]]  # tolist needs no NumPy at all


def test_ml_dtypes_without_the_format(monkeypatch):
    """An ml_dtypes too old for a format is reported like a missing one (AttributeError as the cause)."""
    ml = need("ml_dtypes")
    monkeypatch.delattr(ml, "float8_e8m0fnu")
    with pytest.raises(TypeError, match="float8_e8m0fnu reaches NumPy as ml_dtypes") as e:
        dlx.zeros((2,), "float8_e8m0fnu").numpy()
    assert isinstance(e.value.__cause__, AttributeError)


def test_ml_dtypes_errors_propagate(monkeypatch):
    """Only a missing ml_dtypes (or type in it) becomes the TypeError; anything else it raises passes on."""

    class Broken:
        def __getattr__(self, name):
            raise RuntimeError(f"broken ml_dtypes: {name}")

    monkeypatch.setitem(sys.modules, "ml_dtypes", Broken())
    with pytest.raises(RuntimeError, match="broken ml_dtypes: bfloat16"):
        dlx.zeros((2,), "bfloat16").numpy()


def test_numpy_import_errors_propagate(monkeypatch):
    t = dlx.zeros((2,))
    monkeypatch.setitem(sys.modules, "numpy", None)
    with pytest.raises(ImportError):
        t.numpy()


# --- tolist ---------------------------------------------------------------------------------------


def _types(x):
    return [_types(v) for v in x] if isinstance(x, list) else type(x)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", NUMPY_DTYPES)
def test_tolist_matches_numpy(dtype, layout):
    x, t = pair(dtype, layout)
    got, want = t.tolist(), x.tolist()
    assert got == want and _types(got) == _types(want)


def test_tolist_scalars_and_special_values():
    assert dlx.asarray(2.5).tolist() == 2.5
    assert dlx.asarray([True]).tolist() == [True]
    nan = dlx.asarray([float("nan"), float("-inf"), -0.0], dtype="float16").tolist()
    assert nan[0] != nan[0] and nan[1] == float("-inf") and str(nan[2]) == "-0.0"
    assert dlx.asarray(2**64 - 1).tolist() == 2**64 - 1
    assert dlx.asarray([-(2**63)]).tolist() == [-(2**63)]
    assert dlx.asarray(1 - 2j, dtype="complex64").tolist() == 1 - 2j
    assert dlx.zeros((2, 0)).tolist() == [[], []]
    assert dlx.zeros((0, 2)).tolist() == []


@pytest.mark.parametrize("name", NARROW + SUBBYTE)
def test_tolist_of_narrow_formats_matches_ml_dtypes(name):
    ml = need("ml_dtypes")
    mt = getattr(ml, name)
    if name == "bfloat16":
        codes = np.arange(0, 65536, 97, dtype=np.uint16)
    elif name in SUBBYTE:
        codes = np.arange(64 if name.startswith("float6") else 16, dtype=np.uint8)
    else:
        codes = np.arange(256, dtype=np.uint8)
    ref = codes.view(mt)
    t = dlx.asarray(ref)
    with np.errstate(invalid="ignore"):  # ml_dtypes warns about its own NaNs
        want = [float(v) for v in ref.astype(np.float64)]
    got = t.tolist()
    assert all(type(v) is float for v in got)
    assert [g if g == g else "nan" for g in got] == [w if w == w else "nan" for w in want]
    if name in SUBBYTE:
        packed = t.astype(name)  # astype makes packed storage
        assert packed.tolist() == got


def test_tolist_of_128_bit_integers(producer):
    values = [0, 1, 2**64, 2**127 - 1, -(2**127), -1, 12345678901234567890123456789]
    raw = b"".join(v.to_bytes(16, sys.byteorder, signed=True) for v in values)
    buf = np.frombuffer(raw, dtype=np.uint8).copy()
    for code, name in [(0, "int128"), (1, "uint128")]:
        t = dlx.from_dlpack(producer.capsule(buf, shape=(len(values),), strides=(1,), code=code, bits=128))
        assert t.dtype == name
        want = values if code == 0 else [v % 2**128 for v in values]
        assert t.tolist() == want
        assert t[::-2].tolist() == want[::-2]
        del t


@pytest.mark.parametrize("name, error", [("float128", "no conversion from float128"),
                                         ("complex32", "no conversion from complex32"),
                                         ("opaque64", "opaque64 has no Python value"),
                                         ("float4_e2m1fnx2", "cannot split float4_e2m1fnx2 into lanes"),
                                         ("float6_e2m3fnx3", "cannot split float6_e2m3fnx3 into lanes")])
def test_tolist_refusals(name, error):
    t = dlx.from_dlpack(T.make_capsule((2,), name))
    with pytest.raises(TypeError, match=error):
        t.tolist()


def test_tolist_of_a_64_dimensional_vector_tensor():
    t = dlx.from_dlpack(T.make_capsule((1,) * 64, "float32x2"))
    with pytest.raises(TypeError, match="cannot split float32x2 into lanes"):
        t.tolist()
    want = [0.0, 0.0]
    for _ in range(63):
        want = [want]
    assert dlx.from_dlpack(T.make_capsule((1,) * 63, "float32x2")).tolist() == want


# --- item(), float(), int(), complex(), operator.index() against NumPy's scalars ----------------------------

# odd values of every kind: signed zeros, NaN, infinities, the extremes of the dtype, values int() truncates
_ODD = {
    "bool": [True, False],
    "float": [0.0, -0.0, 1.5, -2.75, float("nan"), float("inf"), float("-inf"), 1e-300, 3.4e38, 65504.0, -1e308],
    "complex": [0j, complex(-0.0, -0.0), 1.5 - 2.5j, complex(float("nan"), 1.0), complex(float("inf"), -0.0)],
}


def _odd_values(dtype):
    d = np.dtype(dtype)
    if d.kind in "iu":
        info = np.iinfo(d)
        return [info.min, info.max, 0, 1, info.max // 3]
    return _ODD["bool" if d.kind == "b" else "complex" if d.kind == "c" else "float"]


def _same(a, b):
    """Equal as Python values, NaN equal to NaN and -0.0 told from 0.0, types included."""
    if type(a) is not type(b):
        return False
    if isinstance(a, complex):
        return _same(a.real, b.real) and _same(a.imag, b.imag)
    if isinstance(a, float):
        return (a != a and b != b) or (a == b and str(a) == str(b))
    return a == b


def _conversion(f, x):
    try:
        return "ok", f(x)
    except Exception as e:  # noqa: BLE001 - the same refusal is what is compared
        return "raised", type(e)


@pytest.mark.parametrize("dtype", NUMPY_DTYPES)
def test_scalar_conversions_match_numpy(dtype):
    import operator
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # overflow to inf in a float16 / float32 cast is the point
        values = np.array(_odd_values(dtype)).astype(dtype)
    for v in values:
        ref = np.array(v, dtype=dtype)  # 0-d: NumPy's own conversions
        for t in (dlx.asarray(ref), dlx.asarray(ref.reshape(1, 1))):
            assert _same(t.item(), ref.item()), (dtype, v)
            for f in (float, int, complex):
                if dtype.startswith("complex") and f is not complex:
                    # NumPy warns and drops the imaginary part; dlx does as Python's complex does
                    assert _conversion(f, t) == ("raised", TypeError)
                    continue
                got, want = _conversion(f, t), _conversion(f, ref)
                assert got[0] == want[0] and (_same(got[1], want[1]) if got[0] == "ok" else got[1] is want[1]), \
                    (dtype, v, f)
            if dtype.startswith(("int", "uint")):
                assert operator.index(t) == operator.index(ref)
            else:
                with pytest.raises(TypeError, match=f"only an integer tensor of one element can be an index, "
                                   f"not {dtype}"):
                    operator.index(t)


@pytest.mark.parametrize("name", NARROW + SUBBYTE)
def test_item_of_narrow_formats_is_exact(name):
    ml = need("ml_dtypes")
    t = dlx.asarray([0.1], dtype="float32").astype(name)
    want = float(np.array(0.1, np.float32).astype(getattr(ml, name)).astype(np.float64))
    assert t.item() == want == float(t) and type(t.item()) is float


def test_item_refusals():
    import operator

    for t, n in ((dlx.zeros(3, "int32"), 3), (dlx.zeros((0,)), 0), (dlx.zeros((2, 1)), 2)):
        for f in (lambda t: t.item(), float, int, complex) + ((operator.index,) if t.dtype == "int32" else ()):
            with pytest.raises(TypeError, match=f"only a tensor of one element converts to a Python scalar "
                               rf"\(this one has {n}\)"):
                f(t)
    with pytest.raises(TypeError, match="an element of float32x4 is a vector"):
        dlx.from_dlpack(T.make_capsule((1,), "float32x4")).item()
    with pytest.raises(TypeError, match="no conversion from float128"):
        dlx.from_dlpack(T.make_capsule((1,), "float128")).item()
    # an integer tensor of one element is an index and a size anywhere Python takes one
    i = dlx.asarray([2], dtype="uint8")
    assert [10, 20, 30][i] == 30 and dlx.zeros(i).shape == (2,) and list(range(i)) == [0, 1]
