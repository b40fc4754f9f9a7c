"""NumPy <-> dlx, both ways, every dtype NumPy exports, every layout NumPy can make. Zero copy is
checked by address (data pointer equal to NumPy's) and by writes seen through the other side."""

import numpy as np
import pytest
from peers import need

import dlx

NUMPY_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                "float16", "float32", "float64", "complex64", "complex128"]


def addr(a):
    return a.__array_interface__["data"][0]


def sample(dtype, shape=(3, 4)):
    n = int(np.prod(shape))
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return (np.arange(n) % 3 == 0).reshape(shape)
    if dt.kind == "c":
        return (np.arange(n) + 1j * np.arange(n, 0, -1)).astype(dt).reshape(shape)
    return np.arange(n).astype(dt).reshape(shape)


@pytest.mark.parametrize("dtype", NUMPY_DTYPES)
def test_numpy_to_dlx_to_numpy(dtype):
    a = sample(dtype)
    t = dlx.from_dlpack(a)
    assert t.dtype == np.dtype(dtype).name
    assert t.shape == a.shape
    assert t.stride == tuple(s // a.itemsize for s in a.strides)
    assert t.itemsize == a.itemsize
    assert t.data_ptr == addr(a)
    assert t.readonly is False
    b = np.from_dlpack(t)
    assert b.dtype == a.dtype
    assert addr(b) == addr(a)
    np.testing.assert_array_equal(b, a)
    # writes are visible both ways
    b[0, 0] = a[1, 1]
    assert a[0, 0] == a[1, 1]
    a[2, 3] = a[0, 1]
    assert b[2, 3] == a[0, 1]


@pytest.mark.parametrize("dtype", NUMPY_DTYPES)
def test_dlx_to_numpy_to_dlx(dtype):
    t = dlx.zeros((5, 3), dtype)
    a = np.from_dlpack(t)
    assert a.dtype == np.dtype(dtype)
    assert a.shape == (5, 3) and a.flags.c_contiguous and a.flags.writeable
    assert addr(a) == t.data_ptr
    assert not a.any()
    a[...] = sample(dtype, (5, 3))
    u = dlx.from_dlpack(a)
    assert u.data_ptr == t.data_ptr and u.dtype == t.dtype
    np.testing.assert_array_equal(np.from_dlpack(u), sample(dtype, (5, 3)))


@pytest.mark.parametrize("max_version", [None, (1, 0), (1, 3)])
def test_numpy_capsule_versions(max_version):
    a = sample("float32")
    t = dlx.from_dlpack(a.__dlpack__(max_version=max_version))
    assert t.data_ptr == addr(a)
    np.testing.assert_array_equal(np.from_dlpack(t), a)


LAYOUTS = {
    "0d": lambda a: a.reshape(-1)[5:6].reshape(()),
    "zero-size": lambda a: a[:0],
    "zero-size-mid": lambda a: a[:, 2:2],
    "size-1 dims": lambda a: a.reshape(2, 1, 3, 1, 4)[:, :, :, :, :],
    "negative": lambda a: a[::-1, ::-1],
    "transpose": lambda a: a.T,
    "transpose-3d": lambda a: a.reshape(2, 3, 4).transpose(1, 2, 0),
    "slice-offset": lambda a: a[1:, 2:],
    "step": lambda a: a[::2, 1::3],
    "negative-step-offset": lambda a: a[4:0:-2, ::-3],
    "broadcast": lambda a: np.broadcast_to(a[:1], (5, 4)),
    "1-elem": lambda a: a[2:3, 1:2],
}


@pytest.mark.parametrize("name", sorted(LAYOUTS))
@pytest.mark.parametrize("dtype", ["int8", "float32", "complex128"])
def test_layouts_round_trip(name, dtype):
    base = sample(dtype, (6, 4))
    v = LAYOUTS[name](base)
    t = dlx.from_dlpack(v)
    assert t.shape == v.shape
    if v.size > 1:
        for n, s, ns in zip(v.shape, t.stride, v.strides):
            if n > 1:
                assert s * v.itemsize == ns
    if v.size:
        assert t.data_ptr == addr(v)
    b = np.from_dlpack(t)
    assert b.shape == v.shape
    np.testing.assert_array_equal(b, v)
    if v.size:
        assert addr(b) == addr(v)
        assert np.shares_memory(b, base)
    assert t.is_contiguous == v.flags.c_contiguous  # NumPy's flag also ignores size-1 dims


def test_byte_offset_slice_is_a_shifted_pointer():
    a = np.arange(40, dtype=np.float64).reshape(5, 8)
    v = a[2:, 3:]
    t = dlx.from_dlpack(v)
    assert t.data_ptr == addr(a) + (2 * 8 + 3) * 8
    assert np.from_dlpack(t)[0, 0] == 19.0


def test_writes_through_strided_views():
    a = np.zeros((6, 6), np.int32)
    t = dlx.from_dlpack(a[::-2, 1::2])
    b = np.from_dlpack(t)
    b[...] = 7
    assert a.sum() == 7 * 9
    assert a[5, 1] == 7 and a[0, 0] == 0


def test_readonly_numpy_import():
    a = np.arange(6.0)
    a.flags.writeable = False
    t = dlx.from_dlpack(a)
    assert t.readonly is True
    assert t.data_ptr == addr(a)
    b = np.from_dlpack(t)
    assert not b.flags.writeable
    with pytest.raises(BufferError):
        t.__dlpack__()  # legacy capsules cannot say read-only
    with pytest.raises(ValueError):
        b[0] = 1


def test_readonly_broadcast_is_readonly():
    v = np.broadcast_to(np.arange(3.0), (4, 3))
    t = dlx.from_dlpack(v)
    assert t.readonly is True
    assert t.stride == (0, 1)


def test_numpy_copy_argument_to_dlx_export():
    t = dlx.zeros((3,), "float32")
    c = np.from_dlpack(t, copy=True)
    assert addr(c) != t.data_ptr
    c[:] = 1
    assert not np.from_dlpack(t).any()
    n = np.from_dlpack(t, copy=False)
    assert addr(n) == t.data_ptr


def test_numpy_device_argument():
    t = dlx.zeros((3,), "float32")
    a = np.from_dlpack(t, device="cpu")
    assert addr(a) == t.data_ptr


# --- property-based round trips ------------------------------------------------------------------

hyp = need("hypothesis", reason="hypothesis is not installed")
from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@st.composite
def strided_views(draw):
    dtype = draw(st.sampled_from(NUMPY_DTYPES))
    ndim = draw(st.integers(0, 5))
    shape = draw(st.lists(st.integers(0, 6), min_size=ndim, max_size=ndim))
    base = sample(dtype, (int(np.prod(shape)),)).reshape(shape) if ndim else sample(dtype, (1,)).reshape(())
    v = base
    if ndim:
        perm = draw(st.permutations(range(ndim)))
        v = v.transpose(perm)
        index = []
        for n in v.shape:
            step = draw(st.sampled_from([1, 1, 2, 3, -1, -2]))
            start = draw(st.integers(0, max(n - 1, 0)))
            index.append(slice(start, None, step) if step > 0 else slice(start if n else None, None, step))
        v = v[tuple(index)]
        if draw(st.booleans()) and v.ndim:
            # insert a size-1 axis or a broadcast axis
            ax = draw(st.integers(0, v.ndim))
            v = np.expand_dims(v, ax)
            if draw(st.booleans()):
                shp = list(v.shape)
                shp[ax] = draw(st.integers(0, 3))
                v = np.broadcast_to(v, shp)
    return base, v


@given(strided_views())
def test_property_numpy_round_trip(pair):
    base, v = pair
    t = dlx.from_dlpack(v)
    assert t.shape == v.shape
    assert t.dtype == v.dtype.name
    assert t.readonly == (not v.flags.writeable)
    if v.size:
        assert t.data_ptr == addr(v)
        for n, s, ns in zip(v.shape, t.stride, v.strides):
            if n > 1:
                assert s * v.itemsize == ns
    if v.size == 0 or v.flags.c_contiguous:
        assert t.is_contiguous
    b = np.from_dlpack(t)
    np.testing.assert_array_equal(b, v)
    if v.size:
        assert addr(b) == addr(v)
    u = dlx.from_dlpack(b)
    assert (u.shape, u.dtype) == (t.shape, t.dtype)
    if v.size:
        assert (u.data_ptr, u.stride) == (t.data_ptr, t.stride)
    # a compact copy holds the same values
    c = dlx.from_dlpack(v, copy=True)
    assert c.is_contiguous
    np.testing.assert_array_equal(np.from_dlpack(c), v)
