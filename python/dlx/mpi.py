"""dlx.mpi: dlx tensors over MPI (mpi4py), with the right datatype and reductions for every dtype.

``import dlx`` never imports this module nor mpi4py; ``import dlx.mpi`` imports ``mpi4py.MPI`` (which
initializes MPI unless ``mpi4py.rc.initialize`` says otherwise). Tested with mpi4py 4.1 over Open MPI 4.1.

mpi4py takes dlx tensors as they are (DLPack), but without a datatype it sends bfloat16 and the float8
formats as MPI.BYTE, so that ``comm.Allreduce(a, b, op=MPI.SUM)`` adds bytes, not numbers. This module
gives each dlx dtype its MPI datatype and each (op, dtype) pair an MPI op that computes what dlx computes
locally, and wraps the common calls so that tensors reach mpi4py as (buffer, count, datatype) triples.

Datatypes (``datatype(t_or_dtype)``):

==========================================  =====================================================
dlx dtype                                   MPI datatype
==========================================  =====================================================
bool                                        MPI.C_BOOL
int8 int16 int32 int64                      MPI.INT8_T ... MPI.INT64_T
uint8 uint16 uint32 uint64                  MPI.UINT8_T ... MPI.UINT64_T
float32 float64                             MPI.FLOAT, MPI.DOUBLE
complex64 complex128                        MPI.C_FLOAT_COMPLEX, MPI.C_DOUBLE_COMPLEX
float16, bfloat16, the eight float8         "dlx.<dtype>": contiguous MPI.BYTE of the item size,
formats (float8_e4m3fn, float8_e5m2, ...)   created, named and committed once per process
int128 uint128 float128 complex32, vector   "dlx.<dtype>": contiguous bytes (transfer only)
types (float32x4), opaque<N>
float6_e2m3fn float6_e3m2fn float4_e2m1fn   TypeError: packed sub-byte elements have no MPI
                                            datatype; ``t.astype("float16")`` holds them exactly
==========================================  =====================================================

Reductions (``op(name, dtype)``; names "sum", "prod", "min", "max"):

- int*, uint*, float32, float64: MPI's own MPI.SUM / PROD / MIN / MAX. Overflow is MPI's business:
  Open MPI 4.1's AVX op component saturates 8- and 16-bit integer sums that overflow (open-mpi/ompi#8045,
  closed as wontfix) where dlx wraps; ``mpirun --mca op ^avx`` (or OMPI_MCA_op=^avx) turns it off, and
  the sums then wrap as dlx's do (the tests check both).
- complex64, complex128: MPI.SUM and MPI.PROD; min and max raise TypeError (complex numbers are
  unordered: dlx refuses ``<`` on them too).
- bool: as dlx's bool arithmetic and NumPy's bool-typed reductions: sum is MPI.LOR (dlx's bool ``+`` is
  or), prod and min are MPI.LAND, max is MPI.LOR.
- float16, bfloat16 and every float8 format: four user-defined commutative MPI ops (``MPI.Op.Create``),
  one per reduction, created on first use; each finds the format from the datatype MPI passes it, so they
  work with this module's datatypes only (any other ends the process: an exception inside an op is fatal
  in mpi4py). They run dlx's reduction kernels on the CPU (``dlx.sum``, ``prod``, ``min``, ``max`` over axis
  0 of the two buffers copied into the rows of one tensor): sum and prod accumulate in float32 and round
  once, so a sum is ``(a.astype("float32") + b.astype("float32")).astype(dt)`` but for -0 + -0, which is
  +0 (a dlx sum starts from +0.0, as NumPy's), and a reduction over two ranks equals the local
  ``dlx.sum`` of the two bit for bit (over more ranks, MPI chooses the order in which the
  partial results combine, each rounded to the dtype, as with MPI.SUM on float32). A NaN result is dlx's
  canonical quiet NaN. min and max select one of the operands bit for bit, as dlx.min / dlx.max and IEEE
  754-2019 minimum / maximum: NaN wins, -0 < +0, and between two NaNs the one with the smaller bit
  pattern, so that the op is commutative bit for bit.
  (Native float32/float64 min/max are MPI's own: Open MPI's ``a < b ? a : b`` leaves NaN and +0/-0
  to the order.)
- Everything else (int128, uint128, float128, complex32, vector types, opaque): TypeError naming the
  dtype and op, since dlx has no arithmetic on them either. fp6/fp4 (packed): refused everywhere.

Wrappers (``comm`` is an mpi4py communicator; buffers are dlx tensors or any DLPack object, e.g. a NumPy
array; every check is local and happens before any communication):

- ``allreduce(comm, sendbuf, recvbuf=None, op="sum")``, ``reduce(comm, sendbuf, recvbuf=None, op="sum",
  root=0)``: ``sendbuf`` may be ``MPI.IN_PLACE`` (recvbuf then holds the input); recvbuf None allocates a
  C-contiguous dlx tensor like sendbuf. ``op``: a name, MPI.SUM/PROD/MIN/MAX (treated as the names), or
  any other MPI.Op (passed through unchanged: your op, your datatype contract).
- ``bcast(comm, buf, root=0)``, ``send(comm, buf, dest, tag=0)``, ``recv(comm, buf, source=ANY_SOURCE,
  tag=ANY_TAG, status=None)``: every dtype that has a datatype.
- Strided (not C-contiguous) buffers: a send buffer is packed into a C-contiguous copy first; a receive
  buffer gets a C-contiguous temporary that MPI fills, then ``buf.copy_(temporary)`` writes it back (an
  in-place buffer is copied in first). The elements between a view's strides are never touched.
- Read-only receive buffers raise BufferError naming the buffer (mpi4py's own message does not say which).
- ``message(t)`` gives the ``[t, count, datatype]`` triple for calling mpi4py yourself (C-contiguous t).

The narrow-float reductions compute on the CPU, so they need host-accessible memory (cpu, cuda_host,
cuda_managed, rocm_host); transfers and native reductions of device tensors go to mpi4py unchanged
(a CUDA-aware MPI is then needed). Buffers reach mpi4py through DLPack (``__dlpack__``).
"""

import ctypes as _C
import threading as _threading

try:
    from mpi4py import MPI
except ImportError as _e:  # pragma: no cover - depends on the machine
    raise ImportError(
        "dlx.mpi needs mpi4py and an MPI library: apt-get install libopenmpi-dev openmpi-bin; "
        f"pip install mpi4py ({_e})"
    ) from _e

import dlx as _dlx

__all__ = ["MPI", "IN_PLACE", "OPS", "datatype", "op", "message", "allreduce", "reduce", "bcast", "send", "recv"]

IN_PLACE = MPI.IN_PLACE
OPS = ("sum", "prod", "min", "max")

_NATIVE = {
    "bool": "C_BOOL",
    "int8": "INT8_T", "int16": "INT16_T", "int32": "INT32_T", "int64": "INT64_T",
    "uint8": "UINT8_T", "uint16": "UINT16_T", "uint32": "UINT32_T", "uint64": "UINT64_T",
    "float32": "FLOAT", "float64": "DOUBLE",
    "complex64": "C_FLOAT_COMPLEX", "complex128": "C_DOUBLE_COMPLEX",
}
_NARROW = (
    "float16", "bfloat16", "float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fn",
    "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu",
)
_PACKED = ("float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn")
_COMPLEX = ("complex64", "complex128")
_MPI_OP_NAMES = {"sum": "SUM", "prod": "PROD", "min": "MIN", "max": "MAX"}
_BOOL_OPS = {"sum": "LOR", "prod": "LAND", "min": "LAND", "max": "LOR"}
_HOST_DEVICES = (1, 3, 11, 13)  # kDLCPU, kDLCUDAHost, kDLROCMHost, kDLCUDAManaged

_lock = _threading.Lock()
_datatypes = {}  # dlx dtype name -> MPI.Datatype
_ops = {}  # op name -> the user-defined MPI.Op of the narrow formats
_narrow_by_handle = {}  # datatype.py2f() -> (dlx dtype, item size, "uint8"/"uint16"), narrow formats only


# ---------------------------------------------------------------------------------------------
# dtypes and datatypes


def _dtype_name(x):
    """The canonical dlx dtype name of a tensor, a DLPack object or a dtype spec (as dlx.empty takes it)."""
    if isinstance(x, _dlx.Tensor):
        return x.dtype
    if not isinstance(x, (str, type)) and hasattr(x, "__dlpack__"):
        return _dlx.from_dlpack(x).dtype
    return _dlx.empty((0,), x).dtype


def datatype(t_or_dtype):
    """The MPI datatype of one element of a dlx dtype (a tensor, a DLPack object or a dtype spec).

    Native MPI types where MPI has the type; float16, bfloat16, the float8 formats and the types MPI
    lacks get a contiguous byte type of their item size named "dlx.<dtype>", committed once per process.
    float6/float4 (packed, several elements to a byte) raise TypeError.
    """
    name = _dtype_name(t_or_dtype)
    dt = _datatypes.get(name)
    if dt is not None:
        return dt
    if name in _PACKED:
        raise TypeError(
            f"dlx.mpi: {name} has no MPI datatype: its elements are packed (several to a byte) and MPI "
            f"addresses whole bytes; convert first, e.g. t.astype('float16') holds every {name} value exactly"
        )
    with _lock:
        dt = _datatypes.get(name)
        if dt is None:
            if name in _NATIVE:
                dt = getattr(MPI, _NATIVE[name])
            else:
                itemsize = _dlx.empty((0,), name).itemsize
                dt = MPI.BYTE.Create_contiguous(itemsize)
                dt.Set_name(f"dlx.{name}")
                dt.Commit()
                if name in _NARROW:
                    _narrow_by_handle[dt.py2f()] = (name, itemsize, f"uint{8 * itemsize}")
            _datatypes[name] = dt
    return dt


# ---------------------------------------------------------------------------------------------
# Wrapping MPI's buffers (inside a user-defined op) as dlx tensors: a DLPack capsule made with ctypes


class _DLDevice(_C.Structure):
    _fields_ = [("device_type", _C.c_int32), ("device_id", _C.c_int32)]


class _DLDataType(_C.Structure):
    _fields_ = [("code", _C.c_uint8), ("bits", _C.c_uint8), ("lanes", _C.c_uint16)]


class _DLTensor(_C.Structure):
    _fields_ = [
        ("data", _C.c_void_p), ("device", _DLDevice), ("ndim", _C.c_int32), ("dtype", _DLDataType),
        ("shape", _C.POINTER(_C.c_int64)), ("strides", _C.POINTER(_C.c_int64)), ("byte_offset", _C.c_uint64),
    ]


class _DLManagedTensorVersioned(_C.Structure):
    _fields_ = [
        ("version_major", _C.c_uint32), ("version_minor", _C.c_uint32), ("manager_ctx", _C.c_void_p),
        ("deleter", _C.c_void_p), ("flags", _C.c_uint64), ("dl_tensor", _DLTensor),
    ]


_FLAG_READ_ONLY = 1
_kept = {}  # address of a managed tensor -> the ctypes objects it points into, until dlx deletes it


@_C.CFUNCTYPE(None, _C.c_void_p)
def _deleter(address):
    _kept.pop(address, None)


_capsule_new = _C.pythonapi.PyCapsule_New
_capsule_new.restype = _C.py_object
_capsule_new.argtypes = [_C.c_void_p, _C.c_char_p, _C.c_void_p]


def _wrap(address, count, itemsize, dtype, readonly):
    """A 1-D dlx tensor of `count` elements of `dtype` over memory dlx does not own (alive meanwhile)."""
    shape = (_C.c_int64 * 1)(count)
    strides = (_C.c_int64 * 1)(1)
    m = _DLManagedTensorVersioned()
    m.version_major, m.version_minor = 1, 0
    m.deleter = _C.cast(_deleter, _C.c_void_p)
    m.flags = _FLAG_READ_ONLY if readonly else 0
    m.dl_tensor.data = address
    m.dl_tensor.device = _DLDevice(1, 0)
    m.dl_tensor.ndim = 1
    m.dl_tensor.dtype = _DLDataType(1, 8 * itemsize, 1)  # uint8 / uint16, viewed as dtype below
    m.dl_tensor.shape = shape
    m.dl_tensor.strides = strides
    key = _C.addressof(m)
    _kept[key] = (m, shape, strides)
    try:
        t = _dlx.from_dlpack(_capsule_new(key, b"dltensor_versioned", None), assumed_align=1)
    except BaseException:
        _kept.pop(key, None)
        raise
    return t.view(dtype)


# ---------------------------------------------------------------------------------------------
# The narrow-float reductions, with dlx's reduction kernels (dlx.sum, prod, min, max over the pair)


def _pair(a, b):
    """a and b as the rows of one (2, n) tensor: a copy, since a view spanning both buffers would also span
    whatever lies between them (dlx_reduce refuses an out inside its input's span)."""
    p = _dlx.empty((2, a.size), a.dtype)
    p[0].copy_(a)
    p[1].copy_(b)
    return p


def _reduction(name):
    # The reduction over the pair's axis 0, into inoutbuf: sum and prod accumulate in float32 and round
    # once, exactly (a + b) in float32 rounded to the dtype; min and max select one operand's bits
    # (NaN wins, of two NaNs the smaller bit pattern; -0 < +0), so the op is commutative bit for bit.
    reduce = getattr(_dlx, name)

    def kernel(pair, b):
        b.copy_(reduce(pair, axis=0))

    return kernel


_KERNELS = {name: _reduction(name) for name in ("sum", "prod", "min", "max")}


def _user_op(name):
    """One user-defined op per reduction for every narrow format (mpi4py has room for few user ops): it
    finds the format from the datatype MPI passes, which must be one of this module's."""
    kernel = _KERNELS[name]

    def fn(inbuf, inoutbuf, mpi_datatype):
        # MPI hands over count * extent bytes of the call's datatype. An exception here ends the process
        # (mpi4py's "Fatal Python error"), which is what a datatype this op cannot read deserves.
        entry = _narrow_by_handle.get(mpi_datatype.py2f())
        if entry is None:
            raise TypeError(f"dlx.mpi: the {name} op got datatype {mpi_datatype.Get_name()!r}, not one of dlx.mpi's")
        dtype, itemsize, _ = entry
        n = inoutbuf.nbytes // itemsize
        if n == 0:
            return
        a = _wrap(inbuf.address, n, itemsize, dtype, True)
        b = _wrap(inoutbuf.address, n, itemsize, dtype, False)
        kernel(_pair(a, b), b)

    return MPI.Op.Create(fn, commute=True)


def op(name, t_or_dtype):
    """The MPI op that reduces `t_or_dtype` (a tensor, DLPack object or dtype spec) by `name`.

    `name`: "sum", "prod", "min" or "max". Native dtypes get MPI's own ops (bool: the logical ones);
    float16, bfloat16 and the float8 formats get a user-defined op computing in float32 with dlx's kernels
    (created once per process). TypeError for a pair that cannot be done, naming both.
    """
    if not isinstance(name, str) or name.lower() not in _MPI_OP_NAMES:
        raise ValueError(f"dlx.mpi: unknown reduction {name!r} (expected one of {', '.join(OPS)})")
    name = name.lower()
    dtype = _dtype_name(t_or_dtype)
    if dtype == "bool":
        return getattr(MPI, _BOOL_OPS[name])
    if dtype in _COMPLEX:
        if name in ("min", "max"):
            raise TypeError(f"dlx.mpi: {name} is not defined for {dtype}: complex numbers are unordered")
        return getattr(MPI, _MPI_OP_NAMES[name])
    if dtype in _NATIVE:
        return getattr(MPI, _MPI_OP_NAMES[name])
    if dtype in _NARROW:
        datatype(dtype)  # registers the format with the ops
        o = _ops.get(name)
        if o is None:
            with _lock:
                o = _ops.get(name)
                if o is None:
                    o = _ops[name] = _user_op(name)
        return o
    if dtype in _PACKED:
        raise TypeError(
            f"dlx.mpi: {name} is not supported for {dtype}: packed sub-byte elements have no MPI datatype; "
            f"reduce t.astype('float16') (exact) instead"
        )
    raise TypeError(f"dlx.mpi: {name} is not supported for {dtype}: dlx has no arithmetic on {dtype}")


# ---------------------------------------------------------------------------------------------
# Wrappers


def _tensor(x, fn, what):
    if isinstance(x, _dlx.Tensor):
        return x
    if x is None or not hasattr(x, "__dlpack__"):
        raise TypeError(f"dlx.mpi.{fn}: {what} must be a dlx.Tensor or a DLPack object, not {type(x).__name__}")
    return _dlx.from_dlpack(x)


def _packed(t):
    """t itself when C-contiguous, else a C-contiguous copy."""
    return t if t.is_contiguous else _dlx.empty(t.shape, t.dtype).copy_(t)


def _writable(t, fn, what):
    if t.readonly:
        raise BufferError(f"dlx.mpi.{fn}: {what} is read-only ({t.dtype} {t.shape}): MPI cannot receive into it")


def message(t):
    """[t, count, datatype] for mpi4py's uppercase calls; t must be C-contiguous (BufferError otherwise)."""
    t = _tensor(t, "message", "t")
    if not t.is_contiguous:
        raise BufferError(f"dlx.mpi.message: the tensor is not C-contiguous (layout {t.layout}): pack it first")
    return [t, t.size, datatype(t)]


def _resolve_op(o, dtype, fn):
    if isinstance(o, str):
        return op(o, dtype)
    if isinstance(o, MPI.Op):
        for name, mpi_name in _MPI_OP_NAMES.items():
            if o == getattr(MPI, mpi_name):
                return op(name, dtype)
        return o
    raise TypeError(f"dlx.mpi.{fn}: op must be a name ({', '.join(OPS)}) or an MPI.Op, not {type(o).__name__}")


def _check_host(t, o, fn):
    if o in _ops.values() and t.device[0] not in _HOST_DEVICES:
        raise BufferError(
            f"dlx.mpi.{fn}: the {t.dtype} reduction runs on the CPU; the tensor is on device {t.device}: "
            "copy it to host memory first"
        )


def _reduce_args(fn, sendbuf, recvbuf, o, at_root):
    """Checks and buffers for allreduce / reduce: (send message or IN_PLACE, recv tensor, packed recv, op)."""
    if sendbuf is IN_PLACE:
        if not at_root:
            raise ValueError(f"dlx.mpi.{fn}: IN_PLACE is for the root only")
        if recvbuf is None:
            raise ValueError(f"dlx.mpi.{fn}: sendbuf IN_PLACE needs recvbuf (it holds the input)")
        r = _tensor(recvbuf, fn, "recvbuf")
        _writable(r, fn, "recvbuf")
        mpi_op = _resolve_op(o, r.dtype, fn)
        _check_host(r, mpi_op, fn)
        dt = datatype(r)
        work = _packed(r)
        return IN_PLACE, r, work, [work, work.size, dt], mpi_op
    s = _tensor(sendbuf, fn, "sendbuf")
    mpi_op = _resolve_op(o, s.dtype, fn)
    dt = datatype(s)
    _check_host(s, mpi_op, fn)
    s_packed = _packed(s)
    smsg = [s_packed, s.size, dt]
    if not at_root:
        return smsg, None, None, None, mpi_op
    if recvbuf is None:
        r = _dlx.empty(s.shape, s.dtype)
    else:
        r = _tensor(recvbuf, fn, "recvbuf")
        _writable(r, fn, "recvbuf")
        if r.dtype != s.dtype or r.size != s.size:
            raise ValueError(
                f"dlx.mpi.{fn}: recvbuf ({r.dtype}, {r.size} elements) does not match sendbuf "
                f"({s.dtype}, {s.size} elements)"
            )
        _check_host(r, mpi_op, fn)
    work = r if r.is_contiguous else _dlx.empty(r.shape, r.dtype)
    return smsg, r, work, [work, work.size, dt], mpi_op


def allreduce(comm, sendbuf, recvbuf=None, op="sum"):
    """Reduce `sendbuf` over `comm` into `recvbuf` on every rank; returns recvbuf (a new tensor if None).

    `op`: "sum", "prod", "min", "max" (or MPI.SUM/PROD/MIN/MAX, or any other MPI.Op, passed through).
    `sendbuf` may be ``dlx.mpi.IN_PLACE``: recvbuf then holds the input. A strided sendbuf is packed into
    a C-contiguous copy; a strided recvbuf gets a C-contiguous temporary that is copied back with
    ``copy_``. A read-only recvbuf raises BufferError. All checks run before any communication.
    """
    smsg, r, work, rmsg, mpi_op = _reduce_args("allreduce", sendbuf, recvbuf, op, True)
    comm.Allreduce(smsg, rmsg, op=mpi_op)
    if work is not r:
        r.copy_(work)
    return r if recvbuf is None else recvbuf


def reduce(comm, sendbuf, recvbuf=None, op="sum", root=0):
    """Reduce `sendbuf` over `comm` onto `root`; returns recvbuf there (a new tensor if None), None elsewhere.

    Arguments as in :func:`allreduce`; recvbuf is ignored on the other ranks, and IN_PLACE is the root's.
    """
    at_root = comm.Get_rank() == root
    smsg, r, work, rmsg, mpi_op = _reduce_args("reduce", sendbuf, recvbuf, op, at_root)
    comm.Reduce(smsg, rmsg, op=mpi_op, root=root)
    if not at_root:
        return None
    if work is not r:
        r.copy_(work)
    return r if recvbuf is None else recvbuf


def bcast(comm, buf, root=0):
    """Broadcast `buf` from `root` into `buf` on every other rank (same dtype and size there); returns buf.

    On the root buf may be read-only or strided (packed first); elsewhere it must be writable (BufferError
    otherwise), and a strided one is filled through a C-contiguous temporary and ``copy_``.
    """
    t = _tensor(buf, "bcast", "buf")
    dt = datatype(t)
    if comm.Get_rank() == root:
        p = _packed(t)
        comm.Bcast([p, t.size, dt], root=root)
        return buf
    _writable(t, "bcast", "buf")
    work = t if t.is_contiguous else _dlx.empty(t.shape, t.dtype)
    comm.Bcast([work, t.size, dt], root=root)
    if work is not t:
        t.copy_(work)
    return buf


def send(comm, buf, dest, tag=0):
    """Send `buf` to rank `dest` (blocking). A strided buf is packed into a C-contiguous copy first."""
    t = _tensor(buf, "send", "buf")
    dt = datatype(t)
    comm.Send([_packed(t), t.size, dt], dest=dest, tag=tag)


def recv(comm, buf, source=MPI.ANY_SOURCE, tag=MPI.ANY_TAG, status=None):
    """Receive into `buf` (blocking) from `source` with `tag` (default: any of either); returns buf.

    buf must be writable (BufferError otherwise); a strided buf is filled through a C-contiguous temporary
    and ``copy_``. A message longer than buf is MPI's truncation error.
    """
    t = _tensor(buf, "recv", "buf")
    dt = datatype(t)
    _writable(t, "recv", "buf")
    work = t if t.is_contiguous else _dlx.empty(t.shape, t.dtype)
    comm.Recv([work, t.size, dt], source=source, tag=tag, status=status)
    if work is not t:
        t.copy_(work)
    return buf
