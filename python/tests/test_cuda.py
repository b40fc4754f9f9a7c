"""dlx on CUDA: dlx.cuda, device= arguments, Tensor.to / record / wait, __dlpack__(stream=, dl_device=, copy=),
from_dlpack(device=, copy=), the exchange API's current_work_stream, and round trips with torch.cuda, CuPy and
JAX on the GPU with their stream rules.

Two halves. Without a device (and in a build without CUDA) the argument parsing, the errors and the host
round trips run everywhere. With a device, the rest: every test that needs one is skipped with the reason
("no CUDA device", "CuPy not installed", ...), never passed silently.

The stream rules checked on the GPU: a producer makes the consumer's stream wait on an event for its own
work (never a device synchronisation: with a long kernel queued on dlx's stream, __dlpack__(stream=other)
returns while that kernel still runs), and dlx as a consumer passes its current stream to __dlpack__ and
waits for the producer's current stream after the exchange API's no-sync export.
"""

import ctypes as C
import gc
import threading
import time

import numpy as np
import pytest
from peers import cuda_absent_reason, need

import dlx
from dlpack_ctypes import FLAG_IS_COPIED, FN_STREAM, Parsed, exchange_api

T = dlx._testing
cuda = dlx.cuda

_NO_DEVICE = cuda_absent_reason()
needs_device = pytest.mark.skipif(_NO_DEVICE is not None, reason=_NO_DEVICE or "")
without_device = pytest.mark.skipif(_NO_DEVICE is None, reason="a CUDA device is present: the no-device errors "
                                    "cannot happen (the device tests run instead)")


def _no_device_message(e):
    text = str(e)
    assert ("no CUDA device is present" in text or "needs a build with CUDA" in text
            or "built without CUDA" in text), text


@pytest.fixture
def torch_cuda():
    """torch with a CUDA device, or a skip saying which is missing."""
    if _NO_DEVICE:
        pytest.skip(_NO_DEVICE)
    torch = need("torch", "torch is not installed (bash scripts/install_torch.sh)")
    if not torch.cuda.is_available():
        pytest.skip(f"torch {torch.__version__} sees no CUDA device (torch.version.cuda {torch.version.cuda})")
    return torch


@pytest.fixture
def cupy():
    if _NO_DEVICE:
        pytest.skip(_NO_DEVICE)
    cupy = need("cupy", "CuPy is not installed (pip install cupy-cuda13x)")
    try:
        cupy.cuda.runtime.getDeviceCount()
    except Exception as e:  # noqa: BLE001 - CuPy's own runtime failed to start
        pytest.skip(f"CuPy cannot use the GPU: {type(e).__name__}: {e}")
    return cupy


@pytest.fixture
def jax_gpu():
    if _NO_DEVICE:
        pytest.skip(_NO_DEVICE)
    jax = need("jax", "JAX is not installed")
    need("jax.dlpack", "JAX is not installed")
    try:
        gpus = jax.devices("gpu")
    except RuntimeError as e:
        pytest.skip(f"JAX has no GPU backend ({str(e).splitlines()[0]}; install jax[cuda13] and run with "
                    "JAX_PLATFORMS=cuda,cpu: the suite's default is cpu)")
    return jax, gpus[0]


def _host(shape=(3, 4), dtype="float32"):
    return dlx.from_dlpack(np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape), copy=True)


def _fake_device_tensor(device=(2, 0)):
    """Host memory labelled as device memory (dlx._testing.make_capsule): only for no-device paths."""
    return dlx.from_dlpack(T.make_capsule((2, 2), device=device))


# =====================================================================================================
# Everywhere: the module, arguments, errors, host round trips
# =====================================================================================================


def test_cuda_module_reports_the_build_and_the_devices():
    assert isinstance(cuda.is_built(), bool)
    assert isinstance(cuda.device_count(), int) and cuda.device_count() >= 0
    assert cuda.is_available() == (cuda.is_built() and cuda.device_count() > 0)
    assert dlx.cuda is cuda and "cuda" in dlx.__all__
    cuda.empty_cache()  # always allowed: nothing cached is nothing to return


@without_device
def test_cuda_functions_without_a_device_say_why():
    for fn in (cuda.synchronize, cuda.memory_stats, cuda.current_stream, lambda: cuda.synchronize(0),
               lambda: cuda.Stream()):
        with pytest.raises(RuntimeError) as e:
            fn()
        _no_device_message(e.value)
    s = cuda.Stream(0x1234)  # wrapping a handle needs no device
    assert (s.cuda_stream, s.ptr, s.device) == (0x1234, 0x1234, 0)
    assert "wrapped" in repr(s)
    s.close()  # never destroys a foreign stream
    with pytest.raises(RuntimeError) as e:
        with cuda.stream(s):
            pass
    _no_device_message(e.value)
    with cuda.stream(None) as nothing:  # None: a no-op, as in torch
        assert nothing is None


def test_stream_objects_are_taken_by_their_handle():
    class TorchLike:
        cuda_stream = 0x5000
        device_index = 3

    class CupyLike:
        ptr = 0x6000
        device_id = 2

    a, b = cuda.Stream(TorchLike()), cuda.Stream(CupyLike())
    assert (a.cuda_stream, a.device) == (0x5000, 3)
    assert (b.cuda_stream, b.device) == (0x6000, 2)
    assert cuda.Stream(a) == a and hash(cuda.Stream(a)) == hash(a)
    assert cuda.Stream(7, device="cuda:1").device == 1
    for bad, exc in ((1.5, TypeError), ("stream", TypeError), (-1, ValueError), (2**64, ValueError)):
        with pytest.raises(exc):
            cuda.Stream(bad)

    class BadHandle:
        cuda_stream = "0x10"

    with pytest.raises(TypeError, match="not an int stream handle"):
        cuda.Stream(BadHandle())
    with pytest.raises(ValueError, match="is not a CUDA device"):
        cuda.Stream(5, device="cpu")


@pytest.mark.parametrize("spec, want", [
    ("cpu", (1, 0)), ("cuda", (2, 0)), ("cuda:0", (2, 0)), ("cuda:3", (2, 3)), ("cuda_host", (3, 0)),
    ("cuda_managed", (13, 0)), (("cuda", 1), (2, 1)), (("cpu", 0), (1, 0)), ((2, 0), (2, 0)), ((13, 0), (13, 0)),
    ((1, 0), (1, 0)), ((14, 2), (14, 2)), ("oneapi", (14, 0)), ("oneapi:1", (14, 1)), (("oneapi", 2), (14, 2)),
])
def test_device_arguments(spec, want):
    assert cuda._c.parse_device(spec) == want


def test_device_arguments_from_torch_devices():
    torch = need("torch", reason="torch not installed")
    assert cuda._c.parse_device(torch.device("cuda:1")) == (2, 1)
    assert cuda._c.parse_device(torch.device("cuda")) == (2, 0)
    assert cuda._c.parse_device(torch.device("cpu")) == (1, 0)


@pytest.mark.parametrize("spec, exc, needle", [
    ("gpu", ValueError, "unknown device 'gpu'"), ("cuda:", ValueError, "unknown device"),
    ("cuda:-1", ValueError, "unknown device"), ("cuda:x", ValueError, "unknown device"),
    ("cuda:0:1", ValueError, "unknown device"), (("cuda:0", 1), ValueError, "unknown device"),
    ("oneapi:x", ValueError, "unknown device 'oneapi:x'"), ("sycl", ValueError, "'oneapi:N'"),
    (("cuda", -1), ValueError, "out of range"), ((0, 0), ValueError, "no DLPack device type"),
    ((True, 0), TypeError, "device must be"), (1.5, TypeError, "not float"), (2, TypeError, "not int"),
    ((2,), TypeError, "not tuple"), (None, TypeError, "not NoneType"),
])
def test_bad_device_arguments(spec, exc, needle):
    with pytest.raises(exc, match=needle.replace("(", r"\(")):
        cuda._c.parse_device(spec)
    with pytest.raises(exc):
        dlx.empty((2,), device=spec) if spec is not None else cuda._c.parse_device(spec)


@pytest.mark.parametrize("device", [None, "cpu", (1, 0), ("cpu", 0)])
def test_constructors_on_the_cpu(device):
    for t in (dlx.empty((2, 3), "int16", device=device), dlx.zeros((2, 3), device=device),
              dlx.full((2, 3), 1.5, device=device)):
        assert t.device == (1, 0) and t.shape == (2, 3) and t.memspace == "generic"
    np.testing.assert_array_equal(np.from_dlpack(dlx.full((2,), 7, "int8", device=device)), [7, 7])


@without_device
@pytest.mark.parametrize("device", ["cuda", "cuda:0", (2, 0), "cuda_host", "cuda_managed"])
def test_constructors_on_devices_without_one(device):
    for make in (lambda: dlx.empty((2,), device=device), lambda: dlx.zeros((2,), device=device),
                 lambda: dlx.full((2,), 1.0, device=device)):
        with pytest.raises(ValueError) as e:
            make()
        _no_device_message(e.value)


def test_to_the_host():
    t = _host()
    assert t.to("cpu") is t and t.to((1, 0)) is t and t.to(("cpu", 0)) is t
    c = t.to("cpu", copy=True)
    assert c is not t and c.data_ptr != t.data_ptr and c.device == (1, 0)
    np.testing.assert_array_equal(np.from_dlpack(c), np.from_dlpack(t))
    # a strided view comes back compact
    v = t[::2, ::-1].T
    c = v.to("cpu", copy=True)
    assert c.is_contiguous and c.shape == (4, 2)
    np.testing.assert_array_equal(np.from_dlpack(c), np.from_dlpack(t)[::2, ::-1].T)
    # packed sub-byte data keeps its codes
    f4 = dlx.from_dlpack(np.arange(6, dtype=np.float32)).astype("float4_e2m1fn")
    np.testing.assert_array_equal(np.from_dlpack(f4.to("cpu", copy=True).astype("float32")),
                                  np.from_dlpack(f4.astype("float32")))
    with pytest.raises(TypeError):
        t.to("cpu", True)  # copy is keyword-only
    with pytest.raises(TypeError):
        t.to()
    with pytest.raises(ValueError, match="unknown device"):
        t.to("tpu")
    with pytest.raises(ValueError, match="cpu device id 1"):
        t.to((1, 1))


@without_device
@pytest.mark.parametrize("device", ["cuda", (2, 0), "cuda_host", "cuda_managed"])
def test_to_a_device_without_one(device):
    with pytest.raises(ValueError) as e:
        _host().to(device)
    _no_device_message(e.value)


def test_host_accessible_memory_is_already_on_the_cpu():
    for dev in ((3, 0), (13, 0)):
        t = _fake_device_tensor(dev)
        assert t.to("cpu") is t
        c = t.to("cpu", copy=True)
        assert c.device == (1, 0)


# --- __dlpack__(stream=) on host memory, and on device labels without a device ---------------------------


@pytest.mark.parametrize("stream", [0, 1, 2, -1, 12345])
def test_host_memory_takes_only_stream_none(stream):
    t = _host()
    with pytest.raises(BufferError, match="only stream=None"):
        t.__dlpack__(max_version=(1, 3), stream=stream)
    p = Parsed(t.__dlpack__(max_version=(1, 3), stream=None))
    assert p.device == (1, 0)
    for dev in ((3, 0), (11, 0)):  # pinned and ROCm host memory are host memory
        with pytest.raises(BufferError, match="only stream=None"):
            _fake_device_tensor(dev).__dlpack__(max_version=(1, 3), stream=stream)


@pytest.mark.parametrize("stream", ["1", 1.0, object()])
def test_stream_must_be_an_int(stream):
    for t in (_host(), _fake_device_tensor()):
        with pytest.raises(TypeError, match="stream must be an int or None"):
            t.__dlpack__(max_version=(1, 3), stream=stream)


@pytest.mark.parametrize("device", [(2, 0), (13, 0)])
def test_cuda_stream_values_the_standard_forbids(device):
    t = _fake_device_tensor(device)
    with pytest.raises(ValueError, match="stream=0 is not allowed for CUDA memory"):
        t.__dlpack__(max_version=(1, 3), stream=0)
    with pytest.raises(ValueError, match="stream=-2 is not a CUDA stream"):
        t.__dlpack__(max_version=(1, 3), stream=-2)
    with pytest.raises(ValueError, match="out of the range"):
        t.__dlpack__(max_version=(1, 3), stream=2**70)
    # copied to the host (dl_device), the consumer may still name a stream of the source device: its
    # values are checked by CUDA's rules, and the host copy needs no ordering
    with pytest.raises(ValueError, match="stream=0 is not allowed for CUDA memory"):
        t.__dlpack__(max_version=(1, 3), stream=0, dl_device=(1, 0))
    if _NO_DEVICE and device == (2, 0):  # (managed memory is copied to the host by the CPU)
        with pytest.raises(BufferError) as e:
            t.__dlpack__(max_version=(1, 3), stream=5, dl_device=(1, 0))
        _no_device_message(e.value)


@without_device
@pytest.mark.parametrize("device", [(2, 0), (13, 0)])
@pytest.mark.parametrize("stream", [None, 1, 2, -1, 0xDEAD000])
def test_cuda_streams_need_no_event_without_a_device(device, stream):
    """dlx cannot have queued CUDA work without a device: nothing to order, the export goes through."""
    t = _fake_device_tensor(device)
    p = Parsed(t.__dlpack__(max_version=(1, 3), stream=stream))
    assert p.device == device and p.address == t.data_ptr
    assert Parsed(t.__dlpack__(stream=stream)).name == "dltensor"


# --- dl_device / copy / device= ----------------------------------------------------------------------------


def test_dl_device_and_copy_on_the_host(exported_alive):
    t = _host()
    p = Parsed(t.__dlpack__(max_version=(1, 3), dl_device=(1, 0), copy=True))
    assert p.device == (1, 0) and p.address != t.data_ptr and p.flags & FLAG_IS_COPIED
    del p
    with pytest.raises(BufferError, match=r"needs a copy, but copy=False"):
        t.__dlpack__(max_version=(1, 3), dl_device=(2, 0), copy=False)
    with pytest.raises(BufferError, match=r"no such device"):
        t.__dlpack__(max_version=(1, 3), dl_device=(-3, 0))
    with pytest.raises(TypeError, match="dl_device must be a tuple of two ints"):
        t.__dlpack__(max_version=(1, 3), dl_device="cuda")
    gc.collect()
    assert exported_alive() == 0


@without_device
@pytest.mark.parametrize("dl_device", [(2, 0), (13, 0), (3, 0)])
def test_dl_device_without_a_device(dl_device):
    t = _host()
    with pytest.raises(BufferError) as e:
        t.__dlpack__(max_version=(1, 3), dl_device=dl_device)
    _no_device_message(e.value)


def test_from_dlpack_device_on_the_host():
    a = np.arange(6.0)
    assert dlx.from_dlpack(a, device="cpu").data_ptr == a.ctypes.data
    c = dlx.from_dlpack(a, device="cpu", copy=True)
    assert c.data_ptr != a.ctypes.data
    np.testing.assert_array_equal(np.from_dlpack(c), a)
    with pytest.raises(BufferError, match="unknown device 'gpu'"):
        dlx.from_dlpack(a, device="gpu")  # from_dlpack says BufferError for every unreachable device
    with pytest.raises(TypeError):
        dlx.from_dlpack(a, device=1.5)


@without_device
@pytest.mark.parametrize("device", ["cuda", "cuda:0", (2, 0), "cuda_managed"])
def test_from_dlpack_to_a_device_without_one(device):
    with pytest.raises(BufferError) as e:
        dlx.from_dlpack(np.arange(3.0), device=device)
    _no_device_message(e.value)
    with pytest.raises(BufferError, match="needs a copy, but copy=False"):
        dlx.from_dlpack(np.arange(3.0), device=device, copy=False)


@without_device
def test_device_labels_are_never_copied_on_the_host():
    t = _fake_device_tensor()
    for make in (lambda: t.to("cpu"), lambda: t.to("cuda", copy=True)):
        with pytest.raises(ValueError) as e:
            make()
        _no_device_message(e.value)
    with pytest.raises(BufferError) as e:
        t.__dlpack__(max_version=(1, 3), dl_device=(1, 0))
    _no_device_message(e.value)


# --- record / wait --------------------------------------------------------------------------------------------


def test_record_and_wait_on_host_memory_do_nothing():
    class TorchLike:
        cuda_stream = 0x5000

    class CupyLike:
        ptr = 0x6000

    for t in (_host(), _fake_device_tensor((3, 0)), _fake_device_tensor((11, 0))):
        for s in (None, 0, 7, TorchLike(), CupyLike(), cuda.Stream(0x10)):
            assert t.record(s) is t and t.wait(stream=s) is t
    t = _host()
    with pytest.raises(TypeError, match="a stream must be an int"):
        t.record(1.5)
    with pytest.raises(ValueError, match="is not a cudaStream_t"):
        t.wait(-1)
    with pytest.raises(TypeError):
        t.record(None, None)


@without_device
@pytest.mark.parametrize("device", [(2, 0), (13, 0)])
def test_record_and_wait_on_device_memory_without_a_device(device):
    t = _fake_device_tensor(device)
    for fn in (t.record, t.wait):
        with pytest.raises(RuntimeError) as e:
            fn()
        _no_device_message(e.value)
        assert ("Tensor.record" if fn == t.record else "Tensor.wait") in str(e.value)


def test_record_on_memory_without_events():
    t = _fake_device_tensor((10, 0))  # ROCm
    with pytest.raises(RuntimeError, match="rocm:0, which needs a ROCm backend"):
        t.record()


# --- the exchange API's current_work_stream ----------------------------------------------------------------


def test_current_work_stream():
    api = exchange_api(dlx.Tensor)
    stream = C.c_void_p(123)
    assert FN_STREAM(api.current_work_stream)(1, 0, C.byref(stream)) == 0
    assert stream.value is None
    stream = C.c_void_p(123)
    assert FN_STREAM(api.current_work_stream)(2, 0, C.byref(stream)) == 0
    if _NO_DEVICE:
        assert stream.value is None  # no device: dlx queues no CUDA work, the legacy default stream orders it
        return
    assert (stream.value or 0) == cuda.current_stream(0).cuda_stream
    s = cuda.Stream()
    with cuda.stream(s):
        assert FN_STREAM(api.current_work_stream)(2, 0, C.byref(stream)) == 0
        assert stream.value == s.cuda_stream
        assert FN_STREAM(api.current_work_stream)(13, 0, C.byref(stream)) == 0
        assert stream.value == s.cuda_stream
    with pytest.raises(BufferError, match="cuda:1000 does not exist"):  # PYFUNCTYPE raises what it set
        FN_STREAM(api.current_work_stream)(2, 1000, C.byref(stream))


def test_host_view_of_device_memory_is_refused_with_the_reason():
    ext = need("dlx_example", reason="the example extension is not built "
                              "(pip install --no-build-isolation ./examples/python_ext)")
    with pytest.raises(BufferError, match=r"expected host memory \(cpu, cuda_host or rocm_host\), got cuda"):
        ext.scale_(T.make_capsule((2, 2), "float32", device=(2, 0)), 2.0)
    if _NO_DEVICE is None:
        with pytest.raises(BufferError, match=r"expected host memory .*got cuda"):
            ext.scale_(dlx.zeros((2, 2), device="cuda"), 2.0)


# =====================================================================================================
# With a device
# =====================================================================================================


@needs_device
@pytest.mark.parametrize("device, want", [("cuda", (2, 0)), ("cuda:0", (2, 0)), (("cuda", 0), (2, 0)),
                                          ((2, 0), (2, 0))])
def test_device_tensors(device, want):
    for t in (dlx.empty((3, 4), device=device), dlx.zeros((3, 4), "int32", device=device),
              dlx.full((3, 4), 2.5, device=device)):
        assert t.device == want and t.memspace == "gmem" and t.is_contiguous
        assert cuda._c.pointer_device(t.data_ptr) == want
        assert repr(t).startswith(f"Tensor<0x{t.data_ptr:016x}@gmem o (3, 4):(4, 1)")
    np.testing.assert_array_equal(np.from_dlpack(dlx.zeros((3,), "int32", device=device).to("cpu")), [0, 0, 0])
    np.testing.assert_array_equal(np.from_dlpack(dlx.full((2,), 2.5, device=device).to("cpu")), [2.5, 2.5])


@needs_device
def test_pinned_and_managed_memory(exported_alive):
    for device, want, memspace in (("cuda_host", (3, 0), "generic"), ("cuda_managed", (13, 0), "gmem")):
        t = dlx.zeros((4, 5), "float64", device=device)
        assert t.device == want and t.memspace == memspace
        assert cuda._c.pointer_device(t.data_ptr) == want
        a = np.from_dlpack(t)  # host-accessible: NumPy reads it in place
        a[...] = np.arange(20.0).reshape(4, 5)
        p = Parsed(t.__dlpack__(max_version=(1, 3)))
        assert p.device == want and p.address == t.data_ptr
        del p
        back = dlx.from_dlpack(t.__dlpack__(max_version=(1, 3)))
        assert back.device == want and back.data_ptr == t.data_ptr
        d = t.to("cuda")
        assert d.device == (2, 0)
        np.testing.assert_array_equal(np.from_dlpack(d.to("cpu")), a)
        assert (t + 1).device == (1, 0)  # host compute on host-accessible memory gives host memory
        del t, a, back, d
    gc.collect()
    assert exported_alive() == 0


_COPY_DTYPES = ["bool", "int8", "uint16", "int32", "int64", "float16", "bfloat16", "float32", "float64", "complex64",
                "complex128", "float8_e4m3fn", "float4_e2m1fn"]


@needs_device
@pytest.mark.parametrize("dtype", _COPY_DTYPES)
def test_round_trips_of_any_layout(dtype):
    base = dlx.from_dlpack(np.arange(-60, 60, dtype=np.float64).reshape(4, 5, 6) / 7).astype(dtype)
    # (views start on whole bytes: packed float4 data cannot start mid-byte)
    for view in (base, base[::-1, 1::2], base.permute(2, 0, 1), base[1, :, -2::-3].T):
        ref = view.to("cpu", copy=True)
        d = view.to("cuda")
        assert d.device == (2, 0) and d.is_contiguous and d.shape == view.shape
        assert d.to("cuda") is d and d.to("cuda", copy=True).data_ptr != d.data_ptr
        back = d.to("cpu")
        assert _raw(back) == _raw(ref)
        # device-to-device of a strided device view, and from_dlpack / __dlpack__ across devices
        dd = d.T.to("cuda", copy=True)
        assert _raw(dd.to("cpu")) == _raw(ref.T.to("cpu", copy=True))
        assert _raw(dlx.from_dlpack(view, device="cuda").to("cpu")) == _raw(ref)
        h = dlx.from_dlpack(d, device="cpu")
        assert h.device == (1, 0) and _raw(h) == _raw(ref)
        p = Parsed(d.__dlpack__(max_version=(1, 3), dl_device=(1, 0)))
        assert p.device == (1, 0) and p.flags & FLAG_IS_COPIED
        p = Parsed(d.__dlpack__(max_version=(1, 3), dl_device=(1, 0), stream=1))  # the source's stream
        assert p.device == (1, 0) and p.flags & FLAG_IS_COPIED
        p = Parsed(view.__dlpack__(max_version=(1, 3), dl_device=(2, 0)))
        assert p.device == (2, 0) and p.flags & FLAG_IS_COPIED
        with pytest.raises(BufferError, match="needs a copy, but copy=False"):
            d.__dlpack__(max_version=(1, 3), dl_device=(1, 0), copy=False)
        with pytest.raises(BufferError, match="needs a copy, but copy=False"):
            dlx.from_dlpack(d, device="cpu", copy=False)


def _raw(t):
    """The bytes of a host tensor's elements, in row-major order."""
    h = t.to("cpu", copy=True) if not (t.device == (1, 0) and t.is_contiguous) else t
    return C.string_at(h.data_ptr, h.nbytes) if h.nbytes else b""


# --- every op on device tensors against the same op on the CPU ---------------------------------------------

_SPECIALS = [0.0, -0.0, 1.0, -1.0, 0.5, 2.5, -7.25, 1e-40, 65504.0, 3e38, -3e38, 1e300, np.inf, -np.inf, np.nan,
             -np.nan, 255.0, -128.0, 127.5, 1.0 / 3]
_OP_DTYPES = ["bool", "int8", "uint8", "int16", "int32", "int64", "uint64", "float16", "bfloat16", "float32",
              "float64", "complex64", "complex128", "float8_e4m3fn", "float8_e5m2"]


def _operand(dtype, shape, seed):
    rng = np.random.default_rng(seed)
    vals = rng.choice(np.array(_SPECIALS + list(rng.normal(0, 50, 40))), size=shape)
    if dtype.startswith("complex"):
        vals = vals + 1j * rng.choice(np.array(_SPECIALS), size=shape)
    x = dlx.from_dlpack(np.ascontiguousarray(vals))
    if not (dtype.startswith("float") or dtype.startswith("complex") or dtype == "bfloat16"):
        x = dlx.from_dlpack(np.nan_to_num(np.from_dlpack(x).real, nan=3, posinf=100, neginf=-100).clip(-1e9, 1e9))
    return x.astype(dtype)


def _same(dev, cpu, arithmetic):
    """dev (device result) equals cpu bit for bit; where both are NaN and the op is arithmetic, any NaN."""
    assert dev.device == (2, 0), dev.device
    h = dev.to("cpu")
    assert (h.dtype, h.shape) == (cpu.dtype, cpu.shape)
    a = np.frombuffer(_raw(h), np.uint8).reshape(h.size, -1)
    b = np.frombuffer(_raw(cpu), np.uint8).reshape(cpu.size, -1)
    if arithmetic and cpu.dtype not in ("bool",) and not cpu.dtype.startswith(("int", "uint")):
        nan = (np.from_dlpack(h != h) & np.from_dlpack(cpu != cpu)).reshape(-1)
        a, b = a[~nan], b[~nan]
    assert np.array_equal(a, b), f"{cpu.dtype}: {int((a != b).any(axis=1).sum())} elements differ"


@needs_device
@pytest.mark.parametrize("dtype", _OP_DTYPES)
def test_every_op_on_the_device_matches_the_cpu(dtype):
    a, b = _operand(dtype, (7, 33), 1), _operand(dtype, (33,), 2)  # b broadcasts
    da, db = a.to("cuda"), b.to("cuda")
    ops = [("+", lambda x, y: x + y), ("*", lambda x, y: x * y), ("/", lambda x, y: x / y),
           ("<", lambda x, y: x < y), ("<=", lambda x, y: x <= y), (">", lambda x, y: x > y),
           (">=", lambda x, y: x >= y), ("==", lambda x, y: x == y), ("!=", lambda x, y: x != y)]
    if dtype != "bool":
        ops += [("-", lambda x, y: x - y), ("neg", lambda x, y: -x), ("+2", lambda x, y: x + 2),
                ("3-", lambda x, y: 3 - x), ("T", lambda x, y: (x.T * 2).T)]
    if dtype.startswith(("float", "complex")) or dtype == "bfloat16":
        ops += [("fma", lambda x, y: dlx.fma(1.5, x, y))]
    for name, op in ops:
        if dtype.startswith("complex") and name in ("<", "<=", ">", ">="):
            continue
        try:
            want = op(a, b)
        except TypeError:  # the op does not exist for this dtype on the CPU either
            with pytest.raises(TypeError):
                op(da, db)
            continue
        got = op(da, db)
        _same(got, want, arithmetic=name not in ("<", "<=", ">", ">=", "==", "!=", "neg"))
    # casts into every dtype, in-place ops, fill and copy_, truth of one element
    for to in _OP_DTYPES:
        try:
            want = a.astype(to)
        except TypeError:  # a cast dlx refuses on the CPU is refused on the device too
            with pytest.raises(TypeError):
                da.astype(to)
            continue
        _same(da.astype(to), want, arithmetic=False)
    x, dx = a.to("cpu", copy=True), a.to("cuda")
    if dtype != "bool":
        x += b
        dx += db
        _same(dx, x, arithmetic=True)
    x[1:3, ::2] = 1
    dx[1:3, ::2] = 1
    _same(dx, x, arithmetic=dtype != "bool")  # the rest still holds the NaNs of += (any NaN, seen on an H100)
    dx.copy_(x)  # host to device, same dtype
    _same(dx, x, arithmetic=False)
    assert bool(da[0, 0] == da[0, 0]) == bool(a[0, 0] == a[0, 0])


@needs_device
def test_ops_refuse_mixing_host_and_device_tensors():
    d, h = dlx.zeros((4,), device="cuda"), dlx.zeros((4,))
    with pytest.raises(ValueError, match="an op runs on one device"):
        d + h
    assert (d + 1).device == (2, 0)  # a Python scalar is staged


@needs_device
def test_scalar_conversions_of_device_tensors():
    t = dlx.asarray([2.5, -1.0, 7.0], dtype="bfloat16", device="cuda")
    assert t[0].item() == 2.5 and float(t[1]) == -1.0 and int(t[2]) == 7 and complex(t[0]) == 2.5 + 0j
    assert bool(t[2]) and [1, 2, 3][dlx.asarray([1], dtype="int64", device="cuda")] == 2
    with pytest.raises(TypeError, match="only a tensor of one element converts to a Python scalar"):
        float(t)


@needs_device
def test_asarray_device():
    # dlx.asarray(device=) moves data as Tensor.to does; a dtype conversion runs on the host side of a move
    t = dlx.asarray([[1, 2], [3, 4]], dtype="float16", device="cuda:0")
    assert t.device == (2, 0) and t.dtype == "float16" and t.to("cpu").tolist() == [[1.0, 2.0], [3.0, 4.0]]
    a = np.arange(12, dtype=np.int32).reshape(3, 4)[::2, 1::2]  # strided host data
    d = dlx.asarray(a, dtype="bfloat16", device="cuda")
    assert d.device == (2, 0) and d.to("cpu").tolist() == [[1.0, 3.0], [9.0, 11.0]]
    assert dlx.asarray(d, device="cuda:0") is d
    c = dlx.asarray(d, device="cuda:0", copy=True)
    assert c.data_ptr != d.data_ptr and c.to("cpu").tolist() == [[1.0, 3.0], [9.0, 11.0]]
    h = dlx.asarray(d, dtype="float32", device="cpu")
    assert h.device == (1, 0) and h.dtype == "float32" and h.tolist() == [[1.0, 3.0], [9.0, 11.0]]
    with pytest.raises(ValueError, match="copy=False, but moving the data to another device needs a copy"):
        dlx.asarray(d, device="cpu", copy=False)
    with pytest.raises(ValueError, match=f"cuda:{cuda.device_count()}"):
        dlx.asarray([1.0], device=f"cuda:{cuda.device_count()}")


@needs_device
@pytest.mark.parametrize("dtype, tol", [("float32", 1e-5), ("float64", 1e-12), ("complex64", 1e-5),
                                        ("complex128", 1e-12), ("float16", 2e-3), ("bfloat16", 1.6e-2)])
def test_matmul_against_torch(torch_cuda, dtype, tol):
    torch = torch_cuda
    g = torch.Generator(device="cuda").manual_seed(0)
    tdt = getattr(torch, dtype)
    x = torch.randn(300, 200, device="cuda", generator=g, dtype=tdt)
    y = torch.randn(150, 200, device="cuda", generator=g, dtype=tdt).T  # transposed operand
    want = torch.matmul(x, y)
    got = torch.from_dlpack(dlx.matmul(dlx.from_dlpack(x), dlx.from_dlpack(y)))
    scale = torch.matmul(x.abs().to(torch.float64 if not x.is_complex() else torch.complex128),
                         y.abs().to(torch.float64 if not y.is_complex() else torch.complex128)).abs().max().item()
    err = (got.to(torch.complex128) - want.to(torch.complex128)).abs().max().item()
    assert err <= tol * scale, f"{dtype}: max error {err} over scale {scale}"
    if dtype in ("float32", "float64", "complex64", "complex128"):  # the CPU (CBLAS) agrees too
        try:
            cpu = dlx.matmul(dlx.from_dlpack(x.cpu()), dlx.from_dlpack(y.cpu().contiguous()))
        except TypeError as e:
            assert "without CBLAS" in str(e)
        else:
            diff = (torch.from_dlpack(cpu).cuda().to(torch.complex128) - got.to(torch.complex128)).abs().max().item()
            assert diff <= tol * scale


# --- torch.cuda ------------------------------------------------------------------------------------------------


def _busy(torch, stream, ms=300):
    """Queue about ms of GPU time on a torch stream (a spinning kernel)."""
    props = torch.cuda.get_device_properties(0)
    rate_khz = getattr(props, "clock_rate", 0) or 1_800_000
    with torch.cuda.stream(stream):
        torch.cuda._sleep(int(rate_khz * ms))


@needs_device
def test_torch_round_trip_zero_copy(torch_cuda, exported_alive):
    torch = torch_cuda
    x = torch.arange(12, dtype=torch.float32, device="cuda").reshape(3, 4)
    t = dlx.from_dlpack(x)  # through torch's exchange API
    assert (t.device, t.data_ptr, t.memspace) == ((2, 0), x.data_ptr(), "gmem")
    y = torch.from_dlpack(t)  # torch passes its current stream to __dlpack__
    assert y.data_ptr() == x.data_ptr()
    u = dlx.from_dlpack(y[:, ::2])
    assert u.stride == (4, 2)
    v = torch.from_dlpack(t + 1)
    assert torch.equal(v, x + 1)
    del t, y, u, v
    gc.collect()
    assert exported_alive() == 0


@needs_device
def test_dlpack_export_waits_with_an_event_not_a_device_sync(torch_cuda):
    """A long kernel on dlx's current stream; __dlpack__(stream=other) returns while it runs, and other's
    later work runs only after it."""
    torch = torch_cuda
    busy, other = torch.cuda.Stream(), torch.cuda.Stream()
    t = dlx.zeros((1 << 20,), device="cuda")
    one = dlx.full((1 << 20,), 1.0, device="cuda")  # (a Python scalar is staged with a copy that waits)
    torch.cuda.synchronize()
    with cuda.stream(busy):  # dlx's current stream is the busy one
        _busy(torch, busy)
        t += one  # dlx's work, queued behind the kernel
        t0 = time.perf_counter()
        cap = t.__dlpack__(max_version=(1, 3), stream=other.cuda_stream)
        dt = time.perf_counter() - t0
    assert not busy.query(), "the export waited for the device (the busy kernel finished)"
    assert dt < 0.1, f"__dlpack__ took {dt * 1e3:.1f} ms"
    done = torch.cuda.Event()
    done.record(other)
    assert not done.query(), "the consumer's stream did not wait for dlx's work"
    y = torch.from_dlpack(cap)
    with torch.cuda.stream(other):
        total = y.sum()
    other.synchronize()
    assert busy.query() and total.item() == float(1 << 20)
    # -1: no synchronisation at all: other does not wait for the busy kernel
    with cuda.stream(busy):
        _busy(torch, busy)
        Parsed(t.__dlpack__(max_version=(1, 3), stream=-1))
        done = torch.cuda.Event()
        done.record(other)
        done.synchronize()
        assert not busy.query(), "stream=-1 made the consumer's stream wait"
        for s in (None, 1, 2):  # the legacy and per-thread default streams are taken as CUDA's own handles
            Parsed(t.__dlpack__(max_version=(1, 3), stream=s))
    torch.cuda.synchronize()


@needs_device
def test_dlx_as_consumer_orders_after_the_producer(torch_cuda):
    """torch writes on a busy side stream; dlx imports (exchange API: it waits for torch's current stream;
    __dlpack__: torch waits for dlx's stream argument) and computes on its own stream: it sees the write."""
    torch = torch_cuda
    side = torch.cuda.Stream()
    one = dlx.full((1 << 20,), 1.0, device="cuda")
    for via_table in (True, False):
        x = torch.zeros(1 << 20, device="cuda")
        torch.cuda.synchronize()
        with torch.cuda.stream(side):
            _busy(torch, side)
            x.fill_(5)
            t = dlx.from_dlpack(x if via_table else _NoTable(x))
            assert not side.query()
            y = t + one  # dlx's current stream (legacy default), ordered after torch's write
        assert np.from_dlpack(y.to("cpu"))[::4096].tolist() == [6.0] * 256
        torch.cuda.synchronize()


class _NoTable:
    """A torch tensor seen only through __dlpack__ (no exchange API)."""

    def __init__(self, x):
        self.x = x

    def __dlpack__(self, **kw):
        self.kw = kw
        return self.x.__dlpack__(**kw)

    def __dlpack_device__(self):
        return self.x.__dlpack_device__()


@needs_device
def test_dlx_passes_its_current_stream_to_dunder_dlpack(torch_cuda):
    torch = torch_cuda
    p = _NoTable(torch.zeros(4, device="cuda"))
    dlx.from_dlpack(p)
    assert p.kw.get("stream") == 1  # the legacy default stream, as the standard spells it
    s = cuda.Stream()
    with cuda.stream(s):
        dlx.from_dlpack(p)
    assert p.kw.get("stream") == s.cuda_stream
    h = _NoTable(torch.zeros(4))
    dlx.from_dlpack(h)
    assert "stream" not in h.kw  # host memory: no stream


@needs_device
def test_record_and_wait(torch_cuda):
    torch = torch_cuda
    busy, later = torch.cuda.Stream(), torch.cuda.Stream()
    t = dlx.zeros((1 << 20,), device="cuda")
    two = dlx.full((1 << 20,), 2.0, device="cuda")
    torch.cuda.synchronize()
    with cuda.stream(busy):
        _busy(torch, busy)
        t += two
        assert t.record() is t  # the last use, on busy
    v = t[10:]
    assert v.wait(later) is v  # a view waits for the storage's event
    done = torch.cuda.Event()
    done.record(later)
    assert not done.query()
    later.synchronize()
    assert busy.query()
    # a dlx stream and a foreign int handle work alike
    s = cuda.Stream()
    t.record(s).wait(later.cuda_stream)
    del t, v
    gc.collect()  # the block is not reused before the recorded use: released through the stream's wait
    torch.cuda.synchronize()


@needs_device
def test_deleter_exactly_once_with_device_tensors(torch_cuda, exported_alive):
    torch = torch_cuda
    torch.cuda.synchronize()
    base = torch.cuda.memory_allocated()
    x = torch.ones(1 << 18, device="cuda")
    t = dlx.from_dlpack(x)
    views = [t[::2], t[1:], t.reshape(512, 512)]
    back = [torch.from_dlpack(v) for v in views]
    del x
    gc.collect()
    assert torch.cuda.memory_allocated() > base  # dlx's storage keeps torch's memory alive
    del t, views
    gc.collect()
    assert torch.cuda.memory_allocated() > base  # so do the exports to torch
    del back
    gc.collect()
    torch.cuda.synchronize()
    assert torch.cuda.memory_allocated() == base  # torch's deleter ran
    assert exported_alive() == 0
    d = dlx.zeros((1000,), device="cuda")
    caps = [d.__dlpack__(max_version=(1, 3)) for _ in range(3)]
    assert exported_alive() == 3
    imported = dlx.from_dlpack(caps[0])
    del caps, d
    gc.collect()
    assert exported_alive() == 1
    del imported
    gc.collect()
    assert exported_alive() == 0


@needs_device
def test_memory_stats_and_empty_cache():
    cuda.synchronize()
    cuda.empty_cache()
    s0 = cuda.memory_stats()
    assert set(s0) == {"allocated", "cached", "peak_allocated", "driver_allocs"} and s0["cached"] == 0
    t = dlx.empty((1 << 20,), device="cuda")
    s1 = cuda.memory_stats("cuda:0")
    assert s1["allocated"] >= s0["allocated"] + (4 << 20) and s1["driver_allocs"] == s0["driver_allocs"] + 1
    p = t.data_ptr
    del t
    u = dlx.empty((1 << 20,), device="cuda")  # the cached block again
    assert u.data_ptr == p and cuda.memory_stats()["driver_allocs"] == s1["driver_allocs"]
    del u
    cuda.synchronize()
    cuda.empty_cache()
    assert cuda.memory_stats(0)["cached"] == 0
    with pytest.raises(RuntimeError, match="does not exist"):
        cuda.memory_stats(1000)


@needs_device
def test_streams_are_per_thread():
    s = cuda.Stream()
    assert s.device == 0 and "wrapped" not in repr(s)
    assert cuda.current_stream().cuda_stream == 0
    seen = []
    with cuda.stream(s) as entered:
        assert entered is s and cuda.current_stream() == s
        th = threading.Thread(target=lambda: seen.append(cuda.current_stream().cuda_stream))
        th.start()
        th.join()
        with cuda.stream(cuda.Stream(0)):  # nested: the legacy default stream
            assert cuda.current_stream().cuda_stream == 0
        assert cuda.current_stream() == s
    assert seen == [0] and cuda.current_stream().cuda_stream == 0
    other = cuda.Stream(non_blocking=False)
    other.wait_stream(s)
    s.synchronize()
    other.close()
    other.close()  # once only
    cuda.synchronize()
    cuda.synchronize(0)
    cuda.synchronize("cuda:0")
    with pytest.raises(ValueError, match="is not a CUDA device"):
        cuda.synchronize("cpu")


@needs_device
def test_cupy_round_trip(cupy, exported_alive):
    x = cupy.arange(12, dtype=cupy.float32).reshape(3, 4)
    t = dlx.from_dlpack(x)
    assert (t.device, t.data_ptr) == ((2, 0), x.data.ptr)
    y = cupy.from_dlpack(t)
    assert y.data.ptr == x.data.ptr
    s = cupy.cuda.Stream(non_blocking=True)
    with s, cuda.stream(s):  # CuPy's stream is dlx's current stream: one order for both
        x += 1
        z = t * 2
        w = cupy.from_dlpack(z)
    s.synchronize()
    assert cupy.array_equal(w, (cupy.arange(12, dtype=cupy.float32).reshape(3, 4) + 1) * 2)
    del t, y, z, w
    gc.collect()
    assert exported_alive() == 0


@needs_device
def test_jax_gpu_round_trip(jax_gpu):
    jax, gpu = jax_gpu
    import jax.numpy as jnp

    x = jax.device_put(jnp.arange(12, dtype=jnp.float32).reshape(3, 4), gpu)
    t = dlx.from_dlpack(x)
    assert t.device == (2, gpu.id) and t.data_ptr == x.unsafe_buffer_pointer()
    y = jax.dlpack.from_dlpack(t + 1)
    assert list(y.devices())[0].platform == "gpu"
    np.testing.assert_array_equal(np.asarray(y), np.arange(12, dtype=np.float32).reshape(3, 4) + 1)
