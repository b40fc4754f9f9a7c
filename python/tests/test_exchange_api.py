"""The DLPack 1.3 C exchange API, called through ctypes.

Producer side: dlx.Tensor.__dlpack_c_exchange_api__ and its five functions.
Consumer side: dlx.from_dlpack on types that advertise a table (built here with ctypes), in the 1.3
spelling (capsule) and the 1.2 one (an int), with a prev_api chain; __dlpack__ must not be called.
"""

import ctypes as C
import gc

import numpy as np
import pytest

import dlx
from dlpack_ctypes import (
    FLAG_READ_ONLY,
    FN_ALLOCATOR,
    FN_DLTENSOR_FROM_PY,
    FN_FROM_PY,
    FN_STREAM,
    FN_TO_PY,
    SET_ERROR,
    DLDataType,
    DLDevice,
    DLPackExchangeAPI,
    DLPackVersion,
    DLTensor,
    Parsed,
    Producer,
    exchange_api,
)

T = dlx._testing
_api = C.pythonapi
_api.PyCapsule_New.restype = C.py_object
_api.PyCapsule_New.argtypes = [C.c_void_p, C.c_char_p, C.c_void_p]
_api.Py_DecRef.argtypes = [C.c_void_p]
_api.Py_DecRef.restype = None


@pytest.fixture(scope="module")
def api():
    a = exchange_api(dlx.Tensor)
    assert a is not None
    return a


def _steal_object(addr):
    """A Python object from a new reference returned through void** (the reference is taken over)."""
    obj = C.cast(addr, C.py_object).value
    _api.Py_DecRef(addr)
    return obj


# --- the table dlx advertises -----------------------------------------------------------------------


def test_capsule_on_the_type():
    from dlpack_ctypes import capsule_name

    cap = dlx.Tensor.__dlpack_c_exchange_api__
    assert type(cap).__name__ == "PyCapsule"
    assert capsule_name(cap) == "dlpack_exchange_api"
    assert type(dlx.zeros((1,))) is dlx.Tensor
    assert exchange_api(dlx.Tensor) is not None


def test_header_and_functions(api):
    assert (api.header.version.major, api.header.version.minor) == (1, 3)
    assert not api.header.prev_api  # nothing older to chain to
    for name in ("managed_tensor_allocator", "managed_tensor_from_py_object_no_sync",
                 "managed_tensor_to_py_object_no_sync", "dltensor_from_py_object_no_sync", "current_work_stream"):
        assert getattr(api, name), f"{name} is NULL"


def test_current_work_stream_is_null_on_cpu(api):
    stream = C.c_void_p(123)
    assert FN_STREAM(api.current_work_stream)(1, 0, C.byref(stream)) == 0
    assert stream.value is None


def test_managed_tensor_from_py_object(api, exported_alive):
    t = dlx.zeros((3, 4), "int32")
    np.from_dlpack(t)[...] = np.arange(12).reshape(3, 4)
    out = C.c_void_p()
    assert FN_FROM_PY(api.managed_tensor_from_py_object_no_sync)(id(t), C.byref(out)) == 0
    p = Parsed(managed_addr=out.value)
    assert p.version == (1, 3)
    assert p.flags == 0
    assert p.shape == (3, 4) and p.strides == (4, 1)
    assert p.dtype == (0, 32, 1)
    assert p.device == (1, 0)
    assert p.address == t.data_ptr
    np.testing.assert_array_equal(p.as_numpy(np.int32), np.arange(12).reshape(3, 4))
    assert exported_alive() == 1
    del t
    gc.collect()
    assert exported_alive() == 1  # the managed tensor keeps the memory
    p.delete()
    assert exported_alive() == 0


def test_managed_tensor_from_py_object_readonly(api):
    a = np.arange(4.0)
    a.flags.writeable = False
    t = dlx.from_dlpack(a)
    out = C.c_void_p()
    assert FN_FROM_PY(api.managed_tensor_from_py_object_no_sync)(id(t), C.byref(out)) == 0
    p = Parsed(managed_addr=out.value)
    assert p.flags & FLAG_READ_ONLY
    p.delete()


def test_managed_tensor_from_py_object_rejects_other_types(api):
    out = C.c_void_p()
    a = np.zeros(3)
    with pytest.raises(TypeError, match="numpy.ndarray"):
        FN_FROM_PY(api.managed_tensor_from_py_object_no_sync)(id(a), C.byref(out))


def test_dltensor_from_py_object_is_non_owning(api, exported_alive):
    t = dlx.from_dlpack(np.arange(24, dtype=np.float64).reshape(4, 6)[1:, ::-2])
    dl = DLTensor()
    assert FN_DLTENSOR_FROM_PY(api.dltensor_from_py_object_no_sync)(id(t), C.byref(dl)) == 0
    assert (dl.data or 0) + dl.byte_offset == t.data_ptr
    assert dl.ndim == 2
    assert [dl.shape[i] for i in range(2)] == [3, 3]
    assert [dl.strides[i] for i in range(2)] == [6, -2]
    assert (dl.dtype.code, dl.dtype.bits, dl.dtype.lanes) == (2, 64, 1)
    assert (dl.device.device_type, dl.device.device_id) == (1, 0)
    assert exported_alive() == 0
    other = object()  # kept alive: id() of a temporary names freed memory by the time C reads it
    with pytest.raises(TypeError):
        FN_DLTENSOR_FROM_PY(api.dltensor_from_py_object_no_sync)(id(other), C.byref(dl))


def test_managed_tensor_to_py_object(api, producer):
    a = np.arange(10, dtype=np.int16)[::2]
    addr, _ = producer.managed(a)
    out = C.c_void_p()
    assert FN_TO_PY(api.managed_tensor_to_py_object_no_sync)(addr, C.byref(out)) == 0
    t = _steal_object(out.value)
    assert isinstance(t, dlx.Tensor)
    assert t.data_ptr == a.__array_interface__["data"][0]
    assert t.shape == (5,) and t.stride == (2,) and t.dtype == "int16"
    assert producer.calls == 0
    del t
    gc.collect()
    assert producer.calls == 1


def test_managed_tensor_to_py_object_failure_still_deletes(api):
    producer = Producer()  # not the fixture: a failed deleter callback would leave its leak check failing too
    addr, _ = producer.managed(np.zeros(3, np.float32), version=(2, 0))
    out = C.c_void_p()
    with pytest.raises(BufferError):
        FN_TO_PY(api.managed_tensor_to_py_object_no_sync)(addr, C.byref(out))
    gc.collect()
    assert producer.calls == 1  # it steals the tensor: on failure its deleter runs at once


def test_round_trip_through_the_table(api, exported_alive):
    t = dlx.zeros((2, 5), "float32")
    out = C.c_void_p()
    assert FN_FROM_PY(api.managed_tensor_from_py_object_no_sync)(id(t), C.byref(out)) == 0
    obj = C.c_void_p()
    assert FN_TO_PY(api.managed_tensor_to_py_object_no_sync)(out.value, C.byref(obj)) == 0
    u = _steal_object(obj.value)
    assert u.data_ptr == t.data_ptr and u.shape == t.shape
    del t
    gc.collect()
    assert exported_alive() == 1
    del u
    assert exported_alive() == 0


def _proto(shape, code=2, bits=32, device=(1, 0)):
    shp = (C.c_int64 * max(len(shape), 1))(*shape)
    dl = DLTensor()
    dl.data = None
    dl.device = DLDevice(*device)
    dl.ndim = len(shape)
    dl.dtype = DLDataType(code, bits, 1)
    dl.shape = C.cast(shp, C.POINTER(C.c_int64))
    dl.strides = None
    return dl, shp


def test_allocator(api, exported_alive):
    dl, keep = _proto((3, 4))
    out = C.c_void_p()
    errors = []
    cb = SET_ERROR(lambda ctx, kind, msg: errors.append((kind, msg)))
    assert FN_ALLOCATOR(api.managed_tensor_allocator)(C.byref(dl), C.byref(out), None, cb) == 0
    assert not errors
    p = Parsed(managed_addr=out.value)
    assert p.shape == (3, 4) and p.strides == (4, 1) and p.dtype == (2, 32, 1) and p.device == (1, 0)
    assert p.address != 0
    view = p.as_numpy(np.float32)
    view[...] = 1.5  # writable host memory
    obj = C.c_void_p()
    assert FN_TO_PY(api.managed_tensor_to_py_object_no_sync)(out.value, C.byref(obj)) == 0
    t = _steal_object(obj.value)
    assert t.shape == (3, 4) and t.dtype == "float32"
    np.testing.assert_array_equal(np.from_dlpack(t), np.full((3, 4), 1.5, np.float32))
    del view, p, t
    assert exported_alive() == 0


def test_allocator_reports_errors_through_set_error(api):
    dl, keep = _proto((3,), device=(2, 1000))  # a CUDA device no machine has
    out = C.c_void_p()
    errors = []
    cb = SET_ERROR(lambda ctx, kind, msg: errors.append((kind.decode(), msg.decode())))
    assert FN_ALLOCATOR(api.managed_tensor_allocator)(C.byref(dl), C.byref(out), None, cb) == -1
    assert len(errors) == 1
    assert errors[0][0] == "BufferError"
    # a build without CUDA says what it needs; a CUDA build on a machine without a GPU says there is none
    assert ("cannot allocate on cuda:1000, which needs a build with CUDA" in errors[0][1]
            or "device cuda:1000 does not exist: no CUDA device is present" in errors[0][1]
            or "device cuda:1000 does not exist (" in errors[0][1]), errors


def test_allocator_without_set_error_raises(api):
    dl, keep = _proto((3,), code=99, bits=8)
    out = C.c_void_p()
    with pytest.raises(BufferError, match="99"):
        FN_ALLOCATOR(api.managed_tensor_allocator)(C.byref(dl), C.byref(out), None, SET_ERROR())


def test_testing_exchange_allocate():
    t = T.exchange_allocate((4, 2), "float64")
    assert isinstance(t, dlx.Tensor)
    assert t.shape == (4, 2) and t.dtype == "float64" and t.is_contiguous


# --- dlx as a consumer of other types' tables -------------------------------------------------------

_PRODUCER = Producer()  # module-lifetime: the tables below live for the whole process, as DLPack requires
_KEEP = []


class _Table:
    """A DLPackExchangeAPI whose managed_tensor_from_py_object_no_sync exports obj.arr via _PRODUCER."""

    def __init__(self, version=(1, 3), prev=None):
        self.calls = 0
        self.fail = False

        def from_py(obj_addr, out):
            self.calls += 1
            obj = C.cast(obj_addr, C.py_object).value
            addr, _ = _PRODUCER.managed(obj.arr, version=obj.managed_version)
            out[0] = addr
            return 0

        def unused(*args):
            return -1

        self._cbs = [
            C.CFUNCTYPE(C.c_int, C.c_void_p, C.c_void_p, C.c_void_p, C.c_void_p)(unused),
            C.CFUNCTYPE(C.c_int, C.c_void_p, C.POINTER(C.c_void_p))(from_py),
            C.CFUNCTYPE(C.c_int, C.c_void_p, C.c_void_p)(unused),
            C.CFUNCTYPE(C.c_int, C.c_int32, C.c_int32, C.c_void_p)(unused),
        ]
        self.struct = DLPackExchangeAPI()
        self.struct.header.version = DLPackVersion(*version)
        if prev is not None:
            self.struct.header.prev_api = C.cast(C.addressof(prev.struct), type(self.struct.header.prev_api))
        self.struct.managed_tensor_allocator = C.cast(self._cbs[0], C.c_void_p)
        self.struct.managed_tensor_from_py_object_no_sync = C.cast(self._cbs[1], C.c_void_p)
        self.struct.managed_tensor_to_py_object_no_sync = C.cast(self._cbs[2], C.c_void_p)
        self.struct.dltensor_from_py_object_no_sync = None
        self.struct.current_work_stream = C.cast(self._cbs[3], C.c_void_p)
        self.capsule = _api.PyCapsule_New(C.addressof(self.struct), b"dlpack_exchange_api", None)
        _KEEP.append(self)


def _make_type(table, spelling):
    def __dlpack__(self, **kw):
        raise AssertionError("__dlpack__ must not be called when the type has a C exchange API")

    def __init__(self, arr, managed_version=(1, 3)):
        self.arr = arr
        self.managed_version = managed_version

    attrs = {
        "__init__": __init__,
        "__dlpack__": __dlpack__,
        "__dlpack_device__": lambda self: (1, 0),
    }
    if spelling == "1.3":
        attrs["__dlpack_c_exchange_api__"] = table.capsule
    else:
        attrs["__c_dlpack_exchange_api__"] = C.addressof(table.struct)
    cls = type(f"Producer{spelling.replace('.', '')}", (), attrs)
    _KEEP.append(cls)
    return cls


_T13 = _Table()
_T12 = _Table()
_T_OLD = _Table(version=(1, 3))
_T_NEW = _Table(version=(2, 0), prev=_T_OLD)
_CLS13 = _make_type(_T13, "1.3")
_CLS12 = _make_type(_T12, "1.2")
_CLS_CHAIN = _make_type(_T_NEW, "1.3")


@pytest.mark.parametrize("cls, table", [(_CLS13, _T13), (_CLS12, _T12)], ids=["1.3-capsule", "1.2-int"])
def test_consumer_uses_the_table(cls, table):
    before = table.calls
    live = _PRODUCER.live
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = dlx.from_dlpack(cls(a))
    assert table.calls == before + 1
    assert t.data_ptr == a.__array_interface__["data"][0]
    assert t.shape == (3, 4) and t.dtype == "float32"
    dlx.from_dlpack(cls(a))  # cached per type: works again
    assert table.calls == before + 2
    del t
    gc.collect()
    assert _PRODUCER.live == live


def test_consumer_walks_prev_api():
    a = np.arange(3, dtype=np.int8)
    t = dlx.from_dlpack(_CLS_CHAIN(a))
    assert _T_OLD.calls >= 1 and _T_NEW.calls == 0
    assert t.data_ptr == a.__array_interface__["data"][0]


def test_consumer_refuses_wrong_major_from_the_table():
    calls = _PRODUCER.calls
    with pytest.raises(BufferError):
        dlx.from_dlpack(_CLS13(np.zeros(2), managed_version=(2, 0)))
    gc.collect()
    assert _PRODUCER.calls == calls + 1  # deleted exactly once


def test_consumer_honours_readonly_and_alignment_through_the_table():
    raw = np.zeros(64, np.uint8)
    start = (-raw.__array_interface__["data"][0]) % 16 + 4
    a = raw[start:start + 16].view(np.float32)
    with pytest.raises(BufferError):
        dlx.from_dlpack(_CLS13(a), assumed_align=16)
    t = dlx.from_dlpack(_CLS13(a), assumed_align=4)
    assert t.alignment == 4
