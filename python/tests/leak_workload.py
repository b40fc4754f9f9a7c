"""A leak-checked workload for scripts/test_python_asan.sh: every dlx entry point that allocates, run many
times on several threads, with nothing but dlx, ctypes and the standard library imported.

Why a separate script: LeakSanitizer reports memory that is unreachable when the process exits. NumPy,
JAX and PyTorch keep objects past exit by design (NumPy alone leaves ~3 KB at `import numpy`), so the
pytest run is leak-checked only where it can be: here, where every allocation at exit would be dlx's
own. The script releases everything it made before it returns, so a report means dlx lost memory.
(At interpreter exit dlx deliberately skips a producer's deleter, which may need Python; that is
tested for crashes in test_stress.py, never for leaks.)

    LD_PRELOAD=... ASAN_OPTIONS=detect_leaks=1 PYTHONPATH=build-pyasan/site python python/tests/leak_workload.py [rounds]
"""

import ctypes as C
import gc
import sys
import threading

import dlx

T = dlx._testing
ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 200

# The DLPack 1.3 C exchange API table, read with ctypes (the layout is the standard's; python/tests/
# dlpack_ctypes.py has the same declarations but imports NumPy).
_api = C.pythonapi
_api.PyCapsule_GetPointer.restype = C.c_void_p
_api.PyCapsule_GetPointer.argtypes = [C.py_object, C.c_char_p]
_api.PyCapsule_SetName.restype = C.c_int
_api.PyCapsule_SetName.argtypes = [C.py_object, C.c_char_p]
_api.Py_DecRef.argtypes = [C.c_void_p]
_api.Py_DecRef.restype = None


class DLDevice(C.Structure):
    _fields_ = [("device_type", C.c_int32), ("device_id", C.c_int32)]


class DLDataType(C.Structure):
    _fields_ = [("code", C.c_uint8), ("bits", C.c_uint8), ("lanes", C.c_uint16)]


class DLTensor(C.Structure):
    _fields_ = [("data", C.c_void_p), ("device", DLDevice), ("ndim", C.c_int32), ("dtype", DLDataType),
                ("shape", C.POINTER(C.c_int64)), ("strides", C.POINTER(C.c_int64)), ("byte_offset", C.c_uint64)]


class ExchangeAPI(C.Structure):
    _fields_ = [("major", C.c_uint32), ("minor", C.c_uint32), ("prev", C.c_void_p), ("allocator", C.c_void_p),
                ("from_py", C.c_void_p), ("to_py", C.c_void_p), ("dltensor_from_py", C.c_void_p),
                ("stream", C.c_void_p)]


API = ExchangeAPI.from_address(_api.PyCapsule_GetPointer(dlx.Tensor.__dlpack_c_exchange_api__, b"dlpack_exchange_api"))
SET_ERROR = C.CFUNCTYPE(None, C.c_void_p, C.c_char_p, C.c_char_p)
ALLOC = C.PYFUNCTYPE(C.c_int, C.POINTER(DLTensor), C.POINTER(C.c_void_p), C.c_void_p, SET_ERROR)
FROM_PY = C.PYFUNCTYPE(C.c_int, C.c_void_p, C.POINTER(C.c_void_p))
TO_PY = C.PYFUNCTYPE(C.c_int, C.c_void_p, C.POINTER(C.c_void_p))
DLT_FROM_PY = C.PYFUNCTYPE(C.c_int, C.c_void_p, C.POINTER(DLTensor))
DELETER = C.CFUNCTYPE(None, C.c_void_p)  # ctypes drops the GIL for the call, as a C consumer would run


def delete(addr):
    DELETER(C.c_void_p.from_address(addr + 16).value)(addr)  # DLManagedTensorVersioned.deleter


def expect(exc, fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except exc:
        return
    raise AssertionError(f"{fn.__name__}{args} did not raise {exc.__name__}")


def one_round(k, made):
    shape = [(), (k % 7,), (3, k % 5 + 1), (2, 3, 4)][k % 4]
    dtype = ["float32", "int8", "float64", "bool", "complex64", "bfloat16", "float8_e4m3fn", "float4_e2m1fn"][k % 8]
    t = dlx.zeros(shape, dtype)
    e = dlx.empty(shape, "int32")
    repr(t), t.layout, t.layout_key, t.shape, t.stride, t.dtype, t.element_type, t.nbytes
    # exports: versioned and legacy capsules, dropped unconsumed or consumed, and copies
    caps = [t.__dlpack__(max_version=(1, 3)), t.__dlpack__(), e.__dlpack__(max_version=(1, 3), copy=True)]
    u = dlx.from_dlpack(caps[0])
    expect(BufferError, dlx.from_dlpack, caps[0])
    v = dlx.from_dlpack(caps[2], copy=True)
    w = dlx.from_dlpack(u, assumed_align=1)
    x = dlx.from_dlpack(t, copy=True)
    del caps
    # producer capsules: consumed, dropped, refused, read-only
    made[0] += 6
    a = dlx.from_dlpack(T.make_capsule((4, 3), "int16", strides=(1, 4)))
    b = dlx.from_dlpack(T.make_capsule((5,), versioned=False))
    T.make_capsule((2, 2))
    for kw in ({"version": (2, 0)}, {"device": (99, 0)}):
        expect(BufferError, dlx.from_dlpack, T.make_capsule((3,), **kw))
    r = dlx.from_dlpack(T.make_capsule((3,), readonly=True))
    expect(BufferError, r.__dlpack__)  # read-only data has no legacy capsule
    # layout marking, with and without errors
    m = dlx.from_dlpack(dlx.zeros((4, 6, 2)))
    m.mark_compact_shape_dynamic(mode=1, divisibility=2)
    expect(ValueError, m.mark_compact_shape_dynamic, mode=0, divisibility=5)
    expect(ValueError, dlx.zeros((2, 1, 1)).mark_layout_dynamic)  # three stride-1 dims: no leading dim
    # the C exchange API: export, import (steals), non-owning view, allocator
    out = C.c_void_p()
    assert FROM_PY(API.from_py)(id(t), C.byref(out)) == 0
    managed = out.value
    if k % 3 == 0:
        delete(managed)
    elif k % 3 == 1:
        th = threading.Thread(target=delete, args=(managed,))  # released without the GIL, elsewhere
        th.start()
        th.join()
    else:
        obj = C.c_void_p()
        assert TO_PY(API.to_py)(managed, C.byref(obj)) == 0
        back = C.cast(obj.value, C.py_object).value
        _api.Py_DecRef(obj.value)
        del back
    dl = DLTensor()
    assert DLT_FROM_PY(API.dltensor_from_py)(id(t), C.byref(dl)) == 0
    proto = DLTensor()
    proto.ndim = 2
    dims = (C.c_int64 * 2)(3, k % 4)
    proto.shape = C.cast(dims, C.POINTER(C.c_int64))
    proto.dtype = DLDataType(2, 32, 1)
    proto.device = DLDevice(1, 0)
    assert ALLOC(API.allocator)(C.byref(proto), C.byref(out), None, SET_ERROR()) == 0
    delete(out.value)
    proto.device = DLDevice(10, 0)  # refused: dlx has no ROCm backend
    errors = []
    assert ALLOC(API.allocator)(C.byref(proto), C.byref(out), None, SET_ERROR(lambda ctx, kind, msg: errors.append(kind))) == -1
    assert errors == [b"BufferError"]
    # argument errors
    expect(ValueError, dlx.zeros, (2,), "float")
    expect(TypeError, dlx.from_dlpack, object())
    expect(TypeError, t.__dlpack__, max_version="1.3")
    del t, e, u, v, w, x, a, b, r, m


def main():
    gc.collect()
    base_calls, base_alive = T.deleter_calls(), T.exported_alive()
    made = [0]
    one_round(0, made)
    errors = []
    counts = [[0] for _ in range(4)]

    def worker(i):
        try:
            for k in range(ROUNDS):
                one_round(k * 4 + i, counts[i])
        except BaseException as exc:  # noqa: BLE001 - reported by the main thread
            errors.append(repr(exc))

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors, errors
    gc.collect()
    made_total = made[0] + sum(c[0] for c in counts)
    calls, alive = T.deleter_calls() - base_calls, T.exported_alive() - base_alive
    assert calls == made_total, (calls, made_total)
    assert alive == 0, alive
    print(f"leak workload: {4 * ROUNDS + 1} rounds on 4 threads, {made_total} producer deleters run once each, "
          f"0 exports left")


if __name__ == "__main__":
    main()
