"""A small DLPack producer and consumer written with ctypes, independent of dlx.

The tests use it to build capsules that no framework makes (unknown dtype codes, vector lanes,
ml_dtypes types NumPy will not export, odd versions and flags) and to read the capsules dlx exports
field by field (version, flags, byte_offset, strides) without trusting any dlx code.

Struct layouts follow the DLPack 1.3 C ABI (x86-64 / LP64 offsets, checked below).
"""

import ctypes as C
import itertools

import numpy as np

# ---------------------------------------------------------------------------------------------
# ABI

KDL_CPU = 1
KDL_CUDA = 2
KDL_CUDA_HOST = 3
KDL_CUDA_MANAGED = 13

FLAG_READ_ONLY = 1
FLAG_IS_COPIED = 2
FLAG_SUBBYTE_PADDED = 4


class DLDevice(C.Structure):
    _fields_ = [("device_type", C.c_int32), ("device_id", C.c_int32)]


class DLDataType(C.Structure):
    _fields_ = [("code", C.c_uint8), ("bits", C.c_uint8), ("lanes", C.c_uint16)]


class DLTensor(C.Structure):
    _fields_ = [
        ("data", C.c_void_p),
        ("device", DLDevice),
        ("ndim", C.c_int32),
        ("dtype", DLDataType),
        ("shape", C.POINTER(C.c_int64)),
        ("strides", C.POINTER(C.c_int64)),
        ("byte_offset", C.c_uint64),
    ]


class DLPackVersion(C.Structure):
    _fields_ = [("major", C.c_uint32), ("minor", C.c_uint32)]


# The deleter takes the managed tensor's own address.
DELETER = C.CFUNCTYPE(None, C.c_void_p)


class DLManagedTensor(C.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", C.c_void_p), ("deleter", C.c_void_p)]


class DLManagedTensorVersioned(C.Structure):
    _fields_ = [
        ("version", DLPackVersion),
        ("manager_ctx", C.c_void_p),
        ("deleter", C.c_void_p),
        ("flags", C.c_uint64),
        ("dl_tensor", DLTensor),
    ]


class DLPackExchangeAPIHeader(C.Structure):
    pass


DLPackExchangeAPIHeader._fields_ = [("version", DLPackVersion), ("prev_api", C.POINTER(DLPackExchangeAPIHeader))]


class DLPackExchangeAPI(C.Structure):
    _fields_ = [
        ("header", DLPackExchangeAPIHeader),
        ("managed_tensor_allocator", C.c_void_p),
        ("managed_tensor_from_py_object_no_sync", C.c_void_p),
        ("managed_tensor_to_py_object_no_sync", C.c_void_p),
        ("dltensor_from_py_object_no_sync", C.c_void_p),
        ("current_work_stream", C.c_void_p),
    ]


assert C.sizeof(DLTensor) == 48 and DLTensor.byte_offset.offset == 40
assert C.sizeof(DLManagedTensor) == 64 and DLManagedTensor.deleter.offset == 56
assert C.sizeof(DLManagedTensorVersioned) == 80 and DLManagedTensorVersioned.dl_tensor.offset == 32
assert C.sizeof(DLPackExchangeAPI) == 56

# Function-pointer types of the exchange API. PYFUNCTYPE keeps the GIL and raises the Python
# exception a failing call (return -1) left set.
SET_ERROR = C.CFUNCTYPE(None, C.c_void_p, C.c_char_p, C.c_char_p)
FN_ALLOCATOR = C.PYFUNCTYPE(C.c_int, C.POINTER(DLTensor), C.POINTER(C.c_void_p), C.c_void_p, SET_ERROR)
FN_FROM_PY = C.PYFUNCTYPE(C.c_int, C.c_void_p, C.POINTER(C.c_void_p))
FN_TO_PY = C.PYFUNCTYPE(C.c_int, C.c_void_p, C.POINTER(C.c_void_p))
FN_DLTENSOR_FROM_PY = C.PYFUNCTYPE(C.c_int, C.c_void_p, C.POINTER(DLTensor))
FN_STREAM = C.PYFUNCTYPE(C.c_int, C.c_int32, C.c_int32, C.POINTER(C.c_void_p))

# ---------------------------------------------------------------------------------------------
# Capsule helpers (the Python C API through ctypes.pythonapi, which holds the GIL)

_api = C.pythonapi
_api.PyCapsule_New.restype = C.py_object
_api.PyCapsule_New.argtypes = [C.c_void_p, C.c_char_p, C.c_void_p]
_api.PyCapsule_GetName.restype = C.c_char_p
_api.PyCapsule_GetName.argtypes = [C.py_object]
_api.PyCapsule_GetPointer.restype = C.c_void_p
_api.PyCapsule_GetPointer.argtypes = [C.py_object, C.c_char_p]
_api.PyCapsule_SetName.restype = C.c_int
_api.PyCapsule_SetName.argtypes = [C.py_object, C.c_char_p]
_api.PyCapsule_IsValid.restype = C.c_int
_api.PyCapsule_IsValid.argtypes = [C.py_object, C.c_char_p]
_api.Py_DecRef.argtypes = [C.c_void_p]
_api.Py_DecRef.restype = None
# The destructor gets a borrowed PyObject*; these take it as a plain address.
_raw = C.PyDLL(None)
_raw.PyCapsule_GetName.restype = C.c_char_p
_raw.PyCapsule_GetName.argtypes = [C.c_void_p]
_raw.PyCapsule_GetPointer.restype = C.c_void_p
_raw.PyCapsule_GetPointer.argtypes = [C.c_void_p, C.c_char_p]

# Capsule names must outlive the capsules: module-level bytes objects never die.
NAME_LEGACY = b"dltensor"
NAME_VERSIONED = b"dltensor_versioned"
NAME_USED_LEGACY = b"used_dltensor"
NAME_USED_VERSIONED = b"used_dltensor_versioned"


def capsule_name(cap):
    """The capsule's current name as str (None for an unnamed capsule)."""
    n = _api.PyCapsule_GetName(cap)
    return None if n is None else n.decode()


def capsule_pointer(cap):
    n = _api.PyCapsule_GetName(cap)
    return _api.PyCapsule_GetPointer(cap, n)


def exchange_api(obj_type):
    """The DLPackExchangeAPI a type advertises, as a ctypes struct (None when it has none)."""
    cap = getattr(obj_type, "__dlpack_c_exchange_api__", None)
    if cap is None:
        return None
    ptr = _api.PyCapsule_GetPointer(cap, b"dlpack_exchange_api")
    return DLPackExchangeAPI.from_address(ptr)


# ---------------------------------------------------------------------------------------------
# Producer

ML_CODES = {
    "bfloat16": (4, 16),
    "float8_e3m4": (7, 8),
    "float8_e4m3": (8, 8),
    "float8_e4m3b11fnuz": (9, 8),
    "float8_e4m3fn": (10, 8),
    "float8_e4m3fnuz": (11, 8),
    "float8_e5m2": (12, 8),
    "float8_e5m2fnuz": (13, 8),
    "float8_e8m0fnu": (14, 8),
    "float6_e2m3fn": (15, 6),
    "float6_e3m2fn": (16, 6),
    "float4_e2m1fn": (17, 4),
}


def dltype_of(np_dtype):
    """(code, bits) of a NumPy dtype, ml_dtypes types included."""
    dt = np.dtype(np_dtype)
    if dt.name in ML_CODES:
        return ML_CODES[dt.name]
    if dt.kind == "b":
        return 6, 8
    kind = {"i": 0, "u": 1, "f": 2, "c": 5}[dt.kind]
    return kind, dt.itemsize * 8


class Producer:
    """Capsules over NumPy buffers, with deleters that count their calls.

    `calls` counts deleter calls; `live` counts managed tensors not yet deleted.
    """

    def __init__(self):
        # No locks: a deleter may be called in a state where a lock could not be released again
        # (e.g. with a Python exception already set); list.append and dict.pop are atomic under the GIL.
        self._keep = {}
        self._deleted = []
        self._ids = itertools.count(1)
        # One C callback for every managed tensor, and one capsule destructor.
        self._deleter = DELETER(self._on_delete)
        self._destructor = C.CFUNCTYPE(None, C.c_void_p)(self._on_capsule_free)

    @property
    def calls(self):
        """Deleter calls so far."""
        return len(self._deleted)

    @property
    def live(self):
        """Managed tensors made and not yet deleted."""
        return len(self._keep)

    def _on_delete(self, addr):
        self._deleted.append(addr)
        self._keep.pop(addr, None)

    def _on_capsule_free(self, cap_addr):
        name = _raw.PyCapsule_GetName(cap_addr)
        if name not in (NAME_LEGACY, NAME_VERSIONED):
            return  # consumed: the consumer owns the deleter now
        ptr = _raw.PyCapsule_GetPointer(cap_addr, name)
        self._on_delete(ptr)

    def capsule(self, array=None, **kw):
        """A capsule describing `array` (or raw fields); see managed() for the keywords."""
        addr, name = self.managed(array, **kw)
        return _api.PyCapsule_New(addr, name, C.cast(self._destructor, C.c_void_p).value)

    def managed(self, array=None, *, shape=None, strides=None, code=None, bits=None, lanes=1,
                versioned=True, version=(1, 3), flags=0, byte_offset=0, data=None, null_data=False,
                null_strides=False, null_shape=False, device=(KDL_CPU, 0), deleter=True):
        """A managed tensor describing `array` (or raw fields): (address, capsule name).
        shape/strides/dtype default to the array's."""
        if array is not None:
            array = np.asarray(array)
            if shape is None:
                shape = array.shape
            if strides is None and not null_strides:
                strides = tuple(s // array.itemsize for s in array.strides)
            if code is None:
                code, bits = dltype_of(array.dtype)
            base = array.__array_interface__["data"][0]
        else:
            base = 0
        shape = tuple(shape)
        ndim = len(shape)
        shape_arr = (C.c_int64 * max(ndim, 1))(*shape)
        stride_arr = None if (null_strides or strides is None) else (C.c_int64 * max(ndim, 1))(*strides)
        if data is not None:
            base = data
        if null_data:
            base = 0
        dl = DLTensor()
        dl.data = (base - byte_offset) if base else None
        dl.device = DLDevice(*device)
        dl.ndim = ndim
        dl.dtype = DLDataType(code, bits, lanes)
        dl.shape = None if null_shape else C.cast(shape_arr, C.POINTER(C.c_int64))
        dl.strides = C.cast(stride_arr, C.POINTER(C.c_int64)) if stride_arr is not None else None
        dl.byte_offset = byte_offset
        deleter_ptr = C.cast(self._deleter, C.c_void_p).value if deleter else None
        if versioned:
            m = DLManagedTensorVersioned()
            m.version = DLPackVersion(*version)
            m.flags = flags
            name = NAME_VERSIONED
        else:
            m = DLManagedTensor()
            name = NAME_LEGACY
        m.dl_tensor = dl
        m.deleter = deleter_ptr
        addr = C.addressof(m)
        m.manager_ctx = next(self._ids)
        self._keep[addr] = (m, shape_arr, stride_arr, array)
        return addr, name


class Owner:
    """An object whose __dlpack__ hands out a prepared capsule (for NumPy / torch consumers)."""

    def __init__(self, capsule, device=(KDL_CPU, 0)):
        self._capsule = capsule
        self._device = device
        self.calls = []

    def __dlpack__(self, **kwargs):
        self.calls.append(kwargs)
        cap, self._capsule = self._capsule, None
        return cap

    def __dlpack_device__(self):
        return self._device


# ---------------------------------------------------------------------------------------------
# Consumer


class Parsed:
    """What a capsule holds, read field by field; `consume()` renames it and takes ownership."""

    def __init__(self, cap=None, *, managed_addr=None):
        """From a capsule, or from the address of a DLManagedTensorVersioned (already owned)."""
        self.capsule = cap
        if cap is None:
            self.name = "dltensor_versioned"
            self.addr = managed_addr
        else:
            self.name = capsule_name(cap)
            if self.name not in ("dltensor", "dltensor_versioned"):
                raise ValueError(f"not an unconsumed DLPack capsule: {self.name!r}")
            self.addr = capsule_pointer(cap)
        self.versioned = self.name == "dltensor_versioned"
        if self.versioned:
            self.managed = DLManagedTensorVersioned.from_address(self.addr)
            self.version = (self.managed.version.major, self.managed.version.minor)
            self.flags = self.managed.flags
        else:
            self.managed = DLManagedTensor.from_address(self.addr)
            self.version = None
            self.flags = 0
        t = self.managed.dl_tensor
        self.data = t.data or 0
        self.byte_offset = t.byte_offset
        self.device = (t.device.device_type, t.device.device_id)
        self.ndim = t.ndim
        self.dtype = (t.dtype.code, t.dtype.bits, t.dtype.lanes)
        self.shape = tuple(t.shape[i] for i in range(t.ndim)) if t.ndim else ()
        self.strides = tuple(t.strides[i] for i in range(t.ndim)) if (t.ndim and t.strides) else None
        self.owned = cap is None

    @property
    def address(self):
        """Address of element 0."""
        return self.data + self.byte_offset

    def consume(self):
        used = NAME_USED_VERSIONED if self.versioned else NAME_USED_LEGACY
        assert _api.PyCapsule_SetName(self.capsule, used) == 0
        self.owned = True

    def delete(self):
        """Run the producer's deleter (once; only after consume())."""
        assert self.owned
        self.owned = False
        if self.managed.deleter:
            C.CFUNCTYPE(None, C.c_void_p)(self.managed.deleter)(self.addr)

    def as_numpy(self, np_dtype):
        """A NumPy view of the described memory (caller keeps the capsule alive)."""
        dt = np.dtype(np_dtype)
        n = self.shape
        if self.strides is None:
            st = None
        else:
            st = tuple(s * dt.itemsize for s in self.strides)
        if any(d == 0 for d in n):
            return np.empty(n, dt)
        iface = {"shape": n, "typestr": f"|V{dt.itemsize}", "data": (self.address, bool(self.flags & FLAG_READ_ONLY)),
                 "strides": st, "version": 3}

        class _H:
            __array_interface__ = iface

        return np.asarray(_H()).view(dt)
