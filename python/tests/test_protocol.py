"""dlx.Tensor as a DLPack producer: __dlpack__ arguments, capsule names and the capsule state machine."""

import gc

import numpy as np
import pytest

import dlx
from dlpack_ctypes import FLAG_IS_COPIED, FLAG_READ_ONLY, Owner, Parsed, capsule_name


def _tensor(shape=(3, 4), dtype="float32"):
    t = dlx.zeros(shape, dtype)
    a = np.from_dlpack(t)
    a[...] = np.arange(a.size, dtype=a.dtype).reshape(a.shape)
    return t


def test_version_constants():
    assert dlx.DLPACK_VERSION == (1, 3)
    assert isinstance(dlx.__version__, str) and dlx.__version__


def test_dlpack_device():
    t = _tensor()
    dev = t.__dlpack_device__()
    assert tuple(dev) == (1, 0)
    assert all(isinstance(int(v), int) for v in dev)
    assert t.device == (1, 0)


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({}, "dltensor"),
        ({"max_version": None}, "dltensor"),
        ({"max_version": (0, 8)}, "dltensor"),
        ({"max_version": (1, 0)}, "dltensor_versioned"),
        ({"max_version": (1, 3)}, "dltensor_versioned"),
        ({"max_version": (1, 9)}, "dltensor_versioned"),
        ({"max_version": (2, 0)}, "dltensor_versioned"),
    ],
)
def test_capsule_name_follows_max_version(kwargs, name):
    t = _tensor()
    cap = t.__dlpack__(**kwargs)
    assert capsule_name(cap) == name
    p = Parsed(cap)
    assert p.shape == (3, 4)
    assert p.address == t.data_ptr
    assert p.dtype == (2, 32, 1)
    assert p.device == (1, 0)
    if p.versioned:
        # never a major the consumer did not ask for
        assert p.version[0] == 1
        assert p.flags & FLAG_IS_COPIED == 0
        assert p.strides == (4, 1)  # 1.2+ : strides never NULL


def test_versioned_capsule_fields():
    t = _tensor((2, 3, 5), "int16")
    p = Parsed(t.__dlpack__(max_version=(1, 3)))
    assert p.version == (1, 3)
    assert p.ndim == 3
    assert p.shape == (2, 3, 5)
    assert p.strides == (15, 5, 1)
    assert p.dtype == (0, 16, 1)
    assert p.flags == 0
    assert p.managed.deleter  # dlx always owns something to free


@pytest.mark.parametrize(
    "kwargs",
    [
        {"max_version": "1.3"},
        {"max_version": 1},
        {"max_version": (1,)},
        {"max_version": (1, 2, 3)},
        {"max_version": ("1", "3")},
        {"dl_device": "cpu"},
        {"dl_device": 1},
        {"dl_device": (1,)},
        {"copy": "yes"},
        {"copy": 1.5},
        {"bogus": 1},
    ],
)
def test_malformed_arguments_raise_typeerror(kwargs):
    t = _tensor()
    with pytest.raises(TypeError):
        t.__dlpack__(**kwargs)


def test_arguments_are_keyword_only():
    t = _tensor()
    with pytest.raises(TypeError):
        t.__dlpack__(None)


@pytest.mark.parametrize("stream", [0, 1, 2, -1, 12345])
def test_stream_must_be_none_on_cpu(stream):
    t = _tensor()
    with pytest.raises(BufferError):
        t.__dlpack__(stream=stream)
    with pytest.raises(BufferError):
        t.__dlpack__(stream=stream, max_version=(1, 3))


@pytest.mark.parametrize("device, stream", [((2, 0), 0), ((10, 0), 1), ((10, 0), 2)])
def test_stream_values_the_standard_forbids_on_devices(device, stream):
    """DLPACK.md section 2: CUDA streams may not be 0; ROCm streams may not be 1 or 2."""
    t = dlx.from_dlpack(dlx._testing.make_capsule((2, 2), device=device))
    with pytest.raises((BufferError, ValueError)):
        t.__dlpack__(max_version=(1, 3), stream=stream)


# make_capsule's "device" memory is host memory under a device label: with a CUDA device present the
# export's pointer check (and the stream's event) would refuse it; test_cuda.py covers real device memory
no_cuda_device = pytest.mark.skipif(dlx.cuda.is_available(), reason="a CUDA device is present: fake device memory "
                                    "is refused there (python/tests/test_cuda.py tests real device memory)")


@no_cuda_device
@pytest.mark.parametrize("device, stream", [((2, 0), None), ((2, 0), 1), ((2, 0), 2), ((2, 0), -1), ((2, 0), 12345),
                                            ((10, 0), None), ((10, 0), 0), ((10, 0), 12345)])
def test_stream_values_allowed_on_devices(device, stream):
    """Without a device dlx has queued no CUDA work, so no stream value needs an event."""
    t = dlx.from_dlpack(dlx._testing.make_capsule((2, 2), device=device))
    p = Parsed(t.__dlpack__(max_version=(1, 3), stream=stream))
    assert p.device == device and p.address == t.data_ptr


@no_cuda_device
def test_device_tensors_are_never_copied_on_the_host():
    """Copies of device memory go through the CUDA backend: without a device they fail, never touching the
    memory from the host."""
    t = dlx.from_dlpack(dlx._testing.make_capsule((2, 2), device=(2, 0)))
    with pytest.raises(BufferError):
        t.__dlpack__(max_version=(1, 3), copy=True)
    with pytest.raises(BufferError):
        dlx.from_dlpack(t, copy=True)
    with pytest.raises(BufferError):
        dlx.from_dlpack(t, device="cpu")
    with pytest.raises(BufferError):
        t.__dlpack__(max_version=(1, 3), dl_device=(1, 0))
    p = Parsed(t.__dlpack__(max_version=(1, 3), dl_device=(2, 0)))
    assert p.device == (2, 0) and not p.flags & FLAG_IS_COPIED


def test_stream_none_is_fine():
    t = _tensor()
    assert capsule_name(t.__dlpack__(stream=None, max_version=(1, 3))) == "dltensor_versioned"


@pytest.mark.parametrize("dl_device", [(1, 0), None])
def test_dl_device_cpu_is_zero_copy(dl_device):
    t = _tensor()
    p = Parsed(t.__dlpack__(max_version=(1, 3), dl_device=dl_device))
    assert p.address == t.data_ptr
    assert p.device == (1, 0)
    assert not p.flags & FLAG_IS_COPIED


@pytest.mark.parametrize("dl_device", [(2, 0), (13, 0), (1, 1), (99, 0), (2, 1000)])
def test_dl_device_impossible_raises_buffererror(dl_device):
    if dl_device in ((2, 0), (13, 0)) and dlx.cuda.is_available():
        pytest.skip("a CUDA device is present: the copy succeeds (python/tests/test_cuda.py tests it)")
    t = _tensor()
    with pytest.raises(BufferError):
        t.__dlpack__(max_version=(1, 3), dl_device=dl_device)
    with pytest.raises(BufferError):
        t.__dlpack__(max_version=(1, 3), dl_device=dl_device, copy=False)


def test_copy_true_makes_an_owned_copy_flagged_is_copied(exported_alive):
    t = _tensor((4, 5), "float64")
    src = np.from_dlpack(t)
    cap = t.__dlpack__(max_version=(1, 3), copy=True)
    p = Parsed(cap)
    assert p.flags & FLAG_IS_COPIED
    assert not p.flags & FLAG_READ_ONLY
    assert p.address != t.data_ptr
    view = p.as_numpy(np.float64)
    np.testing.assert_array_equal(view, src)
    src[0, 0] = 42.0  # the copy must not see writes to the original
    assert view[0, 0] == 0.0
    del view, p, src
    assert exported_alive() == 1
    del cap  # unconsumed capsule: its destructor runs the deleter
    assert exported_alive() == 0


def test_copy_true_of_a_strided_view_is_compact():
    base = np.arange(60, dtype=np.int32).reshape(6, 10)
    t = dlx.from_dlpack(base[::2, ::-3])
    cap = t.__dlpack__(max_version=(1, 3), copy=True)
    p = Parsed(cap)
    assert p.flags & FLAG_IS_COPIED
    assert p.shape == (3, 4)
    assert p.strides == (4, 1)
    np.testing.assert_array_equal(p.as_numpy(np.int32), base[::2, ::-3])


def test_copy_false_never_copies():
    t = _tensor()
    p = Parsed(t.__dlpack__(max_version=(1, 3), copy=False))
    assert p.address == t.data_ptr
    assert not p.flags & FLAG_IS_COPIED


def test_copy_true_on_legacy_capsule_copies():
    t = _tensor()
    p = Parsed(t.__dlpack__(copy=True))
    assert p.name == "dltensor"
    assert p.address != t.data_ptr
    np.testing.assert_array_equal(p.as_numpy(np.float32), np.from_dlpack(t))


# --- read-only data -------------------------------------------------------------------------------


def _readonly_tensor():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    a.flags.writeable = False
    t = dlx.from_dlpack(a)
    assert t.readonly is True
    return a, t


def test_readonly_versioned_export_sets_flag():
    a, t = _readonly_tensor()
    p = Parsed(t.__dlpack__(max_version=(1, 3)))
    assert p.flags & FLAG_READ_ONLY
    assert p.address == a.__array_interface__["data"][0]


def test_readonly_legacy_export_raises_buffererror():
    _, t = _readonly_tensor()
    with pytest.raises(BufferError):
        t.__dlpack__()
    with pytest.raises(BufferError):
        t.__dlpack__(max_version=None)


def test_readonly_copy_is_writable():
    a, t = _readonly_tensor()
    p = Parsed(t.__dlpack__(max_version=(1, 3), copy=True))
    assert p.flags & FLAG_IS_COPIED
    assert not p.flags & FLAG_READ_ONLY
    np.testing.assert_array_equal(p.as_numpy(np.float32), a)


def test_numpy_import_of_readonly_dlx_is_readonly():
    a, t = _readonly_tensor()
    b = np.from_dlpack(t)
    assert not b.flags.writeable
    assert b.__array_interface__["data"][0] == a.__array_interface__["data"][0]


# --- the capsule name state machine ---------------------------------------------------------------


@pytest.mark.parametrize("max_version, name", [(None, "dltensor"), ((1, 3), "dltensor_versioned")])
def test_dlx_consumes_its_own_capsule_and_renames_it(max_version, name, exported_alive):
    t = _tensor()
    cap = t.__dlpack__(max_version=max_version)
    assert capsule_name(cap) == name
    assert exported_alive() == 1
    u = dlx.from_dlpack(cap)
    assert capsule_name(cap) == "used_" + name
    assert u.data_ptr == t.data_ptr
    assert u.shape == t.shape
    with pytest.raises((BufferError, ValueError, TypeError)):
        dlx.from_dlpack(cap)  # a used capsule is never consumed twice
    del cap
    assert exported_alive() == 1  # the consumer owns the managed tensor now
    del u
    assert exported_alive() == 0


def test_unconsumed_capsule_is_freed_by_its_destructor(exported_alive):
    t = _tensor()
    caps = [t.__dlpack__(max_version=(1, 3)) for _ in range(5)] + [t.__dlpack__() for _ in range(5)]
    assert exported_alive() == 10
    del caps
    assert exported_alive() == 0


def test_numpy_consumes_dlx_capsule_and_renames_it(exported_alive):
    t = _tensor()
    cap = t.__dlpack__(max_version=(1, 3))
    owner = Owner(cap)
    a = np.from_dlpack(owner)
    assert capsule_name(cap) == "used_dltensor_versioned"
    assert a.__array_interface__["data"][0] == t.data_ptr
    del cap, owner
    assert exported_alive() == 1
    del a
    assert exported_alive() == 0


def test_raw_numpy_capsules_are_consumed():
    a = np.arange(12, dtype=np.int64).reshape(3, 4)
    for cap, used in (
        (a.__dlpack__(), "used_dltensor"),
        (a.__dlpack__(max_version=(1, 0)), "used_dltensor_versioned"),
    ):
        t = dlx.from_dlpack(cap)
        assert capsule_name(cap) == used
        assert t.data_ptr == a.__array_interface__["data"][0]
        assert t.shape == (3, 4) and t.stride == (4, 1) and t.dtype == "int64"
        with pytest.raises((BufferError, ValueError, TypeError)):
            dlx.from_dlpack(cap)


def test_from_dlpack_rejects_other_capsules_and_objects():
    import ctypes

    ctypes.pythonapi.PyCapsule_New.restype = ctypes.py_object
    ctypes.pythonapi.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    buf = ctypes.c_int(0)
    other = ctypes.pythonapi.PyCapsule_New(ctypes.addressof(buf), b"something_else", None)
    with pytest.raises((BufferError, TypeError, ValueError)):
        dlx.from_dlpack(other)
    with pytest.raises(TypeError):
        dlx.from_dlpack(object())
    with pytest.raises(TypeError):
        dlx.from_dlpack([1, 2, 3])
    with pytest.raises(TypeError):
        dlx.from_dlpack(None)


def test_errors_leave_no_half_consumed_capsule(producer):
    """A refused capsule must not be renamed and leaked, nor deleted twice (edge case 9)."""
    cap = producer.capsule(np.zeros(4, np.float32), device=(99, 0))
    with pytest.raises(BufferError):
        dlx.from_dlpack(cap)
    del cap
    gc.collect()
    assert producer.calls == 1
    assert producer.live == 0


# --- producers of every vintage -------------------------------------------------------------------


class _OldProducer:
    """A pre-2023 producer: __dlpack__ takes only `stream`."""

    def __init__(self, arr):
        self.arr = arr
        self.calls = 0

    def __dlpack__(self, stream=None):
        self.calls += 1
        return self.arr.__dlpack__()

    def __dlpack_device__(self):
        return (1, 0)


def test_old_producer_is_retried_without_keywords():
    a = np.arange(5, dtype=np.float32)
    p = _OldProducer(a)
    t = dlx.from_dlpack(p)
    assert p.calls >= 1
    assert t.data_ptr == a.__array_interface__["data"][0]
    np.testing.assert_array_equal(np.from_dlpack(t), a)


class _AskedFor:
    def __init__(self, arr):
        self.arr = arr
        self.kwargs = None

    def __dlpack__(self, **kwargs):
        self.kwargs = kwargs
        return self.arr.__dlpack__(max_version=kwargs.get("max_version"))

    def __dlpack_device__(self):
        return (1, 0)


def test_consumer_asks_for_version_1_3():
    p = _AskedFor(np.zeros(3))
    dlx.from_dlpack(p)
    assert tuple(p.kwargs["max_version"]) == (1, 3)


def test_producer_returning_legacy_when_asked_versioned():
    class Legacy:
        def __init__(self, a):
            self.a = a

        def __dlpack__(self, **kw):
            return self.a.__dlpack__()  # ignores max_version, as allowed

        def __dlpack_device__(self):
            return (1, 0)

    a = np.arange(4, dtype=np.uint16)
    t = dlx.from_dlpack(Legacy(a))
    assert t.dtype == "uint16"
    assert t.data_ptr == a.__array_interface__["data"][0]


# --- an AttributeError inside __dlpack__ is the producer's, not "no __dlpack__" (issue 12) ----------


class _BuggyProducer:
    """A producer whose __dlpack__ has a bug that raises AttributeError."""

    def __dlpack__(self, **kwargs):
        return self.missing_field.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return (1, 0)


def test_attribute_error_inside_dlpack_propagates():
    with pytest.raises(AttributeError, match="missing_field"):
        dlx.from_dlpack(_BuggyProducer())


def test_attribute_error_inside_an_old_producers_dlpack_propagates():
    """The keyword-less retry for old producers reports its own AttributeError too."""

    class OldBuggy:
        def __dlpack__(self, stream=None):
            raise AttributeError("old producer's bug")

    with pytest.raises(AttributeError, match="old producer's bug"):
        dlx.from_dlpack(OldBuggy())


def test_attribute_error_from_a_dlpack_property_propagates():
    class PropertyBuggy:
        @property
        def __dlpack__(self):
            raise AttributeError("property's bug")

    with pytest.raises(AttributeError, match="property's bug"):
        dlx.from_dlpack(PropertyBuggy())


@pytest.mark.parametrize("obj", [object(), [1, 2, 3], None, 3.5], ids=["object", "list", "None", "float"])
def test_no_dlpack_at_all_is_a_typeerror(obj):
    with pytest.raises(TypeError, match=r"does not support DLPack \(no __dlpack__\)"):
        dlx.from_dlpack(obj)


class _Proxy:
    """Forwards every attribute to a target, as wrappers built on __getattr__ do."""

    def __init__(self, target):
        self._target = target

    def __getattr__(self, name):
        return getattr(self._target, name)


def test_a_proxy_forwarding_dlpack_is_imported():
    a = np.arange(4, dtype=np.float32)
    t = dlx.from_dlpack(_Proxy(a))
    assert t.data_ptr == a.__array_interface__["data"][0]


def test_attribute_error_inside_a_forwarded_dlpack_propagates():
    with pytest.raises(AttributeError, match="missing_field"):
        dlx.from_dlpack(_Proxy(_BuggyProducer()))


def test_a_proxy_of_a_non_producer_has_no_dlpack():
    with pytest.raises(TypeError, match=r"'_Proxy' does not support DLPack \(no __dlpack__\)"):
        dlx.from_dlpack(_Proxy(object()))


def test_an_error_looking_for_dlpack_keeps_the_producers_error():
    """A __getattr__ that cannot say whether __dlpack__ exists: its first AttributeError stands."""

    class Flaky:
        def __init__(self):
            self.calls = 0

        def __getattr__(self, name):
            self.calls += 1
            if self.calls == 1:
                raise AttributeError("first look-up failed")
            raise ValueError("second look-up failed")

    with pytest.raises(AttributeError, match="first look-up failed"):
        dlx.from_dlpack(Flaky())
