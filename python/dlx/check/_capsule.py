"""The DLPack C ABI through ctypes: reading capsules without trusting the producer, watching deleters, and
a reference producer whose every field the consumer checks choose.

Nothing here uses dlx's own import: the checker must be able to tell a producer what is wrong with a
capsule that dlx itself would refuse. Layouts are DLPack 1.3's (x86-64 / LP64 offsets, asserted below).
"""

import ctypes as C

KDL_CPU, KDL_CUDA, KDL_CUDA_HOST, KDL_ROCM, KDL_ROCM_HOST, KDL_CUDA_MANAGED, KDL_ONEAPI = 1, 2, 3, 10, 11, 13, 14
HOST_TYPES = (KDL_CPU, KDL_CUDA_HOST, KDL_ROCM_HOST, KDL_CUDA_MANAGED)  # memory the CPU reads
FLAG_READ_ONLY, FLAG_IS_COPIED, FLAG_PADDED = 1, 2, 4


class DLDevice(C.Structure):
    _fields_ = [("device_type", C.c_int32), ("device_id", C.c_int32)]


class DLDataType(C.Structure):
    _fields_ = [("code", C.c_uint8), ("bits", C.c_uint8), ("lanes", C.c_uint16)]


class DLTensor(C.Structure):
    _fields_ = [("data", C.c_void_p), ("device", DLDevice), ("ndim", C.c_int32), ("dtype", DLDataType),
                ("shape", C.POINTER(C.c_int64)), ("strides", C.POINTER(C.c_int64)), ("byte_offset", C.c_uint64)]


class DLPackVersion(C.Structure):
    _fields_ = [("major", C.c_uint32), ("minor", C.c_uint32)]


class DLManagedTensor(C.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", C.c_void_p), ("deleter", C.c_void_p)]


class DLManagedTensorVersioned(C.Structure):
    _fields_ = [("version", DLPackVersion), ("manager_ctx", C.c_void_p), ("deleter", C.c_void_p),
                ("flags", C.c_uint64), ("dl_tensor", DLTensor)]


class DLPackExchangeAPIHeader(C.Structure):
    pass


DLPackExchangeAPIHeader._fields_ = [("version", DLPackVersion), ("prev_api", C.POINTER(DLPackExchangeAPIHeader))]


class DLPackExchangeAPI(C.Structure):
    _fields_ = [("header", DLPackExchangeAPIHeader), ("managed_tensor_allocator", C.c_void_p),
                ("managed_tensor_from_py_object_no_sync", C.c_void_p),
                ("managed_tensor_to_py_object_no_sync", C.c_void_p),
                ("dltensor_from_py_object_no_sync", C.c_void_p), ("current_work_stream", C.c_void_p)]


assert C.sizeof(DLTensor) == 48 and C.sizeof(DLManagedTensor) == 64
assert C.sizeof(DLManagedTensorVersioned) == 80 and DLManagedTensorVersioned.dl_tensor.offset == 32

DELETER = C.CFUNCTYPE(None, C.c_void_p)
DESTRUCTOR = C.CFUNCTYPE(None, C.c_void_p)
_CALL_DESTRUCTOR = C.PYFUNCTYPE(None, C.c_void_p)
# the exchange API's functions, called with the GIL held: PYFUNCTYPE raises what a failing call left set
FN_FROM_PY = C.PYFUNCTYPE(C.c_int, C.py_object, C.POINTER(C.c_void_p))
FN_DLTENSOR_FROM_PY = C.PYFUNCTYPE(C.c_int, C.py_object, C.POINTER(DLTensor))

# private handles: ctypes.pythonapi's function objects are shared by every module of the process, and a target
# that sets their argtypes too (warp-lang does) would break the checker's calls (issue 27, item 3)
_api = C.PyDLL(None)
for _name, _res, _args in [
        ("PyCapsule_New", C.py_object, [C.c_void_p, C.c_char_p, C.c_void_p]),
        ("PyCapsule_GetName", C.c_char_p, [C.py_object]),
        ("PyCapsule_GetPointer", C.c_void_p, [C.py_object, C.c_char_p]),
        ("PyCapsule_SetName", C.c_int, [C.py_object, C.c_char_p]),
        ("PyCapsule_IsValid", C.c_int, [C.py_object, C.c_char_p]),
        ("PyCapsule_GetDestructor", C.c_void_p, [C.py_object]),
        ("PyCapsule_SetDestructor", C.c_int, [C.py_object, C.c_void_p])]:
    getattr(_api, _name).restype, getattr(_api, _name).argtypes = _res, _args
# a destructor gets the capsule as a borrowed address
_raw = C.PyDLL(None)
_raw.PyCapsule_GetName.restype, _raw.PyCapsule_GetName.argtypes = C.c_char_p, [C.c_void_p]
_raw.PyCapsule_GetPointer.restype, _raw.PyCapsule_GetPointer.argtypes = C.c_void_p, [C.c_void_p, C.c_char_p]

def immortal(thunk):
    """Keep a ctypes callback alive to the end of the process, interpreter shutdown included: a capsule
    that a framework leaks may die (and call its destructor and deleter) after this module is gone."""
    _api.Py_IncRef(C.py_object(thunk))
    return thunk


_api.Py_IncRef.argtypes, _api.Py_IncRef.restype = [C.py_object], None
_api.Py_DecRef.argtypes, _api.Py_DecRef.restype = [C.py_object], None

# capsule names must outlive their capsules: module constants never die
NAMES = {"dltensor": b"dltensor", "dltensor_versioned": b"dltensor_versioned", "used_dltensor": b"used_dltensor",
         "used_dltensor_versioned": b"used_dltensor_versioned"}

# DLPack dtypes by dlx's names: (code, bits)
DTYPES = {
    "bool": (6, 8), "int8": (0, 8), "int16": (0, 16), "int32": (0, 32), "int64": (0, 64), "uint8": (1, 8),
    "uint16": (1, 16), "uint32": (1, 32), "uint64": (1, 64), "float16": (2, 16), "float32": (2, 32),
    "float64": (2, 64), "bfloat16": (4, 16), "complex64": (5, 64), "complex128": (5, 128),
    "float8_e3m4": (7, 8), "float8_e4m3": (8, 8), "float8_e4m3b11fnuz": (9, 8), "float8_e4m3fn": (10, 8),
    "float8_e4m3fnuz": (11, 8), "float8_e5m2": (12, 8), "float8_e5m2fnuz": (13, 8), "float8_e8m0fnu": (14, 8),
}


def itemsize(dtype):
    return DTYPES[dtype][1] // 8


def capsule_name(cap):
    """The name of a PyCapsule as str (None when unnamed); TypeError for anything else."""
    if type(cap).__name__ != "PyCapsule":
        raise TypeError(f"not a PyCapsule: {type(cap).__name__}")
    n = _api.PyCapsule_GetName(cap)
    return None if n is None else n.decode(errors="replace")


def rename(cap, name):
    if _api.PyCapsule_SetName(cap, NAMES[name]) != 0:
        raise RuntimeError("PyCapsule_SetName failed")


class Described:
    """What a DLPack capsule (or a managed tensor at an address) holds, read field by field."""

    def __init__(self, addr, versioned):
        self.addr, self.versioned = addr, versioned
        m = (DLManagedTensorVersioned if versioned else DLManagedTensor).from_address(addr)
        self.managed = m
        self.version = (m.version.major, m.version.minor) if versioned else None
        self.flags = m.flags if versioned else 0
        t = m.dl_tensor
        self.data = t.data or 0
        self.byte_offset = t.byte_offset
        self.device = (t.device.device_type, t.device.device_id)
        self.dtype = (t.dtype.code, t.dtype.bits, t.dtype.lanes)
        self.ndim = t.ndim
        ok = 0 <= t.ndim <= 64 and (t.ndim == 0 or bool(t.shape))
        self.shape = tuple(t.shape[i] for i in range(t.ndim)) if ok and t.ndim else ()
        self.strides = tuple(t.strides[i] for i in range(t.ndim)) if ok and t.ndim and t.strides else None
        self.deleter = m.deleter

    @classmethod
    def of(cls, cap):
        """From an unconsumed capsule; ValueError for another name."""
        name = capsule_name(cap)
        if name not in ("dltensor", "dltensor_versioned"):
            raise ValueError(f"not an unconsumed DLPack capsule: {name!r}")
        return cls(_api.PyCapsule_GetPointer(cap, NAMES[name]), name == "dltensor_versioned")

    @property
    def first(self):
        """Address of element 0."""
        return self.data + self.byte_offset

    @property
    def size(self):
        n = 1
        for e in self.shape:
            n *= e
        return n

    def row_major_strides(self):
        """The strides in effect: the given ones, or compact row-major for NULL."""
        if self.strides is not None:
            return self.strides
        st, acc = [], 1
        for e in reversed(self.shape):
            st.append(acc)
            acc *= max(e, 1)
        return tuple(reversed(st))


def element_offsets(shape, strides):
    """Item offsets of every element from element 0, row-major order."""
    offs = [0]
    for e, s in zip(shape, strides):
        offs = [o + i * s for o in offs for i in range(e)]
    return offs


def read_elements(first, shape, strides, isize):
    """The bytes of every element, row-major, from host memory (a compact copy)."""
    return b"".join(C.string_at(first + o * isize, isize) for o in element_offsets(shape, strides))


def exchange_api(tp):
    """(table, None) for the DLPack 1.3 C exchange API the type advertises, (None, why) when it is not
    usable, (None, None) when it has none."""
    attr = getattr(tp, "__dlpack_c_exchange_api__", None)
    if attr is None:
        return None, None
    if type(attr).__name__ != "PyCapsule" or not _api.PyCapsule_IsValid(attr, b"dlpack_exchange_api"):
        return None, f"__dlpack_c_exchange_api__ is {attr!r}, not a PyCapsule named 'dlpack_exchange_api'"
    h = C.cast(C.c_void_p(_api.PyCapsule_GetPointer(attr, b"dlpack_exchange_api")),
               C.POINTER(DLPackExchangeAPIHeader))
    while h and h.contents.version.major != 1:
        h = h.contents.prev_api
    if not h:
        return None, "no table of major version 1 in the prev_api chain"
    return C.cast(h, C.POINTER(DLPackExchangeAPI)).contents, None


# ---------------------------------------------------------------------------------------------------------
# The reference producer of the consumer checks


class HostBuffer:
    """Host memory the checker owns: 64-byte aligned, so that no consumer refuses it for alignment."""

    device = (KDL_CPU, 0)

    def __init__(self, nbytes):
        self._raw = (C.c_uint8 * (nbytes + 64))()
        self.address = (C.addressof(self._raw) + 63) & ~63
        self.nbytes = nbytes

    def clone(self):
        other = HostBuffer(self.nbytes)
        other.write(self.read())
        return other

    def write(self, data, offset=0):
        C.memmove(self.address + offset, data, len(data))

    def read(self, offset=0, n=None):
        return C.string_at(self.address + offset, self.nbytes - offset if n is None else n)


class Export:
    """An array-like object whose __dlpack__ describes memory of a buffer as the case says, and records
    every call's keywords. fields: shape, strides (None: NULL), byte_offset, dtype, flags, version
    (None: legacy even when a versioned capsule is asked for; always_versioned: versioned even when not),
    device, reported (what __dlpack_device__ says), sloppy (the capsule destructor deletes a "used_"
    capsule's tensor too), code ((code, bits) instead of the dtype's), data_offset (data is that many bytes
    into the buffer), tamper (tamper(managed, tensor, versioned) changes the struct before the capsule is
    made, and may return another capsule name: the hostile cases)."""


    def __init__(self, buffer, shape, dtype, strides="compact", byte_offset=0, flags=0, version=(1, 3),
                 device=None, reported=None, sloppy=False, code=None, data_offset=0, always_versioned=False,
                 tamper=None):
        self.buffer, self.shape, self.dtype = buffer, tuple(shape), dtype
        self.data_offset, self.always_versioned = data_offset, always_versioned
        self.strides = _compact(self.shape) if strides == "compact" else strides
        self.byte_offset, self.flags, self.version, self.sloppy = byte_offset, flags, version, sloppy
        self.code, self.tamper = code, tamper
        self.device = device or buffer.device
        self.reported = reported or self.device
        self.calls, self.capsules, self._keep, self._counts = [], [], [], []
        self.made = 0  # capsules made (a refused call makes none)

    def __dlpack_device__(self):
        return self.reported

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        self.calls.append({"stream": stream, "max_version": max_version, "dl_device": dl_device, "copy": copy})
        versioned = self.version is not None and (self.always_versioned or
                                                  (max_version is not None and max_version[0] >= 1))
        if self.flags & FLAG_READ_ONLY and not versioned and not copy:
            raise BufferError("read-only data cannot be exported as a legacy capsule (it has no READ_ONLY flag)")
        buf = self.buffer
        if copy:
            buf = buf.clone()
        cap = self._capsule(buf, versioned, FLAG_IS_COPIED if copy else 0)
        self.made += 1
        self.capsules.append(cap)
        return cap

    def _capsule(self, buf, versioned, extra_flags):
        nd = len(self.shape)
        shape = (C.c_int64 * max(nd, 1))(*self.shape)
        strides = None if self.strides is None else (C.c_int64 * max(nd, 1))(*self.strides)
        code, bits = self.code or DTYPES[self.dtype]
        t = DLTensor(buf.address + self.data_offset, DLDevice(*self.device), nd, DLDataType(code, bits, 1),
                     C.cast(shape, C.POINTER(C.c_int64)),
                     None if strides is None else C.cast(strides, C.POINTER(C.c_int64)), self.byte_offset)
        if self.size() == 0:
            t.data = None
        count = C.c_int64(0)  # the C deleter counts its calls here (manager_ctx)
        self._counts.append(count)
        destroy_honest, destroy_sloppy, del_versioned, del_legacy = _callbacks()
        if versioned:
            m = DLManagedTensorVersioned(DLPackVersion(*self.version), C.addressof(count), del_versioned,
                                         self.flags | extra_flags, t)
        else:
            m = DLManagedTensor(t, C.addressof(count), del_legacy)
        self._keep.append((m, shape, strides, buf))
        name = NAMES["dltensor_versioned" if versioned else "dltensor"]
        destroy = destroy_sloppy if self.sloppy else destroy_honest
        if self.tamper is not None:  # a hostile case: fields no producer should write, or another name
            other = self.tamper(m, m.dl_tensor, versioned)
            if other is not None and other != name:
                name, destroy = other, None  # a mislabelled capsule: no destructor could read it right
        return _api.PyCapsule_New(C.addressof(m), name, destroy)

    def size(self):
        n = 1
        for e in self.shape:
            n *= e
        return n

    @property
    def deletions(self):
        """Deleter calls so far, over every capsule made."""
        return sum(c.value for c in self._counts)

    def __del__(self):
        # a consumer still holding a tensor (a leak, or an array that outlives this object) reads its struct
        # and calls its deleter when it lets go: then the memory must outlive this object
        if self.deletions < self.made:
            _OUTLIVED.append((self._keep, self._counts))


_OUTLIVED: list = []  # the memory of exports whose consumers have not let go yet: kept to the end of the process


def _callbacks():
    """The reference producer's capsule destructors and deleters: C functions of dlx._dlx (they must run
    no Python code: a consumer may drop a capsule while its exception is pending)."""
    from dlx import _dlx

    return _dlx._check_callbacks()


def _compact(shape):
    st, acc = [], 1
    for e in reversed(shape):
        st.append(acc)
        acc *= max(e, 1)
    return tuple(reversed(st))


def pattern(dtype, n, salt=0):
    """n distinct-looking elements of dtype as bytes, finite in every format (no NaN to canonicalise)."""
    import struct

    code, bits = DTYPES[dtype]
    out = bytearray()
    for i in range(n):
        k = (i + salt) % 97
        v = (k - 48) * 0.25
        if code == 6:
            out += bytes([k % 2])
        elif code in (0, 1):
            out += (k + 1).to_bytes(bits // 8, "little")
        elif code == 2:
            out += struct.pack({16: "<e", 32: "<f", 64: "<d"}[bits], v)
        elif code == 4:
            out += struct.pack("<f", v)[2:]
        elif code == 5:
            fmt = "<ff" if bits == 64 else "<dd"
            out += struct.pack(fmt, v, -v / 2)
        else:  # the float8 formats: bytes 1..63 are finite positive numbers in all of them
            out += bytes([k % 63 + 1])
    return bytes(out)
