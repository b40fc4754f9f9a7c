"""The C API for other extensions (dlx/python.h), through the example extension examples/python_ext.

Build it with: pip install --no-build-isolation ./examples/python_ext (scripts/test_python.sh does)."""

import gc

import numpy as np
import pytest
from peers import need

import dlx

ext = need(
    "dlx_example",
    reason="the example extension is not built (pip install --no-build-isolation ./examples/python_ext)",
)
T = dlx._testing


def test_headers_for_extensions():
    import os

    inc = dlx.get_include()
    for h in ("python.h", "dlpack.h", "view.h"):
        assert os.path.isfile(os.path.join(inc, "dlx", h)), h


def test_scale_numpy_in_place():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    ext.scale_(a, 2.0)
    np.testing.assert_array_equal(a, np.arange(12, dtype=np.float32).reshape(3, 4) * 2)


def test_scale_strided_view_touches_only_the_view():
    a = np.ones((6, 6), np.float32)
    ext.scale_(a[::2, 1::3], 5.0)
    expect = np.ones((6, 6), np.float32)
    expect[::2, 1::3] = 5
    np.testing.assert_array_equal(a, expect)


def test_scale_dlx_tensor(exported_alive):
    t = dlx.zeros((2, 2), "float32")
    a = np.from_dlpack(t)
    a[...] = 1.5
    ext.scale_(t, 2.0)
    np.testing.assert_array_equal(a, np.full((2, 2), 3.0, np.float32))
    del a
    assert exported_alive() == 0  # the handle was released


def test_scale_torch():
    torch = need("torch", reason="torch is not installed (bash scripts/install_torch.sh)")
    x = torch.ones(3, 3)
    ext.scale_(x, -1.0)
    assert torch.equal(x, -torch.ones(3, 3))


def test_scale_refuses_what_torch_refuses():
    """dlx_py_view takes torch's C exchange API as dlx.from_dlpack does, with the same checks."""
    torch = need("torch", reason="torch is not installed (bash scripts/install_torch.sh)")
    base = torch.ones(2, 2)
    neg = torch._neg_view(base)
    with pytest.raises(BufferError, match=r"negative bit set, use tensor\.resolve_neg\(\)"):
        ext.scale_(neg, 3.0)
    g = torch.ones(2, 2, requires_grad=True)
    with pytest.raises(BufferError, match="require gradient"):
        ext.scale_(g, 3.0)
    im = torch.conj(torch.ones(2, 2, dtype=torch.complex64)).imag  # a neg view of float32 memory
    with pytest.raises(BufferError, match="negative bit"):
        ext.scale_(im, 3.0)
    with pytest.raises(BufferError, match="layout other than torch.strided"):
        ext.scale_(torch.eye(2).to_sparse(), 3.0)
    assert torch.equal(base, torch.ones(2, 2)) and torch.equal(g.detach(), torch.ones(2, 2))


def test_scale_capsule_releases_the_producer(deleter_calls):
    for _ in range(10):
        ext.scale_(T.make_capsule((2, 3)), 3.0)
    assert deleter_calls() == 10


def test_scale_errors():
    ro = np.ones((2, 2), np.float32)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        ext.scale_(ro, 2.0)
    assert (ro == 1).all()
    with pytest.raises(BufferError):
        ext.scale_(np.ones((2, 2), np.float64), 2.0)  # wrong dtype
    with pytest.raises(BufferError):
        ext.scale_(np.ones(4, np.float32), 2.0)  # wrong rank
    with pytest.raises(TypeError):
        ext.scale_([[1.0]], 2.0)  # not DLPack
    with pytest.raises(BufferError):
        ext.scale_(T.make_capsule((2, 2), device=(2, 0)), 2.0)  # not host memory


def test_row_sums_returns_a_dlx_tensor():
    a = np.arange(12, dtype=np.float64).reshape(3, 4)
    r = ext.row_sums(a)
    assert isinstance(r, dlx.Tensor)
    assert r.shape == (3,) and r.dtype == "float64" and r.is_contiguous
    np.testing.assert_array_equal(np.from_dlpack(r), a.sum(axis=1))


def test_row_sums_result_outlives_everything():
    r = ext.row_sums(np.ones((5, 7)))
    gc.collect()
    v = np.from_dlpack(r)
    del r
    gc.collect()
    np.testing.assert_array_equal(v, np.full(5, 7.0))


def test_row_sums_zero_rows_and_layout_errors():
    r = ext.row_sums(np.ones((0, 3)))
    assert r.shape == (0,)
    with pytest.raises(BufferError):
        ext.row_sums(np.ones((4, 6))[:, ::2])  # needs C-contiguous
    with pytest.raises(BufferError):
        ext.row_sums(np.ones((3, 3), np.float32))


def test_row_sums_from_jax():
    jnp = need("jax.numpy", reason="jax is not installed")
    x = jnp.arange(6, dtype=jnp.float64).reshape(2, 3)
    if x.dtype != np.float64:
        pytest.skip("jax_enable_x64 is off: JAX has no float64 arrays")
    np.testing.assert_array_equal(np.from_dlpack(ext.row_sums(x)), [3.0, 12.0])


def test_row_sums_from_torch():
    torch = need("torch", reason="torch is not installed (bash scripts/install_torch.sh)")
    y = torch.arange(6, dtype=torch.float64).reshape(2, 3)
    np.testing.assert_array_equal(np.from_dlpack(ext.row_sums(y)), [3.0, 12.0])
