"""The exchange fast paths (issue 14, part 4) give what the general paths give.

- dlx.from_dlpack of an exact numpy.ndarray reads the array's fields (where NumPy's ABI is 2.x; NumPy
  1.x goes through __dlpack__) instead of calling __dlpack__: every observable of the result (data, shape,
  strides, dtype, read-only flag, alignment, values, what NumPy makes of it again) and every refusal must
  be the capsule path's. dlx._testing.set_ndarray_path picks the way (0 __dlpack__, 2 the default), so
  the same array goes both ways; fast_path_counts shows whether __dlpack__ was skipped.
- dlx_py_view (dlx/python.h) borrows PyTorch's DLTensor (dltensor_from_py_object_no_sync) instead of
  taking a managed tensor; dlx._testing.capi_view calls it as a C extension would.
"""

import gc
import sys

import numpy as np
import pytest
from peers import need

import dlx

T = dlx._testing


def _hits():
    return T.fast_path_counts()[0]


def _borrowed():
    return T.fast_path_counts()[1]


class _Sub(np.ndarray):
    """A subclass may override __dlpack__: it always takes the general path."""


def _observe(t):
    """Every observable of a Tensor that the import decides."""
    obs = dict(data_ptr=t.data_ptr, shape=t.shape, stride=t.stride, dtype=t.dtype, device=t.device,
               readonly=t.readonly, alignment=t.alignment, layout=t.layout, is_contiguous=t.is_contiguous,
               itemsize=t.itemsize, nbytes=t.nbytes, size=t.size, ndim=t.ndim, layout_key=t.layout_key)
    try:
        back = np.from_dlpack(t)
    except Exception as e:  # noqa: BLE001 - the same refusal is what is compared
        obs["numpy"] = (type(e), str(e))
    else:
        obs["numpy"] = (back.dtype.str, back.shape, back.strides, back.flags.writeable,
                        back.__array_interface__["data"][0], back.tobytes())
    return obs


OFF, FIELDS = 0, 2
# NumPy 1.x's __dlpack__ refuses read-only arrays and rewrites the strides of extents of 1, which the
# fields would not: dlx reads the fields of NumPy 2.x arrays only, and calls __dlpack__ on 1.x's
NUMPY2 = int(np.__version__.split(".")[0]) >= 2


def _run_with(mode, a, kw):
    """(outcome, whether __dlpack__ was skipped) of dlx.from_dlpack(a, **kw) read the given way."""
    was = T.set_ndarray_path(mode)
    try:
        h = _hits()
        try:
            out = "ok", _observe(dlx.from_dlpack(a, **kw))
        except Exception as e:  # noqa: BLE001
            out = "raised", (type(e), str(e))
        return out, _hits() > h
    finally:
        T.set_ndarray_path(was)


def _both_ways(a, mode=FIELDS, **kw):
    """(outcome read the given way, outcome through __dlpack__, whether the first skipped __dlpack__)."""
    fast, took = _run_with(mode, a, kw)
    slow, took_slow = _run_with(OFF, a, kw)
    assert not took_slow, "__dlpack__ was skipped while the ndarray path was off"
    return fast, slow, took


def _arrays():
    """(id, array, whether its dtype is one the ndarray path maps)."""
    out = []
    std = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.intc, np.longlong, np.int_, np.uint8, np.uint16,
           np.uint32, np.uint64, np.ulonglong, np.float16, np.float32, np.float64, np.complex64, np.complex128]
    rng = np.random.default_rng(14)
    for dt in std:
        base = (rng.standard_normal((6, 10)) * 50).astype(dt)
        name = np.dtype(dt).name
        out += [
            (f"{name}-c", base, True),
            (f"{name}-f", np.asfortranarray(base), True),
            (f"{name}-T", base.T, True),
            (f"{name}-neg", base[::-1, ::-2], True),
            (f"{name}-step", base[1::2, 2::3], True),
            (f"{name}-0d", np.array(base[1, 2]), True),
            (f"{name}-empty", base[:0], True),
            (f"{name}-empty2", base[:, 5:5], True),
            (f"{name}-col", base[:, 3:4], True),
        ]
    ro = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    ro.flags.writeable = False
    out += [
        ("readonly", ro, True),
        ("readonly-view", ro[:, ::-1, 1:], True),
        ("broadcast", np.broadcast_to(np.arange(4.0), (3, 4)), True),  # zero strides, read-only
        ("rank5", np.zeros((2, 1, 3, 1, 2), np.int16), True),
        ("size1-dims", np.zeros((1, 1, 1), np.float64), True),
        ("scalar-bool", np.array(True), True),
    ]
    # extents of 1 and empty arrays with strides NumPy's buffer does not show as they are
    b = np.arange(60.0).reshape(6, 10)
    out += [
        ("row-of-strided", b[::5][:1], True),
        ("row", b[2:3], True),
        ("row-step", b[2:3, ::2], True),
        ("newaxis", b[:, None, :], True),
        ("T-col", b.T[:, :1], True),
        ("1-of-strided", b[0, ::7][:1], True),
        ("empty-neg", b[::-1][:0], True),
        ("empty-steps", b[::2, ::3][:0], True),
        ("empty-zero-strides", np.zeros((0, 3))[:, ::-1], True),
        ("empty-col", b[::-1, ::-2][:0, :1], True),
        ("page-b", np.lib.stride_tricks.as_strided(np.zeros(256, np.float32), (1, 4, 1, 32, 1),
                                                   (4, 4, 4, 16, 4)), True),
        ("col-of-neg", b[::-1, 3:4], True),
    ]
    # unaligned data: the fields path refuses it (natural alignment), and both paths then import NumPy's
    # own copy (__dlpack__(copy=True), as copy=None allows): never the fields path's
    raw = np.zeros(64, np.uint8)
    out.append(("unaligned", raw[1:33].view(np.int32), False))
    # strides that are no whole number of elements: NumPy's __dlpack__ decides
    out.append(("odd-strides", np.lib.stride_tricks.as_strided(raw[:30].view(np.int16), (4,), (3,)), False))
    out.append(("odd-strides-size1", np.lib.stride_tricks.as_strided(raw[:8].view(np.int16), (1, 2), (3, 2)),
                False))
    # dtypes the ndarray path leaves to __dlpack__
    out += [
        ("big-endian", np.arange(6, dtype=">f4"), False),
        ("longdouble", np.zeros(3, np.longdouble), False),
        ("clongdouble", np.zeros(3, np.clongdouble), False),
        ("structured", np.zeros(3, [("x", "f4"), ("y", "i4")]), False),
        ("datetime", np.zeros(3, "M8[s]"), False),
        ("bytes", np.zeros(3, "S4"), False),
        ("unicode", np.zeros(3, "U2"), False),
        ("object", np.array([1, None], dtype=object), False),
        ("void", np.zeros(3, "V4"), False),
    ]
    try:
        import ml_dtypes
    except ImportError:
        pass
    else:
        for d in (ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2, ml_dtypes.int4):
            out.append((np.dtype(d).name, np.arange(6, dtype=np.float32).astype(d).reshape(2, 3), False))
    return out


_ARRAYS = _arrays()


def _expect_fast(a):
    """Whether the fields path takes an array of a standard dtype: NumPy 2, and strides that are whole
    elements (others go through __dlpack__)."""
    return NUMPY2 and not any(s % a.itemsize for s in a.strides)


@pytest.mark.parametrize("name,a,standard", _ARRAYS, ids=[x[0] for x in _ARRAYS])
def test_ndarray_path_matches_capsule_path(name, a, standard):
    got_fast, got_slow, took = _both_ways(a)
    assert got_fast == got_slow
    if standard and got_slow[0] == "ok":
        assert took == _expect_fast(a), f"{name}: __dlpack__ skipped: {took}"
    if not standard:
        assert not took, f"{name}: the ndarray path took what it must leave to __dlpack__"


@pytest.mark.skipif(not NUMPY2, reason=f"NumPy {np.__version__}: dlx reads NumPy 2.x arrays' fields only")
def test_most_standard_arrays_skip_dlpack():
    taken = [name for name, a, standard in _ARRAYS if standard and _expect_fast(a)]
    assert len(taken) > 150


def test_the_default_reads_the_fields():
    """NumPy 2.x has the ABI dlx knows: an array with an extent of 1 skips __dlpack__ by default. NumPy 1.x
    takes __dlpack__ (its own rules for read-only arrays and extents of 1 stand)."""
    a = np.zeros((1, 4), np.float32)
    h = _hits()
    dlx.from_dlpack(a)
    assert _hits() == h + (1 if NUMPY2 else 0)


def test_set_ndarray_path_modes():
    for bad in (1, 3, -1):
        with pytest.raises(ValueError, match=f"mode {bad}"):
            T.set_ndarray_path(bad)
    assert T.set_ndarray_path(FIELDS) == FIELDS


@pytest.mark.parametrize("name,a,standard", _ARRAYS[:12], ids=[x[0] for x in _ARRAYS[:12]])
def test_ndarray_path_matches_with_assumed_align(name, a, standard):
    for align in (1, 4, 64, 4096):
        got_fast, got_slow, _ = _both_ways(a, assumed_align=align)
        assert got_fast == got_slow, align


def test_subclass_takes_the_general_path():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    s = a.view(_Sub)
    expect = _observe(dlx.from_dlpack(a))
    h = _hits()
    t = dlx.from_dlpack(s)
    assert _hits() == h
    assert _observe(t) == expect
    with pytest.warns(PendingDeprecationWarning):
        m = np.asmatrix(a)
    dlx.from_dlpack(m)
    assert _hits() == h


def test_copy_and_device_keywords():
    a = np.arange(12, dtype=np.float64).reshape(3, 4)
    h = _hits()
    for kw in ({}, {"copy": False}, {"copy": None}, {"device": "cpu"}, {"device": "cpu", "copy": False}):
        t = dlx.from_dlpack(a, **kw)
        assert t.data_ptr == a.ctypes.data, kw
    fast = 5 if NUMPY2 else 0
    assert _hits() == h + fast
    c = dlx.from_dlpack(a, copy=True)
    assert _hits() == h + fast  # a copy is not the fast path's business
    assert c.data_ptr != a.ctypes.data
    np.testing.assert_array_equal(np.from_dlpack(c), a)
    c2 = dlx.from_dlpack(a, device="cpu", copy=True)
    assert c2.data_ptr != a.ctypes.data


def test_writes_go_through_and_readonly_is_kept(ndarray_path):
    a = np.zeros((2, 3), np.int32)
    t = _writable_import(a)
    assert not t.readonly
    t[1, 2] = 7
    assert a[1, 2] == 7
    if NUMPY2:  # (NumPy 1.x's from_dlpack makes read-only arrays)
        np.from_dlpack(t)[0, 1] = 5
        assert a[0, 1] == 5
    a.flags.writeable = False
    if not NUMPY2:  # NumPy 1.x exports no read-only arrays, and dlx keeps to its __dlpack__
        with pytest.raises(BufferError, match="readonly"):
            dlx.from_dlpack(a)
        return
    r = dlx.from_dlpack(a)
    assert r.readonly
    assert not np.from_dlpack(r).flags.writeable
    with pytest.raises(BufferError):
        r.__dlpack__()  # a legacy capsule cannot say read-only


def _writable_import(a):
    """dlx.from_dlpack of a writable ndarray, writable: NumPy 1.x exports legacy capsules only, which carry no
    read-only flag and which dlx therefore imports read-only unless told otherwise (as NumPy 2 does); NumPy 2
    exports versioned ones, whose flags say the array is writable."""
    return dlx.from_dlpack(a) if NUMPY2 else dlx.from_dlpack(a, writable=True)


@pytest.fixture(params=[FIELDS, OFF], ids=["fields", "dlpack"])
def ndarray_path(request):
    was = T.set_ndarray_path(request.param)
    yield request.param
    T.set_ndarray_path(was)


def test_the_array_is_held_and_released_once(ndarray_path):
    a = np.arange(100, dtype=np.float64)
    r0 = sys.getrefcount(a)
    ts = [_writable_import(a) for _ in range(5)]
    assert sys.getrefcount(a) == r0 + 5  # one reference (or buffer holding one) per import
    views = [t[10:20] for t in ts]
    exports = [np.from_dlpack(t) for t in ts]
    del ts
    gc.collect()
    assert sys.getrefcount(a) == r0 + 5  # views and exports share their tensor's storage
    del views
    gc.collect()
    assert sys.getrefcount(a) == r0 + 5
    del exports
    gc.collect()
    assert sys.getrefcount(a) == r0  # each released, exactly once


def test_reused_storages_keep_each_array(ndarray_path):
    # the storage of a tensor that dies as the sole holder is kept for the next import (src/pyext/storage.c):
    # every later import must hold its own array, and each array be let go exactly once
    arrays = [np.full(8, i, dtype=np.int32) for i in range(150)]
    refs = [sys.getrefcount(a) for a in arrays]
    for _ in range(3):
        ts = [_writable_import(a) for a in arrays]
        views = [t[2:5] for t in ts[::3]]  # these storages outlive their first tensor
        del ts
        exports = [np.from_dlpack(v) for v in views[::2]]
        assert [v[0].item() for v in views] == list(range(0, 150, 3))
        del views
        assert [e[0] for e in exports] == list(range(0, 150, 6))
        del exports
        gc.collect()
        assert [sys.getrefcount(a) for a in arrays] == refs


def test_the_array_lives_as_long_as_the_tensor(ndarray_path):
    import tracemalloc

    n = 4 << 20  # 32 MiB of float64, traced by NumPy's allocator hooks
    tracemalloc.start()
    try:
        a = np.full(n, 3.0)
        ptr = a.ctypes.data
        t = _writable_import(a)
        del a
        gc.collect()
        junk = [np.full(1024, 9.0) for _ in range(100)]  # reuse freed memory if it was freed
        held, _ = tracemalloc.get_traced_memory()
        assert held >= n * 8
        assert t.data_ptr == ptr
        back = np.from_dlpack(t)
        assert back[0] == 3.0 and back[-1] == 3.0 and (back == 3.0).all()
        del back, junk
        del t
        gc.collect()
        after, _ = tracemalloc.get_traced_memory()
        assert held - after >= n * 8  # the array died with its last user
    finally:
        tracemalloc.stop()


def test_dlx_tensor_ops_take_numpy_operands_through_the_buffer():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    h = _hits()
    r = dlx.add(dlx.from_dlpack(a), a)
    assert (_hits() > h) == NUMPY2
    np.testing.assert_array_equal(np.from_dlpack(r), a + a)


# ---- dlx_py_view through PyTorch's borrowed DLTensor -----------------------------------------------------


def _torch():
    return need("torch", reason="torch is not installed (bash scripts/install_torch.sh)")


def _view_of_managed(t):
    """What the managed path (dlx.from_dlpack) gives, in capi_view's terms."""
    return dict(data=t.data_ptr, shape=t.shape, strides=t.stride, dtype=t.dtype,
                flags=int(t.readonly), device=t.device)


def _torch_tensors(torch):
    base = torch.arange(60, dtype=torch.float32).reshape(6, 10)
    out = [
        ("contiguous", base),
        ("transposed", base.t()),
        ("sliced", base[1::2, 3::4]),
        ("0d", torch.tensor(2.5)),
        ("empty", base[:0]),
        ("expand", torch.arange(3.0).expand(4, 3)),
        ("col", base[:, 2:3]),
    ]
    for dt in (torch.float16, torch.bfloat16, torch.float64, torch.bool, torch.int8, torch.uint8, torch.int64,
               torch.complex64, torch.complex128):
        out.append((str(dt), base.to(dt)))
    if hasattr(torch, "float8_e4m3fn"):
        out.append(("float8_e4m3fn", base.to(torch.float8_e4m3fn)))
    return out


def test_capi_view_borrows_from_torch():
    torch = _torch()
    if not hasattr(torch.Tensor, "__dlpack_c_exchange_api__") and not hasattr(torch.Tensor,
                                                                              "__c_dlpack_exchange_api__"):
        pytest.skip("this torch has no C exchange API")
    for name, x in _torch_tensors(torch):
        b = _borrowed()
        got = T.capi_view(x)
        assert _borrowed() == b + 1, name
        assert got.pop("handle") == type(x).__name__, name  # the handle is the tensor itself
        assert got == _view_of_managed(dlx.from_dlpack(x)), name


def test_capi_view_refuses_what_torch_refuses():
    """Issue 12's rules hold on the borrowed path: the messages are dlx.from_dlpack's."""
    torch = _torch()
    base = torch.ones(2, 2)
    cases = [
        torch._neg_view(base),
        torch.ones(2, 2, requires_grad=True),
        torch.conj(torch.ones(2, 2, dtype=torch.complex64)),
        torch.conj(torch.ones(2, 2, dtype=torch.complex64)).imag,
        torch.eye(2).to_sparse(),
    ]
    for x in cases:
        with pytest.raises(BufferError) as managed:
            dlx.from_dlpack(x)
        with pytest.raises(BufferError) as borrowed:
            T.capi_view(x)
        assert str(borrowed.value) == str(managed.value)
        assert "\n" not in str(borrowed.value)


def test_capi_view_spec_failure_and_numpy():
    torch = _torch()
    with pytest.raises(BufferError):
        T.capi_view(torch.ones(2, 3), 1)  # rank 2 where 1 is required
    a = np.ones((2, 3), np.float32)
    a.flags.writeable = False
    b = _borrowed()
    got = T.capi_view(a)
    assert _borrowed() == b  # NumPy has no table: the ndarray path and a dlx.Tensor handle
    assert got["flags"] & 1 and got["handle"] == "dlx.Tensor"


# ---- __dlpack__'s shortcuts: the capsule known by its name's pointer, max_version known by identity --------


def _capsule_name(cap):
    from dlpack_ctypes import capsule_name

    return capsule_name(cap)


def test_capsules_are_deleted_once_whoever_ends_them(exported_alive):
    t = _writable_import(np.arange(6.0))
    caps = [t.__dlpack__(max_version=(1, 3)) for _ in range(50)] + [t.__dlpack__() for _ in range(50)]
    assert exported_alive() == 100
    del caps  # never consumed: each destructor runs its deleter
    assert exported_alive() == 0
    views = [np.from_dlpack(t) for _ in range(20)]  # NumPy consumes (renames) each capsule
    assert exported_alive() == 20
    del views
    assert exported_alive() == 0
    cap = t.__dlpack__(max_version=(1, 3))
    u = dlx.from_dlpack(cap)  # dlx consumes it: the tensor owns the export now
    assert _capsule_name(cap) == "used_dltensor_versioned"
    del cap
    assert exported_alive() == 1
    del u
    assert exported_alive() == 0


def test_max_version_by_identity_and_by_value():
    t = _writable_import(np.arange(6.0))
    v13 = (1, 3)
    for mv, name in ((v13, "dltensor_versioned"), (v13, "dltensor_versioned"), ((0, 8), "dltensor"),
                     (v13, "dltensor_versioned"), ((1, 0), "dltensor_versioned"), (None, "dltensor"),
                     (tuple([1, 3]), "dltensor_versioned"), ((2, 0), "dltensor_versioned")):
        assert _capsule_name(t.__dlpack__(max_version=mv)) == name, mv
    for bad in ((1,), [1, 3], (1, "3"), 13):
        with pytest.raises(TypeError, match="max_version"):
            t.__dlpack__(max_version=bad)
    built = "max_" + "version"  # a keyword name made at run time: not the interned one
    assert _capsule_name(t.__dlpack__(**{built: (1, 3)})) == "dltensor_versioned"
    with pytest.raises(TypeError, match="unexpected keyword"):
        t.__dlpack__(max_versions=(1, 3))
