"""dlx.Tensor indexing and shape methods against NumPy: random basic-index tuples (ints, slices, None,
Ellipsis) for __getitem__ and __setitem__ (scalars, tensors, NumPy arrays, broadcasting, casting; advanced
indexing is test_advanced_indexing.py's),
reshape (view when NumPy's is a view, else a copy), permute / transpose / .T, lifetimes of views, and
the errors."""
import gc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dlx
from opsutil import EXT, assert_same, from_np, np_dtype, random_array, strided_pair, to_np


def shares_memory(view, base_np, base_t):
    """Whether a dlx result addresses base's buffer (an address range test)."""
    lo = base_t.data_ptr
    return view.size > 0 and lo <= view.data_ptr < lo + max(base_np.nbytes, 1)


@st.composite
def index_items(draw, ndim):
    """A random basic index for an ndim-dimensional array, sometimes invalid on purpose."""
    n = draw(st.integers(0, ndim + 2))
    items = []
    ellipsis = False
    for _ in range(n):
        kind = draw(st.sampled_from(["int", "int", "slice", "slice", "slice", "none", "ellipsis"]))
        if kind == "int":
            items.append(draw(st.integers(-6, 5)))
        elif kind == "slice":
            bound = st.one_of(st.none(), st.integers(-7, 7))
            step = draw(st.one_of(st.none(), st.sampled_from([1, 2, 3, -1, -2, -3])))
            items.append(slice(draw(bound), draw(bound), step))
        elif kind == "none":
            items.append(None)
        elif not ellipsis:
            items.append(Ellipsis)
            ellipsis = True
    if len(items) == 1 and draw(st.booleans()):
        return items[0]  # a bare item, not a tuple
    return tuple(items)


@st.composite
def indexed_arrays(draw):
    nd = draw(st.integers(0, 4))
    shape = tuple(draw(st.integers(0, 5)) for _ in range(nd))
    dt = draw(st.sampled_from(["float32", "int16", "uint8", "complex128", "bool"]))
    steps = [draw(st.sampled_from([1, 2, -1])) for _ in shape]
    perm = list(draw(st.permutations(range(nd))))
    return shape, dt, steps, perm, draw(index_items(nd)), draw(st.integers(0, 2**32 - 1))


@settings(max_examples=300)
@given(case=indexed_arrays())
def test_getitem_vs_numpy(case):
    shape, dt, steps, perm, key, seed = case
    rng = np.random.default_rng(seed)
    a, t, mem, tmem = strided_pair(rng, random_array(rng, dt, shape), shape, steps, perm)
    try:
        want = a[key]
    except IndexError:
        with pytest.raises(IndexError):
            t[key]
        return
    got = t[key]
    want = np.asarray(want)
    assert got.shape == want.shape
    assert_same(got, want)
    if want.size:
        # a view, never a copy: a write through it lands in the parent's memory
        assert shares_memory(got, mem, tmem)


@settings(max_examples=300)
@given(case=indexed_arrays(), kind=st.sampled_from(["scalar", "tensor", "numpy", "cast", "broadcast"]))
def test_setitem_vs_numpy(case, kind):
    shape, dt, steps, perm, key, seed = case
    rng = np.random.default_rng(seed)
    a, t, mem, tmem = strided_pair(rng, random_array(rng, dt, shape), shape, steps, perm)
    try:
        target_shape = np.asarray(a[key]).shape
    except IndexError:
        with pytest.raises(IndexError):
            t[key] = 1
        return
    if kind == "scalar":
        value = {"float32": 2.5, "int16": -7, "uint8": 200, "complex128": 1 - 2j, "bool": True}[dt]
        v_np = v_t = value
    elif kind == "broadcast":
        v_np = random_array(rng, dt, target_shape[-1:])
        v_t = from_np(v_np)
    else:
        vdt = {"cast": "float64" if dt != "complex128" else "complex64"}.get(kind, dt)
        if vdt == "float64" and dt in ("int16", "uint8", "bool"):
            v_np = rng.integers(0, 100, size=target_shape).astype(np.float64)
        else:
            v_np = random_array(rng, vdt, target_shape)
        v_t = from_np(v_np) if kind != "numpy" else v_np
    a[key] = v_np
    t[key] = v_t
    np.testing.assert_array_equal(to_np(t), a)
    np.testing.assert_array_equal(to_np(tmem), mem)


def test_getitem_basic():
    a = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    t = from_np(a)
    for key in [0, -1, (1, 2), (1, 2, 3), (slice(None), 1), (..., 0), (None, 0, ..., None), slice(None, None, -1),
                (0, slice(3, 0, -2)), (), ..., (slice(10, 20),), np.int64(1), (np.int8(-1), np.uint16(2))]:
        assert_same(t[key], np.asarray(a[key]))
    assert t[1, 2, 3].shape == ()
    assert int(to_np(t[1, 2, 3])) == 23


def test_index_errors():
    t = dlx.zeros((2, 3))
    with pytest.raises(IndexError, match="too many indices: 3 for ndim 2"):
        t[0, 0, 0]
    with pytest.raises(IndexError, match="single ellipsis"):
        t[..., ...]
    with pytest.raises(IndexError, match="out of bounds for dim 1 with extent 3"):
        t[0, 3]
    with pytest.raises(IndexError, match="index -3"):
        t[-3]
    with pytest.raises(IndexError, match="valid indices"):
        t[1.5]
    # a 0-d integer tensor (or 0-d integer array) is an int index; arrays of floats are no indices (arrays of
    # ints and bools are advanced indices: test_advanced_indexing.py)
    assert t[dlx.asarray(1, dtype="int8"), dlx.asarray(2)].item() == 0.0
    assert t[np.array(-1)].shape == (3,)
    for bad in (dlx.asarray([1.0]), np.array(1.0), np.array([0.5, 1])):
        with pytest.raises(IndexError, match="must be of integer"):
            t[bad]
    with pytest.raises(IndexError, match="valid indices, not object"):
        t[object()]
    with pytest.raises(IndexError):
        t[2**70]
    with pytest.raises(ValueError, match="step cannot be zero"):
        t[::0]
    with pytest.raises(IndexError):
        t[(None,) * 63]  # 65 dimensions
    assert t[(None,) * 62].ndim == 64
    with pytest.raises(TypeError, match="deletion"):
        del t[0]
    with pytest.raises(IndexError):
        t[0, 3] = 1


def test_views_keep_memory_alive():
    t = dlx.from_dlpack(np.arange(10.0))
    v = t[2:8:2]
    w = v.T[None]
    del t
    gc.collect()
    np.testing.assert_array_equal(to_np(w), [[2.0, 4.0, 6.0]])
    w[0, 1] = -1
    np.testing.assert_array_equal(to_np(v), [2.0, -1.0, 6.0])


def test_views_write_through():
    a = np.zeros((3, 4), np.float32)
    t = from_np(a)
    t[1] = 5
    t[:, ::-3] = from_np(np.array([1.0, 2.0], np.float32))
    t[2, 1:3] = np.array([7, 8], np.int64)  # a NumPy array of another dtype: cast
    t[...][0, 1].fill_(9)
    want = np.zeros((3, 4), np.float32)
    want[1] = 5
    want[:, ::-3] = [1.0, 2.0]
    want[2, 1:3] = [7, 8]
    want[0, 1] = 9
    np.testing.assert_array_equal(a, want)


def test_setitem_errors():
    t = dlx.zeros((2, 3), "uint8")
    with pytest.raises(OverflowError, match="out of bounds for uint8"):
        t[0] = 256
    with pytest.raises(TypeError, match="complex"):
        t[0] = 1j
    with pytest.raises(ValueError):
        t[0] = dlx.zeros((4,), "uint8")
    with pytest.raises(TypeError):
        t[0] = "abc"
    ro = np.zeros((2, 3), np.float32)
    ro.flags.writeable = False
    r = dlx.from_dlpack(ro)
    with pytest.raises(ValueError):
        r[0] = 1.0
    with pytest.raises(ValueError):
        r[0] = dlx.zeros((3,))
    assert r[1].readonly  # views keep the flag


@pytest.mark.parametrize("dt", EXT[:3])
def test_setitem_narrow_formats(dt):
    a = np.zeros((4,), np_dtype(dt))
    t = from_np(a)
    t[1:3] = 1.5
    t[0] = from_np(np.array(0.25, np_dtype(dt)))
    t[3] = np.float32(-2.0).item()
    np.testing.assert_array_equal(a.astype(np.float32), [0.25, 1.5, 1.5, -2.0])


# ---- reshape, permute, transpose ---------------------------------------------------------------------


def random_shape_with_size(draw, n, max_dims=4):
    shape = []
    while n > 1 and len(shape) < max_dims - 1:
        divisors = [d for d in range(2, n + 1) if n % d == 0]
        d = draw(st.sampled_from(divisors))
        shape.append(d)
        n //= d
        if draw(st.booleans()) and len(shape) < max_dims - 1:
            shape.append(1)
    if n > 1 or not shape or draw(st.booleans()):
        shape.append(n)
    return tuple(draw(st.permutations(shape)))


@st.composite
def reshape_cases(draw):
    nd = draw(st.integers(0, 4))
    shape = tuple(draw(st.integers(1, 4)) for _ in range(nd))
    if nd and draw(st.integers(0, 9)) == 0:
        shape = shape[:-1] + (0,)
    steps = [draw(st.sampled_from([1, 1, 2, -1])) for _ in shape]
    perm = list(draw(st.permutations(range(nd))))
    size = int(np.prod(shape)) if shape else 1
    new = random_shape_with_size(draw, size) if size else tuple(draw(st.sampled_from([(0,), (2, 0), (0, 3, 1)])))
    if draw(st.integers(0, 3)) == 0 and new:
        i = draw(st.integers(0, len(new) - 1))
        if size:
            new = new[:i] + (-1,) + new[i + 1:]
    return shape, steps, perm, new, draw(st.booleans()), draw(st.integers(0, 2**32 - 1))


@settings(max_examples=400)
@given(case=reshape_cases())
def test_reshape_vs_numpy(case):
    """The same elements in the new shape; a view exactly when NumPy's reshape is a view."""
    shape, steps, perm, new, star, seed = case
    rng = np.random.default_rng(seed)
    a, t, mem, tmem = strided_pair(rng, random_array(rng, "int32", shape), shape, steps, perm)
    try:
        want = a.reshape(new)
    except ValueError:
        with pytest.raises(ValueError):
            t.reshape(*new) if star else t.reshape(new)
        return
    got = t.reshape(*new) if star else t.reshape(new)
    assert_same(got, want)
    if want.size:
        assert shares_memory(got, mem, tmem) == np.shares_memory(want, mem)


def test_reshape_forms_and_errors():
    t = from_np(np.arange(12.0).reshape(3, 4))
    assert t.reshape(4, 3).shape == (4, 3)
    assert t.reshape((2, -1)).shape == (2, 6)
    assert t.reshape([12]).shape == (12,)
    assert t.reshape(np.int64(12)).shape == (12,)
    assert t[:1, :1].reshape(()).shape == ()
    with pytest.raises(ValueError, match="cannot reshape 12 elements"):
        t.reshape(5, 2)
    with pytest.raises(ValueError, match="can only infer one extent"):
        t.reshape(-1, -1)
    with pytest.raises(TypeError):
        t.reshape(2.0, 6)
    with pytest.raises(TypeError):
        t.reshape("ab")
    c = t.T.reshape(12)  # no view has these strides: a copy
    np.testing.assert_array_equal(to_np(c), np.arange(12.0).reshape(3, 4).T.reshape(12))
    assert c.is_contiguous and not c.readonly
    ro = np.arange(6.0).reshape(2, 3)
    ro.flags.writeable = False
    r = dlx.from_dlpack(ro)
    assert r.reshape(3, 2).readonly  # a view of read-only memory stays read-only
    assert not r.T.reshape(6).readonly  # a copy is fresh memory


@settings(max_examples=150)
@given(nd=st.integers(0, 5), data=st.data())
def test_permute_transpose_vs_numpy(nd, data):
    shape = tuple(data.draw(st.integers(0, 4)) for _ in range(nd))
    a = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    t = from_np(a)
    perm = list(data.draw(st.permutations(range(nd))))
    neg = [p - nd if data.draw(st.booleans()) else p for p in perm]
    assert_same(t.permute(*neg), a.transpose(perm))
    assert_same(t.permute(neg), a.transpose(perm))
    assert_same(t.transpose(*perm) if nd else t.transpose(), a.transpose(perm))
    assert_same(t.transpose(), a.T)
    assert_same(t.T, a.T)
    assert t.T.data_ptr == t.data_ptr


def test_permute_errors():
    t = dlx.zeros((2, 3, 4))
    with pytest.raises(ValueError, match="3 axes given for a tensor of ndim 3|2 axes given"):
        t.permute(0, 1)
    with pytest.raises(ValueError, match="axis 3 is out of range"):
        t.permute(0, 1, 3)
    with pytest.raises(ValueError, match="repeats"):
        t.permute(0, 1, 1)
    with pytest.raises(ValueError, match="repeats"):
        t.permute(0, 1, -2)
    with pytest.raises(TypeError):
        t.permute("abc")


# ---- iteration and `in` (issue 20, item 8) -----------------------------------------------------------


@pytest.mark.parametrize("dt", ["int64", "float32", "bool", "complex64", "uint8"])
def test_iteration_matches_numpy(dt):
    rng = np.random.default_rng(8)
    for shape in [(4,), (3, 2), (2, 0), (0,), (1, 2, 3)]:
        a = random_array(rng, dt, shape, small=True)
        t = from_np(a)
        items = list(t)
        assert len(items) == len(a) == len(t)
        for x, y in zip(items, a):
            assert_same(x, np.asarray(y))
        assert [x.tolist() for x in t] == a.tolist()
    a = np.arange(6, dtype=np.int64).reshape(3, 2)
    t = from_np(a)
    assert sum(from_np(np.arange(5))).item() == 10
    s = sum(t)  # 0 + t[0] + t[1] + t[2], rows added as NumPy adds them
    assert s.tolist() == sum(a).tolist() == [6, 9]
    rows = [r for r in t]
    rows[1][0] = -1  # the items are views
    assert a[1, 0] == -1


def test_iteration_of_a_0d_tensor_is_a_type_error():
    with pytest.raises(TypeError, match="iteration over a 0-d tensor"):
        iter(dlx.asarray(1.0))
    with pytest.raises(TypeError, match="iteration over a 0-d tensor"):
        list(dlx.asarray(1.0))
    with pytest.raises(TypeError, match="0-d"):
        len(dlx.asarray(1.0))


def test_iterator_reads_the_extent_as_it_goes():
    t = dlx.asarray([1, 2, 3])
    it = iter(t)
    assert iter(it) is it
    assert next(it).item() == 1
    assert [x.item() for x in it] == [2, 3]
    with pytest.raises(StopIteration):
        next(it)


def test_contains_matches_numpy():
    a = np.array([[1.0, 2.0], [3.0, np.nan]])
    t = from_np(a)
    for x in [1.0, 2, 5, np.nan, -0.0, 3 + 0j, True]:
        assert (x in t) == (x in a), x
    assert (np.array([3.0, 4.0]) in t) == (np.array([3.0, 4.0]) in a)  # any element equal, as NumPy
    assert np.array([5.0, 6.0]) not in t
    assert from_np(np.array([np.nan, np.nan])) not in t  # NaN == NaN is False
    assert [1.0, 2.0] in t and (from_np(np.array([1.0, 2.0])) in t)
    assert 0 not in dlx.zeros((0,))
    with pytest.raises(ValueError):  # shapes that do not broadcast, as NumPy
        np.zeros(3) in t


def test_device_tensors_iterate_as_views_and_refuse_reads():
    t = dlx.from_dlpack(dlx._testing.make_capsule((3, 2), "float32", device=(2, 0)))
    rows = list(t)  # views: nothing is read
    assert len(rows) == 3 and rows[0].shape == (2,) and rows[0].device == (2, 0)
    with pytest.raises(ValueError, match="cuda:0"):
        1.0 in t
