"""Targets for test_check_isolation.py, named as a user names them (`check_hostile:segv`): producers and
consumers that crash, abort, hang, raise, hand over a mislabelled capsule, leak, drop READ_ONLY, take only
`stream`, or use ctypes.pythonapi the way warp-lang does. Each misbehaves on one case only (the int16
array, say), so that exactly one check fails and the rest of the run shows the report stays whole.

The checker runs them in its worker process (dlx.check.isolate): a crash here never reaches the test.
"""

import ctypes
import os
import time

import dlx
from dlx.check import _capsule as cap
from dlx.check import Adapter
from dlx.check import frameworks as F

import check_peers_broken as B

# what warp-lang does at import: argtypes of its own on the process-wide ctypes.pythonapi objects
ctypes.pythonapi.PyCapsule_GetPointer.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
ctypes.pythonapi.PyCapsule_GetPointer.restype = ctypes.c_void_p
ctypes.pythonapi.PyCapsule_GetName.argtypes = [ctypes.c_void_p]
ctypes.pythonapi.PyCapsule_GetName.restype = ctypes.c_char_p
ctypes.pythonapi.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
ctypes.pythonapi.PyCapsule_New.restype = ctypes.c_void_p
ctypes.pythonapi.PyCapsule_SetName.argtypes = [ctypes.c_void_p, ctypes.c_char_p]

HOST = (cap.KDL_CPU, 0)
_dlx = F.Dlx()


def _tensor(shape, dtype):
    return _dlx.make(shape, dtype, HOST)


def _producer(defect):
    """module:function producer over dlx tensors behind defect(w, kw) -> capsule."""

    def make(shape, dtype, device):
        return B.Wrapper(_tensor(shape, dtype), defect)

    return make


def _on_int16(action):
    def defect(w, kw):
        if w.t.dtype == "int16":
            action()
        return w.t.__dlpack__(**kw)

    return defect


def _segv():
    ctypes.string_at(0)


def _hang():
    time.sleep(3600)


segv = _producer(_on_int16(_segv))
abort = _producer(_on_int16(os.abort))
hang = _producer(_on_int16(_hang))
good = _producer(B.good)  # a correct producer (and, through this module's import, the ctypes clash)


def raise_all(shape, dtype, device):
    raise RuntimeError("this target makes no arrays")


def none_all(shape, dtype, device):
    return None


def _mislabelled(w, kw):
    """the int16 array's versioned capsule carries the name 'dltensor' (the struct stays versioned)"""
    c = w.t.__dlpack__(**kw)
    if w.t.dtype != "int16" or cap.capsule_name(c) != "dltensor_versioned":
        return c
    d = B.take(c)

    def destructor(cap_addr, addr=d.addr):
        if cap._raw.PyCapsule_GetName(cap_addr) == b"dltensor":
            B.call_deleter(addr, True)  # the producer knows what its struct is

    return B.new_capsule(d, name="dltensor", destructor=destructor)


mislabelled = _producer(_mislabelled)


class OldStyle(B.Wrapper):
    """__dlpack__(stream=None) only, as DLPack producers before the 2023.12 Array API (and warp-lang)"""

    def __getitem__(self, key):
        return OldStyle(self.t[key], self.defect)

    @property
    def T(self):
        return OldStyle(self.t.T, self.defect)

    def __dlpack__(self, stream=None):
        if stream is not None:
            raise BufferError("host memory has no stream")
        return self.t.__dlpack__()


def old_style(shape, dtype, device):
    return OldStyle(_tensor(shape, dtype), None)


def _leak(w, kw):
    """every export holds a reference to the array that nothing gives back, behind a NULL deleter"""
    c = w.t.__dlpack__(**kw)
    d = B.take(c)
    cap._api.Py_IncRef(ctypes.py_object(w))
    d.managed.deleter = None
    return B.new_capsule(d)


leaky = _producer(_leak)


def drops_read_only(shape, dtype, device, readonly=False):
    """asked for a read-only array, it makes one whose versioned exports lack READ_ONLY"""
    t = _tensor(shape, dtype)
    if readonly:
        return B.Wrapper(_dlx.make_readonly(t), B.writable)
    return B.Wrapper(t, B.good)


# ---- consumers: dlx.from_dlpack, misbehaving on the int16 capsule


def _consumer(action):
    def from_dlpack(x, **kw):
        if getattr(x, "dtype", None) == "int16":  # the checker's producer (dlx.check.Export) says its dtype
            action()
        return dlx.from_dlpack(x, **kw)

    return from_dlpack


consumer_segv = _consumer(_segv)
consumer_abort = _consumer(os.abort)
consumer_hang = _consumer(_hang)


# ---- adapters (docs/conformance.md): what __array_interface__ would say, for arrays that lack it


class OddDtype:
    """A framework's dtype object that NumPy cannot convert, named as Paddle names its dtypes."""

    def __init__(self, name):
        self.name = name

    def __str__(self):
        return f"paddle.{self.name}"


class UnsupportedDtype(Exception):
    """What this make-believe framework raises for a dtype it lacks."""


class DlxAdapter(Adapter):
    """dlx tensors behind the Wrapper (no __array_interface__), with every hook an adapter can give."""

    name, version = "dlx-adapter", "1.0"
    refusals = (UnsupportedDtype,)

    def dtypes(self, dev):
        return ["bool", "int16", "float32", "complex64"]

    def make(self, shape, dtype, dev):
        return B.Wrapper(_tensor(shape, dtype), B.good)

    def make_readonly(self, x):
        return B.Wrapper(_dlx.make_readonly(x.t), B.good)

    def readonly(self, x):
        return x.t.readonly

    def data_ptr(self, x):
        return x.t.data_ptr

    def strides(self, x):
        return tuple(x.t.stride)

    def values(self, x):
        import numpy as np

        return np.from_dlpack(F.Dlx().dlx.from_dlpack(x.t, copy=True))  # a NumPy array, not bytes

    def consumer_dtypes(self):
        return ["bool", "int16", "float32", "bfloat16"]

    def from_dlpack(self, obj, **kw):
        if getattr(obj, "dtype", None) == "bfloat16":
            raise UnsupportedDtype("no bfloat16 here")
        return dlx.from_dlpack(obj, **kw)

    def read(self, y):
        import numpy as np

        return np.from_dlpack(dlx.from_dlpack(y, copy=True))

    def dtype_of(self, y):
        return OddDtype(y.dtype)


class BuggyAdapter(DlxAdapter):
    """DlxAdapter whose values() and strides() hooks raise: a bug of the adapter, not a fact of the framework."""

    name = "buggy-adapter"

    def values(self, x):
        raise KeyError("adapter bug in values")

    def strides(self, x):
        raise ZeroDivisionError("adapter bug in strides")
