"""Advanced indexing (src/pyext/index.c over dlx_gather / dlx_scatter) against NumPy itself: random keys
that mix integer and boolean index arrays (lists, NumPy arrays of every integer dtype, dlx tensors, strided
and reversed ones), Python and NumPy bools, ints, slices, None and Ellipsis, on strided and reversed
sources of every dtype; getitem and setitem give NumPy's shapes, values and exceptions. Then the rules
NumPy leaves open or dlx decides: a one-element index of rank 1 keeps its dimension, repeated indices in a
setitem, uint64 indices of 2**63 and more, index tensors on other devices, packed float4."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dlx
from opsutil import EXT, STANDARD, from_np, random_array, strided_pair, to_np

INDEX_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


@st.composite
def key_specs(draw, shape):
    """A key as a list of item specs over shape's axes: chunks covering the axes in order (an int, a slice,
    an integer array, a boolean mask of one or more axes, at most one Ellipsis), with None and scalar bools
    sprinkled in, sometimes one index too many."""
    nd = len(shape)
    nb = draw(st.integers(0, 2))
    bshape = [draw(st.sampled_from([0, 1, 2, 3, 3])) for _ in range(nb)]
    use_ellipsis = draw(st.booleans())
    end = nd if use_ellipsis else draw(st.integers(0, nd))
    items, axis, ellipsis_done = [], 0, False
    while axis < end:
        kinds = ["int", "slice", "iarr", "iarr", "mask"]
        if use_ellipsis and not ellipsis_done:
            kinds.append("ellipsis")
        kind = draw(st.sampled_from(kinds))
        if kind == "ellipsis":
            n = draw(st.integers(0, end - axis))
            items.append(("ellipsis",))
            ellipsis_done = True
            axis += n
        elif kind == "mask":
            k = draw(st.integers(1, end - axis))
            items.append(("mask", axis, k, draw(st.sampled_from(["list", "np", "dlx", "dlx"])),
                          draw(st.integers(0, 19)) == 0))
            axis += k
        elif kind == "iarr":
            j = draw(st.integers(0, nb))
            ishape = [1 if draw(st.integers(0, 3)) == 0 else e for e in bshape[nb - j:]]
            if draw(st.integers(0, 19)) == 0:
                ishape = [draw(st.integers(0, 3)) for _ in range(draw(st.integers(0, 2)))]  # may not broadcast
            items.append(("iarr", axis, tuple(ishape), draw(st.sampled_from(INDEX_DTYPES)),
                          draw(st.sampled_from(["list", "np", "np_rev", "dlx", "dlx"])), draw(st.integers(0, 24)) == 0))
            axis += 1
        else:
            items.append((kind, axis, draw(st.integers(0, 24)) == 0))
            axis += 1
    if use_ellipsis and not ellipsis_done:
        items.insert(draw(st.integers(0, len(items))), ("ellipsis",))
    for _ in range(draw(st.integers(0, 2))):
        extra = draw(st.sampled_from([("none",), ("none",), ("bool", True), ("bool", False), ("npbool", True)]))
        items.insert(draw(st.integers(0, len(items))), extra)
    if draw(st.integers(0, 29)) == 0:
        items.append(("int", nd, False))  # one index too many (or out of range)
    return items, draw(st.booleans())


def index_values(rng, dt, shape, extent, bad):
    """Indices in [-extent, extent) (unsigned: [0, extent)), one out of range when bad."""
    info = np.iinfo(dt)
    lo = max(-extent, info.min)
    hi = min(extent, info.max + 1)
    if hi <= lo:
        vals = np.zeros(shape, dt)
    else:
        vals = rng.integers(lo, hi, size=shape, dtype=np.int64).astype(dt)
    if bad and vals.size and extent < info.max:
        vals.reshape(-1)[-1] = extent
    return vals


def materialize(rng, items, shape):
    """The key for dlx and the same key for NumPy."""
    ours, theirs = [], []
    for item in items:
        kind = item[0]
        if kind == "ellipsis":
            ours.append(Ellipsis)
            theirs.append(Ellipsis)
        elif kind == "none":
            ours.append(None)
            theirs.append(None)
        elif kind in ("bool", "npbool"):
            v = np.bool_(item[1]) if kind == "npbool" else item[1]
            ours.append(v)
            theirs.append(v)
        elif kind == "int":
            extent = shape[item[1]] if item[1] < len(shape) else 1
            v = int(rng.integers(-extent, extent)) if extent else 0
            if item[2]:
                v = extent
            ours.append(v)
            theirs.append(v)
        elif kind == "slice":
            start, stop = (int(x) for x in rng.integers(-5, 6, size=2))
            s = slice(start if rng.random() < 0.7 else None, stop if rng.random() < 0.7 else None,
                      int(rng.choice([1, 2, -1, -2])))
            ours.append(s)
            theirs.append(s)
        elif kind == "mask":
            _, axis, k, form, wrong = item
            mshape = list(shape[axis:axis + k])
            if wrong:
                mshape[-1] += 1
            m = rng.random(size=mshape) < 0.5
            if form == "list" and m.size == 0:
                form = "np"  # an empty list is an integer index (NumPy's rule), not a mask
            ours.append(m.tolist() if form == "list" else dlx.asarray(m) if form == "dlx" else m)
            theirs.append(m)
        else:
            _, axis, ishape, dt, form, bad = item
            vals = index_values(rng, np.dtype(dt), ishape, shape[axis], bad)
            if form == "list" and vals.size == 0 and vals.ndim > 1:
                form = "np"  # [] has lost the shape of an empty (0, 1) array
            if form == "np_rev" and vals.ndim:
                vals = np.flip(np.flip(vals).copy())  # negative strides
            ours.append(vals.tolist() if form == "list" else dlx.asarray(vals) if form == "dlx" else vals)
            theirs.append(vals)
    return ours, theirs


@st.composite
def cases(draw):
    nd = draw(st.integers(0, 4))
    shape = tuple(draw(st.sampled_from([0, 1, 2, 3, 4, 5])) for _ in range(nd))
    dt = draw(st.sampled_from(STANDARD + EXT))
    steps = [draw(st.sampled_from([1, 2, -1])) for _ in shape]
    perm = list(draw(st.permutations(range(nd))))
    items, bare = draw(key_specs(shape))
    return shape, dt, steps, perm, items, bare, draw(st.integers(0, 2**32 - 1))


def keys_of(items, bare, shape, rng):
    ours, theirs = materialize(rng, items, shape)
    if bare and len(items) == 1:
        return ours[0], theirs[0]
    return tuple(ours), tuple(theirs)


def same_bits(got, want):
    """dlx result against NumPy's: dtype, shape and every byte (NaNs of the narrow formats included)."""
    want = np.asarray(want)
    assert got.dtype == want.dtype.name, (got.dtype, want.dtype.name)
    assert got.shape == want.shape, (got.shape, want.shape)
    g = np.ascontiguousarray(to_np(got)).reshape(-1).view(np.uint8)
    w = np.ascontiguousarray(want).reshape(-1).view(np.uint8)
    np.testing.assert_array_equal(g, w)


def numpy_outcome(fn):
    """fn's result, or the exception type NumPy raised (IndexError / ValueError)."""
    try:
        return fn(), None
    except (IndexError, ValueError) as e:
        return None, type(e)


@settings(max_examples=600, deadline=None)
@given(case=cases())
def test_getitem_vs_numpy(case):
    shape, dt, steps, perm, items, bare, seed = case
    rng = np.random.default_rng(seed)
    a, t, _, _ = strided_pair(rng, random_array(rng, dt, shape), shape, steps, perm)
    ours, theirs = keys_of(items, bare, shape, rng)
    want, exc = numpy_outcome(lambda: a[theirs])
    if exc is not None:
        with pytest.raises(exc):
            t[ours]
        return
    got = t[ours]
    same_bits(got, want)


@settings(max_examples=500, deadline=None)
@given(case=cases(), kind=st.sampled_from(["scalar", "numpy", "tensor", "broadcast"]))
def test_setitem_vs_numpy(case, kind):
    shape, dt, steps, perm, items, bare, seed = case
    rng = np.random.default_rng(seed)
    a, t, mem, tmem = strided_pair(rng, random_array(rng, dt, shape), shape, steps, perm)
    ours, theirs = keys_of(items, bare, shape, rng)
    # which elements the key selects, so that repeats (where NumPy's order is its memory order) get one value
    picked, exc = numpy_outcome(lambda: np.arange(a.size).reshape(a.shape)[theirs])
    if exc is not None:
        with pytest.raises(exc):
            t[ours] = 0
        return
    picked = np.asarray(picked)
    if kind == "scalar" or np.unique(picked).size < picked.size:
        value = random_array(rng, dt, ()).item() if dt not in EXT else 1.5
        v_np = v_ours = value
        if dt == "bool":
            v_np = v_ours = bool(value)
    else:
        vshape = picked.shape[1:] if kind == "broadcast" and picked.ndim else picked.shape
        v_np = np.asarray(random_array(rng, dt, vshape))
        v_ours = from_np(v_np) if kind == "tensor" or dt in EXT else v_np
    a[theirs] = v_np
    t[ours] = v_ours
    same_bits(t, a)
    same_bits(tmem, mem)  # nothing outside the view was written


def test_one_element_index_keeps_its_dimension():
    """Issue 20, item 2: an index tensor of shape (1,) is advanced indexing (a copy), as in NumPy and
    PyTorch; only a 0-d integer tensor acts as an int."""
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = dlx.asarray(a)
    for idx in (dlx.asarray([1]), np.array([1]), [1], dlx.asarray([1], dtype="uint8")):
        r = t[idx]
        assert r.shape == (1, 4)
        np.testing.assert_array_equal(to_np(r), a[[1]])
        r[0, 0] = -1  # a copy: t is untouched
        assert a[1, 0] == 4
    assert t[dlx.asarray([[1]])].shape == (1, 1, 4)
    assert t[dlx.asarray(1)].shape == (4,)  # 0-d: an int, and a view
    v = t[dlx.asarray(1)]
    v[0] = 7
    assert a[1, 0] == 7
    assert t[np.array(2)].shape == (4,)
    assert t[dlx.asarray(1, dtype="int8"), dlx.asarray([2])].shape == (1,)


def test_index_errors_match_numpy():
    a = np.arange(12).reshape(3, 4)
    t = dlx.asarray(a)
    with pytest.raises(IndexError, match="index 3 is out of bounds for axis 0 with size 3"):
        t[[0, 3]]
    with pytest.raises(IndexError, match="index -5 is out of bounds for axis 1 with size 4"):
        t[:, [-5]]
    with pytest.raises(IndexError, match="boolean index did not match indexed tensor along axis 0; size of axis "
                                         "is 3 but size of corresponding boolean axis is 2"):
        t[[True, False]]
    with pytest.raises(IndexError, match="shape mismatch: indexing arrays could not be broadcast together with "
                                         r"shapes \(2\) \(3\)"):
        t[[0, 1], [0, 1, 2]]
    with pytest.raises(IndexError, match="arrays used as indices must be of integer"):
        t[dlx.asarray([1.0])]
    with pytest.raises(IndexError, match="arrays used as indices must be of integer"):
        t[np.array([0.5])]
    with pytest.raises(IndexError, match="valid indices"):
        t[["a"]]
    with pytest.raises(IndexError, match="valid indices"):
        t[[None]]
    with pytest.raises(IndexError, match="too many indices"):
        t[[0], 0, 0]
    with pytest.raises(IndexError, match="single ellipsis"):
        t[..., [0], ...]
    with pytest.raises(ValueError):  # ragged, as NumPy
        t[[[0, 1], [2]]]
    with pytest.raises(IndexError):  # a failing setitem writes nothing
        t[[0, 5]] = 9
    assert (to_np(t) == np.arange(12).reshape(3, 4)).all()


def test_uint64_indices_past_int64_are_out_of_bounds():
    """NumPy casts uint64 indices to intp, so 2**64 - 1 silently indexes as -1; dlx refuses every index of
    2**63 and more (docs/python-api.md)."""
    t = dlx.asarray(np.arange(4))
    big = np.array([2**64 - 1], np.uint64)
    with pytest.raises(IndexError, match="index 18446744073709551615 is out of bounds for axis 0 with size 4"):
        t[big]
    assert t[np.array([3], np.uint64)].tolist() == [3]


def test_setitem_repeats_last_wins():
    t = dlx.zeros((4,), "int32")
    t[[1, 1, 3, 1]] = dlx.asarray([10, 20, 30, 40], dtype="int32")
    assert t.tolist() == [0, 40, 0, 30]
    u = dlx.zeros((3, 2), "int64")
    u[[[2, 0], [0, 2]]] = dlx.asarray([[[1, 1], [2, 2]], [[3, 3], [4, 4]]], dtype="int64")
    assert u.tolist() == [[3, 3], [0, 0], [4, 4]]  # row-major over the index: the later position wins


def test_setitem_casts_and_refuses_as_basic_setitem():
    t = dlx.zeros((3,), "uint8")
    t[[0, 2]] = np.array([1.9, 2.1])  # cast, as t[...] = would
    assert t.tolist() == [1, 0, 2]
    with pytest.raises(OverflowError, match="out of bounds for uint8"):
        t[[1]] = 300
    with pytest.raises(ValueError):  # shapes that do not broadcast
        t[[0, 1]] = np.zeros(3)
    ro = np.zeros(3)
    ro.flags.writeable = False
    r = dlx.from_dlpack(ro)
    with pytest.raises(ValueError, match="read-only"):
        r[[0]] = 1.0


def test_index_tensors_on_any_host_memory_and_views():
    a = np.arange(20).reshape(4, 5)
    t = dlx.asarray(a)
    idx = dlx.asarray(np.array([3, 1, 0, 2, 4, 3])[::2])  # a strided index
    np.testing.assert_array_equal(to_np(t[:, idx]), a[:, [3, 0, 4]])
    np.testing.assert_array_equal(to_np(t[idx[:2], idx[1:]]), a[[3, 0], [0, 4]])
    # a gather from a reversed, stepped view
    v = t[::-2, ::-1]
    np.testing.assert_array_equal(to_np(v[[1, 0], [0, 4]]), a[::-2, ::-1][[1, 0], [0, 4]])


def test_index_tensor_on_a_device_without_backend_is_refused_by_its_copy():
    t = dlx.asarray(np.arange(4))
    dev = dlx.from_dlpack(dlx._testing.make_capsule((2,), "int64", device=(2, 0)))
    with pytest.raises(ValueError, match="cuda:0"):
        t[dev]


def test_packed_subbyte_gather_and_scatter():
    want = np.array([0, 0.5, 1, 1.5, 2, 3, 4, 6], np.float32)  # every non-negative float4_e2m1fn value
    t = dlx.asarray(want).astype("float4_e2m1fn")
    assert t.nbytes == 4  # packed, two codes a byte
    np.testing.assert_array_equal(t[[7, 0, 3]].astype("float32").tolist(), want[[7, 0, 3]])
    np.testing.assert_array_equal(t[np.array([[True, False] * 4])[0]].astype("float32").tolist(), want[::2])
    t[[1, 6]] = 3.0
    want[[1, 6]] = 3.0
    np.testing.assert_array_equal(t.astype("float32").tolist(), want)


def test_basic_indexing_is_still_a_view():
    a = np.arange(12).reshape(3, 4)
    t = dlx.asarray(a)
    assert t[1].data_ptr == t.data_ptr + 4 * 8
    assert t[1, 1:3].data_ptr == t.data_ptr + 5 * 8
    assert t[np.int64(2), ...].data_ptr == t.data_ptr + 8 * 8
