"""The fast paths of advanced indexing against NumPy: the one-pass mask gather (t[mask], t[:, mask]:
dlx_mask_gather, which counts per chunk and compacts each chunk into its part of the result), the direct
form of one int32 / int64 index (checked in a pass of its own, then moved), and the ordered scatter (each
thread applies, in index order, the positions that fall in its range of the destination: the last write
wins with no pass to find repeats) and the fill. Sizes past the grain (65536 elements) so that every
thread count splits the work, with chunk boundaries inside masks and rows; empty and all-true masks,
non-contiguous sources and masks, masks of several dimensions, repeats in scatters at every thread count."""
import numpy as np
import pytest

import dlx
from opsutil import to_np

THREADS = [1, 2, 3, 4]


@pytest.fixture
def threads():
    """Runs the body at each thread count, restoring the default after."""
    def each(fn):
        try:
            for n in THREADS:
                dlx.set_num_threads(n)
                fn(n)
        finally:
            dlx.set_num_threads(0)
    return each


@pytest.mark.parametrize("density", [0.0, 1.0, 0.5, 0.01])
@pytest.mark.parametrize("dtype", ["float32", "int8", "float64", "complex128", "bool", "uint16"])
def test_mask_gather_long_masks(threads, density, dtype):
    rng = np.random.default_rng(7)
    n = 300_007  # past the grain at every thread count; odd, so chunks end inside runs
    a = (rng.standard_normal(n) * 100).astype(dtype)
    m = rng.random(n) < density
    t, tm = dlx.asarray(a), dlx.asarray(m)

    def run(_):
        got = t[tm]
        assert got.shape == (int(m.sum()),)
        np.testing.assert_array_equal(to_np(got), a[m])
    threads(run)


def test_mask_gather_empty_and_all_true():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = dlx.asarray(a)
    for m in (np.zeros((3, 4), bool), np.ones((3, 4), bool), np.zeros(3, bool), np.ones(3, bool)):
        got = t[dlx.asarray(m)]
        assert got.shape == a[m].shape
        np.testing.assert_array_equal(to_np(got), a[m])
    e = dlx.asarray(np.zeros((0, 4), np.float32))
    assert e[np.zeros(0, bool)].shape == (0, 4)
    assert e[np.zeros((0, 4), bool)].shape == (0,)


def test_mask_gather_several_dims_and_positions(threads):
    rng = np.random.default_rng(3)
    a = rng.standard_normal((40, 50, 70)).astype(np.float32)
    t = dlx.asarray(a)
    m2, m3, m1 = rng.random((40, 50)) < 0.4, rng.random((40, 50, 70)) < 0.6, rng.random(50) < 0.5

    def run(_):
        np.testing.assert_array_equal(to_np(t[m2]), a[m2])  # rows of 70
        np.testing.assert_array_equal(to_np(t[m3]), a[m3])
        np.testing.assert_array_equal(to_np(t[:, m1]), a[:, m1])  # the index dimension in the middle
        np.testing.assert_array_equal(to_np(t[..., m1, :]), a[..., m1, :])
        np.testing.assert_array_equal(to_np(t[1:, m1]), a[1:, m1])
    threads(run)


def test_mask_gather_non_contiguous_sources_and_masks(threads):
    rng = np.random.default_rng(5)
    base = rng.standard_normal((300, 400)).astype(np.float32)
    mbase = rng.random((400, 300)) < 0.5
    cases = [
        (base[::2], mbase.T[::2]),          # strided rows, a transposed mask
        (base.T, mbase),                    # a transposed source
        (base[::-1, ::3], mbase.T[::-1, ::3]),  # reversed and stepped
        (base.ravel()[::3], mbase.ravel()[:40000]),  # a strided 1-d source
    ]

    def run(_):
        for a, m in cases:
            t = dlx.asarray(a) if a.flags.c_contiguous else dlx.from_dlpack(a)
            np.testing.assert_array_equal(to_np(t[dlx.from_dlpack(m)]), a[m])
    threads(run)


def test_mask_bytes_other_than_one_are_true():
    raw = np.array([0, 1, 2, 255, 0, 7], np.uint8)
    m = raw.view(bool)
    a = np.arange(6, dtype=np.int32)
    assert to_np(dlx.asarray(a)[dlx.from_dlpack(m)]).tolist() == [1, 2, 3, 5]


def test_mask_shape_errors_are_numpys():
    t = dlx.asarray(np.zeros((3, 4), np.float32))
    with pytest.raises(IndexError, match="boolean index did not match indexed tensor along axis 0"):
        t[np.ones(4, bool)]


@pytest.mark.parametrize("idx_dtype", ["int64", "int32", "int16", "uint32"])
def test_element_gather_and_scatter_every_index_dtype(threads, idx_dtype):
    rng = np.random.default_rng(11)
    n = 200_000
    a = rng.standard_normal(n).astype(np.float32)
    lo = -n if idx_dtype[0] == "i" and idx_dtype != "int16" else 0
    hi = n if idx_dtype != "int16" else 32767
    idx = rng.integers(lo, hi, n // 2).astype(idx_dtype)  # negative ones count from the back; many repeats
    v = rng.standard_normal(idx.size).astype(np.float32)
    t, ti, tv = dlx.asarray(a.copy()), dlx.asarray(idx), dlx.asarray(v)

    def run(_):
        np.testing.assert_array_equal(to_np(t[ti]), a[idx])
        b = a.copy()
        b[idx] = v  # NumPy's last write wins for a C-ordered index
        u = dlx.asarray(a.copy())
        u[ti] = tv
        np.testing.assert_array_equal(to_np(u), b)
        b[idx] = 2.5
        u[ti] = 2.5
        np.testing.assert_array_equal(to_np(u), b)
    threads(run)


def test_scatter_repeats_last_wins_at_every_thread_count(threads):
    """Every destination written many times, by positions spread over the whole index (so over every
    thread's share): the last position must win whatever splits the work."""
    n, reps = 1000, 300
    idx = np.tile(np.arange(n), reps)
    np.random.default_rng(1).shuffle(idx)
    v = np.arange(idx.size, dtype=np.int64)
    want = np.zeros(n, np.int64)
    want[idx] = v

    def run(_):
        t = dlx.zeros((n,), "int64")
        t[dlx.asarray(idx)] = dlx.asarray(v)
        np.testing.assert_array_equal(to_np(t), want)
        t2 = dlx.zeros((n,), "int64")
        t2[dlx.asarray(idx.astype(np.uint8) % 200)] = dlx.asarray(v)  # the offsets path (uint8 indices)
        w2 = np.zeros(n, np.int64)
        w2[idx.astype(np.uint8) % 200] = v
        np.testing.assert_array_equal(to_np(t2), w2)
    threads(run)


def test_row_scatter_and_gather_with_repeats(threads):
    rng = np.random.default_rng(2)
    a = rng.standard_normal((5000, 16)).astype(np.float32)
    idx = rng.integers(-5000, 5000, 20000)
    v = rng.standard_normal((20000, 16)).astype(np.float32)

    def run(_):
        np.testing.assert_array_equal(to_np(dlx.asarray(a)[dlx.asarray(idx)]), a[idx])
        b, u = a.copy(), dlx.asarray(a.copy())
        b[idx] = v
        u[dlx.asarray(idx)] = dlx.asarray(v)
        np.testing.assert_array_equal(to_np(u), b)
        b[idx] = v[0]
        u[dlx.asarray(idx)] = dlx.asarray(v[0])  # a row broadcast to every position: a fill of rows
        np.testing.assert_array_equal(to_np(u), b)
    threads(run)


def test_scatter_into_non_contiguous_and_from_itself(threads):
    rng = np.random.default_rng(4)
    base = rng.standard_normal(400_000).astype(np.float32)
    idx = rng.integers(0, 100_000, 150_000)
    v = rng.standard_normal(150_000).astype(np.float32)

    def run(_):
        b = base.copy()
        t = dlx.asarray(base.copy())
        view, bview = t[::-4], b[::-4]  # reversed and stepped destination
        view[dlx.asarray(idx)] = dlx.asarray(v)
        bview[idx] = v
        np.testing.assert_array_equal(to_np(t), b)
        # the value is a view of the destination itself: read before anything is written
        t2, b2 = dlx.asarray(base.copy()), base.copy()
        t2[dlx.asarray(idx)] = t2[100_000:250_000]
        b2[idx] = b2[100_000:250_000].copy()
        np.testing.assert_array_equal(to_np(t2), b2)
    threads(run)


def test_direct_index_out_of_bounds_writes_nothing(threads):
    a = np.arange(100_000, dtype=np.float32)
    idx = np.arange(100_000)[::-1].copy()
    idx[77_777] = 100_000  # one past the end, deep inside the index

    def run(_):
        t = dlx.asarray(a.copy())
        with pytest.raises(IndexError, match="index 100000 is out of bounds for axis 0 with size 100000"):
            t[dlx.asarray(idx)]
        with pytest.raises(IndexError, match="index 100000 is out of bounds for axis 0 with size 100000"):
            t[dlx.asarray(idx)] = 1.0
        with pytest.raises(IndexError, match="index -100001 is out of bounds for axis 0 with size 100000"):
            t[dlx.asarray(np.array([0, -100_001], np.int32))] = dlx.asarray(np.ones(2, np.float32))
        np.testing.assert_array_equal(to_np(t), a)  # nothing written
    threads(run)


def test_setitem_value_tensor_used_as_is_keeps_numpys_rules():
    t = dlx.zeros((6,), "float32")
    t[[0, 2, 4]] = dlx.asarray(np.float32(3.0))  # a 0-d tensor broadcast: a fill
    assert t.tolist() == [3, 0, 3, 0, 3, 0]
    t[[1, 3]] = dlx.asarray(np.array([[7, 8]], np.float32))  # a leading extent-1 dimension is dropped
    assert t.tolist() == [3, 7, 3, 8, 3, 0]
    t[[5]] = dlx.asarray(np.array([9], np.int64))  # another dtype: cast, as before
    assert t.tolist() == [3, 7, 3, 8, 3, 9]


def test_compress_matches_numpy(threads):
    rng = np.random.default_rng(9)
    a = rng.standard_normal((300, 500)).astype(np.float32)
    c0, c1, flat = rng.random(300) < 0.5, rng.random(500) < 0.3, rng.random(150_000) < 0.5
    t = dlx.asarray(a)

    def run(_):
        np.testing.assert_array_equal(to_np(dlx.compress(c0, t, axis=0)), np.compress(c0, a, axis=0))
        np.testing.assert_array_equal(to_np(dlx.compress(c1, t, axis=-1)), np.compress(c1, a, axis=-1))
        np.testing.assert_array_equal(to_np(dlx.compress(flat, t)), np.compress(flat, a))  # flattened
        np.testing.assert_array_equal(to_np(dlx.compress(c1, t.T, axis=0)), np.compress(c1, a.T, axis=0))
        o = dlx.empty((int(c1.sum()), 300), "float32")
        r = dlx.compress(dlx.asarray(c1), t.T, axis=0, out=o)  # into out, through a transposed source
        assert r is o
        np.testing.assert_array_equal(to_np(o), np.compress(c1, a.T, axis=0))
        o2 = dlx.empty((300, int(c1.sum())), "float32").T  # a transposed out
        dlx.compress(c1, t, axis=1, out=o2.T)
        np.testing.assert_array_equal(to_np(o2.T), np.compress(c1, a, axis=1))
    threads(run)


def test_compress_numpys_edges_and_errors():
    a = np.arange(6, dtype=np.int32)
    t = dlx.asarray(a)
    assert dlx.compress([True, False, True], t).tolist() == [0, 2]  # shorter: among the first three
    assert dlx.compress([False, True] + [False] * 6, t).tolist() == [1]  # longer, False past the end
    with pytest.raises(IndexError, match="index 7 is out of bounds for axis 0 with size 6"):
        dlx.compress([False] * 7 + [True], t)
    with pytest.raises(IndexError, match="axis 1 is out of bounds for array of dimension 1"):
        dlx.compress([True], t, axis=1)
    with pytest.raises(ValueError, match="1-d"):
        dlx.compress([[True]], t)
    with pytest.raises(TypeError, match="must be bool"):
        dlx.compress([1, 0], t)
    with pytest.raises(ValueError, match=r"out has shape \(3\); the result has shape \(2\)"):
        dlx.compress([True, True], t, out=dlx.empty((3,), "int32"))
    with pytest.raises(TypeError, match="out has dtype int64"):
        dlx.compress([True, True], t, out=dlx.empty((2,), "int64"))
    assert dlx.compress([True], dlx.asarray(np.float32(3))).tolist() == [3.0]  # 0-d: flattened to (1,)
    # NumPy's own compress on a dlx tensor runs dlx's, out= included
    o = dlx.empty((2,), "int32")
    assert np.compress([True, False, False, True], t, out=o) is o
    assert o.tolist() == [0, 3]
