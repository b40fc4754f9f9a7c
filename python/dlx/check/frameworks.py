"""What the checker needs to know of each framework it checks: how to make an array, what the framework
itself says the array is (its data pointer, strides, read-only flag and values: "the producer's own view"),
and how to import, read and write through its from_dlpack. One class per framework; anything a framework
cannot say is None, and the checks that need it report n/a with that reason.

The target protocol (docs/conformance.md, "Checking your own code"): a target is
 - a known framework name (FRAMEWORKS);
 - "module:function": as a producer function(shape, dtype, device) returns an array (dtype a dlx name such
   as "float32", device a DLPack (type, id) tuple); a function that takes a `readonly` keyword is asked
   for the read-only array with readonly=True. As a consumer, function is from_dlpack-like;
 - an adapter: "module:Name" where Name is a subclass of Adapter (instantiated without arguments), an
   instance of one, or any class or object with some of Adapter's methods; or "module" itself when the
   module defines them (make, from_dlpack, ...). An adapter overrides what its framework can say; every
   method left out keeps Adapter's default (which says nothing, or reads __array_interface__).
"""

import ctypes as C
import importlib
import inspect
import os
import re

from . import _capsule as cap

INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
CORE = ["bool"] + INTS + ["float16", "float32", "float64", "complex64", "complex128"]
FLOAT8 = ["float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2",
          "float8_e5m2fnuz", "float8_e8m0fnu"]
ALL = CORE + ["bfloat16"] + FLOAT8
DTYPE_NAMES = set(ALL)


class Unavailable(Exception):
    """The target cannot be imported or used here; the message says why (a usage error: exit status 2)."""


class NothingToCheck(Unavailable):
    """The target loads but nothing of it can be checked here (no device of the kinds asked, no array it
    can make): exit status 3."""


def _import(name):
    try:
        return importlib.import_module(name)
    except Exception as e:  # noqa: BLE001 - any failure means "not available"
        raise Unavailable(f"{name} cannot be imported: {type(e).__name__}: {e}") from e


def _size(shape):
    n = 1
    for e in shape:
        n *= e
    return n


class Framework:
    """The adapter protocol, and its defaults: a CPU-only framework that can say nothing about its arrays.

    Producer side: devices(), dtypes(dev), make(shape, dtype, dev) (required), make_readonly(x),
    readonly(x), broadcast(x, shape), data_ptr(x) (address of element 0), strides(x) (in elements),
    values(x) (the values, row-major: a NumPy array or bytes), extras(dev), pending(shape, dtype, dev).
    Consumer side: consumer_devices(), consumer_dtypes(), from_dlpack(obj, **kw) (required), read(y) (the
    values of an imported array: a NumPy array or bytes), write(y), device_of(y), dtype_of(y) (anything
    numpy.dtype() accepts, a dlx dtype name, or an object whose str() ends with one).
    refusals: the exception classes the framework raises when it refuses an array or a request (counted
    as refusals where the standard does not insist on BufferError)."""

    name, version = "?", ""
    refusals = ()

    # ---- producer side
    def devices(self):
        return [(cap.KDL_CPU, 0)]

    def dtypes(self, dev):
        return []

    def make(self, shape, dtype, dev):
        raise NotImplementedError

    def readonly(self, x):
        return None

    def make_readonly(self, x):
        return None

    def broadcast(self, x, shape):
        return None

    def data_ptr(self, x):
        return None

    def strides(self, x):
        return None

    def values(self, x):
        return None

    def extras(self, dev):
        """Framework-specific catalogue entries: (label, array, dtype, may_copy)."""
        return []

    def make_big(self, n, dev):
        """A float32 array of n elements whose memory is taken at once (for the leak probe)."""
        return self.make((n,), "float32", dev)

    def pending(self, shape, dtype, dev):
        """(array with work still queued on its stream, its final values) for the stream-order check."""
        return None

    # ---- consumer side
    def consumer_devices(self):
        return [(cap.KDL_CPU, 0)]

    def consumer_dtypes(self):
        return ["float32"]

    def from_dlpack(self, obj, **kw):
        raise NotImplementedError

    def read(self, y):
        """The values of an imported array as compact row-major bytes."""
        return _read_through_dlx(y)

    def write(self, y):
        """Try to write element 0 (raises when the array refuses)."""
        y[(0,) * len(y.shape)] = 0

    def device_of(self, y):
        return tuple(int(v) for v in y.__dlpack_device__())

    def dtype_of(self, y):
        """The imported array's dtype as the framework names it (compared through same_dtype)."""
        return y.dtype


Adapter = Framework  # the name the docs use for a user's own adapter

HOOKS = ("devices", "dtypes", "make", "make_big", "make_readonly", "readonly", "broadcast", "data_ptr", "strides", "values",
         "extras", "pending", "consumer_devices", "consumer_dtypes", "from_dlpack", "read", "write", "device_of",
         "dtype_of")


def as_bytes(v):
    """Values as compact row-major bytes: bytes stay, arrays (NumPy's, or anything with tobytes after
    numpy.ascontiguousarray) are converted; None stays None."""
    if v is None or isinstance(v, (bytes, bytearray)):
        return None if v is None else bytes(v)
    import numpy as np

    return np.ascontiguousarray(v).tobytes()


def _np_dtype(name):
    """numpy.dtype of a dlx name (ml_dtypes for bfloat16 and the float8 formats); None when unknown."""
    try:
        import numpy as np
    except ImportError:
        return None
    if name in CORE:
        return np.dtype(name)
    try:
        import ml_dtypes

        return np.dtype(getattr(ml_dtypes, name))
    except Exception:  # noqa: BLE001
        return None


_DTYPE_WORD = re.compile(r"[a-z0-9_]+")


def same_dtype(got, name):
    """Whether a framework's dtype object is the dlx dtype name: through NumPy's conversion where it
    applies (numpy dtypes, scalar types, TensorFlow's as_numpy_dtype), else by the last dtype name in its
    text (torch.float32, paddle.bool, <dtype: 'bool'>, mlx.core.float32); never by str() alone."""
    if isinstance(got, str) and got == name:
        return True
    want = _np_dtype(name)
    for cand in (getattr(got, "as_numpy_dtype", None), got):
        if cand is None or want is None or isinstance(cand, str):
            continue
        try:
            import numpy as np

            return np.dtype(cand) == want
        except Exception:  # noqa: BLE001 - not something NumPy converts: fall back on its name
            pass
    words = [w for w in _DTYPE_WORD.findall(str(got).lower()) if w in DTYPE_NAMES]
    return bool(words) and words[-1] == name


def dtype_text(got):
    return str(got)


def _read_through_dlx(y):
    import dlx

    t = dlx.from_dlpack(y)
    return _dlx_bytes(t)


def _dlx_bytes(t):
    import dlx

    if not dlx.Tensor.__dlpack_device__(t)[0] in cap.HOST_TYPES:
        t = t.to("cpu")
    c = dlx.from_dlpack(t, copy=True)
    return C.string_at(c.data_ptr, c.nbytes) if c.nbytes else b""


def _np_strides(x):
    if any(s % x.itemsize for s in x.strides):
        return None
    return tuple(s // x.itemsize for s in x.strides)


class NumPy(Framework):
    name = "numpy"

    def __init__(self):
        self.np = _import("numpy")
        self.version = self.np.__version__
        try:
            self.ml = importlib.import_module("ml_dtypes")
        except Exception:  # noqa: BLE001 - bfloat16 and float8 are then not made
            self.ml = None

    def _dtype(self, dtype):
        if dtype in CORE:
            return self.np.dtype(dtype)
        return self.np.dtype(getattr(self.ml, dtype)) if self.ml is not None and hasattr(self.ml, dtype) else None

    def dtypes(self, dev):
        return [d for d in ALL if self._dtype(d) is not None]

    def make(self, shape, dtype, dev):
        np = self.np
        n = _size(shape)
        base = (np.arange(n) % 13 - 6).astype(np.float64)
        if dtype == "bool":
            a = base > 0
        elif dtype.startswith("complex"):
            a = (base + 0.5j * base[::-1]).astype(dtype)
        elif dtype in INTS:
            a = (np.arange(n) % 100 + 1).astype(dtype)
        else:
            a = base.astype(np.float32).astype(self._dtype(dtype))
        return a.reshape(shape)

    def readonly(self, x):
        return not x.flags.writeable

    def make_big(self, n, dev):
        return self.np.ones(n, self.np.float32)

    def make_readonly(self, x):
        y = x.copy()
        y.flags.writeable = False
        return y

    def broadcast(self, x, shape):
        return self.np.broadcast_to(x, shape)

    def data_ptr(self, x):
        return x.__array_interface__["data"][0]

    def strides(self, x):
        return _np_strides(x)

    def values(self, x):
        return self.np.ascontiguousarray(x).tobytes()

    def consumer_dtypes(self):
        return list(CORE)

    def from_dlpack(self, obj, **kw):
        return self.np.from_dlpack(obj, **kw)

    def read(self, y):
        return self.np.ascontiguousarray(y).tobytes()


class Torch(Framework):
    name = "torch"

    def __init__(self):
        self.torch = _import("torch")
        self.version = self.torch.__version__

    def _dtype(self, dtype):
        return getattr(self.torch, dtype, None)

    def devices(self):
        devs = [(cap.KDL_CPU, 0)]
        if self.torch.cuda.is_available():
            devs += [(cap.KDL_CUDA, i) for i in range(self.torch.cuda.device_count())]
        return devs

    def _device(self, dev):
        return "cpu" if dev[0] == cap.KDL_CPU else f"cuda:{dev[1]}"

    def dtypes(self, dev):
        return [d for d in ALL if self._dtype(d) is not None]

    def make(self, shape, dtype, dev):
        torch = self.torch
        n = _size(shape)
        base = torch.arange(n, dtype=torch.float64).remainder(13).sub(6)
        if dtype == "bool":
            a = base > 0
        elif dtype.startswith("complex"):
            a = torch.complex(base, base.flip(0) * 0.5).to(self._dtype(dtype))
        elif dtype in INTS:
            a = (torch.arange(n).remainder(100) + 1).to(self._dtype(dtype))
        else:
            a = base.to(torch.float32).to(self._dtype(dtype))
        return a.reshape(shape).to(self._device(dev))

    def readonly(self, x):
        return False  # torch has no read-only tensors

    def make_big(self, n, dev):
        return self.torch.ones(n, dtype=self.torch.float32, device=self._device(dev))

    def broadcast(self, x, shape):
        return x.expand(shape)

    def data_ptr(self, x):
        return x.data_ptr()

    def strides(self, x):
        return tuple(x.stride())

    def values(self, x):
        torch = self.torch
        x = x.resolve_conj().resolve_neg().contiguous().cpu().reshape(-1)
        if x.numel() == 0:
            return b""
        return x.view(torch.uint8).numpy().tobytes()

    def extras(self, dev):
        """A negative-bit view and a conjugate-bit view: their memory holds other values than they do."""
        torch = self.torch
        f = self.make((4, 6), "float32", dev)
        c = self.make((4, 6), "complex64", dev)
        return [("neg-bit view (torch._neg_view)", torch._neg_view(f), "float32", True),
                ("conj-bit view (Tensor.conj)", c.conj(), "complex64", True)]

    def pending(self, shape, dtype, dev):
        if dev[0] != cap.KDL_CUDA:
            return None
        torch = self.torch
        x = torch.zeros(shape, dtype=self._dtype(dtype), device=self._device(dev))
        torch.cuda._sleep(200_000_000)  # queue a long kernel, then the write, on torch's current stream
        x.fill_(3)
        want = torch.full(shape, 3, dtype=self._dtype(dtype)).view(torch.uint8).numpy().tobytes()
        return x, want

    def consumer_devices(self):
        return self.devices()

    def consumer_dtypes(self):
        return [d for d in ALL if self._dtype(d) is not None]

    def from_dlpack(self, obj, **kw):
        return self.torch.from_dlpack(obj, **kw)

    def read(self, y):
        return self.values(y)


class Jax(Framework):
    name = "jax"

    def __init__(self):
        os.environ.setdefault("JAX_PLATFORMS", "cpu")
        os.environ.setdefault("JAX_ENABLE_X64", "1")  # so that int64, float64 and complex128 stay themselves
        self.jax = _import("jax")
        self.jnp = _import("jax.numpy")
        self.dlpack = _import("jax.dlpack")
        self.np = _import("numpy")
        self.version = self.jax.__version__

    def devices(self):
        devs = [(cap.KDL_CPU, 0)]
        try:
            devs += [(cap.KDL_CUDA, d.id) for d in self.jax.devices("cuda")]
        except Exception:  # noqa: BLE001 - no GPU backend
            pass
        return devs

    def _device(self, dev):
        return self.jax.devices("cpu" if dev[0] == cap.KDL_CPU else "cuda")[0 if dev[0] == cap.KDL_CPU else dev[1]]

    def dtypes(self, dev):
        # without jax_enable_x64 (set before JAX was first imported) JAX makes 64-bit types 32-bit
        wide = {"int64", "uint64", "float64", "complex128"}
        x64 = bool(getattr(self.jax.config, "jax_enable_x64", True))
        return [d for d in ALL if hasattr(self.jnp, d) and (x64 or d not in wide)]

    def make(self, shape, dtype, dev):
        a = _numpy_maker(self.np).make(shape, dtype, dev)
        # copy=True: a buffer of JAX's own, as computed arrays have (on the CPU, jaxlib may alias an aligned
        # NumPy array instead, and such arrays answer some requests otherwise: stream=1 is accepted)
        x = self.jnp.array(a, dtype=getattr(self.jnp, dtype), copy=True)
        return self.jax.device_put(x, self._device(dev))

    def broadcast(self, x, shape):
        return self.jnp.broadcast_to(x, shape)

    def make_big(self, n, dev):
        return self.jax.device_put(self.jnp.ones(n, self.jnp.float32), self._device(dev)).block_until_ready()

    def data_ptr(self, x):
        return x.unsafe_buffer_pointer() if x.size else None

    def strides(self, x):
        return tuple(cap._compact(x.shape))  # JAX arrays are compact row-major on the CPU

    def values(self, x):
        return self.np.asarray(x).tobytes()

    def consumer_devices(self):
        return self.devices()

    def consumer_dtypes(self):
        return self.dtypes(None)

    def from_dlpack(self, obj, **kw):
        return self.dlpack.from_dlpack(obj, **kw)

    def read(self, y):
        return self.np.asarray(y).tobytes()


class Dpctl(Framework):
    name = "dpctl"

    def __init__(self):
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # dpctl.tensor moves to dpnp.tensor
            self.dpctl = _import("dpctl")
            self.dpt = _import("dpctl.tensor")
        self.np = _import("numpy")
        self.version = self.dpctl.__version__
        self.sycl = self.dpctl.get_devices()
        if not self.sycl:
            raise NothingToCheck(f"dpctl {self.version} finds no SYCL device (OCL_ICD_VENDORS: see the README)")

    def devices(self):
        return [(cap.KDL_ONEAPI, i) for i in range(len(self.sycl))]

    def dtypes(self, dev):
        d = self.sycl[dev[1]]
        return [t for t in CORE if (t != "float16" or d.has_aspect_fp16) and
                (t not in ("float64", "complex128") or d.has_aspect_fp64)]

    def make(self, shape, dtype, dev):
        a = _numpy_maker(self.np).make(shape, dtype, dev)
        x = self.dpt.asarray(a, device=self.sycl[dev[1]])
        x.sycl_queue.wait()
        return x

    def readonly(self, x):
        return not x.flags.writable

    def make_readonly(self, x):
        y = self.dpt.copy(x)
        y.sycl_queue.wait()
        y.flags.writable = False
        return y

    def broadcast(self, x, shape):
        return self.dpt.broadcast_to(x, shape)

    def data_ptr(self, x):
        return x.usm_data._pointer + x._element_offset * x.itemsize

    def strides(self, x):
        return tuple(x.strides)  # dpctl's strides are in elements

    def values(self, x):
        return self.dpt.asnumpy(x).tobytes()

    def consumer_devices(self):
        return [(cap.KDL_CPU, 0)] + self.devices()

    def consumer_dtypes(self):
        return self.dtypes((cap.KDL_ONEAPI, 0))

    def from_dlpack(self, obj, **kw):
        return self.dpt.from_dlpack(obj, **kw)

    def read(self, y):
        if isinstance(y, self.np.ndarray):  # host data comes back as a NumPy array
            return self.np.ascontiguousarray(y).tobytes()
        return self.dpt.asnumpy(y).tobytes()


def _numpy_maker(np):
    m = NumPy.__new__(NumPy)
    m.np = np
    try:
        m.ml = importlib.import_module("ml_dtypes")
    except Exception:  # noqa: BLE001
        m.ml = None
    return m


class CuPy(Framework):
    name = "cupy"

    def __init__(self):
        self.cupy = _import("cupy")
        self.np = _import("numpy")
        self.version = self.cupy.__version__
        try:
            n = self.cupy.cuda.runtime.getDeviceCount()
        except Exception as e:  # noqa: BLE001
            raise NothingToCheck(f"cupy {self.version} sees no CUDA device: {type(e).__name__}: {e}") from e
        self.ndev = n

    def devices(self):
        return [(cap.KDL_CUDA, i) for i in range(self.ndev)]

    def dtypes(self, dev):
        return list(CORE)

    def make(self, shape, dtype, dev):
        a = _numpy_maker(self.np).make(shape, dtype, dev)
        with self.cupy.cuda.Device(dev[1]):
            return self.cupy.asarray(a)

    def readonly(self, x):
        return False

    def broadcast(self, x, shape):
        return self.cupy.broadcast_to(x, shape)

    def data_ptr(self, x):
        return x.data.ptr

    def strides(self, x):
        return _np_strides(x)

    def values(self, x):
        return self.cupy.asnumpy(x).tobytes()

    def pending(self, shape, dtype, dev):
        cupy = self.cupy
        spin = cupy.RawKernel(r"""extern "C" __global__ void dlx_spin(long long n) {
            long long t = clock64(); while (clock64() - t < n) {} }""", "dlx_spin")
        with cupy.cuda.Device(dev[1]):
            x = cupy.zeros(shape, dtype=dtype)
            cupy.cuda.runtime.deviceSynchronize()
            spin((1,), (1,), (cupy.int64(200_000_000),))  # a long kernel, then the write, on CuPy's stream
            x.fill(3)
        return x, self.np.full(shape, 3, dtype=dtype).tobytes()

    def consumer_devices(self):
        return self.devices()

    def consumer_dtypes(self):
        return list(CORE)

    def from_dlpack(self, obj, **kw):
        return self.cupy.from_dlpack(obj, **kw)

    def read(self, y):
        return self.cupy.asnumpy(y).tobytes()


class Dlx(Framework):
    name = "dlx"

    def __init__(self):
        self.dlx = _import("dlx")
        self.version = self.dlx.__version__
        self._keep = []  # the exports behind read-only tensors

    def devices(self):
        dlx = self.dlx
        devs = [(cap.KDL_CPU, 0)]
        if dlx.cuda.is_available():
            devs += [(cap.KDL_CUDA, i) for i in range(dlx.cuda.device_count())]
        if os.environ.get("OCL_ICD_VENDORS"):  # SYCL devices are only usable with the runtime's ICDs set
            try:
                devs += [(cap.KDL_ONEAPI, i) for i in range(dlx.oneapi.device_count())]
            except Exception:  # noqa: BLE001 - dpctl's C API not loadable: no oneAPI device
                pass
        return devs

    def _device(self, dev):
        return {cap.KDL_CPU: "cpu", cap.KDL_CUDA: "cuda", cap.KDL_ONEAPI: "oneapi"}[dev[0]] + \
            ("" if dev[0] == cap.KDL_CPU else f":{dev[1]}")

    def dtypes(self, dev):
        return list(ALL) if dev[0] in cap.HOST_TYPES else list(CORE)

    def make(self, shape, dtype, dev):
        dlx = self.dlx
        n = _size(shape)
        if dtype == "bool":
            vals = [i % 13 > 6 for i in range(n)]
        elif dtype in INTS:
            vals = [i % 100 + 1 for i in range(n)]
        elif dtype.startswith("complex"):
            vals = [complex(i % 13 - 6, (n - 1 - i) % 13 - 6) for i in range(n)]
        else:
            vals = [float(i % 13 - 6) for i in range(n)]
        t = dlx.asarray(vals, dtype=dtype).reshape(shape) if n else dlx.zeros(shape, dtype)
        return t if dev[0] == cap.KDL_CPU else t.to(self._device(dev))

    def readonly(self, x):
        return x.readonly

    def make_big(self, n, dev):
        return self.dlx.ones((n,), "float32", device=self._device(dev))

    def make_readonly(self, x):
        if x.device[0] not in cap.HOST_TYPES:
            return None
        data = _dlx_bytes(x)
        buf = cap.HostBuffer(max(len(data), 1))
        buf.write(data)
        e = cap.Export(buf, x.shape, x.dtype, flags=cap.FLAG_READ_ONLY)
        self._keep.append(e)  # the tensor's memory is this export's
        return self.dlx.from_dlpack(e)

    def data_ptr(self, x):
        return x.data_ptr

    def strides(self, x):
        return tuple(x.stride)

    def values(self, x):
        return _dlx_bytes(x)

    def consumer_devices(self):
        return self.devices()

    def consumer_dtypes(self):
        return list(ALL)

    def from_dlpack(self, obj, **kw):
        return self.dlx.from_dlpack(obj, **kw)

    def read(self, y):
        return _dlx_bytes(y)


class Generic(Framework):
    """A "module:function" target. As a producer, function(shape, dtype, device) makes the arrays (and,
    when it takes a `readonly` keyword, the read-only one with readonly=True); what it says of them comes
    from __array_interface__ where it has one. As a consumer, function is from_dlpack."""

    def __init__(self, spec, fn=None, version=""):
        self.name, self.fn, self.version = spec, fn, version
        self._readonly_made = {}  # id -> array asked for with readonly=True (kept alive, so ids stay unique)
        try:
            params = inspect.signature(fn).parameters
        except (TypeError, ValueError):
            params = {}
        self._takes_readonly = "readonly" in params or any(p.kind == p.VAR_KEYWORD for p in params.values())

    def dtypes(self, dev):
        return list(ALL)

    def make(self, shape, dtype, dev):
        return self.fn(tuple(shape), dtype, dev)

    def make_readonly(self, x):
        if not self._takes_readonly:
            return None
        y = self.fn(tuple(int(v) for v in x.shape), "float32", self._dev_of(x), readonly=True)
        if y is not None:
            self._readonly_made[id(y)] = y
        return y

    def _dev_of(self, x):
        try:
            return tuple(int(v) for v in x.__dlpack_device__())
        except Exception:  # noqa: BLE001
            return (cap.KDL_CPU, 0)

    def _iface(self, x):
        return getattr(x, "__array_interface__", None)

    def readonly(self, x):
        i = self._iface(x)
        if i is not None:
            return bool(i["data"][1])
        return True if id(x) in self._readonly_made else None

    def data_ptr(self, x):
        i = self._iface(x)
        return None if i is None else i["data"][0]

    def strides(self, x):
        i = self._iface(x)
        if i is None:
            return None
        size = int(i["typestr"][2:])
        if i.get("strides") is None:
            return tuple(cap._compact(i["shape"]))
        return None if any(s % size for s in i["strides"]) else tuple(s // size for s in i["strides"])

    def values(self, x):
        i = self._iface(x)
        if i is None:
            return None
        size = int(i["typestr"][2:])
        shape = tuple(i["shape"])
        st = self.strides(x)
        return cap.read_elements(i["data"][0], shape, st, size) if st is not None and _size(shape) else b""

    def consumer_dtypes(self):
        return list(ALL)

    def from_dlpack(self, obj, **kw):
        return self.fn(obj, **kw)


class Ducked(Framework):
    """An adapter written without subclassing Adapter: a class, an object or a module that defines some of
    the hooks (HOOKS), and optionally name, version and refusals."""

    def __init__(self, obj, spec):
        self.obj = obj
        self.name = str(getattr(obj, "name", spec))
        self.version = str(getattr(obj, "version", "") or getattr(obj, "__version__", ""))
        self.refusals = tuple(getattr(obj, "refusals", ()) or ())
        for h in HOOKS:
            fn = getattr(obj, h, None)
            if callable(fn):
                setattr(self, h, fn)


FRAMEWORKS = {"numpy": NumPy, "torch": Torch, "jax": Jax, "cupy": CuPy, "dpctl": Dpctl, "dlx": Dlx}


def load(target):
    """The framework adapter for a target name, a module:function or module:Adapter spec, an adapter module,
    or an adapter itself. Raises Unavailable (with the reason) when the target cannot be used."""
    if isinstance(target, Framework):
        return target
    if not isinstance(target, str):
        raise Unavailable(f"a target is a name or a spec, not {type(target).__name__}")
    if target in FRAMEWORKS:
        return FRAMEWORKS[target]()
    mod, colon, attr = target.partition(":")
    if not colon:
        try:
            m = importlib.import_module(target)
        except Exception:  # noqa: BLE001
            m = None
        if m is not None and any(callable(getattr(m, h, None)) for h in ("make", "from_dlpack")):
            return Ducked(m, target)
        raise Unavailable(f"target {target!r} is neither a known framework ({', '.join(FRAMEWORKS)}) nor "
                          "module:function, module:Adapter or an adapter module")
    if not mod or not attr:
        raise Unavailable(f"target {target!r} is neither a known framework nor module:function")
    m = _import(mod)
    obj = m
    for part in attr.split("."):
        obj = getattr(obj, part, None)
    version = str(getattr(m, "__version__", ""))
    if isinstance(obj, type) and issubclass(obj, Framework):
        fw = obj()
    elif isinstance(obj, Framework):
        fw = obj
    elif isinstance(obj, type) or (obj is not None and not inspect.isroutine(obj) and
                                   any(callable(getattr(obj, h, None)) for h in ("make", "from_dlpack"))):
        fw = Ducked(obj() if isinstance(obj, type) else obj, target)
    elif callable(obj):
        return Generic(target, obj, version)
    else:
        raise Unavailable(f"{target}: {attr} is not a callable of {mod}")
    if fw.name in ("?", "") or fw.name is None:
        fw.name = target
    if not fw.version:
        fw.version = version
    return fw
