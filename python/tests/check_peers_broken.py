"""Deliberately broken DLPack producers and consumers, one per defect class, for test_check_producer.py
and test_check_consumer.py: each breaks exactly one rule of `dlx.check`, so that the test can assert that
exactly the matching check fails.

Producers wrap dlx tensors (Wrapper) and tamper with the capsule dlx exports (its struct fields, its name,
its capsule destructor). Consumers are dlx.from_dlpack behind a proxy that tampers with what the producer
hands over, or PyConsumer: a consumer written with ctypes whose ownership steps can be left out.
"""

import ctypes as C

import dlx
from dlx.check import _capsule as cap
from dlx.check import frameworks as F

HOST = (cap.KDL_CPU, 0)

# ---------------------------------------------------------------------------------------------------------
# Capsule surgery


def managed_of(capsule):
    return cap.Described.of(capsule)


def tensor_of(d):
    return d.managed.dl_tensor


def take(capsule):
    """Steal the managed tensor of an unconsumed capsule: (Described, versioned)."""
    d = cap.Described.of(capsule)
    cap.rename(capsule, "used_dltensor_versioned" if d.versioned else "used_dltensor")
    return d


_keep = []  # structs, arrays and callbacks that live as long as the test process


def new_capsule(d, name=None, destructor=None):
    """A capsule for the managed tensor of d under name, with a capsule destructor of our own
    (destructor(cap_addr) in Python; None: the standard one that honours used_)."""
    name = name or ("dltensor_versioned" if d.versioned else "dltensor")

    def standard(cap_addr):
        n = cap._raw.PyCapsule_GetName(cap_addr)
        if n in (b"dltensor", b"dltensor_versioned"):
            call_deleter(cap._raw.PyCapsule_GetPointer(cap_addr, n), n == b"dltensor_versioned")

    fn = cap.immortal(cap.DESTRUCTOR(destructor or standard))
    return cap._api.PyCapsule_New(d.addr, cap.NAMES[name], C.cast(fn, C.c_void_p).value)


def call_deleter(addr, versioned):
    slot = (cap.DLManagedTensorVersioned if versioned else cap.DLManagedTensor).from_address(addr).deleter
    if slot:
        cap.DELETER(slot)(addr)


def as_legacy(vcapsule):
    """A legacy capsule holding the tensor of a versioned one (its deleter deletes the versioned one)."""
    d = take(vcapsule)
    m = cap.DLManagedTensor(tensor_of(d), None, None)

    def deleter(_addr, vaddr=d.addr):
        call_deleter(vaddr, True)

    fn = cap.immortal(cap.DELETER(deleter))
    m.deleter = C.cast(fn, C.c_void_p).value
    _keep.append(m)
    return new_capsule(cap.Described(C.addressof(m), False))


def set_strides(d, strides):
    arr = (C.c_int64 * max(len(strides), 1))(*strides)
    _keep.append(arr)
    tensor_of(d).strides = C.cast(arr, C.POINTER(C.c_int64)) if strides is not None else None


# ---------------------------------------------------------------------------------------------------------
# Producers


class Wrapper:
    """A dlx tensor behind a producer with one defect: defect(t, kw) -> capsule."""

    def __init__(self, t, defect, device=None):
        self.t, self.defect, self.device = t, defect, device

    @property
    def shape(self):
        return self.t.shape

    @property
    def T(self):
        return Wrapper(self.t.T, self.defect, self.device)

    def __getitem__(self, key):
        return Wrapper(self.t[key], self.defect, self.device)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None, **extra):
        if extra:
            raise TypeError(f"__dlpack__() got an unexpected keyword argument {next(iter(extra))!r}")
        kw = {"stream": stream, "max_version": max_version, "dl_device": dl_device, "copy": copy}
        return self.defect(self, kw)

    def __dlpack_device__(self):
        return self.device or self.t.__dlpack_device__()


def good(w, kw):
    return w.t.__dlpack__(**kw)


class BrokenProducer(F.Dlx):
    """dlx's own producer on the host, behind a defect; a few dtypes keep the runs short."""

    def __init__(self, defect, name="broken", device=HOST, wrapper=Wrapper):
        super().__init__()
        self.defect, self.name, self.dev, self.wrapper = defect, name, device, wrapper

    def devices(self):
        return [self.dev]

    def dtypes(self, dev):
        return ["float32", "int16", "complex64"]

    def _wrap(self, t):
        return None if t is None else self.wrapper(t, self.defect, self.dev if self.dev != HOST else None)

    def make(self, shape, dtype, dev):
        return self._wrap(super().make(shape, dtype, HOST))

    def make_readonly(self, x):
        return self._wrap(super().make_readonly(x.t))

    def readonly(self, x):
        return x.t.readonly

    def data_ptr(self, x):
        return x.t.data_ptr

    def strides(self, x):
        return tuple(x.t.stride)

    def values(self, x):
        return F._dlx_bytes(x.t)

    def broadcast(self, x, shape):
        return None


def versioned(w, kw):
    """a versioned capsule whatever max_version says"""
    return w.t.__dlpack__(**dict(kw, max_version=(1, 3)))


def legacy(w, kw):
    """a legacy capsule whatever max_version says"""
    return w.t.__dlpack__(**dict(kw, max_version=None))


def _tamper(fix):
    def defect(w, kw):
        c = w.t.__dlpack__(**kw)
        if cap.capsule_name(c) == "dltensor_versioned" or fix.__name__.startswith("any_"):
            fix(managed_of(c), w, kw)
        return c

    defect.__doc__ = fix.__doc__
    return defect


@_tamper
def major_2(d, w, kw):
    """version 2.0 in a capsule laid out as 1.x"""
    d.managed.version.major = 2


@_tamper
def writable(d, w, kw):
    """read-only data flagged writable"""
    d.managed.flags &= ~cap.FLAG_READ_ONLY


def readonly_legacy(w, kw):
    """read-only data on a legacy capsule when legacy is asked for"""
    if kw["max_version"] is None and w.t.readonly and not kw["copy"]:
        return as_legacy(w.t.__dlpack__(**dict(kw, max_version=(1, 3))))
    return w.t.__dlpack__(**kw)


@_tamper
def no_is_copied(d, w, kw):
    """copies not flagged IS_COPIED"""
    d.managed.flags &= ~cap.FLAG_IS_COPIED


@_tamper
def unknown_flag(d, w, kw):
    """a flag bit no version defines"""
    d.managed.flags |= 1 << 5


@_tamper
def any_uint_for_int(d, w, kw):
    """int16 exported as uint16"""
    t = tensor_of(d)
    if (t.dtype.code, t.dtype.bits) == (0, 16):
        t.dtype.code = 1


@_tamper
def any_shape(d, w, kw):
    """the first two extents swapped"""
    t = tensor_of(d)
    if t.ndim >= 2 and t.shape[0] != t.shape[1]:
        t.shape[0], t.shape[1] = t.shape[1], t.shape[0]


@_tamper
def any_compact_strides(d, w, kw):
    """compact strides made up for any view"""
    t = tensor_of(d)
    if t.ndim and t.strides:
        set_strides(d, cap._compact(d.shape))


@_tamper
def any_offset(d, w, kw):
    """byte_offset off by one element (where the export is not a copy, which has no offset to get wrong)"""
    tensor_of(d).byte_offset += d.dtype[1] // 8 if d.size and not kw["copy"] else 0


@_tamper
def any_misaligned(d, w, kw):
    """byte_offset one byte off (an offset counted in the wrong unit), on a producer that does not say its
    data pointer: only the alignment shows it"""
    tensor_of(d).byte_offset += 1 if d.size and d.dtype[1] > 8 else 0


class NoPointer(BrokenProducer):
    """A producer that does not say its arrays' data pointers (as most frameworks without
    __array_interface__)."""

    def data_ptr(self, x):
        return None


def neg_values(w, kw):
    """exports a negated view's memory unresolved (as torch does with its negative bit)"""
    return w.t.__dlpack__(**kw)


class NegWrapper(Wrapper):
    """What a negative-bit view is: the values are the negation of the memory."""


def device_disagrees(w, kw):
    """__dlpack_device__ says pinned memory, the capsule CPU"""
    return w.t.__dlpack__(**kw)


def cpu_id_1(w, kw):
    """CPU memory labelled device_id 1, consistently"""
    dl = kw["dl_device"]
    c = w.t.__dlpack__(**dict(kw, dl_device=HOST if dl == (cap.KDL_CPU, 1) else dl))
    tensor_of(managed_of(c)).device.device_id = 1
    return c


def copy_same_memory(w, kw):
    """copy=True exports the array's own memory, flagged IS_COPIED"""
    c = w.t.__dlpack__(**dict(kw, copy=None if kw["copy"] else kw["copy"]))
    if kw["copy"] and cap.capsule_name(c) == "dltensor_versioned":
        managed_of(c).managed.flags |= cap.FLAG_IS_COPIED
    return c


def copy_false_valueerror(w, kw):
    """copy=False needing a copy raises ValueError"""
    if kw["copy"] is False and kw["dl_device"] not in (None, w.t.device):
        raise ValueError("a copy is needed")
    return w.t.__dlpack__(**kw)


def own_device_refused(w, kw):
    """any dl_device is refused, the array's own too"""
    if kw["dl_device"] is not None:
        raise BufferError("dl_device is not supported")
    return w.t.__dlpack__(**kw)


def foreign_device_ignored(w, kw):
    """a dl_device it cannot reach is ignored (unless copy=False)"""
    if kw["copy"] is not False and kw["dl_device"] not in (None, w.t.device):
        kw = dict(kw, dl_device=None)
    return w.t.__dlpack__(**kw)


def stream_ignored(w, kw):
    """a stream is accepted for host memory"""
    return w.t.__dlpack__(**dict(kw, stream=None))


_decref = C.PyDLL(None).Py_DecRef
_decref.argtypes, _decref.restype = [C.c_void_p], None


def guarded(d, w):
    """A managed tensor over d's that holds a reference to w (so that the checker sees the release in w's
    reference count, as it sees NumPy's and PyTorch's) and whose deleter, like a debugging allocator,
    aborts the process when called a second time (a double free that real code may survive by chance)."""
    cls = cap.DLManagedTensorVersioned if d.versioned else cap.DLManagedTensor
    m = cls.from_buffer_copy(cls.from_address(d.addr))
    calls = [0]

    def deleter(_addr, inner=d.addr, versioned=d.versioned, owner=id(w)):  # the address: no reference
        calls[0] += 1
        if calls[0] > 1:
            import os

            os.abort()
        call_deleter(inner, versioned)
        _decref(owner)

    fn = cap.immortal(cap.DELETER(deleter))
    m.deleter = C.cast(fn, C.c_void_p).value
    cap._api.Py_IncRef(C.py_object(w))
    _keep.append(m)
    return cap.Described(C.addressof(m), d.versioned)


def _with_destructor(make_destructor):
    def defect(w, kw):
        c = w.t.__dlpack__(**kw)
        d = guarded(take(c), w)
        return new_capsule(d, destructor=make_destructor(d))

    defect.__doc__ = make_destructor.__doc__
    return defect


def _twice_dropped(d):
    """the capsule destructor runs the deleter twice"""

    def destructor(cap_addr):
        n = cap._raw.PyCapsule_GetName(cap_addr)
        if not n.startswith(b"used_"):
            call_deleter(d.addr, d.versioned)
            call_deleter(d.addr, d.versioned)

    return destructor


_twice = _with_destructor(_twice_dropped)


def twice_dropped(w, kw):
    """the capsule destructor of the arrays other than float32 runs the deleter twice (a double free: the
    guarded deleter aborts the worker, as glibc does)"""
    return w.t.__dlpack__(**kw) if w.t.dtype == "float32" else _twice(w, kw)


@_with_destructor
def ignores_used(d):
    """the capsule destructor runs the deleter of a used_ capsule too"""

    def destructor(cap_addr):
        call_deleter(d.addr, d.versioned)

    return destructor


def refusal_valueerror(w, kw):
    """negative strides refused with ValueError, not BufferError"""
    if any(s < 0 for s in w.t.stride):
        raise ValueError("negative strides")
    return w.t.__dlpack__(**kw)


class SwallowingWrapper(Wrapper):
    def __dlpack__(self, **kw):
        """unknown keywords are swallowed"""
        return self.t.__dlpack__(**{k: v for k, v in kw.items() if k in ("stream", "max_version", "dl_device",
                                                                              "copy")})


class BadHeaderWrapper(Wrapper):
    """__dlpack_c_exchange_api__ is not a capsule"""

    __dlpack_c_exchange_api__ = 42


def _exchange_table(shift):
    """A DLPack 1.3 exchange table over Wrapper.__dlpack__, moving byte_offset by shift bytes."""

    def from_py(obj, out):
        d = take(obj.__dlpack__(max_version=(1, 3)))
        tensor_of(d).byte_offset += shift
        out[0] = d.addr
        return 0

    def dltensor_from_py(obj, out):
        return -1

    def stream(dtype, did, out):
        out[0] = None
        return 0

    fns = [cap.immortal(cap.FN_FROM_PY(from_py)),
           cap.immortal(C.PYFUNCTYPE(C.c_int, C.c_int32, C.c_int32, C.POINTER(C.c_void_p))(stream))]
    api = cap.DLPackExchangeAPI()
    api.header.version = cap.DLPackVersion(1, 3)
    api.managed_tensor_allocator = api.managed_tensor_to_py_object_no_sync = C.cast(fns[1], C.c_void_p).value
    api.managed_tensor_from_py_object_no_sync = C.cast(fns[0], C.c_void_p).value
    api.current_work_stream = C.cast(fns[1], C.c_void_p).value
    _keep.append(api)
    return cap._api.PyCapsule_New(C.addressof(api), b"dlpack_exchange_api", None)


class DisagreeingTableWrapper(Wrapper):
    """the exchange API's export is one element off __dlpack__'s"""

    __dlpack_c_exchange_api__ = _exchange_table(4)


class AgreeingTableWrapper(Wrapper):
    """a correct exchange API table"""

    __dlpack_c_exchange_api__ = _exchange_table(0)


class NegProducer(BrokenProducer):
    """A producer with a negated view among its arrays, whose export is the memory unresolved."""

    def extras(self, dev):
        f = self.make((4, 6), "float32", dev)
        return [("negated view", NegWrapper(f.t, neg_values), "float32", True)]

    def values(self, x):
        if isinstance(x, NegWrapper):
            return F._dlx_bytes(-x.t)
        return super().values(x)


class DisagreeingDevice(BrokenProducer):
    def _wrap(self, t):
        return None if t is None else Wrapper(t, self.defect, (cap.KDL_CUDA_HOST, 0))


class FakeCuda(BrokenProducer):
    """Host memory labelled kDLCUDA device 0, so that the CUDA stream rules can be checked on any machine;
    stream_defect decides what happens to stream=0."""

    def __init__(self, accept_stream_0=False):
        self.accept_stream_0 = accept_stream_0
        super().__init__(self._cuda, name="fake-cuda", device=(cap.KDL_CUDA, 0))

    def _cuda(self, w, kw):
        if kw["stream"] == 0 and not self.accept_stream_0:
            raise ValueError("stream 0 is ambiguous")
        dl = kw["dl_device"]
        if dl == (cap.KDL_CPU, 0):
            if kw["copy"] is False:
                raise BufferError("a copy to the host is needed")
            return w.t.__dlpack__(**dict(kw, stream=None, dl_device=None, copy=True))
        if dl not in (None, (cap.KDL_CUDA, 0)):
            raise BufferError(f"cannot export to {dl}")
        c = w.t.__dlpack__(**dict(kw, stream=None, dl_device=None))
        tensor_of(managed_of(c)).device.device_type = cap.KDL_CUDA
        return c


# (defect, expected failing check, producer class keywords)
PRODUCER_DEFECTS = [
    (versioned, "p-capsule-legacy", {}),
    (legacy, "p-capsule-versioned", {}),
    (major_2, "p-version", {}),
    (writable, "p-flag-read-only", {}),
    (readonly_legacy, "p-read-only-legacy", {}),
    (no_is_copied, "p-flag-is-copied", {}),
    (unknown_flag, "p-flags-known", {}),
    (any_uint_for_int, "p-dtype", {}),
    (any_shape, "p-shape", {}),
    (any_compact_strides, "p-strides", {}),
    (any_offset, "p-address", {}),
    (any_misaligned, "p-aligned", {"cls": NoPointer}),
    (cpu_id_1, "p-device-id", {"device": (cap.KDL_CPU, 1)}),
    (copy_same_memory, "p-copy-true", {}),
    (copy_false_valueerror, "p-copy-false", {}),
    (own_device_refused, "p-dl-device-same", {}),
    (foreign_device_ignored, "p-dl-device-refused", {}),
    (stream_ignored, "p-stream-cpu", {}),
    (twice_dropped, "p-deleter-dropped", {}),
    (ignores_used, "p-deleter-consumed", {}),
    (refusal_valueerror, "p-refusal-buffererror", {}),
    (good, "p-unknown-keyword", {"wrapper": SwallowingWrapper}),
    (good, "p-exchange-api", {"wrapper": BadHeaderWrapper}),
    (good, "p-exchange-agrees", {"wrapper": DisagreeingTableWrapper}),
]


# ---------------------------------------------------------------------------------------------------------
# Consumers


class Proxy:
    """What a broken consumer makes of the producer's object: before(kw) -> kw changes the keywords of
    __dlpack__, after(Described) tampers with what the capsule says. device: False hides
    __dlpack_device__ (the consumer never asks it)."""

    def __init__(self, x, before=None, after=None):
        self.x, self.before, self.after = x, before, after

    def __dlpack__(self, **kw):
        if self.before:
            kw = self.before(kw)
        c = self.x.__dlpack__(**kw)
        if self.after and cap.capsule_name(c) in ("dltensor", "dltensor_versioned"):
            d = managed_of(c)
            # a struct that is not what its name says (the mislabelled cases) is left alone: writing
            # through fields read at the wrong offsets would corrupt memory, not test a consumer
            if (not d.versioned or d.version[0] in (1, 2)) and 0 < d.device[0] < 64:
                self.after(d)
        return c

    def __dlpack_device__(self):
        return self.x.__dlpack_device__()


class NoDeviceProxy(Proxy):
    def __getattribute__(self, name):
        if name == "__dlpack_device__":
            raise AttributeError(name)
        return object.__getattribute__(self, name)


def through_dlx(before=None, after=None, proxy=Proxy):
    def from_dlpack(x, **kw):
        return dlx.from_dlpack(proxy(x, before, after), **kw)

    return from_dlpack


def _no_max_version(kw):
    return {k: v for k, v in kw.items() if k != "max_version"}


def _stream_1(kw):
    return dict(kw, stream=1)


def _zero_offset(d):
    tensor_of(d).byte_offset = 0


def _compact(d):
    if d.strides is not None and d.size:
        set_strides(d, cap._compact(d.shape))


def _null_as_column_major(d):
    if d.strides is None and d.ndim > 1:
        st, acc = [], 1
        for e in d.shape:
            st.append(acc)
            acc *= e
        set_strides(d, st)


def _clear_read_only(d):
    if d.versioned:
        d.managed.flags &= ~cap.FLAG_READ_ONLY


def _major_1(d):
    if d.versioned:
        d.managed.version.major = 1


def _float16_as_bfloat16(d):
    t = tensor_of(d)
    if (t.dtype.code, t.dtype.bits) == (2, 16):
        t.dtype.code = 4


# ---- consumers blind to one hostile capsule of dlx.check.consumer.HOSTILE: they "repair" what they cannot
# read (and so import it), or refuse what is legal


def _fill_null_shape(d):
    t = tensor_of(d)
    if t.ndim > 0 and not t.shape:
        arr = (C.c_int64 * t.ndim)(*([1] * t.ndim))  # a guess: every extent 1
        _keep.append(arr)
        t.shape = C.cast(arr, C.POINTER(C.c_int64))


def _ndim_abs(d):
    t = tensor_of(d)
    if t.ndim < 0:
        t.ndim = 0


def _refuse_null_deleter(d):
    if not d.deleter:
        raise BufferError("no deleter: refused")


def _misaligned_down(d):
    t = tensor_of(d)
    t.byte_offset -= t.byte_offset % 4


def _unknown_flags_shift(d):
    if d.versioned and d.flags & ~7:
        tensor_of(d).byte_offset += 4


def _lanes_1(d):
    tensor_of(d).dtype.lanes = max(1, tensor_of(d).dtype.lanes)


def _bits_32(d):
    t = tensor_of(d)
    if t.dtype.bits % 8:
        t.dtype.bits = 32


class SniffingProxy(Proxy):
    """reads a 'dltensor' capsule as a DLManagedTensorVersioned when its first bytes look like version 1.x
    (and so imports a mislabelled capsule)"""

    def __dlpack__(self, **kw):
        c = self.x.__dlpack__(**kw)
        if cap.capsule_name(c) == "dltensor":
            addr = cap._api.PyCapsule_GetPointer(c, b"dltensor")
            v = cap.DLPackVersion.from_address(addr)
            if v.major == 1 and v.minor < 16:
                _keep.append(c)  # the producer's capsule (no destructor) stays alive with its struct
                return cap._api.PyCapsule_New(addr, cap.NAMES["dltensor_versioned"], None)
        return c


def legacy_writable(x, **kw):
    """imports legacy capsules writable"""
    return dlx.from_dlpack(x, writable=True, **kw)


def refuse_zero_size(x, **kw):
    """0-d and empty arrays are refused"""
    y = dlx.from_dlpack(x, **kw)
    if y.ndim == 0 or y.size == 0:
        raise ValueError("no 0-d or empty arrays here")
    return y


def refuse_legacy_answer(x, **kw):
    """a legacy capsule with strides, returned to a versioned request, is refused with TypeError"""

    def after(d):
        if not d.versioned and d.strides is not None:
            raise TypeError("asked for a versioned capsule")

    return dlx.from_dlpack(Proxy(x, after=after), **kw)


def always_copies(x, **kw):
    """every import is a copy"""
    return dlx.from_dlpack(x, copy=True)


def ignores_copy(x, copy=None, **kw):
    """copy=True is ignored"""
    return dlx.from_dlpack(x, **kw)


class Holder:
    """The array a PyConsumer returns: a dlx view of memory it does not own, and the ownership."""

    def __init__(self, t, device, on_death):
        self.t, self.device, self._on_death = t, device, on_death

    @property
    def shape(self):
        return self.t.shape

    def __setitem__(self, key, value):
        self.t[key] = value

    def __dlpack_device__(self):
        return self.device

    def __del__(self):
        self._on_death()


def _alias(d):
    """A capsule describing the memory of d with no deleter and no destructor: dlx views it, the Holder
    owns it. (A destructor in Python could run while dlx's refusal of it is pending, and lose it.)"""
    ro = d.flags & cap.FLAG_READ_ONLY if d.versioned else cap.FLAG_READ_ONLY  # legacy: it cannot say
    m = cap.DLManagedTensorVersioned(cap.DLPackVersion(1, 3), None, None, ro, tensor_of(d))
    if d.strides is None and d.ndim:
        m.version.minor = 1  # NULL strides are compact row-major before 1.2
    _keep.append(m)
    return cap._api.PyCapsule_New(C.addressof(m), cap.NAMES["dltensor_versioned"], None)


class PyConsumer:
    """from_dlpack written with ctypes, as the python_spec describes it, with steps that can be skipped:
    rename (the capsule), delete (the deleter, when the array dies), clear (the capsule's destructor
    after consuming), validate_first (refusals before the rename), normalise (CPU device id 0)."""

    def __init__(self, rename=True, delete=True, clear=True, validate_first=True, normalise=True, doc=""):
        self.rename, self.delete, self.clear = rename, delete, clear
        self.validate_first, self.normalise, self.__doc__ = validate_first, normalise, doc

    def __call__(self, x, copy=None, **kw):
        dev = tuple(x.__dlpack_device__())
        c = x.__dlpack__(max_version=(1, 3), stream=None)
        name = cap.capsule_name(c)
        d = cap.Described.of(c)
        if not self.validate_first:
            self._take(c, d)
        bad = (d.versioned and d.version[0] != 1) or d.dtype[0] > 17 or d.device[0] > 18
        if bad or (self._norm(d.device) != self._norm(dev)):
            raise BufferError(f"refused: {d.version} {d.dtype} {d.device} vs {dev}")
        if self.validate_first:
            self._take(c, d)
        t = dlx.from_dlpack(_alias(d), copy=copy)
        device = self._norm(d.device) if self.normalise else d.device
        keep = c if not self.rename else None

        def on_death(d=d, keep=keep):
            if self.delete:
                call_deleter(d.addr, d.versioned)
            del keep

        return Holder(t, device, on_death) if name else None

    def _norm(self, dev):
        return (dev[0], 0) if dev[0] in cap.HOST_TYPES else tuple(dev)

    def _take(self, c, d):
        if self.rename:
            cap.rename(c, "used_dltensor_versioned" if d.versioned else "used_dltensor")
            if self.clear:
                cap._api.PyCapsule_SetDestructor(c, None)


class BrokenConsumer(F.Dlx):
    """A consumer under test: from_dlpack is fn; its arrays are dlx tensors or Holders."""

    def __init__(self, fn, name="broken-consumer"):
        super().__init__()
        self.fn, self.name = fn, name

    def consumer_devices(self):
        return [HOST]

    def consumer_dtypes(self):
        return ["float32", "float16", "int16", "bool", "complex64"]

    def from_dlpack(self, obj, **kw):
        return self.fn(obj, **kw)

    def read(self, y):
        return F._dlx_bytes(y.t if isinstance(y, Holder) else y)

    def write(self, y):
        (y.t if isinstance(y, Holder) else y)[(0,) * y.t.ndim if isinstance(y, Holder) else (0,) * y.ndim] = 0

    def device_of(self, y):
        return tuple(y.__dlpack_device__())

    def dtype_of(self, y):
        return (y.t if isinstance(y, Holder) else y).dtype


CONSUMER_DEFECTS = [
    (through_dlx(before=_no_max_version), "c-max-version"),
    (through_dlx(before=_stream_1), "c-stream"),
    (through_dlx(after=_float16_as_bfloat16), "c-values"),
    (through_dlx(after=_zero_offset), "c-byte-offset"),
    (through_dlx(after=_compact), "c-strides"),
    (through_dlx(after=_null_as_column_major), "c-null-strides"),
    (refuse_zero_size, "c-zero-size"),
    (through_dlx(after=_clear_read_only), "c-read-only"),
    (refuse_legacy_answer, "c-legacy"),
    (through_dlx(after=_major_1), "c-major"),
    (PyConsumer(rename=False, delete=False, doc="never renames the capsule (it keeps it alive, and its "
                "destructor deletes)"), "c-rename"),
    (PyConsumer(delete=False, clear=False, doc="never runs the deleter"), "c-deleter-once"),
    (PyConsumer(clear=False, doc="leaves the capsule's destructor in place"), "c-destructor-cleared"),
    (PyConsumer(validate_first=False, doc="takes the capsule, then refuses it without deleting"),
     "c-refused-deleter"),
    (through_dlx(proxy=NoDeviceProxy), "c-device-agrees"),
    (PyConsumer(normalise=False, doc="reports CPU device_id 1 as it came"), "c-cpu-device-id"),
    (always_copies, "c-zero-copy"),
    (ignores_copy, "c-copy-true"),
    (through_dlx(after=_fill_null_shape), "c-null-shape"),
    (through_dlx(after=_ndim_abs), "c-ndim-negative"),
    (through_dlx(after=_refuse_null_deleter), "c-null-deleter"),
    (through_dlx(after=_misaligned_down), "c-misaligned"),
    (through_dlx(proxy=SniffingProxy), "c-mislabelled"),
    (through_dlx(after=_unknown_flags_shift), "c-flags-unknown"),
    (through_dlx(after=_lanes_1), "c-lanes"),
    (through_dlx(after=_bits_32), "c-bits"),
    (legacy_writable, "c-legacy-read-only"),
]


def __getattr__(name):
    """The defects by name, as dlx check targets ("check_peers_broken:producer_defect_3"): the tests run
    them in the checker's worker process, where a defect that crashes (a double free) crashes nothing
    else."""
    kind, _, index = name.rpartition("_defect_")
    if kind == "producer" and index.isdigit():
        defect, _check, kw = PRODUCER_DEFECTS[int(index)]
        kw = dict(kw)
        return kw.pop("cls", BrokenProducer)(defect, **kw)
    if kind == "consumer" and index.isdigit():
        return BrokenConsumer(CONSUMER_DEFECTS[int(index)][0])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
