"""PyTorch <-> dlx (CPU), when torch is importable (bash scripts/install_torch.sh).

torch >= 2.10 advertises the C exchange API, which dlx.from_dlpack uses instead of __dlpack__.
What torch itself cannot do (e.g. negative strides) is skipped with torch's reason."""

import gc

import numpy as np
import pytest
from peers import need

import dlx
from dlpack_ctypes import Parsed

torch = need("torch", reason="torch is not installed (bash scripts/install_torch.sh)")
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
    torch_version = tuple(int(x) for x in torch.__version__.split("+")[0].split(".")[:2])
    if min(t.stride, default=0) < 0 and torch_version < (2, 15):
        # seen on a GPU machine's torch 2.11: its from_dlpack aborts the process on negative strides
        pytest.skip(f"torch {torch.__version__} aborts the process on negative strides (2.15 raises)")
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


# --- what torch's __dlpack__ refuses, the exchange API path refuses too (issue 12) --------------------
#
# torch's C exchange API skips the checks of torch.Tensor.__dlpack__ and exports lazy conj / neg views
# as their un-resolved memory. dlx never imports values other than the tensor holds: it refuses with
# torch's reason and the call that resolves the tensor.

needs_exchange_api = pytest.mark.skipif(not hasattr(torch.Tensor, "__dlpack_c_exchange_api__"),
                                        reason=f"torch {torch.__version__} has no C exchange API")


def _refused(x, match):
    """dlx refuses x with a one-line BufferError matching match."""
    with pytest.raises(BufferError, match=match) as e:
        dlx.from_dlpack(x)
    assert "\n" not in str(e.value)
    with pytest.raises(BufferError, match=match):
        dlx.add(dlx.zeros(tuple(x.shape), "float32"), x)  # operands go through the same import


@pytest.mark.parametrize("make, match", [
    (lambda: torch.conj(torch.ones(2, dtype=torch.complex64)), "conjugate bit"),
    (lambda: torch._neg_view(torch.ones(2)), "negative bit"),
    (lambda: torch.ones(2, requires_grad=True), "require gradient"),
], ids=["conj", "neg", "requires_grad"])
def test_a_refused_export_is_released(make, match):
    """dlx refuses after torch has exported: the export must be deleted, or torch's tensor (and
    with it the Python object torch keeps for it) would live on."""
    import weakref

    x = make()
    r = weakref.ref(x)
    with pytest.raises(BufferError, match=match):
        dlx.from_dlpack(x)
    del x
    gc.collect()
    assert r() is None


def test_conj_bit_is_refused():
    y = torch.conj(torch.tensor([1 + 1j, 2 - 2j]))
    assert y.is_conj()
    with pytest.raises(BufferError, match="conjugate bit"):
        y.__dlpack__(max_version=(1, 3))  # torch's own refusal
    _refused(y, r"conjugate bit set, use tensor\.resolve_conj\(\)")


def test_conj_bit_resolved_imports_the_conjugate():
    y = torch.conj(torch.tensor([1 + 1j, 2 - 2j])).resolve_conj()
    np.testing.assert_array_equal(np.from_dlpack(dlx.from_dlpack(y)), [1 - 1j, 2 + 2j])


@pytest.mark.parametrize("dtype", ["complex32", "complex64", "complex128"])
def test_conj_bit_every_complex_dtype(dtype):
    _refused(torch.zeros(2, dtype=getattr(torch, dtype)).conj(), "conjugate bit")


def test_conj_bit_survives_detach_and_views():
    y = torch.conj(torch.tensor([1 + 1j, 2 - 2j, 3j]))
    for v in (y.detach(), y[1:], y.reshape(3, 1), y.expand(2, 3)):
        assert v.is_conj()
        _refused(v, "conjugate bit")


def test_neg_bit_is_refused():
    """torch's __dlpack__ exports a neg view unresolved (NumPy reads [1, 2]); dlx refuses it."""
    y = torch._neg_view(torch.tensor([1.0, 2.0]))
    assert y.is_neg()
    assert list(y) == [-1.0, -2.0]
    _refused(y, r"negative bit set, use tensor\.resolve_neg\(\)")
    np.testing.assert_array_equal(np.from_dlpack(dlx.from_dlpack(y.resolve_neg())), [-1.0, -2.0])


@pytest.mark.parametrize("dtype", ["int64", "uint8", "bool", "float16", "complex64"])
def test_neg_bit_every_dtype(dtype):
    _refused(torch._neg_view(torch.ones(3, dtype=getattr(torch, dtype))), "negative bit")


def test_imag_of_a_conj_tensor_is_a_neg_view():
    y = torch.conj(torch.tensor([1 + 1j, 2 - 2j]))
    im = y.imag
    assert im.is_neg() and not im.is_conj() and im.dtype == torch.float32
    assert im.tolist() == [-1.0, 2.0]
    _refused(im, "negative bit")
    _refused(im.detach(), "negative bit")
    np.testing.assert_array_equal(np.from_dlpack(dlx.from_dlpack(im.resolve_neg())), [-1.0, 2.0])
    np.testing.assert_array_equal(np.from_dlpack(dlx.from_dlpack(y.real)), [1.0, 2.0])  # real: no bit


def test_requires_grad_is_refused():
    g = torch.zeros(3, requires_grad=True)
    with pytest.raises(BufferError, match="require gradient"):
        g.__dlpack__(max_version=(1, 3))
    _refused(g, r"require gradient, use tensor\.detach\(\)")
    _refused(g * 2, "require gradient")  # not a leaf
    _refused(torch.nn.Parameter(torch.zeros(2)), "require gradient")
    t = dlx.from_dlpack(g.detach())
    np.from_dlpack(t)[0] = 5
    assert g[0].item() == 5  # detach shares the memory; the write is the caller's choice now


def test_requires_grad_checked_before_the_layout():
    """torch's order: requires_grad first."""
    s = torch.eye(2).to_sparse().requires_grad_()
    _refused(s, "require gradient")


@needs_exchange_api
def test_subclass_flags_are_checked_without_calling_dlpack():
    calls = []

    class Spy(torch.Tensor):
        def __dlpack__(self, *a, **kw):
            calls.append(kw)
            return super().__dlpack__(*a, **kw)

    _refused(torch._neg_view(torch.ones(2)).as_subclass(Spy), "negative bit")
    _refused(torch.conj(torch.ones(2, dtype=torch.complex64)).as_subclass(Spy), "conjugate bit")
    assert calls == []
    dlx.from_dlpack(torch.ones(2).as_subclass(Spy))
    assert calls == []


@needs_exchange_api
def test_an_error_asking_a_subclass_propagates():
    """torch's getters run a subclass's __torch_function__; what it raises is the caller's answer."""

    class Boom(torch.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            if func == torch.Tensor.requires_grad.__get__:
                raise ValueError("boom from __torch_function__")
            return super().__torch_function__(func, types, args, kwargs or {})

    with pytest.raises(ValueError, match="boom from __torch_function__"):
        dlx.from_dlpack(torch.zeros(3).as_subclass(Boom))
    # after a failed export, a check that raises gives way to the export's own reason
    with pytest.raises(BufferError, match="^Cannot pack tensors on meta$"):
        dlx.from_dlpack(torch.empty(2, device="meta").as_subclass(Boom))


def test_the_dlpack_path_makes_the_same_checks():
    """A torch tensor type without the table (torch before 2.10, here a subclass hiding it) goes
    through torch's __dlpack__, which exports the negative bit unresolved: dlx refuses it there too."""
    calls = []

    class NoTable(torch.Tensor):
        __dlpack_c_exchange_api__ = None

        def __dlpack__(self, *a, **kw):
            calls.append(kw)
            return super().__dlpack__(*a, **kw)

    neg = torch._neg_view(torch.tensor([1.0, 2.0])).as_subclass(NoTable)
    with pytest.raises(BufferError, match=r"negative bit set, use tensor\.resolve_neg\(\)"):
        dlx.from_dlpack(neg)
    with pytest.raises(BufferError, match="require gradient"):
        dlx.from_dlpack(torch.zeros(2, requires_grad=True).as_subclass(NoTable))
    with pytest.raises(BufferError, match=r"conjugate bit set, use tensor\.resolve_conj\(\)"):
        dlx.from_dlpack(torch.conj(torch.ones(2, dtype=torch.complex64)).as_subclass(NoTable))
    assert calls == []  # refused before asking torch
    x = torch.arange(3.0).as_subclass(NoTable)
    t = dlx.from_dlpack(x)
    assert len(calls) == 1 and t.data_ptr == x.data_ptr()
    np.testing.assert_array_equal(np.from_dlpack(dlx.from_dlpack(neg.resolve_neg())), [-1.0, -2.0])


def _torch_reason(x):
    with pytest.raises(BufferError) as e:
        x.__dlpack__(max_version=(1, 3))
    return str(e.value)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("make", [
    lambda: torch.eye(3).to_sparse(),
    lambda: torch.eye(3).to_sparse_csr(),
    lambda: torch.eye(3).to_sparse_csc(),
    lambda: torch.eye(2).to_sparse_bsr((1, 1)),
    lambda: torch.randn(2, 2).to_mkldnn(),
    lambda: torch.nested.nested_tensor([torch.zeros(2), torch.zeros(3)], layout=torch.jagged),
], ids=["sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr", "mkldnn", "jagged"])
def test_other_layouts_are_a_one_line_buffererror(make):
    """The exchange API raises RuntimeError with a C++ backtrace; dlx gives __dlpack__'s reason."""
    try:
        x = make()
    except (RuntimeError, AttributeError) as e:
        pytest.skip(f"torch {torch.__version__} cannot make it: {str(e).splitlines()[0]}")
    reason = _torch_reason(x)
    with pytest.raises(BufferError) as e:
        dlx.from_dlpack(x)
    msg = str(e.value)
    assert msg.startswith(reason)
    if hasattr(torch.Tensor, "__dlpack_c_exchange_api__"):
        assert msg == f"{reason} (this one is {x.layout})"
    assert "\n" not in msg and "Exception raised from" not in msg


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("make", [
    lambda: torch.quantize_per_tensor(torch.tensor([1.0, 2.0]), 0.1, 0, torch.qint8),
    lambda: torch.empty(3, device="meta"),
], ids=["quantized", "meta"])
def test_export_errors_are_a_one_line_buffererror(make):
    """torch's first line, as its __dlpack__ says it, without the backtrace."""
    try:
        x = make()
    except (RuntimeError, AttributeError) as e:
        pytest.skip(f"torch {torch.__version__} cannot make it: {str(e).splitlines()[0]}")
    reason = _torch_reason(x)
    with pytest.raises(BufferError) as e:
        dlx.from_dlpack(x)
    assert str(e.value) == reason
    assert "\n" not in str(e.value)


def test_plain_tensors_still_import():
    """Zero-size, 0-d, non-contiguous, inference-mode and detached tensors carry no flag."""
    with torch.inference_mode():
        inf = torch.arange(3.0)
    base = torch.arange(12.0).reshape(3, 4)
    for x in (torch.empty(0, 3), torch.tensor(2.5), base[:, ::2], base.T, inf,
              torch.zeros(2, requires_grad=True).detach(), torch.conj(torch.tensor([1.0, 2.0]))):
        t = dlx.from_dlpack(x)
        assert t.shape == tuple(x.shape)
        np.testing.assert_array_equal(np.from_dlpack(t), x.numpy())


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
def test_cuda_tensor_copies_stay_on_their_device_unless_asked():
    """Copies of device memory run on the device (dlx's CUDA backend); device="cpu" brings it to the host."""
    if not dlx.cuda.is_available():
        pytest.skip(f"dlx has no CUDA device (built with CUDA: {dlx.cuda.is_built()})")
    x = torch.arange(4, dtype=torch.float32, device="cuda")
    t = dlx.from_dlpack(x)
    c = dlx.from_dlpack(t, copy=True)
    assert c.device == t.device and c.data_ptr != t.data_ptr
    h = dlx.from_dlpack(t, device="cpu")
    assert h.device == (1, 0)
    np.testing.assert_array_equal(np.from_dlpack(h), np.arange(4, dtype=np.float32))
    with pytest.raises(BufferError):
        dlx.from_dlpack(t, device="cpu", copy=False)
    with pytest.raises(ValueError):
        t.__dlpack__(max_version=(1, 3), stream=0)
    with pytest.raises((BufferError, RuntimeError)):
        np.from_dlpack(t)
