"""PyTorch <-> dlx (CPU), when torch is importable (bash scripts/install_torch.sh).

torch >= 2.10 advertises the C exchange API, which dlx.from_dlpack uses instead of __dlpack__.
What torch itself cannot do (e.g. negative strides) is skipped with torch's reason."""

import gc

import numpy as np
import pytest

import dlx
from dlpack_ctypes import Parsed

torch = pytest.importorskip("torch", reason="torch is not installed (bash scripts/install_torch.sh)")
pytestmark = pytest.mark.filterwarnings("ignore:ComplexHalf support is experimental")

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "bfloat16",
          "float32", "float64", "complex32", "complex64", "complex128", "float8_e4m3fn", "float8_e5m2",
          "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu"]


def torch_dtype(name, direction):
    dt = getattr(torch, name, None)
    if dt is None:
        pytest.skip(f"torch {torch.__version__} has no dtype {name}")
    try:
        x = torch.zeros((2, 3), dtype=dt)
        x.__dlpack__()
        if direction == "import":
            torch.from_dlpack(x)
    except Exception as e:  # noqa: BLE001 - torch's own limitation, quoted
        pytest.skip(f"torch {torch.__version__} cannot DLPack-{direction} {name} even with itself: {e}")
    return dt


def sample(dt, shape=(3, 4)):
    n = int(np.prod(shape))
    if dt == torch.bool:
        return (torch.arange(n) % 3 == 0).reshape(shape)
    if dt.is_complex:
        base = torch.arange(n, dtype=torch.float32)
        c = torch.complex(base, -base)
        return c.to(dt).reshape(shape)
    if dt.is_floating_point:
        return (torch.arange(n) % 8 / 2).to(dt).reshape(shape)
    return (torch.arange(n) % 100).to(dt).reshape(shape)


def as_bytes(x):
    """The raw bytes of a CPU tensor (every dtype)."""
    x = x.contiguous()
    return bytes(x.view(torch.uint8).numpy().tobytes()) if x.numel() else b""


def test_torch_has_an_exchange_api_or_dlpack():
    t = torch.zeros(3)
    has_api = hasattr(type(t), "__dlpack_c_exchange_api__") or hasattr(type(t), "__c_dlpack_exchange_api__")
    assert has_api or hasattr(t, "__dlpack__")
    if hasattr(type(t), "__dlpack_c_exchange_api__"):
        from dlpack_ctypes import exchange_api

        api = exchange_api(type(t))
        assert api.header.version.major == 1
        assert api.managed_tensor_from_py_object_no_sync


def test_dlx_uses_torch_exchange_api_when_present():
    """With the exchange API, dlx never calls torch's __dlpack__ (a subclass spies on it)."""
    if not hasattr(torch.Tensor, "__dlpack_c_exchange_api__"):
        pytest.skip(f"torch {torch.__version__} has no C exchange API")

    calls = []

    class Spy(torch.Tensor):
        def __dlpack__(self, *a, **kw):
            calls.append(kw)
            return super().__dlpack__(*a, **kw)

    x = torch.arange(6.0).as_subclass(Spy)
    t = dlx.from_dlpack(x)
    assert t.data_ptr == x.data_ptr()
    assert calls == []


@pytest.mark.parametrize("name", DTYPES)
def test_torch_to_dlx(name):
    dt = torch_dtype(name, "export")
    x = sample(dt)
    t = dlx.from_dlpack(x)
    assert t.dtype == name
    assert t.shape == (3, 4) and t.stride == (4, 1)
    assert t.data_ptr == x.data_ptr()
    assert t.readonly is False
    p = Parsed(t.__dlpack__(max_version=(1, 3)))
    assert p.address == x.data_ptr()
    # writes through the dlx side are seen by torch
    back = torch.from_dlpack(t)
    assert back.data_ptr() == x.data_ptr()
    assert as_bytes(back) == as_bytes(x)


@pytest.mark.parametrize("name", DTYPES)
def test_dlx_to_torch(name):
    dt = torch_dtype(name, "import")
    t = dlx.zeros((3, 4), name)
    y = torch.from_dlpack(t)
    assert y.dtype == dt
    assert y.shape == (3, 4) and y.stride() == (4, 1)
    assert y.data_ptr() == t.data_ptr
    y.copy_(sample(dt))
    again = torch.from_dlpack(t)
    assert as_bytes(again) == as_bytes(sample(dt))


def test_torch_float4_x2():
    dt = getattr(torch, "float4_e2m1fn_x2", None)
    if dt is None:
        pytest.skip(f"torch {torch.__version__} has no float4_e2m1fn_x2")
    x = torch.zeros((2, 3), dtype=torch.uint8).view(dt)
    t = dlx.from_dlpack(x)
    # torch describes one byte holding two fp4 values as (kDLFloat4_e2m1fn, 4 bits, 2 lanes)
    assert t.dtype == "float4_e2m1fnx2"
    assert t.shape == (2, 3) and t.nbytes == 6
    assert t.data_ptr == x.data_ptr()
    y = torch.from_dlpack(t)
    assert y.dtype == dt and y.data_ptr() == x.data_ptr()


def test_writes_visible_both_ways():
    x = torch.zeros(5, dtype=torch.float32)
    t = dlx.from_dlpack(x)
    a = np.from_dlpack(t)
    x[2] = 7
    assert a[2] == 7
    a[4] = -1
    assert x[4] == -1


def _layouts():
    a = torch.arange(48, dtype=torch.float32).reshape(4, 12)
    return {
        "transpose": a.T,
        "permute-3d": a.reshape(4, 3, 4).permute(2, 0, 1),
        "slice-offset": a[1:3, 2:7],
        "step": a[::2, 1::3],
        "expand": a[:1].expand(3, 12),
        "0d": a[1, 1],
        "zero-size": a[:, :0],
        "size-1": a[1:2, :, None],
    }


@pytest.mark.parametrize("name", sorted(_layouts()))
def test_layouts_torch_to_dlx(name):
    v = _layouts()[name]
    t = dlx.from_dlpack(v)
    assert t.shape == tuple(v.shape)
    if v.numel() > 1:
        for n, s, ts in zip(v.shape, t.stride, v.stride()):
            if n > 1:
                assert s == ts
    if v.numel():
        assert t.data_ptr == v.data_ptr()
    np.testing.assert_array_equal(np.from_dlpack(t), v.numpy())


def _np_layouts():
    a = np.arange(48, dtype=np.float32).reshape(4, 12)
    return {
        "transpose": a.T,
        "slice-offset": a[1:3, 2:7],
        "step": a[::2, 1::3],
        "negative": a[::-1, ::2],
        "broadcast": np.broadcast_to(a[:1], (3, 12)),
        "0d": a[1, 1:2].reshape(()),
        "zero-size": a[:, :0],
    }


@pytest.mark.parametrize("name", sorted(_np_layouts()))
def test_layouts_dlx_to_torch(name):
    v = _np_layouts()[name]
    t = dlx.from_dlpack(v)
    try:
        y = torch.from_dlpack(t)
    except (RuntimeError, ValueError) as e:
        if min(t.stride, default=0) < 0:
            pytest.skip(f"torch {torch.__version__} refuses negative strides: {str(e).splitlines()[0]}")
        raise
    assert tuple(y.shape) == v.shape
    if v.size:
        assert y.data_ptr() == v.__array_interface__["data"][0]
    np.testing.assert_array_equal(y.numpy(), v)


def test_readonly_dlx_to_torch():
    """torch asks for a versioned capsule and gets READ_ONLY set; torch has no read-only tensors."""
    a = np.arange(4.0)
    a.flags.writeable = False
    t = dlx.from_dlpack(a)
    try:
        y = torch.from_dlpack(t)
    except BufferError as e:
        assert "read-only" in str(e)
        pytest.skip("torch asked for a legacy capsule, which cannot carry read-only data")
    assert y.data_ptr() == a.__array_interface__["data"][0]


def test_seed_003_first_example():
    x = torch.randn(30, 20, device="cpu")
    y = dlx.from_dlpack(x)
    assert (y.shape, y.stride, y.memspace, y.element_type) == ((30, 20), (20, 1), "generic", "Float32")
    assert repr(y) == f"Tensor<0x{x.data_ptr():016x}@generic o (30, 20):(20, 1)>"
    assert dlx.from_dlpack(torch.randn(30, 20, 32)).mark_layout_dynamic().layout == "(?,?,?):(?,?,1)"


def test_lifetimes(exported_alive):
    x = torch.arange(100, dtype=torch.int64)
    ptr = x.data_ptr()
    t = dlx.from_dlpack(x)
    del x
    gc.collect()
    np.testing.assert_array_equal(np.from_dlpack(t), np.arange(100))
    assert t.data_ptr == ptr
    d = dlx.zeros((10,), "int64")
    y = torch.from_dlpack(d)
    del d
    gc.collect()
    y += 3
    assert int(y.sum()) == 30
    assert exported_alive() == 1
    del y
    assert exported_alive() == 0


def test_torch_dlx_numpy_chain():
    x = torch.arange(12, dtype=torch.float64).reshape(3, 4).T
    t = dlx.from_dlpack(x)
    a = np.from_dlpack(t)
    u = dlx.from_dlpack(a)
    y = torch.from_dlpack(u)
    assert y.data_ptr() == x.data_ptr()
    assert torch.equal(y, x)


def test_many_round_trips_release_everything(exported_alive):
    x = torch.zeros(64)
    for _ in range(2000):
        y = torch.from_dlpack(dlx.from_dlpack(x))
        assert y.data_ptr() == x.data_ptr()
    del y
    gc.collect()
    assert exported_alive() == 0


# --- CUDA (only where torch sees a GPU) -------------------------------------------------------------

needs_cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device (torch.cuda.is_available() is False)")


@needs_cuda
def test_cuda_tensor_round_trip():
    x = torch.arange(12, dtype=torch.float32, device="cuda").reshape(3, 4)
    t = dlx.from_dlpack(x)
    assert t.device == (2, x.device.index or 0)
    assert t.memspace == "gmem"
    assert t.data_ptr == x.data_ptr()
    assert repr(t).startswith(f"Tensor<0x{x.data_ptr():016x}@gmem o (3, 4):(4, 1)")
    y = torch.from_dlpack(t)  # torch passes its current stream
    assert y.is_cuda and y.data_ptr() == x.data_ptr()
    y += 1
    assert torch.equal(x.cpu(), torch.arange(1, 13, dtype=torch.float32).reshape(3, 4))


@needs_cuda
def test_cuda_tensor_is_never_touched_on_the_host():
    t = dlx.from_dlpack(torch.zeros(4, device="cuda"))
    with pytest.raises(BufferError):
        dlx.from_dlpack(t, copy=True)
    with pytest.raises(BufferError):
        dlx.from_dlpack(t, device="cpu")
    with pytest.raises(BufferError):
        t.__dlpack__(max_version=(1, 3), stream=0)
    with pytest.raises((BufferError, RuntimeError)):
        np.from_dlpack(t)
